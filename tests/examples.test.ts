/**
 * The runnable examples, whole: each program goes through preview, up, preview with no change, a
 * change of its stack config, up, a change by hand, refresh and destroy, with the local ChatBot
 * API simulator checked after every step.
 *
 * - examples/quickstart runs through the program stand-in (tests/engine/program.ts): the SDK's own
 *   program runner, the real dynamic-provider plugin, state in a file.
 * - examples/backend-alongside cannot reach AWS here. Its wiring is checked under
 *   `pulumi.runtime.setMocks` (the connection's url is the function URL output, secrets stay
 *   secret), and its lifecycle runs through the stand-in with the AWS resources mocked (echoed,
 *   plus the outputs AWS would compute: names, ARNs, the function URL).
 * - examples/pipelines.md: the CI drift check and a pull request's preview.
 * - `npm start`: scripts/quickstart.ts run as a process, with the stand-in.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { pathToFileURL } from "url";
import * as pulumi from "@pulumi/pulumi";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import { isSecret, UNKNOWN, type PropertyMap } from "./engine/plugin";
import {
    CHANGES_EXIT_CODE,
    FAILURE_EXIT_CODE,
    readStackState,
    runPulumi,
    summarize,
    type ConfigValue,
    type ProgramStep,
    type ResourceMocks,
    type RunMode,
    type RunOptions,
    type RunResult,
} from "./engine/program";
import { installedRequire, installedTesting, root } from "./support";

const EXAMPLES = path.join(root, "examples");
const QUICKSTART = path.join(EXAMPLES, "quickstart");
const BACKEND = path.join(EXAMPLES, "backend-alongside");
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";
const PASSPHRASE = "examples-test-passphrase";

/** Secret values: none may appear in a state file or a program's log. */
const WEBHOOK_TOKEN = "wt-3b9f1e-example-secret";
const BASIC_PASSWORD = "bp-77c2aa-example-secret";

/** One stack of one example against one simulator, state in a temporary folder. */
class ExampleStack {
    readonly stateFile: string;
    private readonly dir: string;
    runs: RunResult[] = [];

    constructor(
        readonly projectDir: string,
        readonly sim: ChatbotSimulator,
        private readonly baseConfig: Record<string, ConfigValue>,
        private readonly mocks?: ResourceMocks,
    ) {
        this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-example-"));
        this.stateFile = path.join(this.dir, "dev.json");
    }

    async run(
        mode: RunMode,
        config: Record<string, ConfigValue> = {},
        flags: Pick<RunOptions, "refresh" | "expectNoChanges"> & { projectDir?: string } = {},
    ): Promise<RunResult> {
        const r = await runPulumi({
            projectDir: flags.projectDir ?? this.projectDir,
            mode,
            stateFile: this.stateFile,
            passphrase: PASSPHRASE,
            config: {
                "chatbot:apiUrl": this.sim.url,
                "chatbot:token": { secret: this.sim.token },
                ...this.baseConfig,
                ...config,
            },
            ...(flags.refresh !== undefined ? { refresh: flags.refresh } : {}),
            ...(flags.expectNoChanges !== undefined ? { expectNoChanges: flags.expectNoChanges } : {}),
            ...(this.mocks ? { mocks: this.mocks } : {}),
        });
        this.runs.push(r);
        return r;
    }

    /** The run succeeded; its log is shown if not. */
    static ok(r: RunResult): RunResult {
        assert.equal(r.exitCode, 0, `pulumi ${r.mode} failed: ${r.error}\n${r.log}`);
        return r;
    }

    /** A resource's recorded outputs, secrets unwrapped. */
    outputs(name: string): PropertyMap {
        const r = readStackState(this.stateFile, PASSPHRASE).find((x) => x.name === name && x.kind !== "stack");
        assert.ok(r, `${name} is in the state`);
        return JSON.parse(JSON.stringify(r.outputs, (_k, v: unknown) => (isSecret(v) ? v.value : v))) as PropertyMap;
    }

    /** Nothing secret in the state file as written, nor in any program log. */
    assertNoSecretsLeaked(): void {
        const text = fs.existsSync(this.stateFile) ? fs.readFileSync(this.stateFile, "utf8") : "";
        for (const s of [WEBHOOK_TOKEN, BASIC_PASSWORD, this.sim.token]) {
            assert.ok(!text.includes(s), "the state file holds a secret in plain text");
            for (const r of this.runs) assert.ok(!r.log.includes(s), `the log of pulumi ${r.mode} shows a secret`);
        }
    }

    close(): void {
        fs.rmSync(this.dir, { recursive: true, force: true });
    }
}

/** `[name, op]` of the WebhookConnection steps (refresh steps as `refresh-<what it found>`). */
function connectionSteps(r: RunResult): string[][] {
    return r.steps
        .filter((s) => s.type === "pulumi-nodejs:dynamic/chatbot:WebhookConnection")
        .map((s) => [s.name, s.op === "refresh" ? `refresh-${s.refresh}` : s.op]);
}

function stepOf(r: RunResult, name: string, op?: ProgramStep["op"]): ProgramStep {
    const s = r.steps.find(
        (x) => x.name === name && x.type.startsWith("pulumi-nodejs:dynamic") && (!op || x.op === op),
    );
    assert.ok(s, `a step for ${name}${op ? ` (${op})` : ""} in ${JSON.stringify(r.steps)}`);
    return s;
}

function byName(sim: ChatbotSimulator): Map<string, StoredConnection> {
    return new Map(sim.listConnections().map((c) => [c.name, c]));
}

function writes(sim: ChatbotSimulator): string[] {
    return sim.requests.filter((q) => q.method !== "GET").map((q) => `${q.method} ${q.path}`);
}

// ---------------------------------------------------------------------------------------------

describe("examples/quickstart through the program stand-in", function () {
    this.timeout(180_000);
    let sim: ChatbotSimulator;
    let stack: ExampleStack;

    const config = {
        storyId: STORY,
        backendUrl: "https://bot-backend.example.com",
        webhookToken: { secret: WEBHOOK_TOKEN },
        basicPassword: { secret: BASIC_PASSWORD },
    };

    beforeEach(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        stack = new ExampleStack(QUICKSTART, sim, config);
    });
    afterEach(async () => {
        try {
            stack.assertNoSecretsLeaked();
        } finally {
            stack.close();
            await sim.close();
        }
    });

    it("preview, up, no-change preview, config change, up, drift by hand, refresh, destroy", async () => {
        // preview: a plan, and nothing in ChatBot, nothing in state.
        const preview = ExampleStack.ok(await stack.run("preview"));
        assert.deepEqual(connectionSteps(preview), [
            ["orders", "create"],
            ["support", "create"],
        ]);
        assert.equal(preview.outputs.ordersConnectionId, UNKNOWN, "an id is not known before up");
        assert.equal(preview.outputs.supportUrl, "https://bot-backend.example.com/chatbot/support");
        assert.deepEqual(sim.requests, [], "preview calls no API");
        assert.ok(!fs.existsSync(stack.stateFile), "preview writes no state");

        // up: both connections, as declared, the second fed by the first's outputs.
        const up = ExampleStack.ok(await stack.run("up"));
        assert.deepEqual(summarize(up.steps), { create: 3 });
        const made = byName(sim);
        const orders = made.get("orders")!;
        const support = made.get("support")!;
        assert.equal(made.size, 2);
        assert.equal(orders.url, "https://bot-backend.example.com/chatbot/orders");
        assert.equal(orders.token, WEBHOOK_TOKEN);
        assert.deepEqual(orders.headers, { "X-Environment": "production" });
        assert.equal(support.url, "https://bot-backend.example.com/chatbot/support");
        assert.deepEqual(support.auth, { username: "chatbot", password: BASIC_PASSWORD });
        assert.deepEqual(support.headers, { "X-Environment": "production", "X-Orders-Connection": orders.id });
        assert.deepEqual(up.outputs, {
            ordersConnectionId: orders.id,
            supportConnectionId: support.id,
            supportUrl: support.url,
        });
        assert.ok(!isSecret(up.outputs.supportUrl), "a non-secret output stays plain");
        const state = readStackState(stack.stateFile, PASSPHRASE).find((r) => r.name === "orders")!;
        for (const key of ["token", "headers"]) assert.ok(isSecret(state.outputs[key]), `${key} is secret in state`);

        // The same program again: no change, no API call.
        sim.resetRequests();
        const again = ExampleStack.ok(await stack.run("preview"));
        assert.equal(again.changes, 0, JSON.stringify(again.steps));
        assert.deepEqual(sim.requests, []);

        // A stack config change: previewed first (nothing touched), then made in place.
        const change = { environment: "staging", backendUrl: "https://new-backend.example.com" };
        const planned = ExampleStack.ok(await stack.run("preview", change));
        assert.deepEqual(connectionSteps(planned), [
            ["orders", "update"],
            ["support", "update"],
        ]);
        assert.deepEqual(stepOf(planned, "orders").keys, ["headers", "url"]);
        assert.deepEqual(sim.requests, []);
        ExampleStack.ok(await stack.run("up", change));
        const changed = byName(sim);
        assert.equal(changed.get("orders")!.id, orders.id, "updated in place");
        assert.equal(changed.get("orders")!.url, "https://new-backend.example.com/chatbot/orders");
        assert.equal(changed.get("support")!.url, "https://new-backend.example.com/chatbot/support");
        assert.deepEqual(changed.get("support")!.headers, {
            "X-Environment": "staging",
            "X-Orders-Connection": orders.id,
        });

        // By hand: support's url edited, orders deleted. Refresh records it and touches nothing.
        sim.editConnection(support.id, { url: "https://elsewhere.example/hook" });
        sim.deleteConnection(orders.id);
        sim.resetRequests();
        const refresh = ExampleStack.ok(await stack.run("refresh", change));
        assert.deepEqual(connectionSteps(refresh), [
            ["orders", "refresh-deleted"],
            ["support", "refresh-drift"],
        ]);
        assert.ok(stepOf(refresh, "support").keys?.includes("url"));
        assert.deepEqual(writes(sim), [], "refresh only reads");
        assert.equal(stack.outputs("support").url, "https://elsewhere.example/hook");
        assert.equal(sim.getConnection(support.id)!.url, "https://elsewhere.example/hook");

        // up puts it right: orders again (a new id), and support follows it.
        ExampleStack.ok(await stack.run("up", change));
        const fixed = byName(sim);
        const newOrders = fixed.get("orders")!;
        assert.notEqual(newOrders.id, orders.id);
        assert.equal(fixed.get("support")!.id, support.id);
        assert.equal(fixed.get("support")!.url, "https://new-backend.example.com/chatbot/support");
        assert.equal(fixed.get("support")!.headers!["X-Orders-Connection"], newOrders.id);

        // destroy: nothing left in ChatBot or in state.
        const destroy = ExampleStack.ok(await stack.run("destroy", change));
        assert.deepEqual(
            connectionSteps(destroy).map(([name, op]) => `${op} ${name}`),
            ["delete support", "delete orders"],
            "dependents first",
        );
        assert.deepEqual(sim.listConnections(), []);
        assert.deepEqual(readStackState(stack.stateFile, PASSPHRASE), []);
    });

    it("a new story replaces both connections, each created before the old one is deleted", async () => {
        ExampleStack.ok(await stack.run("up"));
        const before = byName(sim);
        const r = ExampleStack.ok(await stack.run("up", { storyId: OTHER_STORY }));
        assert.deepEqual(connectionSteps(r), [
            ["orders", "replace"],
            ["support", "replace"],
        ]);
        const after = byName(sim);
        assert.equal(after.size, 2, "the old connections are gone");
        assert.notEqual(after.get("orders")!.id, before.get("orders")!.id);
        assert.equal(after.get("support")!.story.id, OTHER_STORY);
        assert.equal(after.get("support")!.headers!["X-Orders-Connection"], after.get("orders")!.id);
        ExampleStack.ok(await stack.run("destroy"));
        assert.deepEqual(sim.listConnections(), []);
    });

    it("a child of a component carries its parent's type in its URN; one left out of the program is deleted", async () => {
        // A program of its own, beside the quickstart (same project, so the same stack).
        const copy = copyExample(QUICKSTART);
        try {
            fs.writeFileSync(
                path.join(copy, "index.ts"),
                [
                    'import * as pulumi from "@pulumi/pulumi";',
                    'import * as chatbot from "pulumi-chatbot";',
                    "const cfg = new pulumi.Config();",
                    'const storyId = cfg.require("storyId");',
                    "class Bot extends pulumi.ComponentResource {",
                    "    readonly connections: chatbot.WebhookConnection[];",
                    "    constructor(name: string, hooks: string[]) {",
                    '        super("acme:chatbot:Bot", name);',
                    "        this.connections = hooks.map(",
                    "            (h) => new chatbot.WebhookConnection(h, { storyId, url: `https://bot.example.com/${h}`, token: `t-${h}` }, { parent: this }),",
                    "        );",
                    "        this.registerOutputs({ hooks: hooks.length });",
                    "    }",
                    "}",
                    'const bot = new Bot("bot", cfg.require("hooks").split(","));',
                    "export const ids = bot.connections.map((c) => c.id);",
                    "// Secret because the engine returned it marked (additionalSecretOutputs): the SDK does not mark it itself.",
                    "export const firstToken = bot.connections[0].token;",
                    "",
                ].join("\n"),
            );
            const up = ExampleStack.ok(await stack.run("up", { hooks: "a,b" }, { projectDir: copy }));
            assert.equal(
                stepOf(up, "a").urn,
                "urn:pulumi:dev::chatbot-quickstart::acme:chatbot:Bot$pulumi-nodejs:dynamic/chatbot:WebhookConnection::a",
            );
            assert.ok(isSecret(up.outputs.firstToken), "outputs reach the program with their secret marks");
            assert.equal((up.outputs.firstToken as { value: unknown }).value, "t-a");
            const component = readStackState(stack.stateFile, PASSPHRASE).find((r) => r.kind === "component");
            assert.deepEqual(component?.outputs, { hooks: 2 }, "the component's registered outputs are kept");
            const b = byName(sim).get("b")!;

            const planned = ExampleStack.ok(await stack.run("preview", { hooks: "a" }, { projectDir: copy }));
            assert.deepEqual(connectionSteps(planned), [
                ["a", "same"],
                ["b", "delete"],
            ]);
            assert.ok(sim.getConnection(b.id), "a preview deletes nothing");
            ExampleStack.ok(await stack.run("up", { hooks: "a" }, { projectDir: copy }));
            assert.deepEqual([...byName(sim).keys()], ["a"]);
            ExampleStack.ok(await stack.run("destroy", { hooks: "a" }, { projectDir: copy }));
            assert.deepEqual(sim.listConnections(), []);
        } finally {
            fs.rmSync(copy, { recursive: true, force: true });
        }
    });

    it("the import option adopts an existing connection with any engine; .get() of a missing id fails naming it", async () => {
        // The engine's import step reads with the id alone, which no dynamic provider can serve
        // (ENGINE-RULES R1.1): the class turns `import` into an adopting create instead.
        const res = await fetch(`${sim.url}/v2/integrations/webhook`, {
            method: "POST",
            headers: { authorization: `Bearer ${sim.token}`, "content-type": "application/json" },
            body: JSON.stringify({ storyId: STORY, name: "by-hand", url: "https://bot.example.com/by-hand" }),
        });
        const existing = ((await res.json()) as { id: string }).id;
        const copy = copyExample(QUICKSTART);
        try {
            const program = (extra: string) =>
                [
                    'import * as pulumi from "@pulumi/pulumi";',
                    'import * as chatbot from "pulumi-chatbot";',
                    "const cfg = new pulumi.Config();",
                    "const c = new chatbot.WebhookConnection(",
                    '    "by-hand",',
                    '    { storyId: cfg.require("storyId"), url: "https://bot.example.com/by-hand", token: cfg.requireSecret("webhookToken") },',
                    '    { import: cfg.require("existingId") },',
                    ");",
                    "export const id = c.id;",
                    extra,
                    "",
                ].join("\n");
            fs.writeFileSync(path.join(copy, "index.ts"), program(""));
            sim.resetRequests();
            ExampleStack.ok(await stack.run("up", { existingId: existing }, { projectDir: copy }));
            assert.deepEqual(
                sim.requests.filter((r) => r.method === "POST").map((r) => r.path),
                [],
                "adopted: nothing created",
            );
            assert.equal(sim.listConnections().length, 1);
            assert.equal(stack.outputs("by-hand").token !== undefined, true, "the token the program sets was put");
            assert.equal(sim.listConnections()[0].id, existing);

            const missing = "0123456789abcdef01234567";
            fs.writeFileSync(
                path.join(copy, "index.ts"),
                program(`export const other = chatbot.WebhookConnection.get("other", "${missing}").url;`),
            );
            const r = await stack.run("up", { existingId: existing }, { projectDir: copy });
            assert.equal(r.exitCode, FAILURE_EXIT_CODE);
            assert.match(r.error ?? "", new RegExp(`no webhook connection with id ${missing}`));
            ExampleStack.ok(await stack.run("destroy", { existingId: existing }, { projectDir: copy }));
            assert.deepEqual(sim.listConnections(), []);
        } finally {
            fs.rmSync(copy, { recursive: true, force: true });
        }
    });

    it("a failed registration ends the program at once, keeps what exists and says why", async () => {
        ExampleStack.ok(await stack.run("up"));
        const before = sim.listConnections();
        const r = await stack.run("up", { storyId: "too-short" });
        assert.equal(r.exitCode, FAILURE_EXIT_CODE);
        assert.match(r.error ?? "", /orders.*storyId.*24 characters/);
        assert.ok(r.durationMs < 15_000, `the failed run took ${r.durationMs} ms`);
        assert.deepEqual(sim.listConnections(), before, "nothing changed, nothing deleted");
        assert.equal(readStackState(stack.stateFile, PASSPHRASE).filter((x) => x.kind === "dynamic").length, 2);
        // An exception in the program itself fails the run too, and deletes nothing.
        const thrown = await stack.run("up", { backendUrl: "not a url" });
        assert.equal(thrown.exitCode, FAILURE_EXIT_CODE);
        assert.match(thrown.log, /Invalid URL/);
        assert.deepEqual(sim.listConnections(), before);
        // The state's secrets open only with the stack's passphrase.
        await assert.rejects(
            runPulumi({ projectDir: QUICKSTART, mode: "preview", stateFile: stack.stateFile, passphrase: "wrong" }),
            /incorrect passphrase/,
        );
        ExampleStack.ok(await stack.run("destroy"));
    });
});

// ---------------------------------------------------------------------------------------------

describe("examples/pipelines.md with the program stand-in", function () {
    this.timeout(120_000);
    let sim: ChatbotSimulator;
    let stack: ExampleStack;
    let copy: string | undefined;

    beforeEach(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        stack = new ExampleStack(QUICKSTART, sim, {
            storyId: STORY,
            backendUrl: "https://bot-backend.example.com",
            webhookToken: { secret: WEBHOOK_TOKEN },
            basicPassword: { secret: BASIC_PASSWORD },
        });
        ExampleStack.ok(await stack.run("up"));
    });
    afterEach(async () => {
        try {
            stack.assertNoSecretsLeaked();
            ExampleStack.ok(await stack.run("destroy"));
        } finally {
            stack.close();
            if (copy) fs.rmSync(copy, { recursive: true, force: true });
            copy = undefined;
            await sim.close();
        }
    });

    const driftCheck = () => stack.run("preview", {}, { refresh: true, expectNoChanges: true });

    it("the drift check passes when clean, fails after a hand edit without changing anything, passes once fixed", async () => {
        assert.equal((await driftCheck()).exitCode, 0);

        const support = byName(sim).get("support")!;
        sim.editConnection(support.id, { headers: { "X-Environment": "production" } });
        sim.resetRequests();
        const drifted = await driftCheck();
        assert.equal(drifted.exitCode, CHANGES_EXIT_CODE);
        assert.match(drifted.error ?? "", /no changes were expected/);
        assert.deepEqual(connectionSteps(drifted), [
            ["orders", "refresh-same"],
            ["support", "refresh-drift"],
            ["orders", "same"],
            ["support", "update"],
        ]);
        assert.deepEqual(stepOf(drifted, "support", "update").keys, ["headers"]);
        assert.deepEqual(writes(sim), [], "a drift check only reads");
        assert.deepEqual(sim.getConnection(support.id)!.headers, { "X-Environment": "production" });

        ExampleStack.ok(await stack.run("up", {}, { refresh: true }));
        assert.equal(sim.getConnection(support.id)!.headers!["X-Orders-Connection"], byName(sim).get("orders")!.id);
        assert.equal((await driftCheck()).exitCode, 0);
    });

    it("a pull request's preview of a changed program shows the planned changes and touches nothing", async () => {
        // The branch: the quickstart with a new path for orders and a third connection.
        copy = copyExample(QUICKSTART);
        const index = path.join(copy, "index.ts");
        const source = fs.readFileSync(index, "utf8");
        fs.writeFileSync(
            index,
            source.replace('"/chatbot/orders"', '"/chatbot/v2/orders"') +
                '\nexport const billingId = new chatbot.WebhookConnection("billing", { storyId, url: "https://billing.example.com/hook" }).id;\n',
        );
        const before = sim.listConnections();
        sim.resetRequests();
        const pr = ExampleStack.ok(await stack.run("preview", {}, { projectDir: copy }));
        // Registrations that do not depend on each other arrive in any order.
        assert.deepEqual(connectionSteps(pr).sort(), [
            ["billing", "create"],
            ["orders", "update"],
            ["support", "update"],
        ]);
        assert.deepEqual(stepOf(pr, "orders").keys, ["url"]);
        assert.deepEqual(stepOf(pr, "support").keys, ["url"], "support's url follows orders'");
        assert.deepEqual(sim.requests, [], "a preview calls no API");
        assert.deepEqual(sim.listConnections(), before);
    });
});

/** A copy of an example in a temporary folder, resolving packages from this repository. */
function copyExample(from: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-example-copy-"));
    fs.cpSync(from, dir, { recursive: true, filter: (src) => !src.includes("node_modules") });
    fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
    return dir;
}

// ---------------------------------------------------------------------------------------------

const FUNCTION_URL = "https://q4ldmbyhpd7mgbbmwprqbmlsvm0hzxhc.lambda-url.eu-west-1.on.aws/";

/** What AWS would compute for the example's resources: names, ARNs, the function URL. */
const awsMocks: ResourceMocks = {
    newResource({ type, name }) {
        const physical = `${name}-7f3a2c1`;
        const arn = `arn:aws:${type.split(/[:/]/)[1]}:eu-west-1:123456789012:${physical}`;
        if (type === "aws:lambda/functionUrl:FunctionUrl")
            return { state: { functionUrl: FUNCTION_URL, urlId: "q4ldmbyhpd" } };
        if (type === "aws:lambda/function:Function" || type === "aws:iam/role:Role")
            return { state: { name: physical, arn } };
        return {};
    },
};

type BackendHandler = (
    event: unknown,
) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

/** The backend's environment as the program sets it (the token is added where it matters). */
const BACKEND_ENV = { BASIC_USERNAME: "chatbot", BASIC_PASSWORD: BASIC_PASSWORD, ENVIRONMENT: "production" };

/**
 * A function URL on 127.0.0.1: turns each HTTP request into the event Lambda would give the
 * backend (payload format 2.0, body in base64) and its result back into the answer, so the
 * simulator's verification request and webhook calls reach backend/index.mjs as they would on AWS.
 */
async function functionUrlOnLoopback(handler: BackendHandler): Promise<{ url: string; close(): Promise<void> }> {
    const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
            const [rawPath, rawQueryString = ""] = (req.url ?? "/").split(/\?(.*)/s);
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = String(v);
            const body = Buffer.concat(chunks);
            handler({
                version: "2.0",
                rawPath,
                rawQueryString,
                headers,
                requestContext: { domainName: headers.host, http: { method: req.method } },
                ...(body.length > 0 ? { body: body.toString("base64"), isBase64Encoded: true } : {}),
            }).then(
                (r) => res.writeHead(r.statusCode, r.headers).end(r.body),
                () => res.writeHead(502).end(),
            );
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        close: () =>
            new Promise<void>((resolve) => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}

describe("examples/backend-alongside", function () {
    this.timeout(180_000);

    it("under setMocks: the connection's url is the function URL output, and every secret stays secret", async () => {
        interface Registration {
            type: string;
            name: string;
            raw: Record<string, unknown>;
            propertyDependencies: Record<string, string[]>;
            additionalSecretOutputs: string[];
            urn?: string;
        }
        const registrations: Registration[] = [];
        const mocksModule: { MockMonitor: { prototype: Record<string, (...a: unknown[]) => unknown> } } =
            installedRequire("@pulumi/pulumi/runtime/mocks");
        const proto = mocksModule.MockMonitor.prototype;
        const register = proto.registerResource;
        type Req = {
            getType(): string;
            getName(): string;
            getObject(): { toJavaScript(): Record<string, unknown> };
            getAdditionalsecretoutputsList(): string[];
            getPropertydependenciesMap(): { forEach(cb: (v: { getUrnsList(): string[] }, k: string) => void): void };
        };
        proto.registerResource = function (this: unknown, req: unknown, cb: unknown) {
            const r = req as Req;
            const propertyDependencies: Record<string, string[]> = {};
            r.getPropertydependenciesMap().forEach((v, k) => (propertyDependencies[k] = v.getUrnsList()));
            const reg: Registration = {
                type: r.getType(),
                name: r.getName(),
                raw: r.getObject().toJavaScript(),
                propertyDependencies,
                additionalSecretOutputs: r.getAdditionalsecretoutputsList(),
            };
            registrations.push(reg);
            const done = cb as (err: unknown, resp?: { getUrn(): string }) => void;
            return register.call(this, req, (err: unknown, resp?: { getUrn(): string }) => {
                if (resp) reg.urn = resp.getUrn();
                done(err, resp);
            });
        };
        const program = path.join(BACKEND, "index.ts");
        try {
            const project = "chatbot-backend-alongside";
            pulumi.runtime.setAllConfig(
                {
                    [`${project}:storyId`]: STORY,
                    [`${project}:basicPassword`]: BASIC_PASSWORD,
                    [`${project}:webhookToken`]: WEBHOOK_TOKEN,
                },
                [`${project}:basicPassword`, `${project}:webhookToken`],
            );
            await pulumi.runtime.setMocks(
                {
                    newResource: (args) => {
                        const computed = awsMocks.newResource({ type: args.type, name: args.name, inputs: {} });
                        return { id: `${args.name}-id`, state: { ...args.inputs, ...(computed.state ?? {}) } };
                    },
                    call: () => ({}),
                },
                project,
                "dev",
                false,
            );
            delete require.cache[require.resolve(program)];
            const exports = require(program) as {
                connectionId: pulumi.Output<string>;
                webhookUrl: pulumi.Output<string>;
            };
            const connectionId = await new Promise<string>((resolve) => exports.connectionId.apply(resolve));
            const webhookUrl = await new Promise<string>((resolve) => exports.webhookUrl.apply(resolve));
            assert.equal(webhookUrl, FUNCTION_URL);
            assert.equal(connectionId, "orders-id");
            assert.equal(await pulumi.isSecret(exports.webhookUrl), false);
            assert.equal(await pulumi.isSecret(exports.connectionId), false);
        } finally {
            proto.registerResource = register;
            delete require.cache[require.resolve(program)];
        }

        const find = (type: string) => {
            const r = registrations.find((x) => x.type === type);
            assert.ok(r, `${type} was registered`);
            return r;
        };
        const connection = find("pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        const functionUrl = find("aws:lambda/functionUrl:FunctionUrl");
        const fn = find("aws:lambda/function:Function");
        assert.equal(connection.raw.url, FUNCTION_URL, "the connection's url input is the function URL output");
        assert.deepEqual(connection.propertyDependencies.url, [functionUrl.urn], "and depends on the FunctionUrl only");
        assert.equal(functionUrl.raw.functionName, "backend-7f3a2c1", "the function URL is the function's");
        for (const key of ["token", "headers", "auth"]) {
            assert.ok(isSecret(connection.raw[key]), `the connection's ${key} is sent secret`);
        }
        assert.deepEqual([...connection.additionalSecretOutputs].sort(), ["auth", "headers", "token"]);
        const env = fn.raw.environment as { variables: Record<string, unknown> };
        assert.ok(isSecret(env.variables.BASIC_PASSWORD), "the backend's password is sent secret");
        assert.ok(isSecret(env.variables.WEBHOOK_TOKEN), "the backend's token is sent secret");
        assert.equal(env.variables.BASIC_USERNAME, "chatbot");
        const wire = JSON.stringify(
            registrations.map((r) => r.raw),
            (_k, v: unknown) => (isSecret(v) ? "[secret]" : v),
        );
        assert.ok(!wire.includes(BASIC_PASSWORD) && !wire.includes(WEBHOOK_TOKEN), "no secret travels unmarked");
    });

    it("the backend answers a ChatBot call as the webhook kit requires, and refuses a wrong password", async () => {
        const saved = { ...process.env };
        Object.assign(process.env, { BASIC_USERNAME: "chatbot", BASIC_PASSWORD: BASIC_PASSWORD, ENVIRONMENT: "test" });
        try {
            const backend = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
                handler(event: unknown): Promise<{ statusCode: number; body: string }>;
            };
            const { sampleWebhookRequest, verifyWebhookResponse } = installedRequire(
                "pulumi-chatbot/webhook",
            ) as typeof import("pulumi-chatbot/webhook");
            const call = { ...sampleWebhookRequest, attributes: { order_id: "A-1001" } };
            const event = (password: string) => ({
                requestContext: { http: { method: "POST" } },
                headers: { authorization: `Basic ${Buffer.from(`chatbot:${password}`).toString("base64")}` },
                body: JSON.stringify(call),
                isBase64Encoded: false,
            });
            const ok = await backend.handler(event(BASIC_PASSWORD));
            assert.equal(ok.statusCode, 200);
            const answer: unknown = JSON.parse(ok.body);
            assert.deepEqual(verifyWebhookResponse(answer), { ok: true, failures: [] });
            assert.match(JSON.stringify(answer), /A-1001 has shipped/);
            assert.equal((await backend.handler(event("wrong"))).statusCode, 401);
        } finally {
            for (const k of ["BASIC_USERNAME", "BASIC_PASSWORD", "ENVIRONMENT"]) {
                if (saved[k] === undefined) delete process.env[k];
                else process.env[k] = saved[k];
            }
        }
    });

    it("the backend answers ChatBot's verification request with its token, and refuses another token", async () => {
        const backend = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
            backendHandler(env: Record<string, string>): BackendHandler;
        };
        const handler = backend.backendHandler({ ...BACKEND_ENV, WEBHOOK_TOKEN });
        const get = (query: string) =>
            handler({ rawPath: "/", rawQueryString: query, headers: {}, requestContext: { http: { method: "GET" } } });
        const ok = await get(`challenge=c-7&token=${WEBHOOK_TOKEN}`);
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.body, "c-7");
        const wrong = await get("challenge=c-7&token=another");
        assert.equal(wrong.statusCode, 401);
        assert.ok(!wrong.body.includes("c-7") && !wrong.body.includes(WEBHOOK_TOKEN));
    });

    describe("through the program stand-in, with the AWS resources mocked and ChatBot's verification on", () => {
        let sim: ChatbotSimulator;
        let stack: ExampleStack;
        let backendHandler: (env: Record<string, string>) => BackendHandler;
        // The deployed backend: backend/index.mjs behind a function URL on loopback, with the
        // token it was given (the program's, unless a test deploys it with another).
        let backendToken = WEBHOOK_TOKEN;
        let functionUrl: { url: string; close(): Promise<void> };
        let deployedUrl = ""; // the loopback function URL, as the FunctionUrl mock reports it

        before(async () => {
            ({ backendHandler } = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
                backendHandler: typeof backendHandler;
            });
            functionUrl = await functionUrlOnLoopback((event) =>
                backendHandler({ ...BACKEND_ENV, WEBHOOK_TOKEN: backendToken })(event),
            );
            deployedUrl = functionUrl.url;
        });
        after(() => functionUrl.close());

        beforeEach(async () => {
            backendToken = WEBHOOK_TOKEN;
            sim = await installedTesting().ChatbotSimulator.start({ verifyWebhooks: true });
            stack = new ExampleStack(
                BACKEND,
                sim,
                {
                    "aws:region": "eu-west-1",
                    storyId: STORY,
                    basicPassword: { secret: BASIC_PASSWORD },
                    webhookToken: { secret: WEBHOOK_TOKEN },
                },
                {
                    newResource(args) {
                        const r = awsMocks.newResource(args);
                        return args.type === "aws:lambda/functionUrl:FunctionUrl"
                            ? { state: { ...r.state, functionUrl: deployedUrl } }
                            : r;
                    },
                },
            );
        });
        afterEach(async () => {
            try {
                stack.assertNoSecretsLeaked();
            } finally {
                stack.close();
                await sim.close();
            }
        });

        it("preview, up, no-change preview, config change, up, drift by hand, refresh, destroy", async () => {
            // preview: the function URL is not known yet, so neither is the connection's url.
            const preview = ExampleStack.ok(await stack.run("preview"));
            assert.deepEqual(connectionSteps(preview), [["orders", "create"]]);
            assert.equal(preview.outputs.webhookUrl, UNKNOWN);
            assert.deepEqual(sim.requests, []);

            const up = ExampleStack.ok(await stack.run("up"));
            assert.equal(
                up.steps.filter((s) => s.op === "create").length,
                8,
                "the stack, 6 AWS resources, the connection",
            );
            const [c] = sim.listConnections();
            assert.equal(sim.listConnections().length, 1);
            assert.equal(c.url, deployedUrl, "ChatBot calls the function URL");
            assert.deepEqual(c.auth, { username: "chatbot", password: BASIC_PASSWORD });
            assert.equal(c.token, WEBHOOK_TOKEN);
            assert.deepEqual(up.outputs, { connectionId: c.id, webhookUrl: deployedUrl });

            sim.resetRequests();
            const again = ExampleStack.ok(await stack.run("preview"));
            assert.equal(again.changes, 0, JSON.stringify(again.steps));
            assert.deepEqual(sim.requests, []);

            // A config change reaches both sides: the function's environment and the connection's header.
            const planned = ExampleStack.ok(await stack.run("preview", { environment: "staging" }));
            assert.deepEqual(
                planned.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.type}::${s.name}`),
                [
                    "update aws:lambda/function:Function::backend",
                    "update pulumi-nodejs:dynamic/chatbot:WebhookConnection::orders",
                ],
            );
            assert.deepEqual(sim.requests, []);
            ExampleStack.ok(await stack.run("up", { environment: "staging" }));
            assert.deepEqual(sim.getConnection(c.id)!.headers, { "X-Environment": "staging" });
            assert.equal(sim.getConnection(c.id)!.url, deployedUrl);

            // By hand: a password changed in the dashboard. Refresh records it, up puts it back.
            sim.editConnection(c.id, { auth: { username: "chatbot", password: "changed-by-hand" } });
            const refresh = ExampleStack.ok(await stack.run("refresh", { environment: "staging" }));
            assert.deepEqual(stepOf(refresh, "orders").keys, ["auth", "updatedAt"]);
            assert.equal(sim.getConnection(c.id)!.auth!.password, "changed-by-hand");
            ExampleStack.ok(await stack.run("up", { environment: "staging" }));
            assert.equal(sim.getConnection(c.id)!.auth!.password, BASIC_PASSWORD);

            ExampleStack.ok(await stack.run("destroy"));
            assert.deepEqual(sim.listConnections(), []);
            assert.deepEqual(readStackState(stack.stateFile, PASSPHRASE), []);
        });

        it("a backend deployed with another token fails the up with ChatBot's verification message, leaving no connection", async () => {
            backendToken = "a-token-from-an-old-deploy";
            const up = await stack.run("up");
            assert.equal(up.exitCode, FAILURE_EXIT_CODE, up.log);
            const said = `${up.error ?? ""}\n${up.log}`;
            assert.match(said, /webhook verification failed: .*refused the token/);
            assert.match(said, /needs HTTP 200 with the challenge as the whole body/);
            // The provider says what ChatBot needs of the program.
            assert.match(said, /the backend must be deployed and answer it/);
            assert.match(said, /the connection must depend on the backend/);
            assert.ok(!said.includes(backendToken) && !said.includes(WEBHOOK_TOKEN), "no token in the message");
            assert.deepEqual(sim.listConnections(), [], "ChatBot holds no connection");
            assert.ok(
                !readStackState(stack.stateFile, PASSPHRASE).some(
                    (r) => r.type === "pulumi-nodejs:dynamic/chatbot:WebhookConnection",
                ),
                "the state holds no connection",
            );
            ExampleStack.ok(await stack.run("destroy"));
            assert.deepEqual(readStackState(stack.stateFile, PASSPHRASE), [], "destroy leaves nothing behind");
        });
    });
});

// ---------------------------------------------------------------------------------------------

describe("npm start (scripts/quickstart.ts)", function () {
    this.timeout(120_000);

    it("runs every step through the real pulumi CLI against the simulator, reports success and exits 0", async () => {
        // Run as `npm start` runs it (after its build), as a process: a test never imports scripts/.
        const started = Date.now();
        const child = spawn(process.execPath, ["-r", "ts-node/register", path.join("scripts", "quickstart.ts")], {
            cwd: root,
            env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
            stdio: ["ignore", "pipe", "pipe"],
        });
        let text = "";
        child.stdout.on("data", (d: Buffer) => (text += d.toString()));
        child.stderr.on("data", (d: Buffer) => (text += d.toString()));
        const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
        assert.equal(code, 0, `the quickstart failed:\n${text}`);
        assert.match(text, /^1\. Started the ChatBot API simulator/m);
        assert.match(text, /Pulumi runs as the pulumi CLI/);
        assert.match(text, /drift found, exit code 7/);
        assert.match(text, /The simulator has 0 connections left/);
        assert.match(text, /every step behaved as expected/);
        assert.ok(Date.now() - started < 90_000, `took ${Date.now() - started} ms`);
    });
});
