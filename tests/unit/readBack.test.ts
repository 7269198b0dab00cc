/**
 * The reads that follow a write (the read-back after a create or an update, the check that a
 * delete took) follow the GET retry policy: a passing 500, 503, 429 or reset there does not fail
 * a write the API carried out, and costs no second write. Only a spent policy fails the step, and
 * then no write is sent again for it. Called here as the plugin calls the provider module, in
 * this process; tests/cli/program.test.ts shows the same through the pulumi CLI.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator, FaultKind } from "pulumi-chatbot/testing";
import type * as ProviderModule from "pulumi-chatbot/providers/webhookConnection";
import { installedRequire, installedTesting, emptySimulator } from "../helpers/support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const ONE = /^\/v2\/integrations\/webhook\/[0-9a-f]{24}$/;

const BLIPS: Array<{ name: string; fault: FaultKind }> = [
    { name: "500", fault: { status: 500 } },
    { name: "503", fault: { status: 503 } },
    { name: "429 with Retry-After: 1", fault: { status: 429, retryAfter: "1" } },
    { name: "a reset connection", fault: "reset-before" },
];

describe("reads after a write retry as any GET does (issue 17)", function () {
    this.timeout(30_000);
    let sim: ChatbotSimulator;
    let provider: typeof ProviderModule;
    const saved = { ...process.env };
    const inputs = { storyId: STORY, name: "orders", url: "https://orders.example.com/hook", token: "rb-token-1" };
    const writes = () => {
        const count = (m: string) => sim.requests.filter((r) => r.method === m).length;
        return { POST: count("POST"), PUT: count("PUT"), DELETE: count("DELETE") };
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        Object.assign(process.env, {
            CHATBOT_TOKEN: sim.token,
            CHATBOT_API_URL: sim.url,
            CHATBOT_RETRY_BASE_MS: "5",
            CHATBOT_RETRY_MAX_ATTEMPTS: "3",
            CHATBOT_REQUEST_TIMEOUT_MS: "2000",
        });
        provider = installedRequire("pulumi-chatbot/providers/webhookConnection");
    });
    after(async () => {
        process.env = saved;
        await sim.close();
    });
    beforeEach(() => {
        emptySimulator(sim);
    });

    for (const { name, fault } of BLIPS) {
        it(`${name} on the read-back of a create, an update and a delete: each succeeds with one write`, async () => {
            sim.inject({ method: "GET", path: ONE, fault });
            const made = await provider.create(inputs);
            assert.equal(sim.listConnections().length, 1);
            assert.equal(made.outs.url, inputs.url);
            assert.deepEqual(writes(), { POST: 1, PUT: 0, DELETE: 0 }, "no second POST, no PUT to put it right");

            sim.inject({ method: "GET", path: ONE, fault });
            const changed = { ...inputs, url: "https://orders.example.com/v2" };
            const updated = await provider.update(made.id, made.outs, changed);
            assert.equal(updated.outs.url, changed.url);
            assert.deepEqual(writes(), { POST: 1, PUT: 1, DELETE: 0 });

            sim.inject({ method: "GET", path: ONE, fault });
            await provider.delete(made.id, updated.outs);
            assert.equal(sim.listConnections().length, 0);
            assert.deepEqual(writes(), { POST: 1, PUT: 1, DELETE: 1 });
        });
    }

    it("a read-back that fails on every attempt records what was made, and sends no write again for it", async () => {
        sim.inject({ method: "GET", path: ONE, fault: { status: 503 }, times: 20 });
        await assert.rejects(provider.create(inputs), (e: Error & { id?: string }) => {
            assert.match(e.message, /read back webhook connection "orders" failed: .*HTTP 503/);
            assert.match(e.message, /Gave up after 3 attempts/);
            assert.match(e.message, /It exists \(id [0-9a-f]{24}\) and is recorded in state/);
            assert.equal(e.id, sim.listConnections()[0]?.id, "a partial failure that carries the id");
            assert.ok(!e.message.includes(inputs.token));
            return true;
        });
        assert.deepEqual(writes(), { POST: 1, PUT: 0, DELETE: 0 });

        sim.clearFaults();
        const id = sim.listConnections()[0].id;
        const outs = (await provider.read(id, inputs)).props;
        sim.inject({ method: "GET", path: ONE, fault: { status: 500 }, times: 20 });
        await assert.rejects(provider.update(id, outs, { ...inputs, name: "orders-2" }), /HTTP 500/);
        assert.deepEqual(writes(), { POST: 1, PUT: 1, DELETE: 0 }, "the PUT is not sent again for a failing read");

        sim.inject({ method: "GET", path: ONE, fault: { status: 500 }, times: 20 });
        await assert.rejects(provider.delete(id, outs), /HTTP 500/);
        assert.deepEqual(writes(), { POST: 1, PUT: 1, DELETE: 1 }, "the DELETE is not sent again for a failing read");
    });
});
