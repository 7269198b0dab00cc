/**
 * Tests of the program-level stand-in (program.ts): a real program (fixtures/program) run through
 * the SDK's own program runner against the stand-in's resource monitor, with the fixture provider.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SECRET_SIG, SIG_KEY } from "./plugin";
import { CHANGES_EXIT_CODE, exportStack, runPulumi, type RunMode, type RunOptions, type RunResult } from "./program";

const PROGRAM = path.join(__dirname, "fixtures", "program");
const PASSPHRASE = "program-test-passphrase";
const TOKEN = "tok-5c1d9e-must-stay-secret";

interface Spec {
    name: string;
    props: Record<string, unknown>;
    dependsOn?: string[];
    secretToken?: string;
}

describe("program stand-in (tests/engine/program.ts)", function () {
    this.timeout(120_000);
    let tmp: string;
    let storePath: string;
    let stateFile: string;

    interface Store {
        records: Record<string, Record<string, unknown>>;
        calls: { method: string; id?: string; props?: Record<string, unknown> }[];
        peakInFlight?: number;
    }
    const readStore = (): Store => JSON.parse(fs.readFileSync(storePath, "utf8")) as Store;
    const writeStore = (s: Store): void => {
        fs.writeFileSync(`${storePath}.test.tmp`, JSON.stringify(s, null, 2));
        fs.renameSync(`${storePath}.test.tmp`, storePath);
    };
    const run = (
        mode: RunMode,
        spec: Spec[],
        extra: Pick<RunOptions, "parallel" | "refresh" | "expectNoChanges"> = {},
    ): Promise<RunResult> =>
        runPulumi({
            projectDir: PROGRAM,
            mode,
            stateFile,
            passphrase: PASSPHRASE,
            config: { storePath, spec: JSON.stringify(spec) },
            ...extra,
        });
    const ok = (r: RunResult): RunResult => {
        assert.equal(r.exitCode, 0, `pulumi ${r.mode} failed: ${r.error}\n${r.log}`);
        return r;
    };
    const ops = (r: RunResult): string[] =>
        r.steps
            .filter((s) => s.type.startsWith("pulumi-nodejs:dynamic"))
            .map((s) => `${s.name}:${s.op === "refresh" ? `refresh-${s.refresh}` : s.op}`);

    beforeEach(() => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), "program-standin-"));
        storePath = path.join(tmp, "store.json");
        stateFile = path.join(tmp, "dev.json");
        writeStore({ records: {}, calls: [] });
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it("R4.4: registrations arrive concurrently and at most --parallel steps run at once", async function () {
        const spec = [0, 1, 2, 3, 4].map((i) => ({ name: `p${i}`, props: { name: `p${i}`, sleepMs: 400 } }));
        const narrow = ok(await run("up", spec, { parallel: 2 }));
        assert.equal(narrow.parallel, 2);
        assert.equal(readStore().peakInFlight, 2);
        ok(await run("destroy", spec, { parallel: 2 }));
        writeStore({ ...readStore(), peakInFlight: 0 });
        const wide = ok(await run("up", spec, { parallel: 8 }));
        assert.ok((readStore().peakInFlight ?? 0) > 2, `creates overlapped beyond 2 (${readStore().peakInFlight})`);
        assert.ok(wide.peakParallel > 2);
        ok(await run("destroy", spec));
    });

    it("R4.6: the old half of a replacement is deleted after all the program's steps", async function () {
        ok(await run("up", [{ name: "a", props: { name: "a", kind: "k1" } }]));
        const oldId = Object.keys(readStore().records)[0];
        writeStore({ ...readStore(), calls: [] });
        const r = ok(
            await run("up", [
                { name: "a", props: { name: "a", kind: "k2" } },
                { name: "b", props: { name: "b" }, dependsOn: ["a"] },
            ]),
        );
        assert.deepEqual(ops(r), ["a:replace", "b:create"]);
        const calls = readStore().calls.filter((c) => c.method !== "check" && c.method !== "diff");
        assert.deepEqual(
            calls.map((c) => `${c.method}:${c.method === "delete" ? c.id : String(c.props?.name)}`),
            ["create:a", "create:b", `delete:${oldId}`],
        );
        ok(await run("destroy", []));
    });

    it("R3: --expect-no-changes counts the program's steps, not what --refresh found", async function () {
        const spec = [{ name: "d", props: { name: "d", color: "red" } }];
        ok(await run("up", spec));
        const id = Object.keys(readStore().records)[0];

        // A change the refresh diff does not see (a field the program does not set).
        let store = readStore();
        store.records[id] = { ...store.records[id], extra: "by hand" };
        writeStore(store);
        ok(await run("preview", spec, { refresh: true, expectNoChanges: true }));

        // A change to an input: the program's update is a change, the refresh step itself is not counted.
        store = readStore();
        store.records[id] = { ...store.records[id], color: "green" };
        writeStore(store);
        const drift = await run("preview", spec, { refresh: true, expectNoChanges: true });
        assert.equal(drift.exitCode, CHANGES_EXIT_CODE, drift.log);
        assert.deepEqual(ops(drift), ["d:refresh-drift", "d:update"]);
        assert.equal(drift.changes, 1, "only the update counts");
        const refresh = await run("refresh", spec, { expectNoChanges: true });
        assert.equal(refresh.exitCode, CHANGES_EXIT_CODE, "pulumi refresh counts its own steps");
        ok(await run("destroy", []));
    });

    it("R8: the state is what pulumi stack export prints, secrets encrypted or, with --show-secrets, plain", async function () {
        ok(await run("up", [{ name: "s", props: { name: "s" }, secretToken: TOKEN }]));
        const text = fs.readFileSync(stateFile, "utf8");
        assert.ok(!text.includes(TOKEN), "no secret in the clear");
        const exported = exportStack(stateFile);
        assert.deepEqual(JSON.parse(text), exported, "the state file is the export");
        assert.equal(exported.version, 3);
        assert.equal(exported.deployment.secrets_providers?.type, "passphrase");
        const resources = exported.deployment.resources ?? [];
        assert.deepEqual(
            resources.map((r) => r.type),
            ["pulumi:pulumi:Stack", "pulumi:providers:pulumi-nodejs", "pulumi-nodejs:dynamic:Resource"],
        );
        const [stackRes, provider, res] = resources;
        assert.equal(stackRes.custom, false);
        assert.equal(res.custom, true);
        assert.equal(res.parent, stackRes.urn);
        assert.equal(res.provider, `${provider.urn}::${provider.id}`);
        assert.match(res.urn, /^urn:pulumi:dev::harness::pulumi-nodejs:dynamic:Resource::s$/);
        const token = res.outputs?.token as Record<string, unknown>;
        assert.equal(token[SIG_KEY], SECRET_SIG);
        assert.match(String(token.ciphertext), /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);

        const shown = exportStack(stateFile, { showSecrets: true, passphrase: PASSPHRASE });
        const plain = shown.deployment.resources?.[2].outputs?.token as Record<string, unknown>;
        assert.deepEqual(plain, { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(TOKEN) });
        assert.throws(() => exportStack(stateFile, { showSecrets: true, passphrase: "wrong" }), /incorrect passphrase/);
        ok(await run("destroy", []));
        assert.equal(exportStack(stateFile).deployment.resources, undefined, "an empty stack has no resources");
    });
});
