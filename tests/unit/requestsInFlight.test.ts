/**
 * How many requests one plugin has at the API at once: side by side up to the client's limit, as
 * `pulumi up --parallel` sends operations, and never more than that.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { v2 } from "../helpers/faultMatrix";
import { providerModule, ResourceSteps } from "../helpers/providerSteps";
import { installedTesting } from "../helpers/support";

describe("requests in flight", function () {
    let sim: ChatbotSimulator;
    const saved = { ...process.env };
    const provider = providerModule("webhookConnection");
    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        Object.assign(process.env, { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url });
        // Slow enough that every create is still waiting when the last one starts.
        sim.latencyMs = 250;
    });
    after(async () => {
        process.env = saved;
        await sim.close();
    });

    /** n creates at once, as `pulumi up --parallel <n or more>` sends them to one plugin. */
    const createMany = (n: number) =>
        Promise.all(
            Array.from({ length: n }, (_, i) => new ResourceSteps(provider).up({ ...v2.inputs(), name: `c${i}` })),
        );

    it("16 parallel operations run side by side, not one after another", async () => {
        sim.resetRequests();
        await createMany(16);
        assert.equal(sim.maxInFlight, 16);
    });

    it("a large stack never has more than 32 requests at the API at once", async () => {
        sim.resetRequests();
        await createMany(48);
        assert.equal(sim.maxInFlight, 32);
        assert.equal(sim.listConnections().length, 64);
    });
});
