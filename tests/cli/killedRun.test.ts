/**
 * A killed run loses nothing: `pulumi up` and `pulumi destroy` killed (SIGKILL) at seeded random
 * moments, through the real pulumi CLI against the simulator with latency, then the documented
 * step (`pulumi-chatbot recover`) and the next run. Afterwards the API holds each declared
 * connection exactly once, the state equals the API, `preview --expect-no-changes` passes, no
 * pending operation or warning is left, and no secret is in plain text in `pulumi stack export`.
 * Then the cases where the evidence does not single out one connection. The kill matrices (seeded
 * moments, both deliveries) are tests/cli/killMatrixUp.test.ts and killMatrixMore.test.ts: three
 * files that `npm test` runs side by side.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import {
    assertConverged,
    chatbotCli,
    HEADER_VALUE,
    HOOK_TOKEN,
    liveRunRefused,
    PASSWORD,
    recoverRun,
    SECRET_CONFIG,
    SECRETS,
} from "../helpers/killedRuns";
import { folderStore } from "../helpers/stateBackends";
import { connectionAsOutputs, emptySimulator, installedTesting } from "../helpers/support";
import {
    CONNECTION_TYPE,
    declareStack,
    LEGACY_TYPE,
    NATIVE_CONNECTION_TYPE,
    ok,
    OTHER_STORY,
    plain,
    pulumiCli,
    PulumiStack,
    STORY,
    type ConfigValue,
    type Declared,
} from "../helpers/pulumi";

/**
 * Starts `pulumi up` and kills it once the simulator holds `requests` requests at once (each
 * answered 1.5 s late, so that they are the run's first writes: creates, an update's PUT, a
 * delete's DELETE); waits until they have landed. With `refuseCreates`, the creates in flight
 * are refused (400, which nothing sends again): the interrupted creates made nothing.
 */
async function killWhileInFlight(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    requests: number,
    opts: { refuseCreates?: boolean } = {},
): Promise<void> {
    if (opts.refuseCreates) sim.inject({ method: "POST", fault: { status: 400 }, times: requests });
    sim.latencyMs = 1500;
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
    sim.latencyMs = 0;
    sim.clearFaults();
}

/** `pulumi stack export` holds what the API holds: the same connections, each with the API's
 *  fields (secrets included) as its outputs. */
async function assertStateIsApi(sim: ChatbotSimulator, stack: PulumiStack, type: string, when: string): Promise<void> {
    const inState = await stack.resources(type);
    const api = new Map(sim.listConnections().map((c) => [c.id, connectionAsOutputs(c)]));
    assert.deepEqual(
        inState.map((r) => r.id).sort(),
        [...api.keys()].sort(),
        `${when}: the state records exactly the connections the API holds`,
    );
    for (const r of inState) {
        const want = api.get(r.id!)!;
        const outputs = plain(r.outputs) as Record<string, unknown>;
        const recorded = Object.fromEntries(Object.keys(want).map((k) => [k, outputs[k]]));
        assert.deepEqual(recorded, want, `${when}: the state's ${r.urn} holds what the API holds`);
    }
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
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
    });
    /** Set while the cases of a shared lifecycle (below) run: they continue from the connections
     *  the one before left, so the simulator is emptied once, by their `before`, not before each. */
    let lifecycle = false;
    beforeEach(() => {
        if (!lifecycle) emptySimulator(sim);
        sim.latencyMs = 0;
        sim.clockOffsetMs = 0;
    });
    afterEach(() => {
        while (disposers.length) disposers.pop()!();
    });
    after(async () => {
        await sim?.close();
    });

    /** A stack of tests/programs/declare.js with SECRET_CONFIG (and `config`); through the native
     *  plugin with `native`. */
    const newStack = async (opts: { native?: boolean; config?: Record<string, ConfigValue> } = {}) => {
        const s = await declareStack(sim, { native: opts.native, config: { ...SECRET_CONFIG, ...opts.config } });
        disposers.push(s.dispose);
        return s;
    };

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
    /** A connection made by someone else with the fields `full(name)` declares, but for `fields`. */
    const byHand = (name: string, fields: Partial<StoredConnection> = {}) =>
        sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name,
            url: `https://hooks.example.com/${name}`,
            token: HOOK_TOKEN,
            headers: { "X-Key": HEADER_VALUE },
            auth: { username: "bot", password: PASSWORD },
            ...fields,
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
        const other = byHand("solo", { url: "https://elsewhere.example.com/solo" }); // same name, another url
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

    it("connections other stacks manage with the same fields are never adopted: another stack of this project, and one of the same name in another project", async () => {
        const { stack, declare } = await newStack();
        const want = [full("shared")];
        await declare(want);
        // The interrupted create makes nothing.
        await killWhileInFlight(sim, stack, 1, { refuseCreates: true });
        assert.equal(sim.listConnections().length, 0);
        // Then two other stacks of the same backend make one each with the same fields: `other` of
        // this project, and `dev` of another (`stack ls --all` names it organization/elsewhere/dev).
        const backend = { PULUMI_BACKEND_URL: `file://${path.join(stack.scratch, "backend")}` };
        const other = await PulumiStack.create({
            projectDir: stack.projectDir,
            stack: "other",
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                ...SECRET_CONFIG,
                resources: JSON.stringify(want),
            },
            env: backend,
        });
        disposers.push(() => other.dispose());
        const elsewhere = await declareStack(sim, { config: SECRET_CONFIG, env: backend, project: "elsewhere" });
        disposers.push(elsewhere.dispose);
        await elsewhere.declare(want);
        assert.equal(elsewhere.stack.name, stack.name);
        for (const s of [other, elsewhere.stack]) ok(await s.run("up"));
        const theirs = sim.listConnections().map((c) => c.id);
        const r = await recoverRun(stack);
        assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
        assert.match(r.stdout, /^clear .*::shared: its create made nothing/m);
        ok(await stack.run("up"));
        const ids = sim.listConnections().map((c) => c.id);
        assert.equal(ids.length, 3, "one for each stack");
        assert.deepEqual(
            [...(await other.resources(CONNECTION_TYPE)), ...(await elsewhere.stack.resources(CONNECTION_TYPE))].map(
                (x) => x.id,
            ),
            theirs,
        );
        const [mine] = await stack.resources(CONNECTION_TYPE);
        assert.ok(!theirs.includes(mine.id!));
        assert.equal((await stack.run("preview", { expectNoChanges: true })).code, 0);
    });

    it('a refresh that fails after `stack import` (the API down at that moment): recover names what it wrote, never "Nothing was changed."; run again once the API answers, each connection once', async () => {
        const { stack, declare } = await newStack();
        await declare([full("r1")]);
        ok(await stack.run("up"));
        const want = [full("r1"), full("r2"), full("r3")];
        await declare(want);
        await killWhileInFlight(sim, stack, 2, { refuseCreates: true });
        // The list recover reads answers; the single reads of the refresh that follows the import fail.
        sim.inject({
            method: "GET",
            path: /^\/v2\/integrations\/webhook\/[^/]+$/,
            fault: { status: 500 },
            times: 1000,
        });
        const r = await recoverRun(stack);
        sim.clearFaults();
        assert.equal(r.code, 2, `${r.stdout}${r.stderr}`);
        assert.doesNotMatch(r.stdout + r.stderr, /Nothing was changed/);
        assert.match(r.stderr, /`pulumi refresh` failed/);
        assert.match(r.stderr, /Written before the failure:\n {2}removed the lock of the run of \S+ \(pid \d+\)/);
        assert.match(
            r.stderr,
            /imported the repaired state \(0 adopted: none; 2 cleared\): no pending operation is left/,
        );
        assert.match(r.stderr, /Next, once the cause is fixed: `pulumi refresh --stack /);
        for (const s of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(s), "no secret printed");
        assert.ok(!locked(stack), "the lock is removed, as printed");
        assert.deepEqual(
            (await stack.export()).deployment.pending_operations ?? [],
            [],
            "the state is imported, as printed",
        );
        const again = await recoverRun(stack);
        assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
        await assertConverged(sim, stack, want);
    });

    it("a failure right after the lock was removed (`stack import` fails): recover says the lock is removed and the state not yet repaired; run again, it finishes: each connection once", async () => {
        const { stack, declare } = await newStack();
        const want = [full("i1"), full("i2")];
        await declare(want);
        await killWhileInFlight(sim, stack, 2);
        // A pulumi whose `stack import` fails (as with a backend that went away at that moment).
        const bin = path.join(stack.scratch, "failing-import");
        fs.mkdirSync(bin, { recursive: true });
        fs.writeFileSync(
            path.join(bin, "pulumi"),
            `#!/bin/sh\nif [ "$1" = stack ] && [ "$2" = import ]; then echo "error: the backend cannot be written" >&2; exit 1; fi\n` +
                `exec "${pulumiCli()}" "$@"\n`,
            { mode: 0o755 },
        );
        const r = await chatbotCli(stack, ["recover", "--stack", stack.name], {
            PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
        });
        assert.equal(r.code, 2, `${r.stdout}${r.stderr}`);
        assert.doesNotMatch(r.stdout + r.stderr, /Nothing was changed/);
        assert.match(r.stderr, /`pulumi stack import` failed/);
        assert.match(r.stderr, /Written before the failure:\n {2}removed the lock of the run of \S+ \(pid \d+\)/);
        assert.doesNotMatch(r.stderr, /imported/);
        assert.match(r.stderr, /the state is not repaired yet: its pending operations are as they were/i);
        assert.match(r.stderr, /Next, once the cause is fixed: `pulumi-chatbot recover --stack /);
        assert.ok(!locked(stack), "the lock is removed, as printed");
        assert.equal((await stack.export()).deployment.pending_operations?.length, 2, "the state is as it was");
        const again = await recoverRun(stack);
        assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
        assert.equal(again.stdout.split("\n").filter((l) => /^adopt /.test(l)).length, 2, again.stdout);
        await assertConverged(sim, stack, want);
    });

    it("a run that is still going keeps its lock: recover refuses and changes nothing", () =>
        liveRunRefused(sim, folderStore));

    // One stack through one lifecycle: a killed run recovered, then the cases that need only a
    // healthy stack, on the one it leaves converged. Its cases continue it in order (each from the
    // state the one before left), so a failure in one may fail those after it.
    describe("a killed run recovered, then recover again on the healthy stack it leaves", () => {
        let stack: PulumiStack;
        let declare: (resources: Declared[]) => Promise<void>;
        let dispose: (() => void) | undefined;
        before(async () => {
            emptySimulator(sim);
            ({ stack, declare, dispose } = await declareStack(sim, { config: SECRET_CONFIG }));
            lifecycle = true;
        });
        after(() => {
            lifecycle = false;
            dispose?.();
        });

        it("an API that fails while recovering: nothing written; once it answers, recovered", async () => {
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

        it("does nothing on a healthy stack: no write to the state, no request to ChatBot", async () => {
            // The stack the case before left converged: recovered, then up, with no change to make.
            const before = JSON.stringify(await stack.export(true));
            sim.resetRequests();
            const r = await recoverRun(stack);
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /nothing to do/);
            assert.equal(sim.requests.length, 0);
            assert.equal(JSON.stringify(await stack.export(true)), before);
        });

        it("a state metadata file the kill left empty (every command fails: EOF) is removed, and nothing else changes", async () => {
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
    });

    describe("each guard of recover, held by a case", () => {
        /** Runs recover, which must exit 0 having adopted exactly `adopted` (resource name to id)
         *  and cleared exactly `cleared` (resource names). */
        const recoverDecides = async (stack: PulumiStack, adopted: Record<string, string>, cleared: string[] = []) => {
            const r = await recoverRun(stack);
            assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
            const decided = r.stdout
                .split("\n")
                .map((line) => /^(adopt|clear) \S+::([^\s:]+)(?: = (\S+))?/.exec(line))
                .filter((m) => m !== null)
                .map(([, what, name, id]) => (what === "adopt" ? `adopt ${name} = ${id}` : `clear ${name}`));
            const want = [
                ...Object.entries(adopted).map(([name, id]) => `adopt ${name} = ${id}`),
                ...cleared.map((name) => `clear ${name}`),
            ];
            assert.deepEqual(decided.sort(), want.sort(), r.stdout);
        };
        /** The ids the stack records for resources of `type`. */
        const idsIn = async (stack: PulumiStack, type = CONNECTION_TYPE) =>
            (await stack.resources(type)).map((x) => x.id);
        const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

        it("the time bound: a connection the same in every input but made before the run began is not adopted, nor touched", async () => {
            const { stack, declare } = await newStack();
            const early = byHand("early", { createdAt: anHourAgo(), updatedAt: anHourAgo() });
            await declare([full("early")]);
            await killWhileInFlight(sim, stack, 1, { refuseCreates: true });
            assert.deepEqual(sim.listConnections(), [early], "the run made nothing");
            sim.resetRequests();
            await recoverDecides(stack, {}, ["early"]);
            assert.deepEqual(await idsIn(stack), []);
            assert.deepEqual(sim.listConnections(), [early], "the connection is left as it was");
            assert.deepEqual(
                sim.requests.filter((q) => q.method !== "GET"),
                [],
                "no write to ChatBot",
            );
        });

        it("the time bound with no lock left (`pulumi cancel` run first): the end of the last finished update", async () => {
            const { stack, declare } = await newStack();
            await declare([full("first")]);
            ok(await stack.run("up"));
            const early = byHand("second", { createdAt: anHourAgo(), updatedAt: anHourAgo() });
            await declare([full("first"), full("second")]);
            await killWhileInFlight(sim, stack, 1, { refuseCreates: true });
            const cancelled = await stack.pulumi(["cancel", "--yes"]);
            assert.equal(cancelled.code, 0, cancelled.stderr);
            assert.ok(!locked(stack));
            await recoverDecides(stack, {}, ["second"]);
            assert.ok(!(await idsIn(stack)).includes(early.id));
            assert.deepEqual(sim.getConnection(early.id), early, "the connection is left as it was");
        });

        it("the API's clock 10 minutes behind this machine's: what the run made is still adopted (the bound is on the API's clock)", async () => {
            sim.clockOffsetMs = -10 * 60_000;
            const { stack, declare } = await newStack();
            await declare([full("late")]);
            await killWhileInFlight(sim, stack, 1);
            const [ours] = sim.listConnections();
            await recoverDecides(stack, { late: ours.id });
            assert.deepEqual(await idsIn(stack), [ours.id]);
        });

        it("secrets compared: connections the same but for the token, a header value or the password, made since the run began, are not adopted; the run's own is", async () => {
            const { stack, declare } = await newStack();
            await declare([full("mine")]);
            await killWhileInFlight(sim, stack, 1);
            const [ours] = sim.listConnections();
            // Made by someone else since the run began, beside the run's own.
            const others = [
                byHand("mine", { token: "another-token" }),
                byHand("mine", { headers: { "X-Key": "another-header-value" } }),
                byHand("mine", { auth: { username: "bot", password: "another-password" } }),
            ];
            await recoverDecides(stack, { mine: ours.id });
            assert.deepEqual(await idsIn(stack), [ours.id]);
            for (const o of others) assert.deepEqual(sim.getConnection(o.id), o, "left as it was");
        });

        it("this stack's own: a legacy webhook it manages, the same in every input, is not adopted for another of its creates", async () => {
            // Legacy webhooks have no creation time: only the owners' ids tell them apart.
            const legacy = (resource: string): Declared => ({
                kind: "LegacyWebhook",
                name: resource,
                args: {
                    name: "hook",
                    url: "https://legacy.example.com/hook",
                    token: { secretConfig: "hookToken" },
                    auth: { username: "bot", password: { secretConfig: "password" } },
                },
            });
            const { stack, declare } = await newStack();
            await declare([legacy("first")]);
            ok(await stack.run("up"));
            const [first] = sim.listLegacyWebhooks();
            await declare([legacy("first"), legacy("second")]);
            await killWhileInFlight(sim, stack, 1, { refuseCreates: true });
            assert.equal(sim.listLegacyWebhooks().length, 1, "the run made nothing");
            // Nor when chosen by hand: --adopt of an id a stack records is refused, nothing written.
            const urn = (await stack.resources(LEGACY_TYPE))[0].urn.replace(/::first$/, "::second");
            const before = JSON.stringify(await stack.export(true));
            const chosen = await recoverRun(stack, ["--adopt", `${urn}=${first.id}`]);
            assert.equal(chosen.code, 2, `${chosen.stdout}${chosen.stderr}`);
            assert.match(chosen.stderr, new RegExp(`legacy webhook ${first.id} is managed by a stack`));
            assert.equal(JSON.stringify(await stack.export(true)), before, "nothing written");
            await recoverDecides(stack, {}, ["second"]);
            assert.deepEqual(await idsIn(stack, LEGACY_TYPE), [first.id]);
        });

        it("the account: a create through an explicit provider (native plugin) is looked for in its account, not the stack's", async () => {
            const partner = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
            disposers.push(() => void partner.close());
            const { stack, declare } = await newStack({
                native: true,
                config: { partnerToken: { secret: partner.token } },
            });
            await declare([
                {
                    kind: "Provider",
                    name: "partner",
                    args: { token: { secretConfig: "partnerToken" }, apiUrl: partner.url },
                },
                { ...full("theirs"), options: { provider: "partner" } },
            ]);
            await killWhileInFlight(partner, stack, 1);
            const [made] = partner.listConnections();
            assert.ok(made, "the run made it in the partner's account");
            // The same in every field, in the stack's own account, made since the run began.
            const twin = byHand("theirs");
            await recoverDecides(stack, { theirs: made.id });
            assert.deepEqual(await idsIn(stack, NATIVE_CONNECTION_TYPE), [made.id]);
            assert.deepEqual(sim.listConnections(), [twin], "the stack's account left as it was");
        });

        it("a lock another machine's run left: refused without --cancel-lock (exit 1), kept by --dry-run, which writes nothing either; removed with --cancel-lock", async () => {
            const { stack, declare } = await newStack();
            await declare([full("away")]);
            await killWhileInFlight(sim, stack, 1);
            const [ours] = sim.listConnections();
            const locks = path.join(stack.scratch, "backend", ".pulumi", "locks");
            const file = fs
                .readdirSync(locks, { recursive: true })
                .map((f) => path.join(locks, String(f)))
                .find((f) => f.endsWith(".json"))!;
            const lock = JSON.parse(fs.readFileSync(file, "utf8")) as { hostname: string };
            fs.writeFileSync(file, JSON.stringify({ ...lock, hostname: `${lock.hostname}-elsewhere` }));
            const before = JSON.stringify(await stack.export(true));
            const r = await recoverRun(stack);
            assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
            assert.match(r.stderr, /on another machine, which may still be going/);
            assert.equal(JSON.stringify(await stack.export(true)), before, "nothing written");
            assert.ok(locked(stack), "the lock is left");
            const dry = await recoverRun(stack, ["--cancel-lock", "--dry-run"]);
            assert.equal(dry.code, 0, `${dry.stdout}${dry.stderr}`);
            assert.match(
                dry.stdout,
                new RegExp(`^adopt \\S+::away = ${ours.id}\n[^]*--dry-run: nothing was changed`, "m"),
            );
            assert.equal(JSON.stringify(await stack.export(true)), before, "--dry-run wrote nothing");
            assert.ok(locked(stack), "--dry-run left the lock");
            const vouched = await recoverRun(stack, ["--cancel-lock"]);
            assert.equal(vouched.code, 0, `${vouched.stdout}${vouched.stderr}`);
            assert.ok(!locked(stack));
            assert.deepEqual(await idsIn(stack), [ours.id]);
        });

        for (const native of [false, true]) {
            const type = native ? NATIVE_CONNECTION_TYPE : CONNECTION_TYPE;
            it(`the final refresh (${native ? "the native plugin" : "the dynamic provider"}): after an update, then a delete, killed in flight, the state is what ChatBot holds and preview shows no change before any up`, async () => {
                const { stack, declare } = await newStack({ native });
                const kept = (v: number) => full("kept", "kept", `https://hooks.example.com/kept/v${v}`);
                await declare([kept(1), full("gone")]);
                ok(await stack.run("up"));
                // Its id from the API (an export's is the same: assertStateIsApi below holds them
                // equal), with no pulumi run.
                const gone = sim.listConnections().find((c) => c.name === "gone")!;
                for (const [step, want, landed] of [
                    [
                        "an update",
                        [kept(2), full("gone")],
                        () => sim.listConnections().every((c) => c.name !== "kept" || c.url.endsWith("/v2")),
                    ],
                    ["a delete", [kept(2)], () => sim.getConnection(gone.id) === undefined],
                ] as const) {
                    await declare([...want]);
                    await killWhileInFlight(sim, stack, 1);
                    assert.ok(landed(), `${step} killed in flight has landed`);
                    const r = await recoverRun(stack);
                    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
                    assert.match(r.stdout, /^(updating|deleting) \S+: refresh reads what it did$/m);
                    await assertStateIsApi(sim, stack, type, `after ${step} killed`);
                    const preview = await stack.run("preview", { expectNoChanges: true });
                    assert.equal(
                        preview.code,
                        0,
                        `after ${step} killed, preview --expect-no-changes:\n${preview.stdout}${preview.stderr}`,
                    );
                }
            });
        }
    });
});
