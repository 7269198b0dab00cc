/**
 * Tests of the engine stand-in itself (plugin.ts, serialize.ts, engine.ts), against the REAL
 * dynamic-provider plugin, with the throwaway provider in fixtures/node_modules/standin-fixture.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CheckFailedError, defaultParallelism, Engine, scheduleDeletes } from "./engine";
import * as nodeOs from "node:os";
import {
    isSecret,
    PluginError,
    secret,
    startProviderPlugin,
    stripSecrets,
    UNKNOWN,
    urnFor,
    type PropertyMap,
    type ProviderPlugin,
} from "./plugin";
import { serializeProvider } from "./serialize";

const FIXTURES = path.join(__dirname, "fixtures");
const TYPE = "pulumi-nodejs:dynamic:Resource";

interface Call {
    method: string;
    id?: string;
    props?: PropertyMap;
    olds?: PropertyMap;
    news?: PropertyMap;
}
interface Store {
    configured: null | {
        storePath: string;
        apiToken: unknown;
        apiTokenType: string;
        envChatbotToken: string | null;
        project: string;
    };
    records: Record<string, Record<string, unknown>>;
    calls: Call[];
    nextId: number;
    /** The most create/update/read/delete calls the fixture had under way at once. */
    peakInFlight?: number;
}

describe("engine stand-in (tests/engine)", function () {
    let tmp: string;
    let storePath: string;
    let plugin: ProviderPlugin | undefined;
    let providerText: string;
    const savedChatbotToken = process.env.CHATBOT_TOKEN;

    const readStore = (): Store => JSON.parse(fs.readFileSync(storePath, "utf8")) as Store;
    const writeStore = (s: Store): void => {
        // Renamed into place, so the plugin never reads a half-written file.
        fs.writeFileSync(`${storePath}.test.tmp`, JSON.stringify(s, null, 2));
        fs.renameSync(`${storePath}.test.tmp`, storePath);
    };
    const calls = (): Call[] => readStore().calls;
    const methods = (): string[] => calls().map((c) => c.method);
    const resetCalls = (): void => writeStore({ ...readStore(), calls: [] });
    const inputs = (props: PropertyMap): PropertyMap => ({ __provider: providerText, ...props });
    const live = (): ProviderPlugin => {
        if (!plugin) throw new Error("plugin not started");
        return plugin;
    };

    before(async function () {
        this.timeout(60_000);
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), "engine-standin-"));
        storePath = path.join(tmp, "store.json");
        writeStore({ configured: null, records: {}, calls: [], nextId: 1 });
        // The provider object is the exports of the fixture package: loaded by path, since the
        // fixture's node_modules is not on this file's resolution path.
        const fixture = require(path.join(FIXTURES, "node_modules", "standin-fixture")) as object;
        providerText = await serializeProvider(fixture);
        // A variable present here must not reach the plugin when the test asks to remove it.
        process.env.CHATBOT_TOKEN = "must-not-leak";
        plugin = await startProviderPlugin({ cwd: FIXTURES, env: { CHATBOT_TOKEN: undefined } });
        await plugin.configure({ "harness:storePath": storePath, "harness:apiToken": secret("config-token-123") });
    });

    after(async function () {
        this.timeout(30_000);
        if (savedChatbotToken === undefined) delete process.env.CHATBOT_TOKEN;
        else process.env.CHATBOT_TOKEN = savedChatbotToken;
        await plugin?.close();
        if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    beforeEach(() => resetCalls());

    describe("plugin driver", function () {
        it("starts the real plugin, which reports the SDK version and declines secrets", async function () {
            const sdkVersion = (
                JSON.parse(fs.readFileSync(require.resolve("@pulumi/pulumi/package.json"), "utf8")) as {
                    version: string;
                }
            ).version;
            assert.deepEqual(await live().getPluginInfo(), { version: sdkVersion });
            assert.ok(live().startupMs > 0 && live().startupMs < 30_000);
            assert.equal(live().configured, true);
            assert.equal(
                live().acceptSecrets,
                false,
                "the dynamic-provider plugin answers Configure with acceptSecrets=false",
            );
        });

        it("serializes the installed fixture module by reference", function () {
            // See serialize.ts: the fixture is outside the node_modules tree @pulumi/pulumi resolves
            // from, so the subpath is kept instead of being mapped to the bare package name.
            assert.match(providerText, /require\("standin-fixture\/index\.js"\)/);
            assert.ok(providerText.length < 1_000, `serialized provider is ${providerText.length} chars`);
        });

        it("configure reaches the provider: config unwrapped, project set, removed env var absent", async function () {
            await new Engine(live()).register(TYPE, "cfg", inputs({ name: "cfg" }), { preview: true });
            const configured = readStore().configured;
            assert.ok(configured, "the provider's configure ran (lazily, on the first CRUD call)");
            assert.equal(configured.storePath, storePath);
            assert.equal(configured.apiToken, "config-token-123", "secret config arrives unwrapped");
            assert.equal(configured.apiTokenType, "string");
            assert.equal(configured.project, "harness");
            assert.equal(
                configured.envChatbotToken,
                null,
                "env: { CHATBOT_TOKEN: undefined } removes it from the child",
            );
        });

        it("rejects a provider exception as PluginError with the message and code UNKNOWN", async function () {
            const urn = urnFor(TYPE, "boom");
            const err = await live()
                .check(urn, {}, inputs({ name: "boom", throwIn: "check" }))
                .then(
                    () => undefined,
                    (e: unknown) => e,
                );
            assert.ok(err instanceof PluginError);
            assert.equal(err.method, "check");
            assert.equal(err.code, 2);
            assert.equal(err.message, "check exploded");
            assert.deepEqual(err.initFailures, [], "no partial-failure detail");
            assert.match(live().stderr(), /check exploded/, "the plugin logs failed checks to stderr");
        });

        it("rejects start-up with the child's stderr when the plugin exits before printing its port", async function () {
            const missing = path.join(FIXTURES, "does-not-exist.js");
            await assert.rejects(
                startProviderPlugin({ cwd: FIXTURES, env: { NODE_OPTIONS: `--require ${missing}` } }),
                (e: unknown) => {
                    assert.ok(e instanceof Error);
                    assert.match(e.message, /exited .* before printing its port/);
                    assert.match(e.message, /does-not-exist\.js/);
                    return true;
                },
            );
        });

        it("measured: a Read with neither properties nor inputs cannot find __provider", async function () {
            // What the engine's ImportStep sends (R1.1; see engine.ts importRead).
            const err = await live()
                .read(urnFor(TYPE, "nothing"), "r-any")
                .then(
                    () => undefined,
                    (e: unknown) => e,
                );
            assert.ok(err instanceof PluginError);
            assert.match(err.message, /code must be a string, not undefined/);
            assert.deepEqual(methods(), [], "the provider is never reached");
        });
    });

    describe("Engine", function () {
        it("returns check failures as CheckFailedError without any other call", async function () {
            const engine = new Engine(live());
            const err = await engine.register(TYPE, "invalid", inputs({ color: "red" })).then(
                () => undefined,
                (e: unknown) => e,
            );
            assert.ok(err instanceof CheckFailedError);
            assert.deepEqual(err.failures, [{ property: "name", reason: "name is required" }]);
            assert.deepEqual(methods(), ["check"]);
            assert.equal(engine.state.size, 0);
        });

        it("runs create, same, update, replace and delete like pulumi up / destroy", async function () {
            const engine = new Engine(live());
            const urn = engine.urn(TYPE, "life");

            // create: Check(olds = {}, news), then Create(checked inputs, defaults included)
            const created = await engine.register(TYPE, "life", inputs({ name: "a", kind: "k1" }));
            assert.equal(created.op, "create");
            assert.deepEqual(methods(), ["check", "create"]);
            assert.deepEqual(calls()[0].olds, { hasProvider: false });
            assert.equal(calls()[1].props?.color, "blue", "Create receives the checked inputs");
            const id = created.id;
            assert.equal(engine.plainState(urn).url, `https://example.invalid/items/${id}`);

            // same: Check(olds = prior inputs), Diff says none, nothing else is called
            resetCalls();
            const same = await engine.register(TYPE, "life", inputs({ name: "a", kind: "k1" }));
            assert.equal(same.op, "same");
            assert.deepEqual(methods(), ["check", "diff"]);
            assert.equal(calls()[0].olds?.name, "a", "Check gets the prior inputs as olds");
            assert.equal(
                calls()[1].olds?.url,
                `https://example.invalid/items/${id}`,
                "Diff gets the prior outputs as olds",
            );

            // update: Diff some, no replaces
            resetCalls();
            const updated = await engine.register(TYPE, "life", inputs({ name: "a", kind: "k1", color: "red" }));
            assert.equal(updated.op, "update");
            assert.equal(updated.id, id);
            assert.deepEqual(methods(), ["check", "diff", "update"]);
            assert.equal(engine.plainState(urn).color, "red");

            // replace: create-before-delete by default; Check runs again with no olds
            resetCalls();
            const replaced = await engine.register(TYPE, "life", inputs({ name: "a", kind: "k2", color: "red" }));
            assert.equal(replaced.op, "replace");
            assert.deepEqual(replaced.diff?.replaces, ["kind"]);
            assert.deepEqual(methods(), ["check", "diff", "check", "create", "delete"]);
            assert.deepEqual(calls()[2].olds, { hasProvider: false });
            assert.equal(calls()[4].id, id, "the old resource is deleted with its old id");
            assert.notEqual(replaced.id, id);
            assert.equal(engine.state.get(urn)?.id, replaced.id);

            // destroy: Delete(id, outputs) and drop from state
            resetCalls();
            await engine.destroy(urn);
            assert.deepEqual(methods(), ["delete"]);
            assert.equal(calls()[0].id, replaced.id);
            assert.equal(calls()[0].props?.url, `https://example.invalid/items/${replaced.id}`);
            assert.equal(engine.state.size, 0);
            assert.equal(readStore().records[replaced.id], undefined);
        });

        it("deletes before replacing when the diff or the resource option asks for it", async function () {
            const engine = new Engine(live());
            await engine.register(TYPE, "dbr", inputs({ name: "d", kind: "k1" }));
            resetCalls();
            await engine.register(TYPE, "dbr", inputs({ name: "d", kind: "k2", dbr: true }));
            assert.deepEqual(methods(), ["check", "diff", "check", "delete", "create"]);

            resetCalls();
            await engine.register(TYPE, "dbr", inputs({ name: "d", kind: "k3" }), { deleteBeforeReplace: true });
            assert.deepEqual(methods(), ["check", "diff", "check", "delete", "create"]);
            await engine.destroyAll();
        });

        it("settles an 'unknown' diff by comparing inputs, like the engine", async function () {
            const engine = new Engine(live());
            await engine.register(TYPE, "unk", inputs({ name: "u", diffUnknown: true }));
            const same = await engine.register(TYPE, "unk", inputs({ name: "u", diffUnknown: true }));
            assert.equal(same.diff?.changes, "unknown");
            assert.equal(same.op, "same");
            const changed = await engine.register(
                TYPE,
                "unk",
                inputs({ name: "u", color: "green", diffUnknown: true }),
            );
            assert.equal(changed.op, "update");
            await engine.destroyAll();
        });

        it("previews without Create/Update/Delete and without touching state; unknowns reach Check and Diff", async function () {
            const engine = new Engine(live());
            const urn = engine.urn(TYPE, "pv");
            const pc = await engine.register(TYPE, "pv", inputs({ name: UNKNOWN }), { preview: true });
            assert.equal(pc.op, "preview-create");
            assert.equal(pc.id, "");
            assert.equal(pc.outputs.name, UNKNOWN, "a preview's outputs are the checked inputs");
            assert.deepEqual(methods(), ["check"]);
            assert.equal(calls()[0].news?.name, UNKNOWN);
            assert.equal(engine.state.size, 0);

            await engine.register(TYPE, "pv", inputs({ name: "p" }));
            const before = JSON.stringify(engine.state.get(urn));
            resetCalls();
            const pu = await engine.register(TYPE, "pv", inputs({ name: "p", color: UNKNOWN }), { preview: true });
            assert.equal(pu.op, "preview-update");
            assert.deepEqual(methods(), ["check", "diff"]);
            assert.equal(calls()[1].news?.color, UNKNOWN);
            assert.equal(JSON.stringify(engine.state.get(urn)), before);

            resetCalls();
            const pr = await engine.register(TYPE, "pv", inputs({ name: "p", kind: UNKNOWN }), { preview: true });
            assert.equal(pr.op, "preview-replace");
            assert.deepEqual(methods(), ["check", "diff", "check"]);

            await assert.rejects(
                engine.register(TYPE, "pv", inputs({ name: UNKNOWN })),
                /only be registered in a preview/,
            );
            await engine.destroyAll();
        });

        it("refresh detects drift and deletion", async function () {
            const engine = new Engine(live());
            const urn = engine.urn(TYPE, "ref");
            const { id } = await engine.register(TYPE, "ref", inputs({ name: "r", color: "red" }));

            resetCalls();
            assert.equal((await engine.refresh(urn)).kind, "same");
            assert.deepEqual(methods(), ["read", "diff"]);
            assert.equal(calls()[0].props?.url, `https://example.invalid/items/${id}`, "Read gets the prior outputs");

            const store = readStore();
            store.records[id] = { ...store.records[id], color: "green" };
            writeStore(store);
            resetCalls();
            const drift = await engine.refresh(urn);
            assert.equal(drift.kind, "drift");
            assert.equal(drift.before?.color, "red");
            assert.equal(drift.after?.color, "green");
            // The engine's refresh diff: olds = refreshed outputs, news = the old inputs.
            assert.equal(drift.diff?.changes, "some");
            assert.equal(calls()[1].olds?.color, "green");
            assert.equal(calls()[1].news?.color, "red");
            assert.equal(engine.plainState(urn).color, "green");
            assert.equal(
                engine.state.get(urn)?.inputs.color,
                "green",
                "read returned inputs, which replace the old ones",
            );

            // The next up sees the drift and updates back.
            const back = await engine.register(TYPE, "ref", inputs({ name: "r", color: "red" }));
            assert.equal(back.op, "update");

            const s2 = readStore();
            delete s2.records[id];
            writeStore(s2);
            assert.equal((await engine.refresh(urn)).kind, "deleted");
            assert.equal(engine.state.size, 0);
        });

        it("get reads by id with inputs only and never deletes the read resource", async function () {
            const owner = new Engine(live());
            const { id } = await owner.register(TYPE, "owned", inputs({ name: "o", color: "red" }));

            const engine = new Engine(live());
            resetCalls();
            const got = await engine.get(TYPE, "seen", id, inputs({}));
            assert.deepEqual(methods(), ["read"]);
            assert.equal(calls()[0].props?.hasProvider, true, "the plugin fell back to inputs to find __provider");
            assert.equal(got.external, true);
            assert.equal(stripSecrets(got.outputs).color, "red");

            resetCalls();
            await engine.destroyAll();
            assert.deepEqual(methods(), []);
            assert.equal(engine.state.size, 0);
            assert.ok(readStore().records[id], "still exists");
            // ENGINE-FIDELITY: the stand-in used to fail here with "resource 'r-none' does not exist".
            // The engine (R7, step.go ReadStep.Apply) says so only when the provider answers with no
            // properties, and the plugin always answers with `__provider`: the read succeeds, keeps
            // the id asked for, and the program gets no outputs.
            const ghost = await engine.get(TYPE, "ghost", "r-none", inputs({}));
            assert.equal(ghost.id, "r-none");
            assert.deepEqual(Object.keys(ghost.outputs), ["__provider"]);
            await owner.destroyAll();
        });

        it("keeps secrets marked in state and strips them on the wire", async function () {
            const engine = new Engine(live());
            const urn = engine.urn(TYPE, "sec");
            await engine.register(TYPE, "sec", inputs({ name: "s", token: secret("s3cr3t-token") }), {
                additionalSecretOutputs: ["apiKey"],
            });
            const create = calls().find((c) => c.method === "create");
            assert.equal(create?.props?.token, "s3cr3t-token", "the provider receives the plain value");

            const st = engine.state.get(urn);
            assert.ok(st);
            assert.ok(isSecret(st.inputs.token), "secret input stays marked in state.inputs");
            assert.ok(isSecret(st.outputs.token), "an output whose input was secret is marked");
            assert.ok(isSecret(st.outputs.apiKey), "additionalSecretOutputs are marked");
            assert.ok(!isSecret(st.outputs.color));
            const text = engine.unmarkedStateText();
            assert.ok(!text.includes("s3cr3t-token"));
            assert.ok(!text.includes(`key-for-${st.id}`));
            assert.equal(engine.plainState(urn).token, "s3cr3t-token");

            // Marks survive same, update and refresh.
            await engine.register(TYPE, "sec", inputs({ name: "s", color: "red", token: secret("s3cr3t-token") }), {
                additionalSecretOutputs: ["apiKey"],
            });
            await engine.refresh(urn);
            assert.ok(!engine.unmarkedStateText().includes("s3cr3t-token"));
            assert.ok(isSecret(engine.state.get(urn)?.inputs.token));
            await engine.destroyAll();
        });

        it("records a partial failure from Create and retries initialisation with an Update", async function () {
            const engine = new Engine(live());
            const urn = engine.urn(TYPE, "half");
            const err = await engine.register(TYPE, "half", inputs({ name: "h", failInit: true })).then(
                () => undefined,
                (e: unknown) => e,
            );
            assert.ok(err instanceof PluginError);
            assert.equal(err.message, "created but not healthy");
            assert.equal(err.initFailures.length, 1);
            const failure = err.initFailures[0];
            assert.match(failure.id, /^r\d+$/);
            assert.deepEqual(failure.reasons, ["health check failed"]);
            assert.equal(failure.properties.name, "h");

            const st = engine.state.get(urn);
            assert.equal(st?.id, failure.id);
            assert.deepEqual(st?.initErrors, ["health check failed"]);

            // Measured trap: the plugin packs the error's `properties` as they are, without
            // `__provider`, and Delete (like a refresh's Read) looks for the provider only in the
            // stored outputs. Deleting the half-created resource therefore fails until an update
            // has stored outputs that carry `__provider` again.
            await assert.rejects(engine.destroy(urn), /code must be a string, not undefined/);
            assert.ok(engine.state.get(urn), "a failed delete keeps the resource in state");

            resetCalls();
            const retry = await engine.register(TYPE, "half", inputs({ name: "h", failInit: true }));
            assert.equal(retry.op, "update");
            assert.deepEqual(methods(), ["check", "diff", "update"]);
            assert.equal(engine.state.get(urn)?.initErrors, undefined);
            await engine.destroyAll();
        });

        it('fails like the engine when Create returns a numeric id (it arrives as "")', async function () {
            const engine = new Engine(live());
            await assert.rejects(
                engine.register(TYPE, "numeric", inputs({ name: "n", numericId: true })),
                /returned empty resource\.ID from create/,
            );
            assert.equal(engine.state.size, 0, "nothing recorded: the created record leaks");
        });

        it("import reads with the id only, which the plugin cannot serve, and records nothing", async function () {
            const owner = new Engine(live());
            const { id } = await owner.register(TYPE, "to-import", inputs({ name: "i", color: "red" }));
            owner.state.clear(); // forget it, as if created outside Pulumi

            const engine = new Engine(live());
            resetCalls();
            // ENGINE-FIDELITY: the stand-in used to send the program's inputs with the import's Read,
            // so a matching import succeeded and a differing one failed with "inputs to import do not
            // match". The engine (R1.1, step.go ImportStep.Apply) sends the id alone, the plugin finds
            // no `__provider`, and both fail before the provider is reached.
            for (const color of ["red", "blue"]) {
                await assert.rejects(
                    engine.register(TYPE, "imp", inputs({ name: "i", color }), { importId: id }),
                    /code must be a string, not undefined/,
                );
            }
            assert.deepEqual(methods(), [], "the provider is never reached");
            assert.equal(engine.state.size, 0);
            assert.ok(readStore().records[id], "the resource is untouched");
            const cleanup = new Engine(live());
            cleanup.state.set(owner.urn(TYPE, "to-import"), {
                urn: owner.urn(TYPE, "to-import"),
                type: TYPE,
                name: "to-import",
                id,
                inputs: inputs({ name: "i" }),
                outputs: inputs({ name: "i" }),
                additionalSecretOutputs: [],
                external: false,
            });
            await cleanup.destroyAll();
        });

        it("destroyAll deletes dependents before what they depend on", async function () {
            const engine = new Engine(live());
            // ENGINE-FIDELITY: the stand-in deleted in reverse creation order, one at a time. The
            // engine (R4.5, step_generator.go ScheduleDeletes) orders deletes by dependencies only
            // and deletes independent resources in parallel, so the order is asserted along
            // dependencies here.
            const a = await engine.register(TYPE, "order-a", inputs({ name: "a" }));
            const b = await engine.register(TYPE, "order-b", inputs({ name: "b" }), {
                dependencies: [a.id && engine.urn(TYPE, "order-a")],
            });
            const c = await engine.register(TYPE, "order-c", inputs({ name: "c" }), {
                dependencies: [engine.urn(TYPE, "order-b")],
            });
            resetCalls();
            await engine.destroyAll();
            assert.deepEqual(
                calls().map((x) => x.id),
                [c.id, b.id, a.id],
            );
            assert.equal(engine.state.size, 0);
        });
    });

    describe("engine rules (ENGINE-RULES.md)", function () {
        const fresh = (parallel?: number): Engine => new Engine(live(), parallel ? { parallel } : {});
        const resetPeak = (): void => writeStore({ ...readStore(), peakInFlight: 0 });

        it("R1.3: an import file entry with inputs and outputs skips the Read; without outputs it fails in the plugin", async function () {
            const owner = fresh();
            const made = await owner.register(TYPE, "exported", inputs({ name: "x", color: "red" }));
            const urn = owner.urn(TYPE, "exported");
            const { inputs: ins, outputs: outs } = owner.state.get(urn)!;
            const engine = fresh();
            resetCalls();
            const { state, checkFailures } = await engine.importFromFile({
                type: TYPE,
                name: "imported",
                id: made.id,
                inputs: ins,
                outputs: outs,
            });
            assert.deepEqual(methods(), ["check"], "no Read: the supplied state is taken as is");
            assert.deepEqual(checkFailures, []);
            assert.equal(state.id, made.id);
            assert.equal(state.importId, undefined, "pulumi import records no import id");
            // The imported resource is managed: a refresh and a delete find the provider in its outputs.
            assert.equal((await engine.refresh(state.urn)).kind, "same");
            await assert.rejects(
                fresh().importFromFile({ type: TYPE, name: "no-outputs", id: made.id, inputs: ins }),
                /code must be a string, not undefined/,
            );
            await engine.destroyAll();
            assert.equal(readStore().records[made.id], undefined);
            owner.state.clear();
        });

        it("R2.3: refresh reports a change only when Diff(refreshed outputs, old inputs) does", async function () {
            const engine = fresh();
            const urn = engine.urn(TYPE, "r23");
            const { id } = await engine.register(TYPE, "r23", inputs({ name: "r", color: "red" }));
            // A field the provider's diff does not compare changes: outputs differ, the diff does not.
            const store = readStore();
            store.records[id] = { ...store.records[id], token: undefined, extra: "hand-made" };
            writeStore(store);
            resetCalls();
            const r = await engine.refresh(urn);
            assert.equal(r.kind, "same", "outputs changed but the refresh diff found nothing");
            assert.deepEqual(methods(), ["read", "diff"]);
            assert.equal(calls()[1].news?.color, "red", "news are the old inputs");
            const legacy = new Engine(live(), { legacyRefreshDiff: true });
            legacy.state.set(urn, {
                ...engine.state.get(urn)!,
                outputs: { ...engine.state.get(urn)!.outputs, extra: "old" },
            });
            resetCalls();
            assert.equal(
                (await legacy.refresh(urn)).kind,
                "drift",
                "PULUMI_ENABLE_LEGACY_REFRESH_DIFF compares outputs",
            );
            assert.deepEqual(methods(), ["read"], "and makes no Diff");
            await engine.destroyAll();
        });

        it("R2.4: a good read clears init errors", async function () {
            const engine = fresh();
            const urn = engine.urn(TYPE, "r24");
            await engine.register(TYPE, "r24", inputs({ name: "r" }));
            engine.state.set(urn, { ...engine.state.get(urn)!, initErrors: ["was unhealthy"] });
            await engine.refresh(urn);
            assert.equal(engine.state.get(urn)?.initErrors, undefined);
            await engine.destroyAll();
        });

        it("R2.5: read inputs take secret marks from the old inputs only; a secret the provider wraps is kept", async function () {
            const engine = fresh();
            const urn = engine.urn(TYPE, "r25");
            const aso = { additionalSecretOutputs: ["token"] };
            const { id } = await engine.register(TYPE, "r25", inputs({ name: "r" }), aso);
            // A token added by hand, where the program had none.
            const store = readStore();
            store.records[id] = { ...store.records[id], token: "hand-added-token" };
            writeStore(store);
            await engine.refresh(urn);
            const st = engine.state.get(urn)!;
            assert.ok(isSecret(st.outputs.token), "the output is marked by additionalSecretOutputs");
            assert.equal(st.inputs.token, "hand-added-token", "the input is stored in plain text");
            assert.ok(engine.unmarkedStateText().includes("hand-added-token"));

            // The same read, with the provider returning the value secret-wrapped: the engine keeps the mark.
            const s2 = readStore();
            s2.records[id] = { ...s2.records[id], secretOnRead: true };
            writeStore(s2);
            await engine.refresh(urn);
            assert.ok(isSecret(engine.state.get(urn)!.inputs.token));
            assert.ok(!engine.unmarkedStateText().includes("hand-added-token"));
            await engine.destroyAll();
        });

        it("R4.1: the default parallelism is PULUMI_PARALLEL, else 4 × CPUs", function () {
            assert.equal(defaultParallelism({}), 4 * nodeOs.availableParallelism());
            assert.equal(defaultParallelism({ PULUMI_PARALLEL: "3" }), 3);
            assert.equal(defaultParallelism({ PULUMI_PARALLEL: "0" }), 4 * nodeOs.availableParallelism());
            assert.equal(new Engine(live()).parallel, defaultParallelism());
        });

        it("R4.2: at most --parallel steps run at once; Check and Diff one at a time; a cancel stops steps not started", async function () {
            const engine = fresh(2);
            resetPeak();
            await Promise.all(
                [0, 1, 2, 3, 4].map((i) => engine.register(TYPE, `p${i}`, inputs({ name: `p${i}`, sleepMs: 150 }))),
            );
            assert.equal(readStore().peakInFlight, 2, "the provider saw two creates at a time");
            assert.equal(engine.workers.peak, 2);

            const wide = fresh(8);
            resetPeak();
            await Promise.all(
                [0, 1, 2, 3].map((i) => wide.register(TYPE, `w${i}`, inputs({ name: `w${i}`, sleepMs: 150 }))),
            );
            assert.equal(readStore().peakInFlight, 4, "registrations that arrive together run together");

            const one = fresh(1);
            const first = one.register(TYPE, "c0", inputs({ name: "c0", sleepMs: 200 }));
            const second = one.register(TYPE, "c1", inputs({ name: "c1" }));
            await new Promise((r) => setTimeout(r, 50));
            one.cancel();
            await first;
            await assert.rejects(second, /cancelled after an earlier error/);
            assert.equal(one.state.size, 1);
            const cleanup = fresh();
            for (const [urn, st] of one.state) cleanup.state.set(urn, st);
            await Promise.all([engine.destroyAll(), wide.destroyAll(), cleanup.destroyAll()]);
        });

        it("R4.3: refreshes run in parallel and one failure does not stop the others", async function () {
            const engine = fresh(4);
            const names = ["f0", "f1", "f2"];
            const made = await Promise.all(
                names.map((n) => engine.register(TYPE, n, inputs({ name: n, sleepMs: 100 }))),
            );
            const store = readStore();
            store.records[made[0].id] = { ...store.records[made[0].id], failRead: true };
            store.records[made[1].id] = { ...store.records[made[1].id], color: "green" };
            writeStore(store);
            resetPeak();
            const results = await Promise.allSettled(names.map((n) => engine.refresh(engine.urn(TYPE, n))));
            assert.equal(results[0].status, "rejected");
            assert.equal(results[1].status === "fulfilled" && results[1].value.kind, "drift");
            assert.equal(results[2].status === "fulfilled" && results[2].value.kind, "same");
            assert.ok((readStore().peakInFlight ?? 0) >= 2, "reads overlapped");
            assert.equal(engine.plainState(engine.urn(TYPE, "f1")).color, "green");
            const s2 = readStore();
            delete s2.records[made[0].id].failRead;
            writeStore(s2);
            await engine.destroyAll();
        });

        it("R4.5: deletes run a dependency level at a time, each level in parallel", function () {
            const r = (urn: string, dependencies: string[] = [], parent = "") => ({ urn, dependencies, parent });
            const a = r("a");
            const b = r("b", ["a"]);
            const c = r("c", ["a"]);
            const d = r("d", [], "b");
            const levels = scheduleDeletes([a, b, c, d], [a, b, c, d]).map((l) => l.map((x) => x.urn).sort());
            assert.deepEqual(levels, [["c", "d"], ["b"], ["a"]]);
        });

        it("R4.6: a create-before-delete replacement can leave the old half for the end of the deployment", async function () {
            const engine = fresh();
            const { id: oldId } = await engine.register(TYPE, "cbd", inputs({ name: "c", kind: "k1" }));
            resetCalls();
            const r = await engine.register(TYPE, "cbd", inputs({ name: "c", kind: "k2" }), {
                deferReplacedDelete: true,
            });
            assert.equal(r.op, "replace");
            assert.deepEqual(methods(), ["check", "diff", "check", "create"]);
            assert.deepEqual(
                engine.pendingDeletes.map((p) => p.id),
                [oldId],
            );
            await engine.deletePending();
            assert.equal(readStore().records[oldId], undefined);
            assert.deepEqual(engine.pendingDeletes, []);
            await engine.destroyAll();
        });

        it("R5.2: ignoreChanges puts the old value back before Check", async function () {
            const engine = fresh();
            await engine.register(TYPE, "ign", inputs({ name: "i", color: "red" }));
            resetCalls();
            const r = await engine.register(TYPE, "ign", inputs({ name: "i", color: "green" }), {
                ignoreChanges: ["color"],
            });
            assert.equal(r.op, "same");
            assert.equal(calls()[0].news?.color, "red", "Check saw the old value");
            await engine.destroyAll();
        });

        it("R5.3: replaceOnChanges has no effect when the provider's diff answers changes, only on an unknown diff", async function () {
            const engine = fresh();
            await engine.register(TYPE, "roc", inputs({ name: "r", color: "red" }));
            const known = await engine.register(TYPE, "roc", inputs({ name: "r", color: "green" }), {
                replaceOnChanges: ["color"],
            });
            assert.equal(known.op, "update", "the plugin sends no changed keys, so nothing turns into a replacement");
            await engine.register(TYPE, "roc", inputs({ name: "r", color: "green", diffUnknown: true }));
            const unknown = await engine.register(
                TYPE,
                "roc",
                inputs({ name: "r", color: "blue", diffUnknown: true }),
                {
                    replaceOnChanges: ["color"],
                },
            );
            assert.equal(unknown.op, "replace", "the engine's own comparison names the key");
            await engine.destroyAll();
        });

        it("R5.4: retainOnDelete drops the resource without calling Delete", async function () {
            const engine = fresh();
            const { id } = await engine.register(TYPE, "keep", inputs({ name: "k" }), { retainOnDelete: true });
            resetCalls();
            await engine.destroyAll();
            assert.deepEqual(methods(), []);
            assert.equal(engine.state.size, 0);
            assert.ok(readStore().records[id], "the resource still exists");
        });

        it("R5.5: protect refuses delete and replace", async function () {
            const engine = fresh();
            const urn = engine.urn(TYPE, "prot");
            await engine.register(TYPE, "prot", inputs({ name: "p", kind: "k1" }), { protect: true });
            await assert.rejects(engine.destroy(urn), /cannot be deleted\nbecause it is protected/);
            await assert.rejects(
                engine.register(TYPE, "prot", inputs({ name: "p", kind: "k2" }), { protect: true }),
                /unable to replace resource .* marked for protection/s,
            );
            await engine.register(TYPE, "prot", inputs({ name: "p", kind: "k1" }));
            await engine.destroyAll();
            assert.equal(engine.state.size, 0);
        });

        it("R6.1: a partially failed update keeps the old inputs; the next up updates even without a diff", async function () {
            const engine = fresh();
            const urn = engine.urn(TYPE, "half-up");
            await engine.register(TYPE, "half-up", inputs({ name: "h", color: "red" }));
            await assert.rejects(
                engine.register(TYPE, "half-up", inputs({ name: "h", color: "green", failUpdateInit: true })),
                /updated but not healthy/,
            );
            const st = engine.state.get(urn)!;
            assert.equal(st.inputs.color, "red", "old inputs");
            assert.equal(st.inputs.failUpdateInit, undefined);
            assert.equal(stripSecrets(st.outputs).color, "green", "the failure's outputs");
            assert.deepEqual(st.initErrors, ["health check failed after update"]);
            resetCalls();
            const next = await engine.register(TYPE, "half-up", inputs({ name: "h", color: "green" }));
            assert.equal(next.op, "update", "init errors force an update although the diff finds nothing");
            assert.deepEqual(methods(), ["check", "diff", "update"]);
            assert.equal(calls()[0].olds?.color, "red", "Check gets the old inputs as olds");
            assert.equal(engine.state.get(urn)!.initErrors, undefined);
            await engine.destroyAll();
        });
    });
});
