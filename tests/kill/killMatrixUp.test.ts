/**
 * `pulumi up` SIGKILLed at 12 seeded moments while creates, updates, replaces and deletes are in
 * flight, through the real pulumi CLI against the simulator with latency, then
 * `pulumi-chatbot recover` and the next run (tests/helpers/killedRuns.ts): the API holds each
 * declared connection exactly once, the state equals the API, `preview --expect-no-changes`
 * passes, no pending operation or warning is left, and no secret is in plain text in
 * `pulumi stack export`. The kill tier (`npm run test:kill`, weekly: tests/kill/), not `npm test`,
 * which kills one stack of each delivery once per step of its life (tests/cli/killLifecycle.test.ts).
 * Its own file so that the tier runs it beside the others (killMatrixMore.test.ts,
 * stateBackends.test.ts). The seed is fixed: a failing round replays.
 */
import { matrixSimulator, upKillMatrix } from "../helpers/killedRuns";
import { folderStore } from "../helpers/stateBackends";

describe("a killed pulumi up at seeded moments, then `pulumi-chatbot recover`", function () {
    // Twelve rounds, one after another on one stack: about 10 minutes on a quiet machine, and 15 or
    // more in CI, where the Node 22/24 passes share the cores. Each pulumi and recover run has its
    // own time limit, which is what catches a hang.
    this.timeout(1_800_000);
    const sim = matrixSimulator();

    it("up killed at 12 seeded moments while creates, updates, replaces and deletes are in flight: recovered, each connection once", async () => {
        const report = await upKillMatrix(sim(), {
            store: folderStore,
            rounds: Number(process.env.KILL_ROUNDS ?? 12),
            seed: 20261125,
        });
        console.log(`      ${report.join("\n      ")}`);
    });
});
