/**
 * The provider under the faithful engine model (tests/engine/ENGINE-RULES.md): what a user meets
 * with the real engine, where the engine is less kind than a stand-in could be.
 */
import { strict as assert } from "node:assert";
import { containsSecrets, isSecret, secret, type PropertyMap } from "./engine/plugin";
import { providerText, startStack, type Stack } from "./support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const ASO = { additionalSecretOutputs: ["token", "headers", "auth"] };
const HAND_TOKEN = "tok-by-hand-7e21-secret";
const HAND_PASSWORD = "pw-by-hand-93af-secret";
const HAND_HEADER = "hv-by-hand-11c4-secret";

const kinds = [
    {
        title: "WebhookConnection",
        type: "pulumi-nodejs:dynamic/chatbot:WebhookConnection",
        module: "webhookConnection" as const,
        inputs: (name: string) => ({ storyId: STORY, name, url: `https://backend.example.com/${name}` }),
        handEdit: (stack: Stack, id: string) =>
            stack.sim.editConnection(id, {
                token: HAND_TOKEN,
                headers: { "X-Key": HAND_HEADER },
                auth: { username: "bot", password: HAND_PASSWORD },
            }),
        count: (stack: Stack) => stack.sim.listConnections().length,
        names: (stack: Stack) => stack.sim.listConnections().map((c) => c.name),
        create: "/v2/integrations/webhook",
    },
    {
        title: "LegacyWebhook",
        type: "pulumi-nodejs:dynamic/chatbot:LegacyWebhook",
        module: "legacyWebhook" as const,
        inputs: (name: string) => ({ name, url: `https://backend.example.com/${name}` }),
        handEdit: (stack: Stack, id: string) =>
            stack.sim.editLegacyWebhook(id, {
                token: HAND_TOKEN,
                headers: [{ name: "X-Key", value: HAND_HEADER }],
                auth: { username: "bot", password: HAND_PASSWORD },
            }),
        count: (stack: Stack) => stack.sim.listLegacyWebhooks().length,
        names: (stack: Stack) => stack.sim.listLegacyWebhooks().map((w) => w.name),
        create: "/webhooks",
    },
];

for (const kind of kinds) {
    describe(`${kind.title} under the engine's own rules`, function () {
        this.timeout(120_000);
        let stack: Stack;
        let provider: string;
        const declare = (props: PropertyMap) => ({ ...props, __provider: provider });

        before(async () => {
            provider = await providerText(kind.module);
        });
        afterEach(() => stack?.close());

        it("a token, headers and auth added by hand where the program had none stay secret after refresh", async () => {
            stack = await startStack();
            const made = await stack.engine.register(kind.type, "hook", declare(kind.inputs("hook")), ASO);
            kind.handEdit(stack, made.id);
            const urn = stack.engine.urn(kind.type, "hook");
            const r = await stack.engine.refresh(urn);
            assert.equal(r.kind, "drift", "the hand edit shows as drift");
            const state = stack.engine.state.get(urn)!;
            // Read returns them as inputs too; the engine marks those only from old inputs
            // (provider_plugin.go Read), so the provider must mark them itself.
            for (const key of ["token", "headers", "auth"]) {
                assert.ok(isSecret(state.inputs[key]), `${key} is a secret input`);
                assert.ok(isSecret(state.outputs[key]), `${key} is a secret output`);
            }
            const text = stack.engine.unmarkedStateText();
            for (const s of [HAND_TOKEN, HAND_PASSWORD, HAND_HEADER])
                assert.ok(!text.includes(s), "no plaintext secret");
            // The next up (the program still has none) removes them, and state follows.
            await stack.engine.register(kind.type, "hook", declare(kind.inputs("hook")), ASO);
            assert.equal(containsSecrets(stack.engine.state.get(urn)!.outputs), false, "nothing left to hide");
            assert.ok(!stack.engine.unmarkedStateText().includes(HAND_TOKEN));
        });

        it(".get() of an id that does not exist fails naming the id, instead of handing back nothing", async () => {
            stack = await startStack();
            const id = "0123456789abcdef01234567";
            await assert.rejects(
                stack.engine.get(kind.type, "missing", id, { __provider: provider }, ASO),
                (e: Error) => e.message.includes(id) && /no .* with id/.test(e.message),
            );
        });

        it("a partially failed update converges on the next up, with no change in the program", async () => {
            stack = await startStack({ env: { CHATBOT_RETRY_MAX_ATTEMPTS: "2" } });
            const urn = stack.engine.urn(kind.type, "hook");
            await stack.engine.register(kind.type, "hook", declare(kind.inputs("hook")), ASO);
            // The PUT lands; every read-back fails: a partial failure, the old inputs kept (R6.1).
            stack.sim.inject({ method: "GET", fault: { status: 500 }, times: 3 });
            const wanted = { ...kind.inputs("hook"), token: secret("tok-new-secret-1") };
            await assert.rejects(stack.engine.register(kind.type, "hook", declare(wanted), ASO), /The update was sent/);
            assert.ok(stack.engine.state.get(urn)!.initErrors?.length, "recorded as half-done");
            stack.sim.clearFaults();
            const again = await stack.engine.register(kind.type, "hook", declare(wanted), ASO);
            assert.equal(again.op, "update", "the engine updates a half-done resource even without a diff");
            assert.equal(stack.engine.state.get(urn)!.initErrors, undefined);
            assert.equal(stack.engine.plainState(urn).token, "tok-new-secret-1");
            assert.equal(kind.count(stack), 1);
        });

        for (const parallel of [undefined, 16]) {
            it(`${parallel ?? "the default"} steps at once, with 429 and 503 answers, leave no duplicate`, async () => {
                stack = await startStack({
                    ...(parallel ? { parallel } : {}),
                    env: { CHATBOT_RETRY_MAX_ATTEMPTS: "8" },
                });
                const n = 24;
                stack.sim.inject({ method: "POST", fault: { status: 429, retryAfter: "0" }, times: 6 });
                stack.sim.inject({ method: "POST", fault: { status: 503 }, times: 6 });
                stack.sim.inject({ method: "POST", fault: { status: 504, handled: true, envelope: false }, times: 3 });
                const names = Array.from({ length: n }, (_, i) => `hook-${i}`);
                await Promise.all(
                    names.map((name) => stack.engine.register(kind.type, name, declare(kind.inputs(name)), ASO)),
                );
                await stack.sim.idle();
                assert.deepEqual(kind.names(stack).sort(), [...names].sort(), "each one once");
                assert.equal(stack.engine.state.size, n);
                const ids = [...stack.engine.state.values()].map((s) => s.id);
                assert.equal(new Set(ids).size, n, "no two resources share a connection");
            });
        }
    });
}
