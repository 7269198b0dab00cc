/**
 * `npm start`: the quickstart end to end, on this machine, in well under a minute.
 *
 * It starts a local ChatBot API simulator, deploys examples/quickstart against it, shows what was
 * created, changes a connection behind the program's back through the API, shows
 * `pulumi preview --refresh --expect-no-changes` finding the drift, puts it right with refresh and
 * up, destroys everything and checks the simulator is empty. It exits 0 only if every step behaved
 * as expected.
 *
 * Pulumi runs as the real `pulumi` CLI: the one on PATH, else the one pinned in tools/pulumi,
 * built on first use (scripts/pulumi-path.js). Runs are hermetic: a file backend and PULUMI_HOME
 * in a temporary folder (so the user's own `pulumi login` is left alone), no update check and no
 * plugin download.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ChatbotSimulator, type StoredConnection } from "pulumi-chatbot/testing";
import { PulumiStack, pulumiCli } from "./pulumiStack";

const ROOT = path.resolve(__dirname, "..");
const EXAMPLE = path.join(ROOT, "examples", "quickstart");
const PROJECT = "chatbot-quickstart";
const STORY_ID = "5f3c0d1e2a4b6c8d9e0f1a2b";
const BACKEND_URL = "https://bot-backend.example.com";
const HAND_MADE_URL = "https://old-backend.example.com/chatbot/support";
const COMMAND_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// How Pulumi is run
// ---------------------------------------------------------------------------------------------

/** One planned or made change, as a preview reports it. */
interface PlannedStep {
    name: string;
    op: string;
    /** Names of the properties that differ, where the runner knows them. */
    keys?: string[];
}

interface Outcome {
    exitCode: number;
    /** The custom resources' steps (not the stack's), where the runner reports them. */
    steps?: PlannedStep[];
    log: string;
}

interface PreviewFlags {
    refresh?: boolean;
    expectNoChanges?: boolean;
}

/**
 * The quickstart's stack, through the `pulumi` CLI (./pulumiStack.ts: hermetic, a file backend in
 * a temporary folder). The example is copied to a temporary folder with a `node_modules` link to
 * this repository's, so the stack's config file (Pulumi.<stack>.yaml) is written beside the copy,
 * not into examples/.
 */
class QuickstartStack {
    readonly description: string;
    /** Where the stack's state lives. */
    readonly stateLocation: string;

    private constructor(
        private readonly stack: PulumiStack,
        private readonly copy: string,
    ) {
        this.description = `the pulumi CLI (${pulumiCli()}) with a local file backend`;
        this.stateLocation = path.join(stack.scratch, "backend", ".pulumi", "stacks", PROJECT, `${stack.name}.json`);
    }

    get name(): string {
        return this.stack.name;
    }

    /** Copies the example and runs `pulumi stack init`. */
    static async create(): Promise<QuickstartStack> {
        const copy = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-quickstart-"));
        const projectDir = path.join(copy, "quickstart");
        fs.cpSync(EXAMPLE, projectDir, { recursive: true, filter: (src) => !src.includes("node_modules") });
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(projectDir, "node_modules"), "dir");
        const noTsNode = Object.keys(process.env).filter((k) => k.startsWith("TS_NODE_"));
        try {
            const stack = await PulumiStack.create({
                projectDir,
                stack: `quickstart-${crypto.randomBytes(3).toString("hex")}`,
                env: {
                    // tsc type-checks the example (npm run typecheck); ts-node only transpiles it here.
                    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
                    ...Object.fromEntries(noTsNode.map((k) => [k, undefined])),
                },
            });
            return new QuickstartStack(stack, copy);
        } catch (e) {
            fs.rmSync(copy, { recursive: true, force: true });
            throw e;
        }
    }

    /** `pulumi config set [--secret]`. These values are this run's own (random, for a local
     *  simulator); with real secrets, run `pulumi config set --secret <key>` and type the value. */
    setConfig(key: string, value: string, secret: boolean): Promise<void> {
        return this.stack.setConfig({ [key]: secret ? { secret: value } : value });
    }

    async preview(flags: PreviewFlags = {}): Promise<Outcome> {
        const args = ["preview", "--json"];
        if (flags.refresh) args.push("--refresh");
        if (flags.expectNoChanges) args.push("--expect-no-changes");
        const r = await this.stack.pulumi(args, { timeoutMs: COMMAND_TIMEOUT_MS });
        return { exitCode: r.code, steps: parsePreviewJson(r.stdout), log: r.stdout + r.stderr };
    }
    up(): Promise<Outcome> {
        return this.command(["up", "--yes"]);
    }
    refresh(): Promise<Outcome> {
        return this.command(["refresh", "--yes"]);
    }
    destroy(): Promise<Outcome> {
        return this.command(["destroy", "--yes"]);
    }

    /** `pulumi stack output`: values as a person sees them, secrets as "[secret]". */
    async outputs(): Promise<Record<string, string>> {
        const r = await this.stack.pulumi(["stack", "output", "--json"]);
        if (r.code !== 0) throw new Error(`pulumi stack output failed (exit ${r.code}): ${r.stderr.trim()}`);
        const values = JSON.parse(r.stdout) as Record<string, unknown>;
        return Object.fromEntries(
            Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
        );
    }

    /** `pulumi stack rm --yes`, and the temporary folders. */
    async remove(): Promise<void> {
        try {
            await this.stack.pulumi(["stack", "rm", "--yes"]);
        } finally {
            this.stack.dispose();
            fs.rmSync(this.copy, { recursive: true, force: true });
        }
    }

    private async command(args: string[]): Promise<Outcome> {
        const r = await this.stack.pulumi(args, { timeoutMs: COMMAND_TIMEOUT_MS });
        return { exitCode: r.code, log: r.stdout + r.stderr };
    }
}

/** `pulumi preview --json`: its `steps`, the connections only. Undefined when it cannot be read. */
function parsePreviewJson(stdout: string): PlannedStep[] | undefined {
    try {
        const doc = JSON.parse(stdout) as { steps?: Array<{ op?: string; urn?: string; diffReasons?: string[] }> };
        if (!Array.isArray(doc.steps)) return undefined;
        return doc.steps
            .filter(
                (s) =>
                    typeof s.urn === "string" && s.urn.includes("::pulumi-nodejs:dynamic/chatbot:WebhookConnection::"),
            )
            .map((s) => ({
                name: (s.urn as string).split("::").pop() ?? "",
                op: s.op ?? "",
                ...(Array.isArray(s.diffReasons) && s.diffReasons.length ? { keys: s.diffReasons } : {}),
            }));
    } catch {
        return undefined;
    }
}

// ---------------------------------------------------------------------------------------------
// The steps
// ---------------------------------------------------------------------------------------------

export interface QuickstartOptions {
    /** Where each line of the report goes. Default: stdout. */
    print?: (line: string) => void;
}

export interface QuickstartReport {
    ok: boolean;
    /** The pulumi CLI that ran it. */
    pulumi: string;
    /** The steps that did not behave as expected (empty when ok). */
    failures: string[];
    durationMs: number;
}

/** A step that did not behave as expected. */
class StepFailed extends Error {}

/** What exists, so a failed run can still clean up. */
interface Progress {
    /** The step under way, named in a failure. */
    step: string;
    deployed: boolean;
    destroyed: boolean;
    removed: boolean;
}

export async function main(opts: QuickstartOptions = {}): Promise<QuickstartReport> {
    const started = Date.now();
    const lines: string[] = [];
    const print = (line = ""): void => {
        lines.push(line);
        (opts.print ?? ((l: string) => process.stdout.write(`${l}\n`)))(line);
    };
    const pulumi = pulumiCli(); // built first when absent, before the simulator starts

    // The secret values of this run: none of them may appear in what is printed.
    const secrets = {
        webhookToken: `wt-${crypto.randomBytes(12).toString("hex")}`,
        basicPassword: `bp-${crypto.randomBytes(12).toString("hex")}`,
    };
    const failures: string[] = [];

    const sim = await ChatbotSimulator.start({ stories: { [STORY_ID]: "Orders and support" } });
    let runner: QuickstartStack | undefined;
    const progress: Progress = { step: "start", deployed: false, destroyed: false, removed: false };
    try {
        runner = await QuickstartStack.create();
        print("pulumi-chatbot quickstart: examples/quickstart against a local ChatBot API simulator");
        print(`Pulumi runs as ${runner.description}.`);
        print();
        await steps(runner, sim, secrets, print, progress);
    } catch (e) {
        const text = e instanceof Error ? e.message : String(e);
        const message = e instanceof StepFailed ? text : `${progress.step}: ${text}`;
        failures.push(message);
        print(`  FAILED: ${message}`);
    } finally {
        // Leave nothing behind, even after a failed step.
        if (runner && progress.deployed && !progress.destroyed) await runner.destroy().catch(() => undefined);
        if (runner && !progress.removed) await runner.remove().catch(() => undefined);
        await sim.close();
    }
    for (const line of lines) {
        if (Object.values(secrets).some((s) => line.includes(s)) || line.includes(sim.token)) {
            failures.push("a secret value was printed");
            break;
        }
    }
    const durationMs = Date.now() - started;
    print();
    print(
        failures.length === 0
            ? `Done in ${(durationMs / 1000).toFixed(1)} s: every step behaved as expected.`
            : `Quickstart FAILED after ${(durationMs / 1000).toFixed(1)} s: ${failures.join("; ")}`,
    );
    return { ok: failures.length === 0, pulumi, failures, durationMs };
}

async function steps(
    pulumi: QuickstartStack,
    sim: ChatbotSimulator,
    secrets: { webhookToken: string; basicPassword: string },
    print: (line?: string) => void,
    progress: Progress,
): Promise<void> {
    let n = 0;
    const begin = (what: string): void => {
        progress.step = what;
    };
    const step = (text: string): void => print(`${++n}. ${text}`);
    const detail = (text: string): void => print(`   ${text}`);
    const expect = (ok: boolean, what: string, outcome?: Outcome): void => {
        if (ok) return;
        const tail = outcome
            ? `\n--- pulumi's output ---\n${outcome.log.trim().split("\n").slice(-30).join("\n")}`
            : "";
        throw new StepFailed(`${progress.step}: ${what}${tail}`);
    };
    const writes = (): number => sim.requests.filter((r) => r.method !== "GET").length;

    step(`Started the ChatBot API simulator at ${sim.url} (in memory, loopback only).`);

    begin("config set");
    const plain: Record<string, string> = {
        storyId: STORY_ID,
        backendUrl: BACKEND_URL,
        environment: "production",
        "chatbot:apiUrl": sim.url,
    };
    const secret: Record<string, string> = { "chatbot:token": sim.token, ...secrets };
    for (const [k, v] of Object.entries(plain)) await pulumi.setConfig(k, v, false);
    for (const [k, v] of Object.entries(secret)) await pulumi.setConfig(k, v, true);
    step(`Stack "${pulumi.name}" of ${PROJECT}: stack config set.`);
    detail(
        `plain:  ${Object.entries(plain)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ")}`,
    );
    detail(`secret: ${Object.keys(secret).join(", ")} (values not shown)`);
    detail(`State: ${pulumi.stateLocation} (secret values encrypted with the stack's passphrase)`);

    // -- preview ----------------------------------------------------------------------------------
    begin("pulumi preview");
    sim.resetRequests();
    const preview = await pulumi.preview();
    expect(preview.exitCode === 0, `pulumi preview exited with ${preview.exitCode}`, preview);
    if (preview.steps) {
        const planned = preview.steps
            .filter((s) => s.op === "create")
            .map((s) => s.name)
            .sort();
        expect(planned.join() === "orders,support", `preview planned ${JSON.stringify(preview.steps)}`, preview);
    }
    expect(sim.listConnections().length === 0 && writes() === 0, "preview changed the simulator", preview);
    step(
        `pulumi preview: would create orders and support. The simulator still has 0 connections: a preview changes nothing.`,
    );

    // -- up ---------------------------------------------------------------------------------------
    begin("pulumi up");
    progress.deployed = true;
    const up = await pulumi.up();
    expect(up.exitCode === 0, `pulumi up exited with ${up.exitCode}`, up);
    const created = byName(sim.listConnections());
    const orders = created.get("orders");
    const support = created.get("support");
    if (created.size !== 2 || !orders || !support) {
        throw new StepFailed(
            `${progress.step}: up left ${created.size} connections${orders && support ? "" : " (orders or support missing)"}`,
        );
    }
    expect(
        orders.url === `${BACKEND_URL}/chatbot/orders` && orders.token === secrets.webhookToken,
        "orders is not as declared",
    );
    expect(
        support.url === `${BACKEND_URL}/chatbot/support` &&
            support.auth?.password === secrets.basicPassword &&
            support.headers?.["X-Orders-Connection"] === orders.id,
        "support is not as declared",
    );
    step("pulumi up --yes: created 2 connections (read back from the simulator):");
    for (const c of [orders, support]) detail(describeConnection(c));
    const outputs = await pulumi.outputs();
    expect(
        outputs.ordersConnectionId === orders.id && outputs.supportConnectionId === support.id,
        `stack outputs ${JSON.stringify(outputs)} do not name the connections`,
    );
    detail(
        `Stack outputs: ${Object.entries(outputs)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ")}`,
    );

    // -- drift ------------------------------------------------------------------------------------
    begin("the change by hand");
    await editThroughApi(sim, support.id, { url: HAND_MADE_URL });
    step(`Changed "support" behind the program's back, with a PUT to the ChatBot API: url is now ${HAND_MADE_URL}`);

    begin("pulumi preview --refresh --expect-no-changes (drift)");
    sim.resetRequests();
    const check = await pulumi.preview({ refresh: true, expectNoChanges: true });
    expect(check.exitCode !== 0, "preview --refresh --expect-no-changes did not fail on drift", check);
    if (check.steps) {
        const update = check.steps.find((s) => s.name === "support" && s.op === "update");
        expect(!!update, `the drift check did not plan an update of support: ${JSON.stringify(check.steps)}`, check);
    }
    expect(
        sim.getConnection(support.id)?.url === HAND_MADE_URL && writes() === 0,
        "the drift check changed the simulator",
    );
    step(
        `pulumi preview --refresh --expect-no-changes: drift found, exit code ${check.exitCode} (a CI drift check fails here).`,
    );
    const planned = check.steps?.find((s) => s.name === "support" && s.op === "update");
    detail(
        `Planned: update support${planned?.keys ? ` (${planned.keys.join(", ")})` : ""}. Nothing was changed: support still has the hand-made url.`,
    );

    begin("pulumi refresh");
    const refresh = await pulumi.refresh();
    expect(refresh.exitCode === 0, `pulumi refresh exited with ${refresh.exitCode}`, refresh);
    expect(sim.getConnection(support.id)?.url === HAND_MADE_URL, "refresh changed the connection");
    step("pulumi refresh --yes: the state now records what ChatBot has (the hand-made url).");

    begin("pulumi up (after the refresh)");
    const fix = await pulumi.up();
    expect(fix.exitCode === 0, `pulumi up exited with ${fix.exitCode}`, fix);
    const fixed = sim.getConnection(support.id);
    expect(fixed?.url === `${BACKEND_URL}/chatbot/support`, `support's url is ${fixed?.url} after up`, fix);
    expect(sim.listConnections().length === 2 && sim.getConnection(orders.id) !== undefined, "up replaced connections");
    step(`pulumi up --yes: updated support in place (same id): its url is ${fixed?.url} again.`);

    begin("pulumi preview --refresh --expect-no-changes (clean)");
    const clean = await pulumi.preview({ refresh: true, expectNoChanges: true });
    expect(clean.exitCode === 0, `the drift check still fails (exit ${clean.exitCode})`, clean);
    step("pulumi preview --refresh --expect-no-changes: no drift, no changes (exit code 0).");

    // -- destroy ----------------------------------------------------------------------------------
    begin("pulumi destroy");
    const destroy = await pulumi.destroy();
    progress.destroyed = destroy.exitCode === 0;
    expect(destroy.exitCode === 0, `pulumi destroy exited with ${destroy.exitCode}`, destroy);
    const left = sim.listConnections();
    expect(left.length === 0, `${left.length} connections left after destroy`, destroy);
    step("pulumi destroy --yes: deleted orders and support. The simulator has 0 connections left.");

    begin("pulumi stack rm");
    await pulumi.remove();
    progress.removed = true;
    step(`Removed stack "${pulumi.name}" and its state.`);
}

function byName(cs: StoredConnection[]): Map<string, StoredConnection> {
    return new Map(cs.map((c) => [c.name, c]));
}

/** A connection without its secret values: which ones are set, and header names only. */
function describeConnection(c: StoredConnection): string {
    const extras = [
        c.token !== undefined ? "token set" : undefined,
        c.auth ? `basic auth as "${c.auth.username}"` : undefined,
        c.headers ? `headers ${Object.keys(c.headers).join(", ")}` : undefined,
    ].filter(Boolean);
    return `${c.name.padEnd(8)} ${c.id}  ${c.url}  (${extras.join("; ")})`;
}

/** Changes a connection as a person in the dashboard would: read it, PUT it back changed. */
async function editThroughApi(sim: ChatbotSimulator, id: string, change: { url: string }): Promise<void> {
    const address = `${sim.url}/v2/integrations/webhook/${id}`;
    const headers = { authorization: `Bearer ${sim.token}`, "content-type": "application/json" };
    const got = await fetch(address, { headers, signal: AbortSignal.timeout(10_000) });
    if (!got.ok) throw new Error(`reading connection ${id} through the API answered HTTP ${got.status}`);
    const c = (await got.json()) as StoredConnection;
    const body = { name: c.name, url: change.url, token: c.token, headers: c.headers, auth: c.auth };
    const put = await fetch(address, {
        method: "PUT",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
    });
    if (!put.ok) throw new Error(`changing connection ${id} through the API answered HTTP ${put.status}`);
}

if (require.main === module) {
    main().then(
        (report) => process.exit(report.ok ? 0 : 1),
        (e: unknown) => {
            console.error(e);
            process.exit(1);
        },
    );
}
