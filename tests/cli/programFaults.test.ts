/**
 * The engine's side of the fault matrix (tests/helpers/faultMatrix.ts runs every case on the provider
 * module in-process): through the real pulumi CLI, a write whose answer is lost is adopted, not
 * made twice; a write the API says it did but did not fails the `up` and leaves state as the API
 * is; a delete that keeps failing leaves the resource in state for the next destroy. After each
 * run, `pulumi stack export` holds no secret value unmarked.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting } from "../helpers/support";
import { CONNECTION_TYPE, LEGACY_TYPE, declareStack, ok, plain, STORY, type Declared } from "../helpers/pulumi";

const TOKEN = "tok-pf-3c9e-secret";
const PASSWORD = "pw-pf-71aa-secret";
const HEADER = "hv-pf-0d42-secret";

const v2 = (name: string, url = `https://backend.example.com/${name}`): Declared => ({
    kind: "WebhookConnection",
    name,
    args: {
        storyId: STORY,
        url,
        token: { secretConfig: "token" },
        headers: { "X-Key": { secretConfig: "header" } },
        auth: { username: "bot", password: { secretConfig: "password" } },
    },
});
const legacy = (name: string, url = `https://backend.example.com/legacy-${name}`): Declared => ({
    kind: "LegacyWebhook",
    name,
    args: { url, token: { secretConfig: "token" }, headers: [{ name: "X-Key", value: { secretConfig: "header" } }] },
});

describe("API faults through the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let env: Awaited<ReturnType<typeof declareStack>>;

    /** State and the API hold the same connections and webhooks, each once, with the same urls. */
    const assertStateIsApi = async (where: string) => {
        const api = [
            ...sim.listConnections().map((c) => ({ id: c.id, name: c.name, url: c.url })),
            ...sim.listLegacyWebhooks().map((w) => ({ id: w.id, name: w.name, url: w.url })),
        ];
        const state = [...(await env.stack.resources(CONNECTION_TYPE)), ...(await env.stack.resources(LEGACY_TYPE))]
            .filter((r) => !r.delete)
            .map((r) => {
                const o = plain(r.outputs) as Record<string, unknown>;
                return { id: r.id, name: o.name, url: o.url };
            });
        const byId = (a: { id?: string }, b: { id?: string }) => String(a.id).localeCompare(String(b.id));
        assert.deepEqual(state.sort(byId), api.sort(byId), `${where}: state = API`);
        assert.equal(new Set(api.map((x) => x.name)).size, api.length, `${where}: no duplicate`);
        const exported = JSON.stringify(await env.stack.export());
        for (const s of [TOKEN, PASSWORD, HEADER, sim.token])
            assert.ok(!exported.includes(s), `${where}: pulumi stack export shows a secret unmarked`);
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        env = await declareStack(sim, {
            config: { token: { secret: TOKEN }, password: { secret: PASSWORD }, header: { secret: HEADER } },
            // Quick give-ups: two attempts, 2 s per attempt.
            env: { CHATBOT_RETRY_MAX_ATTEMPTS: "2", CHATBOT_REQUEST_TIMEOUT_MS: "2000" },
        });
    });
    after(async () => {
        env?.dispose();
        await sim?.close();
    });

    it("creates whose answer was lost (a reset after the store, a gateway's 504) are adopted, not made twice", async () => {
        await env.declare([v2("a"), v2("b"), v2("c"), legacy("l1"), legacy("l2")]);
        sim.inject({ method: "POST", path: /^\/v2\/integrations\/webhook$/, fault: "reset-after" });
        sim.inject({
            method: "POST",
            path: /^\/v2\/integrations\/webhook$/,
            fault: { status: 504, handled: true, envelope: false },
        });
        sim.inject({ method: "POST", path: /^\/webhooks$/, fault: "reset-after" });
        sim.resetRequests();
        const up = ok(await env.stack.run("up"));
        assert.equal(up.changes.create, 6);
        assert.equal(sim.listConnections().length, 3);
        assert.equal(sim.listLegacyWebhooks().length, 2);
        assert.equal(sim.requests.filter((r) => r.method === "POST").length, 5, "one POST each");
        await assertStateIsApi("after the up");
    });

    it("an update the API answers as done but does not make fails the up, state stays as the API is, and the next up converges", async () => {
        await env.declare([v2("a", "https://backend.example.com/a-v2"), v2("b"), v2("c"), legacy("l1"), legacy("l2")]);
        sim.inject({ method: "PUT", path: /^\/v2\/integrations\/webhook\/\w+$/, fault: "ignore-write", times: 100 });
        const failed = await env.stack.run("up");
        assert.notEqual(failed.code, 0);
        assert.match(failed.stdout + failed.stderr, /update webhook connection "a" \(\w+\) failed/);
        assert.equal(sim.listConnections().find((c) => c.name === "a")?.url, "https://backend.example.com/a");
        await assertStateIsApi("after the failed update");

        sim.clearFaults();
        ok(await env.stack.run("up"));
        assert.equal(sim.listConnections().find((c) => c.name === "a")?.url, "https://backend.example.com/a-v2");
        ok(await env.stack.run("preview", { refresh: true, expectNoChanges: true }));
        await assertStateIsApi("after the next up");
    });

    it("a destroy whose deletes keep failing keeps what is left in state; the next destroy removes it", async () => {
        sim.inject({ method: "DELETE", path: /^\/webhooks\/\w+$/, fault: { status: 503 }, times: 100 });
        const failed = await env.stack.run("destroy");
        assert.notEqual(failed.code, 0);
        assert.match(failed.stdout + failed.stderr, /delete legacy webhook "l\d" \(\w+\) failed: .*HTTP 503/);
        assert.equal(sim.listConnections().length, 0, "the connections were deleted");
        assert.equal(sim.listLegacyWebhooks().length, 2);
        await assertStateIsApi("after the failed destroy");

        sim.clearFaults();
        ok(await env.stack.run("destroy"));
        assert.equal(sim.listLegacyWebhooks().length, 0);
        assert.deepEqual(await env.stack.resources(), []);
    });
});
