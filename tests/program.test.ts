/**
 * WebhookConnection and LegacyWebhook in whole programs, through the real pulumi CLI (see
 * ./pulumi.ts) against the simulator on loopback: what a user sees from `pulumi preview`, `up`,
 * `refresh`, `destroy` and `import`, and what `pulumi stack export` holds.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting } from "./support";
import { CHANGES_EXIT_CODE, CONNECTION_TYPE, declareStack, isSecret, ok, plain, STORY, OTHER_STORY } from "./pulumi";

describe("WebhookConnection under the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let env: Awaited<ReturnType<typeof declareStack>>;

    before(async () => {
        const { ChatbotSimulator } = installedTesting();
        sim = await ChatbotSimulator.start({ stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" } });
        env = await declareStack(sim, { config: { ordersToken: { secret: "prog-token-SECRET-1" } } });
    });
    after(async () => {
        env?.dispose();
        await sim?.close();
    });

    it("up creates with secrets marked in stack export; a second preview shows no change", async () => {
        await env.declare([
            {
                kind: "WebhookConnection",
                name: "orders",
                args: {
                    storyId: STORY,
                    url: "https://orders.example.com/hook",
                    token: { secretConfig: "ordersToken" },
                },
            },
        ]);
        const up = ok(await env.stack.run("up"));
        assert.equal(up.changes.create, 2, "the stack and the connection");
        assert.equal(sim.listConnections().length, 1);
        const exported = JSON.stringify(await env.stack.export());
        assert.ok(!exported.includes("prog-token-SECRET-1"), "no secret in plain text in stack export");
        const [conn] = await env.stack.resources(CONNECTION_TYPE);
        assert.ok(isSecret(conn.outputs?.token) && isSecret(conn.inputs?.token));
        assert.equal(plain(conn.outputs?.token), "prog-token-SECRET-1");
        const again = ok(await env.stack.run("preview", { expectNoChanges: true }));
        assert.equal(again.changes.same, 2);
        assert.notEqual(CHANGES_EXIT_CODE, 0);
    });
});
