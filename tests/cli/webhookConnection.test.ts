/**
 * WebhookConnection: what the provider itself does with each step, on the provider module called
 * in this process as the dynamic-provider plugin calls it (tests/helpers/providerSteps.ts): updates that
 * remove what the program left out, drift, adoption, unknowns in a preview, invalid inputs and
 * the API's errors. Then what only a whole program shows, through the real pulumi CLI; the rest
 * of that (create, secrets in state, replace, refresh, import, parallel creates) is in
 * tests/cli/program.test.ts.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { CheckFailed, providerModule, ResourceSteps } from "../helpers/providerSteps";
import { installedTesting, emptySimulator } from "../helpers/support";
import { CONNECTION_TYPE, declareStack, ok, OTHER_STORY, plain, STORY, type Declared } from "../helpers/pulumi";

/** Secret values used below: none may appear in an error. */
const TOKEN = "tok-7f1c2e9a-webhook-secret";
const PASSWORD = "pw-1b2d3f-basic-secret";
const HEADER_VALUE = "hv-91aa-header-secret";
const SECRETS = [TOKEN, PASSWORD, HEADER_VALUE];
/** What a preview passes for a value not known yet (sdk/nodejs/runtime/rpc.ts unknownValue). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Inputs of `new WebhookConnection("orders", ...)`, as the plugin hands them to the provider. */
function inputs(over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
        storyId: STORY,
        name: "orders",
        url: "https://backend.example.com/orders",
        token: TOKEN,
        headers: { "X-Env": "prod", "X-Key": HEADER_VALUE },
        auth: { username: "bot", password: PASSWORD },
        ...over,
    };
}

function assertNoSecretsIn(text: string, where: string) {
    for (const s of SECRETS) assert.ok(!text.includes(s), `${where} contains a secret value`);
}

/** Fails unless `run` rejects with a message matching `pattern` and holding no secret. */
async function rejectsWith(run: Promise<unknown>, pattern: RegExp): Promise<void> {
    await assert.rejects(run, (e: Error) => {
        assert.match(e.message, pattern);
        assertNoSecretsIn(e.message, "the error");
        return true;
    });
}

describe("WebhookConnection provider steps", function () {
    let sim: ChatbotSimulator;
    let hook: ResourceSteps;
    const provider = providerModule("webhookConnection");
    const saved = { ...process.env };
    const stored = () => sim.getConnection(hook.state?.id ?? "");

    before(async () => {
        // OTHER_STORY is not a story of this account: the API refuses it (400).
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Orders" } });
        Object.assign(process.env, {
            CHATBOT_TOKEN: sim.token,
            CHATBOT_API_URL: sim.url,
            CHATBOT_RETRY_BASE_MS: "2",
            CHATBOT_RETRY_MAX_ATTEMPTS: "3",
        });
    });
    after(async () => {
        process.env = saved;
        await sim.close();
    });
    beforeEach(() => {
        emptySimulator(sim);
        process.env.CHATBOT_TOKEN = sim.token;
        hook = new ResourceSteps(provider);
    });

    it("a second up with the same inputs changes nothing and sends no request", async () => {
        assert.equal(await hook.up(inputs()), "create");
        sim.resetRequests();
        assert.equal(await hook.up(inputs()), "same");
        assert.deepEqual(sim.requests, [], "check and diff never call the API");
    });

    it("updates in place with PUT, removing token, headers and auth left out of the program", async () => {
        await hook.up(inputs());
        const id = hook.state?.id;
        const {
            token: _t,
            headers: _h,
            auth: _a,
            ...rest
        } = inputs({ name: "orders-v2", url: "https://b.example/v2" });
        assert.equal(await hook.up(rest), "update");
        assert.equal(hook.state?.id, id, "same connection");
        const now = stored();
        assert.equal(now?.name, "orders-v2");
        assert.equal(now?.url, "https://b.example/v2");
        assert.equal(now?.token, undefined);
        assert.equal(now?.headers, undefined);
        assert.equal(now?.auth, undefined);
        assert.equal(hook.state?.outputs.token, undefined, "state follows");
    });

    it("a changed header value alone is an update; a new story is a replacement", async () => {
        await hook.up(inputs());
        assert.equal(await hook.up(inputs({ headers: { "X-Env": "staging", "X-Key": HEADER_VALUE } })), "update");
        assert.deepEqual(stored()?.headers, { "X-Env": "staging", "X-Key": HEADER_VALUE });
        const diff = await provider.diff(hook.state!.id, hook.state!.outputs, inputs({ storyId: OTHER_STORY }));
        assert.deepEqual(diff.replaces, ["storyId"]);
    });

    it("refresh finds a change made by hand, secrets included, and lastError; the next up puts it right", async () => {
        await hook.up(inputs());
        sim.editConnection(hook.state!.id, { url: "https://elsewhere.example/", token: "changed-by-hand" });
        sim.noteError(hook.state!.id, "Response status is neither 200 nor 30X");
        await hook.refresh();
        assert.equal(hook.state?.outputs.url, "https://elsewhere.example/");
        assert.equal(hook.state?.outputs.token, "changed-by-hand");
        assert.equal(hook.state?.outputs.lastError, "Response status is neither 200 nor 30X");
        assert.equal(await hook.up(inputs()), "update");
        assert.equal(stored()?.url, "https://backend.example.com/orders");
        assert.equal(stored()?.token, TOKEN);
    });

    it("destroy deletes; deleting a connection already gone is not an error; refresh drops it", async () => {
        await hook.up(inputs());
        const gone = new ResourceSteps(provider);
        await gone.up(inputs({ name: "gone" }));
        sim.deleteConnection(gone.state!.id);
        await gone.refresh();
        assert.equal(gone.state, undefined, "refresh drops a connection deleted by hand");
        await hook.destroy();
        await provider.delete("0123456789abcdef01234567", inputs());
        assert.deepEqual(sim.listConnections(), []);
    });

    it("adoptId: only reads a matching connection, one PUT where it differs; a missing one, one on another story or a bad id fails naming adoptId", async () => {
        const existing = new ResourceSteps(provider);
        await existing.up(inputs());
        const id = existing.state!.id;
        sim.resetRequests();
        await hook.up(inputs({ adoptId: id }));
        assert.equal(hook.state?.id, id);
        assert.deepEqual(
            sim.requests.map((q) => q.method),
            ["GET"],
        );
        sim.resetRequests();
        await new ResourceSteps(provider).up(inputs({ adoptId: id, url: "https://backend.example.com/v3" }));
        assert.deepEqual(
            sim.requests.map((q) => q.method),
            ["GET", "PUT", "GET"],
        );
        assert.equal(sim.listConnections().length, 1);

        await rejectsWith(
            new ResourceSteps(provider).up(inputs({ adoptId: "0123456789abcdef01234567" })),
            /adoptId: no webhook connection 0123456789abcdef01234567 exists/,
        );
        sim.addConnection({ story: { id: OTHER_STORY, name: "Other" }, name: "x", url: "https://x.example/" });
        const other = sim.listConnections().find((c) => c.story.id === OTHER_STORY)!;
        await rejectsWith(
            new ResourceSteps(provider).up(inputs({ adoptId: other.id })),
            /adoptId: connection \w{24} belongs to story 6a1b2c3d4e5f6a7b8c9d0e1f, not to storyId 5f3c0d1e2a4b6c8d9e0f1a2b/,
        );
        await assert.rejects(new ResourceSteps(provider).up(inputs({ adoptId: "short" })), (e: unknown) => {
            assert.ok(e instanceof CheckFailed);
            assert.equal(e.failures[0].property, "adoptId");
            assert.match(e.failures[0].reason, /exactly 24 characters/);
            return true;
        });
        assert.equal(sim.listConnections().length, 2, "nothing created");
    });

    it("unknown values (preview) pass check and diff, and call no API", async () => {
        await hook.up(inputs());
        sim.resetRequests();
        const checked = await provider.check(hook.state!.inputs, inputs({ url: UNKNOWN, storyId: UNKNOWN }));
        assert.deepEqual(checked.failures, []);
        const diff = await provider.diff(hook.state!.id, hook.state!.outputs, checked.inputs);
        assert.equal(diff.changes, true);
        assert.deepEqual(diff.replaces, ["storyId"], "an unknown story may be a new one");
        assert.deepEqual(sim.requests, []);
    });

    it("reports every invalid property at once, before anything is sent", async () => {
        await assert.rejects(hook.up(inputs({ name: "", url: "not-a-url", headers: {} })), (e: unknown) => {
            assert.ok(e instanceof CheckFailed);
            assert.deepEqual(e.failures.map((f) => f.property).sort(), ["headers", "name", "url"]);
            return true;
        });
        assert.deepEqual(sim.requests, []);
    });

    describe("API failures", () => {
        it("400 names the operation, the connection, the status and the API's message", async () => {
            await rejectsWith(
                hook.up(inputs({ storyId: OTHER_STORY })),
                /create webhook connection "orders" failed: ChatBot API answered HTTP 400 \(badRequest\): story 6a1b2c3d4e5f6a7b8c9d0e1f does not exist/,
            );
            assert.equal(hook.state, undefined);
        });

        it("401 says the developer access token was rejected, without showing it", async () => {
            process.env.CHATBOT_TOKEN = "not-the-right-token";
            await assert.rejects(hook.up(inputs()), (e: Error) => {
                assert.match(e.message, /HTTP 401/);
                assert.match(e.message, /developer access token was rejected/);
                assert.ok(!e.message.includes("not-the-right-token"));
                return true;
            });
        });

        it("a webhook refused by ChatBot's verification request says what the backend must do, on create and update", async () => {
            // Nothing listens on the discard port of loopback: the verification request fails.
            const deadBackend = "http://127.0.0.1:9/orders";
            await hook.up(inputs());
            sim.verifyWebhooks = true;
            try {
                const saysWhatToDo =
                    /HTTP 400 \(badRequest\): webhook verification failed:.*the backend must be deployed and answer it/;
                await rejectsWith(hook.up(inputs({ url: deadBackend })), saysWhatToDo);
                hook = new ResourceSteps(provider);
                await rejectsWith(hook.up(inputs({ name: "fresh", url: deadBackend })), saysWhatToDo);
                assert.equal(hook.state, undefined, "nothing made");
            } finally {
                sim.verifyWebhooks = false;
            }
        });

        it("500 on update (every retry) leaves the outputs as the API has them, and the next up succeeds", async () => {
            await hook.up(inputs());
            const before = structuredClone(hook.state?.outputs);
            sim.inject({ method: "PUT", fault: { status: 500 }, times: 10 });
            await rejectsWith(
                hook.up(inputs({ name: "renamed" })),
                /update webhook connection "renamed" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            // What the API holds, which did not change (the update's read shows it).
            const { __provider: _p, ...after } = hook.state?.outputs ?? {};
            assert.deepEqual(after, before);
            sim.clearFaults();
            assert.equal(await hook.up(inputs({ name: "renamed" })), "update");
            assert.equal(stored()?.name, "renamed");
        });

        it("500 on refresh (every retry) is an error and keeps the resource", async () => {
            await hook.up(inputs());
            sim.inject({ method: "GET", fault: { status: 500 }, times: 10 });
            await rejectsWith(
                hook.refresh(),
                /read webhook connection "orders" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            assert.ok(hook.state);
        });

        it("404 on update (deleted by hand, no refresh) says so and what to do", async () => {
            await hook.up(inputs());
            sim.deleteConnection(hook.state!.id);
            await rejectsWith(hook.up(inputs({ name: "x" })), /HTTP 404 \(notFound\).*`pulumi refresh` drops it/);
        });
    });
});

describe("WebhookConnection under the pulumi CLI: settings", function () {
    this.timeout(120_000);
    let sim: ChatbotSimulator;
    let env: Awaited<ReturnType<typeof declareStack>>;
    const orders: Declared = {
        kind: "WebhookConnection",
        name: "orders",
        args: { storyId: STORY, url: "https://backend.example.com/orders" },
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Orders" } });
        env = await declareStack(sim);
        await env.declare([orders]);
    });
    after(async () => {
        env?.dispose();
        await sim?.close();
    });

    it("without a token, preview works and up fails naming both ways to set it; with it in stack config, up creates", async () => {
        const rm = await env.stack.pulumi(["config", "rm", "chatbot:token"]);
        assert.equal(rm.code, 0, rm.stderr);
        ok(await env.stack.run("preview"));
        const failed = await env.stack.run("up");
        assert.notEqual(failed.code, 0);
        assert.match(failed.stdout + failed.stderr, /pulumi config set --secret chatbot:token/);
        assert.match(failed.stdout + failed.stderr, /CHATBOT_TOKEN/);
        assert.equal(sim.listConnections().length, 0);

        await env.stack.setConfig({ "chatbot:token": { secret: sim.token } });
        ok(await env.stack.run("up"));
        const [made] = await env.stack.resources(CONNECTION_TYPE);
        assert.equal((plain(made.outputs) as Record<string, unknown>).url, "https://backend.example.com/orders");
        assert.equal(sim.listConnections().length, 1);
    });
});
