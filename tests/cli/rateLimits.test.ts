/**
 * An API that limits requests never fails a pipeline (issue 30): through the real pulumi CLI
 * against the simulator with an account-wide limit (a token bucket; 429 with Retry-After beyond
 * it), one stack and several at once, sharing one state backend as a CI matrix does. Every run
 * exits 0 on its first try and the account holds each declared connection once. How fast they
 * get there (wall time ÷ the floor the limit sets, 429s per request served) is the bench's
 * ("ten pipelines on one account", bench/run.ts); here the figures are only printed.
 *
 * Then a pipeline SIGKILLed among the others, and the defect of issue 30: a selected stack whose
 * kill left its metadata file cut short, recovered by `recover` with no `--stack`.
 *
 * All of it with the pipelines' state in a folder, and again on one PostgreSQL (issue 32), where
 * `recover` lists the stacks of a backend that hangs when listed too many at once.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { killDuring, recoverRun } from "../helpers/killedRuns";
import { declareStack, ok, STORY, type Declared, type PulumiStack } from "../helpers/pulumi";
import { FOLDER, POSTGRES, serveFor, type Backend } from "../helpers/stateBackends";
import { emptySimulator, installedTesting } from "../helpers/support";

/** `n` connections of one stack, named after it so that stacks never share a name. */
function connections(stack: string, n: number, version = 1): Declared[] {
    return Array.from({ length: n }, (_, i) => ({
        kind: "WebhookConnection",
        name: `${stack}-c${i}`,
        args: { storyId: STORY, url: `https://hooks.example.com/${stack}/${i}/v${version}` },
    }));
}

for (const backend of [FOLDER, POSTGRES]) {
    describe(`an API that limits requests: pipelines through the real CLI, state in ${backend.name}`, function () {
        pipelinesUnderALimit(this, backend);
    });
}

function pipelinesUnderALimit(suite: Mocha.Suite, backend: Backend): void {
    suite.timeout(900_000);
    let sim: ChatbotSimulator;
    /** PULUMI_HOME for every stack of a test, and one state backend, as pipelines share them. */
    let shared: string;
    let state: Record<string, string>;
    const disposers: Array<() => void> = [];

    before(async function () {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
    });
    const server = serveFor(backend);
    beforeEach(async () => {
        emptySimulator(sim);
        shared = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-pipelines-"));
        state = await server().store.namespace();
        fs.mkdirSync(path.join(shared, "home"));
        disposers.push(() => fs.rmSync(shared, { recursive: true, force: true }));
    });
    afterEach(() => {
        sim.rateLimit = undefined;
        while (disposers.length) disposers.pop()!();
    });
    after(async () => {
        await sim?.close();
    });

    /** Stacks `p0`, `p1`, ... of separate project folders on the one shared backend. */
    async function pipelines(count: number, perStack: number, native = false) {
        const all: Array<{ stack: PulumiStack; want: Declared[] }> = [];
        for (let i = 0; i < count; i++) {
            const made = await declareStack(sim, {
                stack: `p${i}`,
                native,
                env: { ...state, PULUMI_HOME: path.join(shared, "home") },
            });
            disposers.push(made.dispose);
            const want = connections(`p${i}`, perStack);
            await made.declare(want);
            all.push({ stack: made.stack, want });
        }
        return all;
    }

    /** Runs `command` on every stack at once; fails naming each run that did not exit 0. */
    async function allAtOnce(stacks: PulumiStack[], command: "up" | "destroy"): Promise<string> {
        sim.resetRequests();
        const began = Date.now();
        const runs = await Promise.all(stacks.map((s) => s.run(command)));
        const wallMs = Date.now() - began;
        const failed = runs.flatMap((r, i) => (r.code === 0 ? [] : [`${stacks[i].name}: ${r.stdout}${r.stderr}`]));
        assert.deepEqual(failed, [], `every ${command} exits 0 on its first run`);
        const served = sim.requests.filter((r) => r.status !== 429).length;
        const floorMs = (served / sim.rateLimit!.perSecond) * 1000;
        return (
            `${stacks.length} × ${command}: ${(wallMs / 1000).toFixed(1)} s, ${(wallMs / floorMs).toFixed(2)} × the floor ` +
            `(${served} served at ${sim.rateLimit!.perSecond}/s), ${sim.rateLimited} answered 429 ` +
            `(${(sim.rateLimited / served).toFixed(2)} per request served)`
        );
    }

    /** Each declared connection once in the account, and nothing else. */
    function assertAccountHolds(want: Declared[]): void {
        const held = sim.listConnections().map((c) => `${c.name} ${c.url}`);
        assert.deepEqual(
            held.sort(),
            want.map((d) => `${d.name} ${String(d.args?.url)}`).sort(),
            "each declared connection once, nothing else",
        );
    }

    for (const native of [false, true]) {
        const delivery = native ? "the native plugin" : "the dynamic provider";
        it(`one stack of 40 under 10 requests a second: up, an update of every url and destroy each exit 0 on the first run (${delivery})`, async function () {
            if (backend !== FOLDER) this.skip(); // one stack: where its state is plays no part
            sim.rateLimit = { perSecond: 10 };
            const [{ stack, want }] = await pipelines(1, 40, native);
            const report = [await allAtOnce([stack], "up")];
            assertAccountHolds(want);
            const updated = connections("p0", 40, 2);
            await stack.setConfig({ resources: JSON.stringify(updated) });
            report.push(await allAtOnce([stack], "up"));
            assertAccountHolds(updated);
            report.push(await allAtOnce([stack], "destroy"));
            assert.deepEqual(sim.listConnections(), []);
            console.log(`      ${report.join("\n      ")}`);
        });
    }

    it("four stacks of 20, four ups at once on one account limited to 10 a second: all exit 0, each connection once; four destroys at once leave it empty", async () => {
        sim.rateLimit = { perSecond: 10 };
        const all = await pipelines(4, 20);
        const report = [
            await allAtOnce(
                all.map((p) => p.stack),
                "up",
            ),
        ];
        assertAccountHolds(all.flatMap((p) => p.want));
        report.push(
            await allAtOnce(
                all.map((p) => p.stack),
                "destroy",
            ),
        );
        assert.deepEqual(sim.listConnections(), [], "the account is empty");
        console.log(`      ${report.join("\n      ")}`);
    });

    it("one of four pipelines SIGKILLed in the middle: recover and its up leave each connection once", async () => {
        sim.rateLimit = { perSecond: 10 };
        sim.latencyMs = 50;
        const all = await pipelines(4, 15);
        const [victim, ...others] = all;
        const othersDone = Promise.all(others.map((p) => p.stack.run("up")));
        await killDuring(sim, victim.stack, "up", 20, 120_000);
        for (const r of await othersDone) ok(r);
        const r = await recoverRun(victim.stack);
        assert.equal(r.code, 0, `recover:\n${r.stdout}${r.stderr}`);
        const up = ok(await victim.stack.run("up"));
        assert.doesNotMatch(up.stdout + up.stderr, /pending operation/i);
        assertAccountHolds(all.flatMap((p) => p.want));
        const exported = await victim.stack.export();
        assert.deepEqual(exported.deployment.pending_operations ?? [], []);
    });

    it("a selected stack whose kill cut its metadata file short: recover with no --stack repairs it, then up: no duplicate, no orphan, no pending operation", async function () {
        if (backend !== FOLDER) this.skip(); // only a folder keeps metadata files beside the state
        sim.latencyMs = 50;
        const [{ stack, want }] = await pipelines(1, 20);
        ok(await stack.run("up"));
        const updated = connections("p0", 20, 2);
        await stack.setConfig({ resources: JSON.stringify(updated) });
        const selected = await stack.pulumi(["stack", "select"]); // --stack is added: `stack select --stack p0`
        assert.equal(selected.code, 0, selected.stderr);
        await killDuring(sim, stack, "up", 8);
        // What a SIGKILL inside the file backend's metadata write leaves (see killedRun.test.ts).
        const stacks = path.join(new URL(state.PULUMI_BACKEND_URL).pathname, ".pulumi", "stacks");
        const sidecar = fs
            .readdirSync(stacks, { recursive: true })
            .map(String)
            .find((f) => path.basename(f) === `${stack.name}.json.attrs`);
        assert.ok(sidecar, "the file backend writes a metadata file beside the checkpoint");
        fs.writeFileSync(path.join(stacks, sidecar), "");
        assert.match((await stack.pulumi(["stack", "export"])).stderr, /failed to load checkpoint: EOF/);

        const r = await recoverRun(stack, [], { selected: true });
        assert.equal(r.code, 0, `recover with no --stack:\n${r.stdout}${r.stderr}`);
        assert.match(r.stdout, new RegExp(`removed ${stack.name}\\.json\\.attrs`));
        const up = ok(await stack.run("up"));
        assert.doesNotMatch(up.stdout + up.stderr, /pending operation/i);
        assertAccountHolds(updated);
        assert.equal(want.length, updated.length);
        const exported = await stack.export();
        assert.deepEqual(exported.deployment.pending_operations ?? [], []);
        assert.deepEqual(
            (exported.deployment.resources ?? [])
                .filter((x) => x.custom && x.id && !x.type.startsWith("pulumi:providers:"))
                .map((x) => x.id)
                .sort(),
            sim
                .listConnections()
                .map((c) => c.id)
                .sort(),
            "the state records exactly what the account holds",
        );
    });

    it("the native plugin: a Ctrl-C (SIGINT to the CLI) while a create waits out a 60 s Retry-After ends the run at once, having made nothing", async function () {
        if (backend !== FOLDER) this.skip(); // the state backend plays no part
        sim.inject({ method: "POST", fault: { status: 429, retryAfter: "60" }, times: 100 });
        const [{ stack }] = await pipelines(1, 2, true);
        let pid: number | undefined;
        const run = stack.run("up", { onStart: (p) => (pid = p) });
        const began = Date.now();
        while (sim.requests.filter((q) => q.status === 429).length < 2 && Date.now() - began < 60_000)
            await new Promise((r) => setTimeout(r, 20));
        assert.ok(pid !== undefined, "the CLI started");
        const signalled = Date.now();
        process.kill(pid, "SIGINT");
        const r = await run;
        const ms = Date.now() - signalled;
        assert.notEqual(r.code, 0);
        assert.ok(ms < 15_000, `the run ended ${ms} ms after the SIGINT, not after the 60 s asked`);
        assert.match(r.stdout + r.stderr, /Stopped waiting to retry: the run is being cancelled/);
        assert.deepEqual(sim.listConnections(), []);
    });
}
