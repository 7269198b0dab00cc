/**
 * Killing a pulumi run as a cancelled CI job does (SIGKILL), and the documented step after it,
 * `pulumi-chatbot recover`: shared by the killed-run tests, the rate-limit tests and the tests of
 * the shared state backends. The kill matrices run on any StateStore (tests/helpers/stateBackends.ts).
 */
import { strict as assert } from "assert";
import { execFile } from "child_process";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedTesting, root } from "./support";
import {
    CONNECTION_TYPE,
    declareStack,
    LEGACY_TYPE,
    ok,
    OTHER_STORY,
    pulumiCli,
    STORY,
    type Declared,
    type PulumiStack,
} from "./pulumi";
import type { StateStore } from "./stateBackends";

export const HOOK_TOKEN = "hook-token-KILLED-9";
export const HEADER_VALUE = "header-value-KILLED-9";
export const PASSWORD = "password-KILLED-9";
export const SECRETS = [HOOK_TOKEN, HEADER_VALUE, PASSWORD];
export const SECRET_CONFIG = {
    hookToken: { secret: HOOK_TOKEN },
    headerValue: { secret: HEADER_VALUE },
    password: { secret: PASSWORD },
};

const CLI = path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js");

/** `pulumi-chatbot recover` as a pipeline runs it: in the project, the CLI on PATH; with
 *  `--stack` unless `selected` (the stack `pulumi stack select` chose is then recovered). */
export function recoverRun(
    stack: PulumiStack,
    args: string[] = [],
    opts: { selected?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
    return chatbotCli(stack, ["recover", ...(opts.selected ? [] : ["--stack", stack.name]), ...args]);
}

/** The installed `pulumi-chatbot <args>`, in the stack's project (or `cwd`) with its environment
 *  (`env` on top) and the pulumi CLI on PATH. */
export function chatbotCli(
    stack: PulumiStack,
    args: string[],
    env: Record<string, string | undefined> = {},
    cwd = stack.projectDir,
): Promise<{ code: number; stdout: string; stderr: string }> {
    const all = stack.environment({
        PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}`,
        ...env,
    });
    return new Promise((resolve) => {
        execFile(process.execPath, [CLI, ...args], { cwd, env: all, timeout: 180_000 }, (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
        );
    });
}

/** When a kill falls: after this many writes the simulator has answered, or after `count` of
 *  one method's (POST: creates, PUT: updates, DELETE: deletes), to land inside that kind. */
export type KillAt = number | { method: "POST" | "PUT" | "DELETE"; count: number };

/**
 * Starts `pulumi <command>` and kills it (SIGKILL) once the simulator has answered `afterWrites`
 * writes (KillAt), or after `deadlineMs` at the latest; resolves when it has exited. Then waits
 * until the simulator has no request in hand (what was in flight has landed).
 */
export async function killDuring(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    command: "up" | "destroy",
    afterWrites: KillAt,
    deadlineMs = 30_000,
): Promise<{ killedAfter: number }> {
    const writes = () => sim.requests.filter((r) => r.method !== "GET").length;
    const start = writes();
    const counted =
        typeof afterWrites === "number"
            ? { first: start, now: writes, want: afterWrites }
            : (() => {
                  const now = () => sim.requests.filter((r) => r.method === afterWrites.method).length;
                  return { first: now(), now, want: afterWrites.count };
              })();
    let pid: number | undefined;
    let killedAfter = -1;
    const done = stack.run(command, { onStart: (p) => (pid = p) });
    const began = Date.now();
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished && Date.now() - began < deadlineMs) {
        if (pid !== undefined && counted.now() - counted.first >= counted.want) break;
        await new Promise((r) => setTimeout(r, 10));
    }
    if (!finished && pid !== undefined) {
        killedAfter = writes() - start;
        process.kill(pid, "SIGKILL");
    }
    const result = await done;
    assert.ok(killedAfter >= 0, `the run ended before it could be killed:\n${result.stdout}`);
    // What the killed run had sent lands; a plugin that outlives the run starts nothing new.
    await new Promise((r) => setTimeout(r, 300));
    await sim.idle();
    return { killedAfter };
}

/** A small seeded generator (mulberry32), so a failing kill moment can be replayed. */
export function seeded(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** `count` declared connections: most v2 with every kind of secret, some legacy. `version`
 *  changes urls (updates); `story` of the v2 ones (a changed story replaces). */
export function declared(names: string[], version: number, story: (name: string) => string): Declared[] {
    return names.map((name, i) =>
        i % 5 === 4
            ? {
                  kind: "LegacyWebhook",
                  name,
                  args: {
                      url: `https://legacy.example.com/${name}/v${version}`,
                      token: { secretConfig: "hookToken" },
                      auth: { username: "bot", password: { secretConfig: "password" } },
                  },
              }
            : {
                  kind: "WebhookConnection",
                  name,
                  args: {
                      storyId: story(name),
                      url: `https://hooks.example.com/${name}/v${version}`,
                      token: { secretConfig: "hookToken" },
                      headers: { "X-Env": "ci", "X-Key": { secretConfig: "headerValue" } },
                      auth: { username: "bot", password: { secretConfig: "password" } },
                  },
              },
    );
}

/** What every recovered stack must show: each declared resource once in the API, the state equal
 *  to the API, no change to make, no pending operation, secrets sealed. */
export async function assertConverged(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    want: Declared[],
    types = [CONNECTION_TYPE, LEGACY_TYPE],
): Promise<void> {
    const up = ok(await stack.run("up"));
    assert.doesNotMatch(up.stdout + up.stderr, /pending operation/i);
    const apiNames = [
        ...sim.listConnections().map((c) => `WebhookConnection ${c.name} ${c.story.id} ${c.url}`),
        ...sim.listLegacyWebhooks().map((w) => `LegacyWebhook ${w.name} ${w.url}`),
    ].sort();
    const wantNames = want
        .map((d) => {
            const name = String(d.args?.name ?? d.name);
            return d.kind === "WebhookConnection"
                ? `WebhookConnection ${name} ${String(d.args?.storyId)} ${String(d.args?.url)}`
                : `LegacyWebhook ${name} ${String(d.args?.url)}`;
        })
        .sort();
    assert.deepEqual(apiNames, wantNames, "the API holds each declared connection exactly once, and nothing else");
    // One export without --show-secrets serves the ids (never secret), the pending operations and
    // the check that no secret is in plain text: one pulumi run fewer than an export of each kind.
    const exported = await stack.export();
    const inState = (exported.deployment.resources ?? []).filter((r) => r.custom && types.includes(r.type));
    const apiIds = [...sim.listConnections().map((c) => c.id), ...sim.listLegacyWebhooks().map((w) => w.id)].sort();
    assert.deepEqual(inState.map((r) => r.id).sort(), apiIds, "the state records exactly what the API holds");
    assert.deepEqual(exported.deployment.pending_operations ?? [], [], "no pending operation is left");
    const text = JSON.stringify(exported);
    for (const s of SECRETS) assert.ok(!text.includes(s), "no secret in plain text in the export");
    const preview = await stack.run("preview", { expectNoChanges: true });
    assert.equal(preview.code, 0, `preview --expect-no-changes:\n${preview.stdout}${preview.stderr}`);
}

/** Where a killed stack's state is, and which delivery it uses. */
export interface KillStore {
    store: StateStore;
    /** The native plugin's classes instead of the dynamic provider's. */
    native?: boolean;
    /** Never shown by recover: the backend's own secrets besides the resources'. */
    secrets?: string[];
}

/** How a kill matrix runs: where the state is, which delivery, how many kills, from which seed. */
export interface KillMatrix extends KillStore {
    rounds: number;
    seed: number;
    /** After the up rounds, `destroy` of the same stack killed too (upKillMatrix). */
    thenDestroy?: boolean;
}

const nativeTypes = ["chatbot:index:WebhookConnection", "chatbot:index:LegacyWebhook"];

/** `recover` after a kill: the kill left the run's lock, and recover removes it (the run is
 *  gone), prints no secret, and exits 0. */
async function recoverKilled(stack: PulumiStack, m: KillStore, what: string) {
    const env = stack.environment();
    assert.ok((await m.store.locks(env)).length > 0, `${what}: the killed run left its lock`);
    const r = await recoverRun(stack);
    assert.equal(r.code, 0, `${what}: recover failed:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^removed the lock of the run of \S+ \(pid \d+\) started at /m, what);
    assert.deepEqual(await m.store.locks(env), [], `${what}: the dead run's lock is removed`);
    for (const s of [...SECRETS, ...(m.secrets ?? [])]) {
        assert.ok(!(r.stdout + r.stderr).includes(s), "recover prints no secret");
    }
    return r;
}

/** `pulumi destroy` killed at `at` (a seeded moment, or a deterministic one), then `recover` and
 *  `destroy`: nothing is left, in the API or the state. */
async function killDestroy(sim: ChatbotSimulator, stack: PulumiStack, m: KillStore, at: KillAt, what: string) {
    sim.latencyMs = 150;
    const { killedAfter } = await killDuring(sim, stack, "destroy", at);
    await recoverKilled(stack, m, what);
    const destroyed = ok(await stack.run("destroy"));
    assert.doesNotMatch(destroyed.stdout + destroyed.stderr, /pending operation/i);
    assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 0);
    assert.deepEqual(await stack.resources(), []);
    return `${what}: killed after ${killedAfter} writes; recovered, then destroyed`;
}

/**
 * `pulumi up` killed at `rounds` seeded moments on one stack of 22 connections whose program
 * changes between kills (creates, updates, replaces through a new story, deletes in flight); after
 * each, `recover` and `up`: converged. Then, with `thenDestroy`, its destroy killed. Returns a line
 * per round: what recover adopted and cleared.
 */
export async function upKillMatrix(sim: ChatbotSimulator, m: KillMatrix): Promise<string[]> {
    const random = seeded(m.seed);
    const made = await declareStack(sim, { config: SECRET_CONFIG, env: await m.store.namespace(), native: m.native });
    const { stack, declare } = made;
    try {
        sim.latencyMs = 150;
        let names = Array.from({ length: 22 }, (_, i) => `c${i}`);
        let version = 1;
        const moved = new Set<string>();
        const story = (name: string) => (moved.has(name) ? OTHER_STORY : STORY);
        const report: string[] = [];
        for (let round = 0; round < m.rounds; round++) {
            // Each round but the first changes the program: updates, replaces, deletes and creates.
            if (round > 0) {
                version++;
                for (const n of names) {
                    if (random() >= 0.2) continue;
                    if (moved.has(n)) moved.delete(n);
                    else moved.add(n);
                }
                names = names.filter(() => random() > 0.15);
                while (names.length < 22) names.push(`c${round}x${names.length}`);
            }
            const want = declared(names, version, story);
            await declare(want);
            const before = sim.requests.length;
            const { killedAfter } = await killDuring(sim, stack, "up", 1 + Math.floor(random() * 18));
            const t0 = Date.now();
            const r = await recoverKilled(stack, m, `round ${round}`);
            const recoverMs = Date.now() - t0;
            await assertConverged(sim, stack, want, m.native ? nativeTypes : undefined);
            report.push(
                `round ${round}: killed after ${killedAfter} writes; ` +
                    `${r.stdout.split("\n").filter((l) => /^adopt /.test(l)).length} adopted, ` +
                    `${r.stdout.split("\n").filter((l) => /^clear /.test(l)).length} cleared; recover ${recoverMs} ms; ` +
                    `${sim.requests.slice(before).filter((q) => q.method === "POST").length} creates sent, ` +
                    `${want.length} declared, ${sim.listConnections().length + sim.listLegacyWebhooks().length} in the API after up`,
            );
        }
        if (m.thenDestroy) await killDestroy(sim, stack, m, 1 + Math.floor(random() * 15), "destroy");
        return report;
    } finally {
        sim.latencyMs = 0;
        // What the stack made is left to no one: the next matrix starts from an empty account.
        emptySimulator(sim);
        made.dispose();
    }
}

/** The steps of one stack's life that killLifecycle breaks, in this order. */
export type LifeStep = "create" | "update" | "refused" | "destroy";

/**
 * One stack of 10 connections (8 v2, 2 legacy) broken once at each step of its life, each at a
 * fixed moment (no seed: the same every run) and followed by `recover` (the dead run's lock
 * seen and removed, nothing secret printed) and the next run, converged as in upKillMatrix:
 * - "create": its first `up`, killed once 5 of its 10 creates have been answered (the others in
 *   flight);
 * - "update": a program that updates every url (6 updates), replaces 2 through a new story, deletes
 *   2 and creates 2, its `up` killed once 3 updates have been answered (the others, and the
 *   replacements' creates, in flight; the deletes, which the engine runs last, not yet begun);
 * - "refused": a program that adds 4 connections, its `up` not killed but failing by itself, the
 *   state backend refusing the checkpoint's writes mid-run (refusedCheckpointUp);
 * - "destroy": `destroy` killed once half its deletes have been answered, then `recover` and
 *   `destroy`: nothing left.
 * The cheap counterpart of the seeded matrices (tests/kill/), for `npm test`: a kill of each kind,
 * on one stack. Returns a line per step.
 */
export async function killLifecycle(sim: ChatbotSimulator, m: KillStore & { steps?: LifeStep[] }): Promise<string[]> {
    const steps = m.steps ?? ["create", "update", "refused", "destroy"];
    const made = await declareStack(sim, { config: SECRET_CONFIG, env: await m.store.namespace(), native: m.native });
    const { stack, declare } = made;
    const types = m.native ? nativeTypes : undefined;
    const report: string[] = [];
    try {
        let names = Array.from({ length: 10 }, (_, i) => `c${i}`); // c4 and c9 legacy (declared())
        let version = 1;
        const moved = new Set<string>();
        const story = (name: string) => (moved.has(name) ? OTHER_STORY : STORY);
        for (const step of steps) {
            sim.latencyMs = 150;
            if (step === "destroy") {
                const held = sim.listConnections().length + sim.listLegacyWebhooks().length;
                report.push(await killDestroy(sim, stack, m, { method: "DELETE", count: Math.ceil(held / 2) }, step));
                continue;
            }
            if (step === "refused") {
                // Appended, so the kinds declared() gives by position stay: 4 v2 creates, no change.
                names = [...names, "r0", "r1", "r2", "r3"];
                const want = declared(names, version, story);
                await declare(want);
                report.push(await refusedCheckpointUp(sim, stack, m, want, types));
                continue;
            }
            if (step === "update") {
                version++;
                for (const n of ["c1", "c2"]) moved.add(n);
                names = [...names.filter((n) => n !== "c3" && n !== "c8"), "u0", "u1"];
            }
            const want = declared(names, version, story);
            await declare(want);
            const at = step === "create" ? { method: "POST" as const, count: 5 } : { method: "PUT" as const, count: 3 };
            const before = sim.requests.length;
            const { killedAfter } = await killDuring(sim, stack, "up", at);
            const sent = sim.requests.slice(before);
            const count = (method: string) => sent.filter((q) => q.method === method).length;
            // What landed, the kill's moment and what was in flight then: inside its step.
            if (step === "update") {
                assert.ok(count("PUT") >= 3, `${step}: killed once its updates had begun`);
                assert.ok(count("DELETE") < 4, `${step}: killed before its deletes were done`);
            } else {
                assert.ok(count("POST") >= 5 && count("PUT") + count("DELETE") === 0, `${step}: only creates`);
            }
            const r = await recoverKilled(stack, m, step);
            await assertConverged(sim, stack, want, types);
            report.push(
                `${step}: killed after ${killedAfter} writes (${count("POST")} creates, ${count("PUT")} updates, ` +
                    `${count("DELETE")} deletes answered by then and after); ` +
                    `${r.stdout.split("\n").filter((l) => /^adopt /.test(l)).length} adopted, ` +
                    `${r.stdout.split("\n").filter((l) => /^clear /.test(l)).length} cleared; converged`,
            );
        }
        return report;
    } finally {
        sim.latencyMs = 0;
        emptySimulator(sim);
        made.dispose();
    }
}

/**
 * The "refused" step of killLifecycle (issue 66): `up` of a program that adds 4 connections,
 * the state backend refusing every write of the checkpoint once the third create has been
 * answered (its read-back still in flight), so that its end is never recorded. The CLI retries
 * the write for about 32 s (pkg/backend/diy/state.go, saveCheckpoint), then the run fails by
 * itself: exit 1, its history entry "failed", its lock removed, and the checkpoint holding the
 * third create as pending though ChatBot made it. With the backend back, `recover` finds that run
 * in the history (no lock), adopts what it made, and `up` converges. `--parallel 1`: one create
 * in flight, so one refused write to wait for, not one per create.
 */
async function refusedCheckpointUp(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    m: KillStore,
    want: Declared[],
    types?: string[],
): Promise<string> {
    assert.ok(m.store.refuseCheckpointWrites, `${m.store.name} cannot refuse a checkpoint's writes here`);
    const env = stack.environment();
    const before = sim.requests.length;
    const creates = () => sim.requests.slice(before).filter((q) => q.method === "POST").length;
    let accept: (() => void) | undefined;
    let finished = false;
    const began = Date.now();
    const running = stack.run("up", { parallel: 1 }).finally(() => (finished = true));
    try {
        while (!finished && !accept) {
            if (creates() >= 3) accept = m.store.refuseCheckpointWrites(env, "declare", stack.name);
            await new Promise((r) => setTimeout(r, 5));
        }
        const r = await running;
        assert.ok(accept, `the up ended before its third create:\n${r.stdout}`);
        assert.notEqual(r.code, 0, "the up fails once its checkpoint cannot be written");
        assert.match(r.stdout + r.stderr, /failed to save snapshot/);
    } finally {
        accept?.();
    }
    const failedInMs = Date.now() - began;
    assert.deepEqual(await m.store.locks(env), [], "a run that ends by itself removes its lock");
    const pending = (await stack.export()).deployment.pending_operations ?? [];
    const recorded = (await stack.resources()).filter((x) => !types || types.includes(x.type)).length;
    const held = sim.listConnections().length + sim.listLegacyWebhooks().length;
    assert.equal(pending.length, 1, "the create whose end was refused is pending");
    assert.equal(held, recorded + 1, "and ChatBot holds what it made");
    const r = await recoverRun(stack);
    assert.equal(r.code, 0, `recover failed:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^the run that left the pending creates began at \S+ \(its history entry: update failed\)/m);
    const adopted = r.stdout.split("\n").filter((l) => /^adopt /.test(l)).length;
    assert.equal(adopted, 1, `what the failed run made is adopted, not cleared:\n${r.stdout}`);
    for (const s of [...SECRETS, ...(m.secrets ?? [])]) assert.ok(!(r.stdout + r.stderr).includes(s), "no secret");
    await assertConverged(sim, stack, want, types);
    return `refused: the checkpoint's writes refused from the third create's end; up failed by itself in ${Math.round(failedInMs / 1000)} s (its lock removed, 1 create pending); ${adopted} adopted; converged`;
}

/** `pulumi destroy` of 20 connections killed at `rounds` seeded moments (a new stack each);
 *  after each, `recover` and `destroy`: nothing is left, in the API or the state. */
export async function destroyKills(sim: ChatbotSimulator, m: KillMatrix): Promise<void> {
    const random = seeded(m.seed);
    for (let round = 0; round < m.rounds; round++) {
        const made = await declareStack(sim, {
            config: SECRET_CONFIG,
            env: await m.store.namespace(),
            native: m.native,
        });
        try {
            const names = Array.from({ length: 20 }, (_, i) => `d${i}`);
            await made.declare(declared(names, 1, () => STORY));
            ok(await made.stack.run("up"));
            await killDestroy(sim, made.stack, m, 1 + Math.floor(random() * 15), `destroy round ${round}`);
        } finally {
            sim.latencyMs = 0;
            emptySimulator(sim);
            made.dispose();
        }
    }
}

/** A run that is still going keeps its lock: recover (even with --cancel-lock) refuses, naming
 *  the run's pid, and changes nothing; the run then ends well. */
export async function liveRunRefused(sim: ChatbotSimulator, store: StateStore): Promise<void> {
    const made = await declareStack(sim, { config: SECRET_CONFIG, env: await store.namespace() });
    try {
        await made.declare([
            {
                kind: "WebhookConnection",
                name: "busy",
                args: { storyId: STORY, url: "https://hooks.example.com/busy", token: { secretConfig: "hookToken" } },
            },
        ]);
        // Long enough that recover has answered before the run ends, on a machine under load.
        sim.latencyMs = 12_000;
        let finished = false;
        let pid: number | undefined;
        const running = made.stack.run("up", { onStart: (p) => (pid = p) });
        void running.then(() => (finished = true));
        const began = Date.now();
        while (sim.inFlight < 1 && Date.now() - began < 30_000) await new Promise((res) => setTimeout(res, 5));
        assert.equal((await store.locks(made.stack.environment())).length, 1, "the run holds its lock");
        const r = await recoverRun(made.stack, ["--cancel-lock"]);
        assert.ok(!finished, "the run was still going");
        assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
        assert.match(r.stderr, new RegExp(`\\(pid ${pid}\\), started at .*still running on this machine`));
        sim.latencyMs = 0; // the create in flight still takes its time; what follows need not
        ok(await running);
        assert.deepEqual(await store.locks(made.stack.environment()), [], "the run removed its own lock");
        assert.equal(sim.listConnections().length, 1);
        assert.equal((await made.stack.run("preview", { expectNoChanges: true })).code, 0);
    } finally {
        sim.latencyMs = 0;
        made.dispose();
    }
}

/**
 * The simulator of a file of kill matrices (tests/kill/killMatrix*.test.ts,
 * tests/cli/killLifecycle.test.ts), for mocha's hooks of the enclosing describe: started before
 * its cases, emptied with no latency before each, closed after. Returns how to reach it once
 * started.
 */
export function matrixSimulator(): () => ChatbotSimulator {
    let sim: ChatbotSimulator | undefined;
    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
    });
    beforeEach(() => {
        emptySimulator(sim!);
        sim!.latencyMs = 0;
    });
    after(async () => {
        await sim?.close();
    });
    return () => sim!;
}
