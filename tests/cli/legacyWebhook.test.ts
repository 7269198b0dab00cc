/**
 * LegacyWebhook: its checks, and whole programs through the real pulumi CLI against the
 * simulator's `/webhooks` (tests/cli/program.test.ts does the same for WebhookConnection).
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { check } from "../../provider/resources/legacyWebhook";
import { installedTesting, emptySimulator } from "../helpers/support";
import {
    CONNECTION_TYPE,
    LEGACY_TYPE,
    declareStack,
    isSecret,
    ok,
    plain,
    STORY,
    type Declared,
} from "../helpers/pulumi";

const TOKEN = "legacy-token-5e1f-secret";
const HEADER_VALUE = "legacy-header-77ab-secret";
const HAND_TOKEN = "tok-by-hand-7e21-secret";
const HAND_PASSWORD = "pw-by-hand-93af-secret";
const HAND_HEADER = "hv-by-hand-11c4-secret";

/** A LegacyWebhook of tests/programs/declare.js; its token and header value from secret config. */
const webhook = (name: string, args: Record<string, unknown> = {}): Declared => ({
    kind: "LegacyWebhook",
    name,
    args: {
        url: `https://public.example.com/${name}`,
        token: { secretConfig: "token" },
        headers: [{ name: "X-Key", value: { secretConfig: "header" } }],
        ...args,
    },
});

describe("LegacyWebhook check", () => {
    const valid = { name: "w", url: "https://public.example/x" };
    const failure = async (inp: Record<string, unknown>) => (await check({}, inp)).failures;

    it("enforces the legacy limits: name and token 1 to 1024, headers 1 to 99, header name 1 to 128, value 1 to 1024", async () => {
        assert.deepEqual(await failure({ ...valid, name: "n".repeat(1024), token: "t".repeat(1024) }), []);
        assert.match(
            (await failure({ ...valid, name: "n".repeat(1025) }))[0].reason,
            /^name: must be 1 to 1024 characters/,
        );
        assert.match((await failure({ ...valid, token: "" }))[0].reason, /^token: must be 1 to 1024 characters/);
        const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `X-${i}`, value: "v" }));
        assert.deepEqual(await failure({ ...valid, headers: headers(99) }), []);
        assert.match(
            (await failure({ ...valid, headers: headers(100) }))[0].reason,
            /^headers: must have 1 to 99 items/,
        );
        assert.match((await failure({ ...valid, headers: [] }))[0].reason, /^headers: must have 1 to 99 items/);
        assert.match(
            (await failure({ ...valid, headers: [{ name: "X".repeat(129), value: "v" }] }))[0].reason,
            /^headers\[0\]\.name: must be 1 to 128/,
        );
        assert.match(
            (await failure({ ...valid, headers: [{ name: "X-A", value: "v".repeat(1025) }] }))[0].reason,
            /^headers\[0\]\.value: must be 1 to 1024/,
        );
    });

    it("requires a public URL", async () => {
        for (const url of [
            "http://localhost/x",
            "http://127.0.0.1:8080/x",
            "https://10.1.2.3/x",
            "https://192.168.0.5/x",
            "http://[::1]/x",
        ]) {
            const f = await failure({ ...valid, url });
            assert.equal(f.length, 1, url);
            assert.match(f[0].reason, /^url: must be a public URL/);
        }
        assert.match((await failure({ ...valid, url: "not a url" }))[0].reason, /^url: must be an absolute http/);
    });
});

describe("LegacyWebhook under the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let env: Awaited<ReturnType<typeof declareStack>> | undefined;

    const stackOf = async (resources: Declared[], opts: { env?: Record<string, string> } = {}) => {
        env = await declareStack(sim, {
            config: { token: { secret: TOKEN }, header: { secret: HEADER_VALUE } },
            env: opts.env,
        });
        await env.declare(resources);
        return env;
    };
    /** `pulumi stack export` without --show-secrets holds none of these. */
    const assertNoPlainSecrets = async (where: string) => {
        const text = JSON.stringify(await env!.stack.export());
        for (const s of [TOKEN, HEADER_VALUE, HAND_TOKEN, HAND_PASSWORD, HAND_HEADER, sim.token])
            assert.ok(!text.includes(s), `${where}: a secret value in pulumi stack export`);
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
    });
    after(async () => {
        await sim?.close();
    });

    // One stack through one lifecycle: its cases continue it in order, each from the state the one
    // before left (a failure in one may fail those after it, so read the first failure first), and
    // each asserts the facts of its own steps; the destroy is the last.
    describe("one stack through its lifecycle", () => {
        let e: Awaited<ReturnType<typeof declareStack>>;
        before(async () => {
            emptySimulator(sim);
            e = await stackOf([webhook("old")]);
        });
        after(() => {
            env?.dispose();
            env = undefined;
        });

        it("creates, changes nothing on a second up, updates in place, and finds drift and lastError on refresh", async () => {
            ok(await e.stack.run("up"));
            const [stored] = sim.listLegacyWebhooks();
            assert.deepEqual(stored.headers, [{ name: "X-Key", value: HEADER_VALUE }]);
            assert.equal(stored.token, TOKEN);
            const again = ok(await e.stack.run("up"));
            assert.deepEqual(again.changes, { same: 2 });

            await e.declare([webhook("old", { name: "renamed", token: undefined })]);
            const renamed = ok(await e.stack.run("up"));
            assert.equal(renamed.changes.update, 1);
            assert.equal(sim.getLegacyWebhook(stored.id)?.name, "renamed");
            assert.equal(sim.getLegacyWebhook(stored.id)?.token, undefined, "a token left out is removed");

            sim.editLegacyWebhook(stored.id, { url: "https://changed.example/" });
            sim.noteError(stored.id, "Timeout");
            ok(await e.stack.run("refresh"));
            const [state] = await e.stack.resources(LEGACY_TYPE);
            const out = plain(state.outputs) as Record<string, unknown>;
            assert.equal(out.url, "https://changed.example/");
            assert.equal(out.lastError, "Timeout");
            assert.equal(typeof out.lastErrorAt, "string");
            await assertNoPlainSecrets("after refresh");
        });

        it(".get() of a missing id fails naming it; the serialized providers are small require()s holding no secret", async () => {
            // The webhook of the case before, and a connection beside it: the up puts the webhook back
            // as declared and creates the connection.
            await e.declare([
                webhook("old"),
                {
                    kind: "WebhookConnection",
                    name: "conn",
                    args: { storyId: STORY, url: "https://public.example.com/c" },
                },
            ]);
            ok(await e.stack.run("up"));
            for (const [type, module] of [
                [LEGACY_TYPE, "legacyWebhook"],
                [CONNECTION_TYPE, "webhookConnection"],
            ]) {
                const [r] = await e.stack.resources(type);
                const text = String(r.outputs?.__provider);
                assert.match(text, new RegExp(`require\\("pulumi-chatbot/providers/${module}"\\)`));
                assert.ok(text.length < 1024, `the serialized provider is ${text.length} bytes`);
                for (const s of [TOKEN, HEADER_VALUE, sim.token]) assert.ok(!text.includes(s));
            }
            await e.declare([
                webhook("old"),
                { kind: "LegacyWebhook", name: "missing", get: "0123456789abcdef01234567" },
            ]);
            const missing = await e.stack.run("up");
            assert.notEqual(missing.code, 0);
            assert.match(missing.stdout + missing.stderr, /no legacy webhook with id 0123456789abcdef01234567 exists/);
        });

        it("a token, headers and auth added by hand where the program had none stay secret after refresh; the next up removes them", async () => {
            // A program of one webhook with no token or headers: the up creates it and deletes what the
            // cases before left (their webhook and connection).
            await e.declare([{ kind: "LegacyWebhook", name: "bare", args: { url: "https://public.example.com/b" } }]);
            ok(await e.stack.run("up"));
            assert.equal(sim.listLegacyWebhooks().length, 1, "the bare webhook alone");
            const [made] = sim.listLegacyWebhooks();
            sim.editLegacyWebhook(made.id, {
                token: HAND_TOKEN,
                headers: [{ name: "X-Key", value: HAND_HEADER }],
                auth: { username: "bot", password: HAND_PASSWORD },
            });
            ok(await e.stack.run("refresh"));
            const [state] = (await e.stack.export(true)).deployment.resources!.filter((r) => r.type === LEGACY_TYPE);
            for (const key of ["token", "headers", "auth"]) {
                assert.ok(isSecret(state.inputs?.[key]), `${key} is a secret input`);
                assert.ok(isSecret(state.outputs?.[key]), `${key} is a secret output`);
            }
            await assertNoPlainSecrets("after the refresh");
            ok(await e.stack.run("up"));
            assert.equal(sim.getLegacyWebhook(made.id)?.token, undefined);
            await assertNoPlainSecrets("after the up");
        });

        it("destroys: nothing left in ChatBot", async () => {
            ok(await e.stack.run("destroy"));
            assert.deepEqual(sim.listLegacyWebhooks(), [], "no webhook left");
            assert.deepEqual(sim.listConnections(), [], "no connection left");
        });
    });

    // Programs of their own, or steps of their own (a failed preview, a half-done update, faults
    // under load), a stack each.
    describe("programs of their own, a stack each", () => {
        beforeEach(() => {
            emptySimulator(sim);
        });
        afterEach(() => {
            env?.dispose();
            env = undefined;
        });

        it("a private URL fails the preview naming url, before anything is sent", async () => {
            const e = await stackOf([webhook("old", { url: "http://10.0.0.8/hook" })]);
            const preview = await e.stack.run("preview");
            assert.notEqual(preview.code, 0);
            assert.match(preview.stdout + preview.stderr, /url: must be a public URL/);
            assert.deepEqual(sim.requests, []);
        });

        it("a partially failed update converges on the next up, with no change in the program", async () => {
            const e = await stackOf([webhook("hook")], { env: { CHATBOT_RETRY_MAX_ATTEMPTS: "2" } });
            ok(await e.stack.run("up"));
            await e.stack.setConfig({ token: { secret: "tok-new-secret-1" } });
            // The PUT lands; every read-back fails: the update is recorded as half-done.
            sim.inject({ method: "GET", path: /^\/webhooks\/\w+$/, fault: { status: 500 }, times: 1000 });
            const failed = await e.stack.run("up");
            assert.notEqual(failed.code, 0);
            assert.match(failed.stdout + failed.stderr, /The update was sent/);
            sim.clearFaults();
            ok(await e.stack.run("up"));
            ok(await e.stack.run("preview", { refresh: true, expectNoChanges: true }));
            assert.equal(sim.listLegacyWebhooks().length, 1);
            assert.equal(sim.listLegacyWebhooks()[0].token, "tok-new-secret-1");
        });

        it("24 webhooks at the CLI's default parallelism and at 16, with 429, 503 and 504 answers: each one once", async () => {
            const names = Array.from({ length: 24 }, (_, i) => `hook-${i}`);
            // One stack for both rounds: each round's up starts from the empty stack the destroy before left.
            const e = await stackOf(
                names.map((n) => webhook(n)),
                { env: { CHATBOT_RETRY_MAX_ATTEMPTS: "8" } },
            );
            for (const parallel of [undefined, 16]) {
                sim.inject({ method: "POST", fault: { status: 429, retryAfter: "0" }, times: 6 });
                sim.inject({ method: "POST", fault: { status: 503 }, times: 6 });
                sim.inject({ method: "POST", fault: { status: 504, handled: true, envelope: false }, times: 3 });
                ok(await e.stack.run("up", { parallel }));
                await sim.idle();
                assert.deepEqual(
                    sim
                        .listLegacyWebhooks()
                        .map((w) => w.name)
                        .sort(),
                    [...names].sort(),
                    "each one once",
                );
                const ids = (await e.stack.resources(LEGACY_TYPE)).map((r) => r.id);
                assert.equal(new Set(ids).size, 24, "no two resources share a webhook");
                ok(await e.stack.run("destroy"));
                assert.equal(sim.listLegacyWebhooks().length, 0);
            }
        });
    });
});
