/**
 * A killed run loses nothing: `pulumi up` and `pulumi destroy` killed (SIGKILL) at seeded random
 * moments, through the real pulumi CLI against the simulator with latency, then the documented
 * step (`pulumi-chatbot recover`) and the next run. Afterwards the API holds each declared
 * connection exactly once, the state equals the API, `preview --expect-no-changes` passes, no
 * pending operation or warning is left, and no secret is in plain text in `pulumi stack export`.
 * Then the cases where the evidence does not single out one connection.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import {
    assertConverged,
    declared,
    destroyKills,
    HEADER_VALUE,
    HOOK_TOKEN,
    liveRunRefused,
    PASSWORD,
    recoverRun,
    SECRET_CONFIG,
    SECRETS,
    upKillMatrix,
} from "./killedRuns";
import { folderStore } from "./stateBackends";
import { emptySimulator, installedTesting, secondNodePass } from "./support";
import { CONNECTION_TYPE, declareStack, ok, OTHER_STORY, PulumiStack, STORY, type Declared } from "./pulumi";

/** Starts `pulumi up` and kills it once the simulator holds `requests` requests at once (with a
 *  latency long enough that they are the creates); waits until they have landed. */
async function killWhileInFlight(sim: ChatbotSimulator, stack: PulumiStack, requests: number): Promise<void> {
    let pid: number | undefined;
    let finished = false;
    const done = stack.run("up", { onStart: (p) => (pid = p) });
    void done.then(() => (finished = true));
    const began = Date.now();
    while (!finished && (pid === undefined || sim.inFlight < requests) && Date.now() - began < 30_000) {
        await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(!finished && pid !== undefined, "the run ended before it could be killed");
    process.kill(pid, "SIGKILL");
    await done;
    await sim.idle();
}

/** Whether the file backend still holds a lock for the stack. */
function locked(stack: PulumiStack): boolean {
    const locks = path.join(stack.scratch, "backend", ".pulumi", "locks");
    return fs.existsSync(locks) && fs.readdirSync(locks, { recursive: true }).some((f) => String(f).endsWith(".json"));
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

    it("a state metadata file the kill left empty (every command fails: EOF) is removed, and nothing else changes", async () => {
        const { stack, declare } = await newStack();
        await declare(declared(["a"], 1, () => STORY));
        ok(await stack.run("up"));
        const before = JSON.stringify(await stack.export(true));
        const stacks = path.join(stack.scratch, "backend", ".pulumi", "stacks");
        const sidecar = fs
            .readdirSync(stacks, { recursive: true })
            .map(String)
            .find((f) => f.endsWith(`${path.sep}dev.json.attrs`) || f === "dev.json.attrs");
        assert.ok(sidecar, "the file backend writes a sidecar beside the checkpoint");
        // What a SIGKILL inside fileblob's setAttrs leaves (seen in the kill matrix below).
        fs.writeFileSync(path.join(stacks, sidecar), "");
        const broken = await stack.pulumi(["stack", "export"]);
        assert.notEqual(broken.code, 0);
        assert.match(broken.stderr, /failed to load checkpoint: EOF/);
        const r = await recoverRun(stack);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /removed dev\.json\.attrs/);
        assert.equal(JSON.stringify(await stack.export(true)), before);
        assert.equal((await stack.run("preview", { expectNoChanges: true })).code, 0);
    });

    it("up killed at 12 seeded moments while creates, updates, replaces and deletes are in flight: recovered, each connection once", async () => {
        const report = await upKillMatrix(sim, {
            store: folderStore,
            rounds: Number(process.env.KILL_ROUNDS ?? 12),
            seed: 20261125,
        });
        console.log(`      ${report.join("\n      ")}`);
    });

    it("destroy killed at 3 seeded moments: recovered, and the next destroy leaves nothing", () =>
        destroyKills(sim, { store: folderStore, rounds: 3, seed: 7 }));
    /** One v2 connection's declaration with every kind of secret; `name` is the connection's. */
    const full = (resource: string, name = resource, url = `https://hooks.example.com/${name}`): Declared => ({
        kind: "WebhookConnection",
        name: resource,
        args: {
            name,
            storyId: STORY,
            url,
            token: { secretConfig: "hookToken" },
            headers: { "X-Key": { secretConfig: "headerValue" } },
            auth: { username: "bot", password: { secretConfig: "password" } },
        },
    });
    const byHand = (name: string, url = `https://hooks.example.com/${name}`) =>
        sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name,
            url,
            token: HOOK_TOKEN,
            headers: { "X-Key": HEADER_VALUE },
            auth: { username: "bot", password: PASSWORD },
        });

    it("two pending creates with identical inputs: both adopted (they are interchangeable), none made again", async () => {
        const { stack, declare } = await newStack();
        const want = [full("twin-a", "twin"), full("twin-b", "twin")];
        await declare(want);
        sim.latencyMs = 1500;
        await killWhileInFlight(sim, stack, 2);
        sim.latencyMs = 0;
        const made = sim.listConnections().map((c) => c.id);
        assert.equal(made.length, 2, "the killed run made both");
        const r = await recoverRun(stack);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.match(/^adopt /gm)?.length, 2, r.stdout);
        sim.resetRequests();
        await assertConverged(sim, stack, want);
        assert.deepEqual(
            sim
                .listConnections()
                .map((c) => c.id)
                .sort(),
            made.sort(),
        );
        assert.equal(sim.requests.filter((q) => q.method === "POST").length, 0, "no create sent again");
    });

    it("a connection made by hand between the kill and the recovery: nothing changed, the candidates named; then --adopt chooses", async () => {
        const { stack, declare } = await newStack();
        await declare([full("solo")]);
        sim.latencyMs = 1500;
        await killWhileInFlight(sim, stack, 1);
        sim.latencyMs = 0;
        const [ours] = sim.listConnections();
        const twin = byHand("solo"); // the same in every field
        const other = byHand("solo", "https://elsewhere.example.com/solo"); // same name, another url
        const before = JSON.stringify(await stack.export(true));
        const r = await recoverRun(stack);
        assert.equal(r.code, 3, `${r.stdout}${r.stderr}`);
        assert.ok(r.stdout.includes(ours.id) && r.stdout.includes(twin.id), r.stdout);
        assert.ok(!r.stdout.includes(other.id), "a connection whose fields differ is no candidate");
        assert.match(r.stdout, /--adopt urn:pulumi:dev::declare::\S+::solo=<id>/);
        assert.equal(JSON.stringify(await stack.export(true)), before, "nothing written");
        assert.ok(locked(stack), "the lock is left until something is written");
        const urn = /--adopt (\S+)=<id>/.exec(r.stdout)![1];
        const chosen = await recoverRun(stack, ["--adopt", `${urn}=${ours.id}`]);
        assert.equal(chosen.code, 0, chosen.stderr);
        ok(await stack.run("up"));
        const [solo] = await stack.resources(CONNECTION_TYPE);
        assert.equal(solo.id, ours.id);
        assert.deepEqual(
            sim
                .listConnections()
                .map((c) => c.id)
                .sort(),
            [ours.id, twin.id, other.id].sort(),
        );
        assert.equal((await stack.run("preview", { expectNoChanges: true })).code, 0);
    });

    it("a connection another stack manages with the same fields is never adopted", async () => {
        const { stack, declare } = await newStack();
        const want = [full("shared")];
        await declare(want);
        // The interrupted create makes nothing: its POST is refused after the kill (a 400, which
        // nothing sends again).
        sim.inject({ method: "POST", fault: { status: 400 } });
        sim.latencyMs = 1500;
        await killWhileInFlight(sim, stack, 1);
        sim.latencyMs = 0;
        assert.equal(sim.listConnections().length, 0);
        // Another stack of the same backend then makes one with the same fields.
        const other = await PulumiStack.create({
            projectDir: stack.projectDir,
            stack: "other",
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                ...SECRET_CONFIG,
                resources: JSON.stringify(want),
            },
            env: { PULUMI_BACKEND_URL: `file://${path.join(stack.scratch, "backend")}` },
        });
        disposers.push(() => other.dispose());
        ok(await other.run("up"));
        const [theirs] = sim.listConnections();
        const r = await recoverRun(stack);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^clear .*::shared: its create made nothing/m);
        ok(await stack.run("up"));
        const ids = sim.listConnections().map((c) => c.id);
        assert.equal(ids.length, 2, "one for each stack");
        assert.deepEqual(
            (await other.resources(CONNECTION_TYPE)).map((x) => x.id),
            [theirs.id],
        );
        const [mine] = await stack.resources(CONNECTION_TYPE);
        assert.notEqual(mine.id, theirs.id);
        assert.equal((await stack.run("preview", { expectNoChanges: true })).code, 0);
    });

    it("an API that fails while recovering: nothing written; once it answers, recovered", async () => {
        const { stack, declare } = await newStack();
        const want = [full("f1"), full("f2"), full("f3")];
        await declare(want);
        sim.latencyMs = 1500;
        await killWhileInFlight(sim, stack, 3);
        sim.latencyMs = 0;
        const before = JSON.stringify(await stack.export(true));
        sim.inject({ method: "GET", fault: { status: 500 }, times: 1000 });
        const r = await recoverRun(stack);
        sim.clearFaults();
        assert.equal(r.code, 2, `${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /Nothing was changed/);
        for (const s of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(s));
        assert.equal(JSON.stringify(await stack.export(true)), before, "nothing half-written");
        const again = await recoverRun(stack);
        assert.equal(again.code, 0, again.stderr);
        await assertConverged(sim, stack, want);
    });

    it("a run that is still going keeps its lock: recover refuses and changes nothing", () =>
        liveRunRefused(sim, folderStore));

    it("the native plugin: up killed at 3 seeded moments and destroy at 2, recovered", async () => {
        await upKillMatrix(sim, { store: folderStore, rounds: 3, seed: 42, native: true });
        await destroyKills(sim, { store: folderStore, rounds: 2, seed: 42, native: true });
    });
});
