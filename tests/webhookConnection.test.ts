/**
 * WebhookConnection through the real dynamic-provider plugin, driven as the Pulumi engine drives
 * it, against the local simulator: create, no-op, update, replace, delete, drift, import, secrets,
 * preview with unknowns, and API failures.
 */
import { strict as assert } from "assert";
import { UNKNOWN, secret, PluginError } from "./engine/plugin";
import { CheckFailedError } from "./engine/engine";
import { providerText, startStack, type Stack } from "./support";

const TYPE = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";

/** Secret values used below: none may appear unmarked in state, in errors, or in plugin logs. */
const TOKEN = "tok-7f1c2e9a-webhook-secret";
const PASSWORD = "pw-1b2d3f-basic-secret";
const HEADER_VALUE = "hv-91aa-header-secret";
const SECRETS = [TOKEN, PASSWORD, HEADER_VALUE];

let PROVIDER: string;

/** Inputs as the SDK registers them for `new WebhookConnection(name, args)`. */
function inputs(over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
        storyId: STORY,
        name: "orders",
        url: "https://backend.example.com/orders",
        token: secret(TOKEN),
        headers: secret({ "X-Env": "prod", "X-Key": HEADER_VALUE }),
        auth: secret({ username: "bot", password: PASSWORD }),
        __provider: PROVIDER,
        ...over,
    };
}

const SECRET_OUTPUTS = { additionalSecretOutputs: ["token", "headers", "auth"] };

function assertNoSecretsIn(text: string, where: string) {
    for (const s of SECRETS) assert.ok(!text.includes(s), `${where} contains a secret value`);
}

describe("WebhookConnection through the dynamic-provider plugin", function () {
    let stack: Stack;

    before(async () => {
        PROVIDER = await providerText("webhookConnection");
    });
    beforeEach(async () => {
        stack = await startStack();
    });
    afterEach(async () => {
        try {
            assertNoSecretsIn(stack.plugin.stderr(), "the plugin's log");
            assertNoSecretsIn(stack.engine.unmarkedStateText(), "state outside secret markers");
        } finally {
            await stack.close();
        }
    });

    it("serializes the provider as a small require() of the installed package, with no secrets", () => {
        assert.match(PROVIDER, /require\("pulumi-chatbot\/providers\/webhookConnection"\)/);
        assert.ok(PROVIDER.length < 1024, `serialized provider is ${PROVIDER.length} bytes`);
        assertNoSecretsIn(PROVIDER, "the serialized provider");
    });

    it("creates, reads back what the API stored, and marks secrets in state", async () => {
        const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        assert.equal(r.op, "create");
        const stored = stack.sim.getConnection(r.id);
        assert.ok(stored, "the connection exists in the API");
        assert.equal(stored.name, "orders");
        assert.equal(stored.token, TOKEN);
        assert.deepEqual(stored.headers, { "X-Env": "prod", "X-Key": HEADER_VALUE });
        assert.deepEqual(stored.auth, { username: "bot", password: PASSWORD });

        const urn = [...stack.engine.state.keys()][0];
        const out = stack.engine.plainState(urn);
        assert.equal(out.storyId, STORY);
        assert.deepEqual(out.story, { id: STORY, name: stored.story.name });
        assert.equal(out.lastError, null);
        assert.equal(out.createdAt, stored.createdAt);
        assert.equal(out.updatedAt, stored.updatedAt);
        assert.equal(out.token, TOKEN);
        const state = stack.engine.state.get(urn)!;
        for (const key of ["token", "headers", "auth"]) {
            assert.ok(isSecretValue(state.outputs[key]), `output ${key} is secret in state`);
            assert.ok(isSecretValue(state.inputs[key]), `input ${key} is secret in state`);
        }
    });

    it("a second run with the same program changes nothing and calls no API write", async () => {
        await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        stack.sim.resetRequests();
        const again = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        assert.equal(again.op, "same");
        assert.deepEqual(stack.sim.requests, [], "check and diff never call the API");
    });

    it("updates in place with PUT, removing token, headers and auth left out of the program", async () => {
        const first = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        const changed = await stack.engine.register(
            TYPE,
            "orders",
            { storyId: STORY, name: "orders-v2", url: "https://backend.example.com/v2", __provider: PROVIDER },
            SECRET_OUTPUTS,
        );
        assert.equal(changed.op, "update");
        assert.equal(changed.id, first.id, "same connection");
        const stored = stack.sim.getConnection(first.id)!;
        assert.equal(stored.name, "orders-v2");
        assert.equal(stored.url, "https://backend.example.com/v2");
        assert.equal(stored.token, undefined);
        assert.equal(stored.headers, undefined);
        assert.equal(stored.auth, undefined);
        assert.equal(stack.sim.listConnections().length, 1);
    });

    it("a changed header value alone is an update", async () => {
        const first = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        const r = await stack.engine.register(
            TYPE,
            "orders",
            inputs({ headers: secret({ "X-Env": "staging", "X-Key": HEADER_VALUE }) }),
            SECRET_OUTPUTS,
        );
        assert.equal(r.op, "update");
        assert.deepEqual(stack.sim.getConnection(first.id)!.headers, { "X-Env": "staging", "X-Key": HEADER_VALUE });
    });

    it("a new story replaces the connection: create the new one, then delete the old", async () => {
        const first = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
        const r = await stack.engine.register(TYPE, "orders", inputs({ storyId: OTHER_STORY }), SECRET_OUTPUTS);
        assert.equal(r.op, "replace");
        assert.deepEqual(r.diff?.replaces, ["storyId"]);
        assert.notEqual(r.id, first.id);
        assert.equal(stack.sim.getConnection(first.id), undefined, "the old connection is deleted");
        assert.equal(stack.sim.getConnection(r.id)!.story.id, OTHER_STORY);
        assert.equal(stack.sim.listConnections().length, 1);
    });

    it("destroy deletes, and deleting a connection already gone is not an error", async () => {
        const a = await stack.engine.register(TYPE, "a", inputs({ name: "a" }), SECRET_OUTPUTS);
        const b = await stack.engine.register(TYPE, "b", inputs({ name: "b" }), SECRET_OUTPUTS);
        stack.sim.deleteConnection(b.id); // removed by hand
        await stack.engine.destroyAll();
        assert.equal(stack.sim.getConnection(a.id), undefined);
        assert.deepEqual(stack.sim.listConnections(), []);
        assert.equal(stack.engine.state.size, 0);
    });

    describe("refresh", () => {
        it("finds a change made by hand, secrets included, and the next run puts it right", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const urn = [...stack.engine.state.keys()][0];
            assert.equal((await stack.engine.refresh(urn)).kind, "same", "no drift right after up");

            stack.sim.editConnection(r.id, { url: "https://elsewhere.example/", token: "changed-by-hand" });
            const refreshed = await stack.engine.refresh(urn);
            assert.equal(refreshed.kind, "drift");
            assert.equal(stack.engine.plainState(urn).url, "https://elsewhere.example/");
            assert.equal(stack.engine.plainState(urn).token, "changed-by-hand");

            const fix = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            assert.equal(fix.op, "update");
            assert.equal(stack.sim.getConnection(r.id)!.url, "https://backend.example.com/orders");
            assert.equal(stack.sim.getConnection(r.id)!.token, TOKEN);
            assert.equal((await stack.engine.refresh(urn)).kind, "same");
            assert.equal((await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS)).op, "same");
        });

        it("reports the API's last webhook error as lastError", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const urn = [...stack.engine.state.keys()][0];
            stack.sim.noteError(r.id, "Response status is neither 200 nor 30X");
            await stack.engine.refresh(urn);
            assert.equal(stack.engine.plainState(urn).lastError, "Response status is neither 200 nor 30X");
        });

        it("drops a connection deleted by hand, and the next up creates it again", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const urn = [...stack.engine.state.keys()][0];
            stack.sim.deleteConnection(r.id);
            assert.equal((await stack.engine.refresh(urn)).kind, "deleted");
            assert.equal(stack.engine.state.size, 0);
            const again = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            assert.equal(again.op, "create");
            assert.equal(stack.sim.listConnections().length, 1);
        });
    });

    describe("bringing existing connections under management", () => {
        it("get(name, id) reads a connection by id with inputs only (pulumi/pulumi#16175)", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const got = await stack.engine.get(TYPE, "existing", r.id, { __provider: PROVIDER }, SECRET_OUTPUTS);
            for (const key of ["token", "headers", "auth"])
                assert.ok(isSecretValue(got.outputs[key]), `${key} is secret`);
            assert.equal(got.id, r.id);
            assert.equal(stripped(got.outputs).name, "orders");
            assert.equal(stripped(got.outputs).url, "https://backend.example.com/orders");
        });

        it("the import option of a matching connection, as real engines run it, fails inside the SDK's plugin", async () => {
            // ENGINE-FIDELITY: this test asserted that the import option adopts a matching connection
            // without writing to it. That held only because the stand-in sent the program's inputs
            // with the import's Read. The engine (R1.1, step.go ImportStep.Apply) sends the id alone,
            // and the dynamic-provider plugin finds no `__provider` and fails before this package is
            // reached.
            const made = stack.sim;
            const first = await stack.engine.register(TYPE, "tmp", inputs(), SECRET_OUTPUTS);
            stack.engine.state.clear(); // forget it: now it is an existing, unmanaged connection
            made.resetRequests();
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs(), { ...SECRET_OUTPUTS, importId: first.id }),
                /code must be a string, not undefined/,
            );
            assert.deepEqual(made.requests, [], "the provider never ran, so it did not write either");
            assert.equal(stack.engine.state.size, 0);
        });

        it("import of a connection that differs from the program fails and records nothing", async () => {
            // ENGINE-FIDELITY: the failure asserted here was "do not match", an error the engine no
            // longer has (since 3.174 a differing import is followed by an update, R1.2). Under the
            // engine's id-only Read it fails in the SDK's plugin before any comparison.
            const first = await stack.engine.register(TYPE, "tmp", inputs(), SECRET_OUTPUTS);
            stack.engine.state.clear();
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ url: "https://other.example/" }), {
                    ...SECRET_OUTPUTS,
                    importId: first.id,
                }),
                /code must be a string, not undefined/,
            );
            assert.equal(stack.engine.state.size, 0);
            assert.equal(stack.sim.getConnection(first.id)!.url, "https://backend.example.com/orders");
        });

        it("adoptId adopts an existing connection: only reads when it matches, one PUT when it differs", async () => {
            const existing = await stack.engine.register(TYPE, "tmp", inputs(), SECRET_OUTPUTS);
            stack.engine.state.clear(); // an existing connection the program does not manage yet
            stack.sim.resetRequests();
            const same = await stack.engine.register(TYPE, "orders", inputs({ adoptId: existing.id }), SECRET_OUTPUTS);
            assert.equal(same.id, existing.id);
            assert.deepEqual(
                stack.sim.requests.map((q) => q.method),
                ["GET"],
                "a matching connection is only read",
            );

            stack.engine.state.clear();
            stack.sim.resetRequests();
            const changed = await stack.engine.register(
                TYPE,
                "orders",
                inputs({ adoptId: existing.id, url: "https://backend.example.com/v3" }),
                SECRET_OUTPUTS,
            );
            assert.equal(changed.id, existing.id, "adopted, not created");
            assert.deepEqual(
                stack.sim.requests.map((q) => q.method),
                ["GET", "PUT", "GET"],
            );
            assert.equal(stack.sim.getConnection(existing.id)!.url, "https://backend.example.com/v3");
            assert.equal(stack.sim.listConnections().length, 1);
            const next = await stack.engine.register(
                TYPE,
                "orders",
                inputs({ adoptId: existing.id, url: "https://backend.example.com/v3" }),
                SECRET_OUTPUTS,
            );
            assert.equal(next.op, "same", "adoptId plays no part once the connection is managed");
        });

        it("adoptId of a missing connection, or of one on another story, fails naming adoptId and creates nothing", async () => {
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ adoptId: "0123456789abcdef01234567" }), SECRET_OUTPUTS),
                /adoptId: no webhook connection 0123456789abcdef01234567 exists/,
            );
            const other = await stack.engine.register(TYPE, "tmp", inputs({ storyId: OTHER_STORY }), SECRET_OUTPUTS);
            stack.engine.state.clear();
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ adoptId: other.id }), SECRET_OUTPUTS),
                /adoptId: connection \w{24} belongs to story 6a1b2c3d4e5f6a7b8c9d0e1f, not to storyId 5f3c0d1e2a4b6c8d9e0f1a2b/,
            );
            assert.equal(stack.sim.listConnections().length, 1);
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ adoptId: "short" }), SECRET_OUTPUTS),
                (e: unknown) => {
                    assert.ok(e instanceof CheckFailedError);
                    assert.equal(e.failures[0].property, "adoptId");
                    assert.match(e.failures[0].reason, /exactly 24 characters/);
                    return true;
                },
            );
        });

        it("import of an id that does not exist fails clearly", async () => {
            // ENGINE-FIDELITY: under the engine's id-only Read this fails in the SDK's plugin ("code
            // must be a string"), as every import does; the provider's own clearer error is to come.
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs(), {
                    ...SECRET_OUTPUTS,
                    importId: "0123456789abcdef01234567",
                }),
            );
            assert.equal(stack.engine.state.size, 0);
        });
    });

    describe("preview", () => {
        it("passes unknown values through check and diff, and calls no API", async () => {
            const fresh = await stack.engine.register(TYPE, "orders", inputs({ url: UNKNOWN }), {
                ...SECRET_OUTPUTS,
                preview: true,
            });
            assert.equal(fresh.op, "preview-create");
            await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            stack.sim.resetRequests();
            const upd = await stack.engine.register(TYPE, "orders", inputs({ url: UNKNOWN }), {
                ...SECRET_OUTPUTS,
                preview: true,
            });
            assert.equal(upd.op, "preview-update");
            const rep = await stack.engine.register(TYPE, "orders", inputs({ storyId: UNKNOWN }), {
                ...SECRET_OUTPUTS,
                preview: true,
            });
            assert.equal(rep.op, "preview-replace", "an unknown story may be a new one");
            assert.deepEqual(stack.sim.requests, []);
        });

        it("reports every invalid property at once, before anything is created", async () => {
            await assert.rejects(
                stack.engine.register(
                    TYPE,
                    "orders",
                    inputs({ name: "", url: "not-a-url", headers: secret({}) }),
                    SECRET_OUTPUTS,
                ),
                (e: unknown) => {
                    assert.ok(e instanceof CheckFailedError);
                    const props = e.failures.map((f) => f.property).sort();
                    assert.deepEqual(props, ["headers", "name", "url"]);
                    return true;
                },
            );
            assert.deepEqual(stack.sim.requests, []);
        });
    });

    describe("API failures", () => {
        it("400 from the API names the operation, the connection, the status and the API's message", async () => {
            // A story the API does not know: check cannot see that, the API refuses it.
            await stack.close();
            stack = await startStack({ stories: { [STORY]: "Orders" } });
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ storyId: OTHER_STORY }), SECRET_OUTPUTS),
                (e: unknown) => {
                    assert.ok(e instanceof PluginError);
                    assert.match(
                        e.message,
                        /create webhook connection "orders" failed: ChatBot API answered HTTP 400 \(badRequest\): story 6a1b2c3d4e5f6a7b8c9d0e1f does not exist/,
                    );
                    assertNoSecretsIn(e.message, "the error");
                    return true;
                },
            );
            assert.equal(stack.engine.state.size, 0);
        });

        it("401 says the developer access token was rejected, without showing it", async () => {
            await stack.close();
            stack = await startStack({ token: "not-the-right-token" });
            await assert.rejects(stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS), (e: unknown) => {
                assert.ok(e instanceof PluginError);
                assert.match(e.message, /HTTP 401/);
                assert.match(e.message, /developer access token was rejected/);
                assert.ok(!e.message.includes("not-the-right-token"));
                return true;
            });
            assert.ok(!stack.plugin.stderr().includes("not-the-right-token"));
        });

        it("500 on update (every retry) leaves the state as it was, and the next run succeeds", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const urn = [...stack.engine.state.keys()][0];
            const before = stack.engine.plainState(urn);
            stack.sim.inject({ method: "PUT", fault: { status: 500 }, times: 10 });
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ name: "renamed" }), SECRET_OUTPUTS),
                /update webhook connection "renamed" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            assert.deepEqual(stack.engine.plainState(urn), before);
            stack.sim.clearFaults();
            assert.equal(
                (await stack.engine.register(TYPE, "orders", inputs({ name: "renamed" }), SECRET_OUTPUTS)).op,
                "update",
            );
            assert.equal(stack.sim.getConnection(r.id)!.name, "renamed");
        });

        it("create that succeeds but cannot be read back is still recorded (no second connection)", async () => {
            stack.sim.inject({ method: "GET", fault: { status: 500 }, times: 10 });
            await assert.rejects(stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS), (e: unknown) => {
                assert.ok(e instanceof PluginError);
                assert.equal(e.initFailures.length, 1);
                assert.match(e.message, /is recorded in state/);
                return true;
            });
            assert.equal(stack.engine.state.size, 1, "recorded as a partial failure");
            stack.sim.clearFaults();
            const again = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            assert.notEqual(again.op, "create");
            assert.equal(stack.sim.listConnections().length, 1, "no duplicate");
        });

        it("500 on refresh (every retry) is an error and keeps the resource", async () => {
            await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            const urn = [...stack.engine.state.keys()][0];
            stack.sim.inject({ method: "GET", fault: { status: 500 }, times: 10 });
            await assert.rejects(
                stack.engine.refresh(urn),
                /read webhook connection "orders" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            assert.equal(stack.engine.state.size, 1);
        });

        it("404 on update (deleted by hand, no refresh) says so", async () => {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            stack.sim.deleteConnection(r.id);
            await assert.rejects(
                stack.engine.register(TYPE, "orders", inputs({ name: "x" }), SECRET_OUTPUTS),
                /HTTP 404 \(notFound\)/,
            );
        });
    });
});

describe("WebhookConnection settings", function () {
    before(async () => {
        PROVIDER = await providerText("webhookConnection");
    });

    it("reads the token and API address from stack config", async () => {
        const stack = await startStack({ via: "config" });
        try {
            const r = await stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS);
            assert.equal(r.op, "create");
            assert.equal(stack.sim.listConnections().length, 1);
        } finally {
            await stack.close();
        }
    });

    it("a missing token is an error that names both ways to set it; preview still works", async () => {
        const stack = await startStack({ via: "config", token: "" });
        try {
            const preview = await stack.engine.register(TYPE, "orders", inputs(), { ...SECRET_OUTPUTS, preview: true });
            assert.equal(preview.op, "preview-create");
            await assert.rejects(stack.engine.register(TYPE, "orders", inputs(), SECRET_OUTPUTS), (e: unknown) => {
                assert.match((e as Error).message, /chatbot:token/);
                assert.match((e as Error).message, /CHATBOT_TOKEN/);
                return true;
            });
        } finally {
            await stack.close();
        }
    });
});

function isSecretValue(v: unknown): boolean {
    return (
        v !== null &&
        typeof v === "object" &&
        (v as Record<string, unknown>)["4dabf18193072939515e22adb298388d"] === "1b47061264138c4ac30d75fd1eb44270"
    );
}

function stripped(v: Record<string, unknown>): Record<string, unknown> {
    return JSON.parse(JSON.stringify(v, (_k, x) => (isSecretValue(x) ? (x as { value: unknown }).value : x)));
}
