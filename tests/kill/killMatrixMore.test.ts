/**
 * `pulumi destroy` SIGKILLed at seeded moments, and both commands through the native plugin, then
 * `pulumi-chatbot recover` and the next run, with the checks of killMatrixUp.test.ts. The kill tier
 * (`npm run test:kill`), not `npm test`.
 */
import { destroyKills, matrixSimulator, upKillMatrix } from "../helpers/killedRuns";
import { folderStore } from "../helpers/stateBackends";

describe("a killed pulumi destroy, and the native plugin, at seeded moments, then `pulumi-chatbot recover`", function () {
    this.timeout(900_000);
    const sim = matrixSimulator();

    it("destroy killed at 3 seeded moments: recovered, and the next destroy leaves nothing", () =>
        destroyKills(sim(), { store: folderStore, rounds: 3, seed: 7 }));

    it("the native plugin: up killed at 3 seeded moments and destroy at 2, recovered", async () => {
        await upKillMatrix(sim(), { store: folderStore, rounds: 3, seed: 42, native: true });
        await destroyKills(sim(), { store: folderStore, rounds: 2, seed: 42, native: true });
    });
});
