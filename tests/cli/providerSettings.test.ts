/**
 * Each setting of an explicit `Provider` of the native plugin, changed, is a change the engine
 * sees and names: the plugin's DiffConfig compares every setting the schema declares (it once
 * compared token and apiUrl only, so a new retryMaxElapsedMs was no change at all). One stack of
 * tests/programs/declare.js, one `pulumi up`, then one preview per setting, through the real CLI.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { SETTINGS } from "../../provider/native/schema";
import { declareStack, ok, type Declared, type RunResult } from "../helpers/pulumi";
import { installedTesting } from "../helpers/support";

/** The diffs the engine gave the explicit provider's step in a preview. */
function providerDiffs(run: RunResult): { op: string; diffs: string[] } | undefined {
    const step = run.events
        .map((e) => e.resourcePreEvent?.metadata)
        .find((m) => m !== undefined && m.type === "pulumi:providers:chatbot");
    return step && { op: step.op, diffs: step.diffs ?? [] };
}

describe("an explicit Provider's settings, each changed, through the real CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let s: Awaited<ReturnType<typeof declareStack>> | undefined;

    /** The program: one Provider, its token from secret stack config. */
    const provider = (args: Record<string, unknown>): Declared[] => [
        {
            kind: "Provider",
            name: "second",
            args: { token: { secretConfig: "secondToken" }, apiUrl: sim.url, retryMaxElapsedMs: 60_000, ...args },
        },
    ];

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        s = await declareStack(sim, { native: true, config: { secondToken: { secret: sim.token } } });
        await s.declare(provider({}));
        ok(await s.stack.run("up"));
        ok(await s.stack.run("preview", { expectNoChanges: true }));
    });
    after(async () => {
        s?.dispose();
        await sim?.close();
    });

    /** What each setting is changed to; the token through its secret config. */
    const changes: Record<keyof typeof SETTINGS, () => Promise<void>> = {
        token: async () => {
            await s!.stack.setConfig({ secondToken: { secret: `${sim.token}-rotated` } });
            await s!.declare(provider({}));
        },
        apiUrl: () => s!.declare(provider({ apiUrl: `${sim.url}/` })),
        retryMaxElapsedMs: () => s!.declare(provider({ retryMaxElapsedMs: 120_000 })),
        refreshBeforeUpdate: () => s!.declare(provider({ refreshBeforeUpdate: true })),
    };

    for (const setting of Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>) {
        it(`a changed ${setting} is an update of the provider that names ${setting}, and only it`, async () => {
            await s!.stack.setConfig({ secondToken: { secret: sim.token } });
            await changes[setting]();
            const preview = ok(await s!.stack.run("preview"));
            assert.deepEqual(providerDiffs(preview), { op: "update", diffs: [setting] });
        });
    }
});
