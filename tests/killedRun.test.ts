/**
 * A killed run loses nothing: `pulumi up` and `pulumi destroy` killed (SIGKILL) at seeded random
 * moments, through the real pulumi CLI against the simulator with latency, then the documented
 * step (`pulumi-chatbot recover`) and the next run. Afterwards the API holds each declared
 * connection exactly once, the state equals the API, `preview --expect-no-changes` passes, no
 * pending operation or warning is left, and no secret is in plain text in `pulumi stack export`.
 * Then the cases where the evidence does not single out one connection.
 */
import { strict as assert } from "assert";
import { execFile } from "child_process";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedTesting, root, secondNodePass } from "./support";
import {
    CONNECTION_TYPE,
    declareStack,
    LEGACY_TYPE,
    ok,
    OTHER_STORY,
    pulumiCli,
    PulumiStack,
    STORY,
    type Declared,
} from "./pulumi";

const HOOK_TOKEN = "hook-token-KILLED-9";
const HEADER_VALUE = "header-value-KILLED-9";
const PASSWORD = "password-KILLED-9";
const SECRETS = [HOOK_TOKEN, HEADER_VALUE, PASSWORD];
const SECRET_CONFIG = {
    hookToken: { secret: HOOK_TOKEN },
    headerValue: { secret: HEADER_VALUE },
    password: { secret: PASSWORD },
};
const CLI = path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js");

/** A small seeded generator (mulberry32), so a failing kill moment can be replayed. */
function seeded(seed: number): () => number {
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
function declared(names: string[], version: number, story: (name: string) => string): Declared[] {
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

/** `pulumi-chatbot recover` as a pipeline runs it: in the project, the CLI on PATH. */
function recoverRun(
    stack: PulumiStack,
    args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = stack.environment({ PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}` });
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            [CLI, "recover", "--stack", stack.name, ...args],
            { cwd: stack.projectDir, env, timeout: 180_000 },
            (error, stdout, stderr) =>
                resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
        );
    });
}

/**
 * Starts `pulumi <command>` and kills it (SIGKILL) once the simulator has answered `afterWrites`
 * writes, or after `deadlineMs` at the latest; resolves when it has exited. Then waits until
 * the simulator has no request in hand (what was in flight has landed).
 */
async function killDuring(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    command: "up" | "destroy",
    afterWrites: number,
    deadlineMs = 30_000,
): Promise<{ killedAfter: number }> {
    const writes = () => sim.requests.filter((r) => r.method !== "GET").length;
    const start = writes();
    let pid: number | undefined;
    let killedAfter = -1;
    const done = stack.run(command, { onStart: (p) => (pid = p) });
    const began = Date.now();
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished && Date.now() - began < deadlineMs) {
        if (pid !== undefined && writes() - start >= afterWrites) break;
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

/** What every recovered stack must show: each declared resource once in the API, the state equal
 *  to the API, no change to make, no pending operation, secrets sealed. */
async function assertConverged(sim: ChatbotSimulator, stack: PulumiStack, want: Declared[]): Promise<void> {
    const up = ok(await stack.run("up"));
    assert.doesNotMatch(up.stdout + up.stderr, /pending operation/i);
    const apiNames = [
        ...sim.listConnections().map((c) => `WebhookConnection ${c.name} ${c.story.id} ${c.url}`),
        ...sim.listLegacyWebhooks().map((w) => `LegacyWebhook ${w.name} ${w.url}`),
    ].sort();
    const wantNames = want
        .map((d) =>
            d.kind === "WebhookConnection"
                ? `WebhookConnection ${d.name} ${String(d.args?.storyId)} ${String(d.args?.url)}`
                : `LegacyWebhook ${d.name} ${String(d.args?.url)}`,
        )
        .sort();
    assert.deepEqual(apiNames, wantNames, "the API holds each declared connection exactly once, and nothing else");
    const inState = (await stack.resources()).filter((r) => [CONNECTION_TYPE, LEGACY_TYPE].includes(r.type));
    const apiIds = [...sim.listConnections().map((c) => c.id), ...sim.listLegacyWebhooks().map((w) => w.id)].sort();
    assert.deepEqual(inState.map((r) => r.id).sort(), apiIds, "the state records exactly what the API holds");
    const exported = await stack.export();
    assert.deepEqual(exported.deployment.pending_operations ?? [], [], "no pending operation is left");
    const text = JSON.stringify(exported);
    for (const s of SECRETS) assert.ok(!text.includes(s), "no secret in plain text in the export");
    const preview = await stack.run("preview", { expectNoChanges: true });
    assert.equal(preview.code, 0, `preview --expect-no-changes:\n${preview.stdout}${preview.stderr}`);
}

describe("a killed pulumi run, then `pulumi-chatbot recover`", function () {
    this.timeout(900_000);
    let sim: ChatbotSimulator;
    const disposers: Array<() => void> = [];

    before(async function () {
        if (secondNodePass()) this.skip();
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
    });
    beforeEach(() => {
        emptySimulator(sim);
        sim.latencyMs = 0;
    });
    afterEach(() => {
        while (disposers.length) disposers.pop()!();
    });
    after(async () => {
        await sim?.close();
    });

    const newStack = async () => {
        const s = await declareStack(sim, { config: SECRET_CONFIG });
        disposers.push(s.dispose);
        return s;
    };

    it("does nothing on a healthy stack: no write to the state, no request to ChatBot", async () => {
        const { stack, declare } = await newStack();
        await declare(declared(["a", "b"], 1, () => STORY));
        ok(await stack.run("up"));
        const before = JSON.stringify(await stack.export(true));
        sim.resetRequests();
        const r = await recoverRun(stack);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /nothing to do/);
        assert.equal(sim.requests.length, 0);
        assert.equal(JSON.stringify(await stack.export(true)), before);
    });

    it("up killed at 16 seeded moments while creates, updates, replaces and deletes are in flight: recovered, each connection once", async () => {
        const random = seeded(20261125);
        const { stack, declare } = await newStack();
        sim.latencyMs = 150;
        let names = Array.from({ length: 22 }, (_, i) => `c${i}`);
        let version = 1;
        const moved = new Set<string>();
        const story = (name: string) => (moved.has(name) ? OTHER_STORY : STORY);
        const report: string[] = [];
        for (let round = 0; round < Number(process.env.KILL_ROUNDS ?? 16); round++) {
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
            const r = await recoverRun(stack);
            const recoverMs = Date.now() - t0;
            assert.equal(r.code, 0, `round ${round}: recover failed:\n${r.stdout}${r.stderr}`);
            for (const s of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(s), "recover prints no secret");
            await assertConverged(sim, stack, want);
            report.push(
                `round ${round}: killed after ${killedAfter} writes; ${r.stdout.split("\n").filter((l) => /^(adopt|clear)/.test(l)).length} repaired; recover ${recoverMs} ms; ${sim.requests.length - before} requests`,
            );
        }
        console.log(`      ${report.join("\n      ")}`);
    });

    it("destroy killed at 3 seeded moments: recovered, and the next destroy leaves nothing", async () => {
        const random = seeded(7);
        for (let round = 0; round < 3; round++) {
            const { stack, declare } = await newStack();
            await declare(
                declared(
                    Array.from({ length: 20 }, (_, i) => `d${i}`),
                    1,
                    () => STORY,
                ),
            );
            ok(await stack.run("up"));
            sim.latencyMs = 150;
            await killDuring(sim, stack, "destroy", 1 + Math.floor(random() * 15));
            const r = await recoverRun(stack);
            assert.equal(r.code, 0, `recover failed:\n${r.stdout}${r.stderr}`);
            const destroyed = ok(await stack.run("destroy"));
            assert.doesNotMatch(destroyed.stdout + destroyed.stderr, /pending operation/i);
            assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 0);
            assert.deepEqual(await stack.resources(), []);
            sim.latencyMs = 0;
            emptySimulator(sim);
        }
    });
});
