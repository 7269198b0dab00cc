/**
 * LegacyWebhook through the real dynamic-provider plugin against the simulator's `/webhooks`.
 */
import { strict as assert } from "assert";
import { secret } from "./engine/plugin";
import { CheckFailedError } from "./engine/engine";
import { check } from "../provider/resources/legacyWebhook";
import { providerText, startStack, type Stack } from "./support";

const TYPE = "pulumi-nodejs:dynamic/chatbot:LegacyWebhook";
const TOKEN = "legacy-token-5e1f-secret";
const HEADER_VALUE = "legacy-header-77ab-secret";
const SECRET_OUTPUTS = { additionalSecretOutputs: ["token", "headers", "auth"] };
let PROVIDER: string;

const inputs = (over: Record<string, unknown> = {}) => ({
    name: "old-hook",
    url: "https://public.example.com/hook",
    token: secret(TOKEN),
    headers: secret([{ name: "X-Key", value: HEADER_VALUE }]),
    __provider: PROVIDER,
    ...over,
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

describe("LegacyWebhook through the dynamic-provider plugin", () => {
    let stack: Stack;
    before(async () => {
        PROVIDER = await providerText("legacyWebhook");
    });
    beforeEach(async () => {
        stack = await startStack();
    });
    afterEach(async () => {
        try {
            for (const text of [stack.plugin.stderr(), stack.engine.unmarkedStateText()]) {
                assert.ok(!text.includes(TOKEN) && !text.includes(HEADER_VALUE), "no secret outside secret markers");
            }
        } finally {
            await stack.close();
        }
    });

    it("creates, updates in place, finds drift, and deletes", async () => {
        const created = await stack.engine.register(TYPE, "old", inputs(), SECRET_OUTPUTS);
        assert.equal(created.op, "create");
        const stored = stack.sim.getLegacyWebhook(created.id)!;
        assert.deepEqual(stored.headers, [{ name: "X-Key", value: HEADER_VALUE }]);
        assert.equal((await stack.engine.register(TYPE, "old", inputs(), SECRET_OUTPUTS)).op, "same");

        const renamed = await stack.engine.register(
            TYPE,
            "old",
            inputs({ name: "renamed", token: undefined }),
            SECRET_OUTPUTS,
        );
        assert.equal(renamed.op, "update");
        assert.equal(stack.sim.getLegacyWebhook(created.id)!.name, "renamed");
        assert.equal(stack.sim.getLegacyWebhook(created.id)!.token, undefined);

        const urn = [...stack.engine.state.keys()][0];
        stack.sim.editLegacyWebhook(created.id, { url: "https://changed.example/" });
        stack.sim.noteError(created.id, "Timeout");
        assert.equal((await stack.engine.refresh(urn)).kind, "drift");
        const out = stack.engine.plainState(urn);
        assert.equal(out.url, "https://changed.example/");
        assert.equal(out.lastError, "Timeout");
        assert.equal(typeof out.lastErrorAt, "string");

        await stack.engine.destroyAll();
        assert.deepEqual(stack.sim.listLegacyWebhooks(), []);
    });

    it("refuses a private URL before anything is sent", async () => {
        await assert.rejects(
            stack.engine.register(TYPE, "old", inputs({ url: "http://10.0.0.8/hook" }), SECRET_OUTPUTS),
            CheckFailedError,
        );
        assert.deepEqual(stack.sim.requests, []);
    });
});
