/**
 * A broken run at each step of a stack's life, for both deliveries, in `npm test`: one stack of 10
 * connections through the dynamic provider and one through the native plugin, each with its first
 * `up` killed while creating, then an `up` killed while updating (its program updates, replaces
 * through a new story, deletes and creates), then an `up` of 4 more that fails by itself because
 * the state backend refuses the checkpoint's writes (issue 66: no lock left, its history entry the
 * newest), then its `destroy` killed, each at a fixed moment (tests/helpers/killedRuns.ts,
 * killLifecycle). After each, `pulumi-chatbot recover` removes a dead run's lock, adopts what the
 * broken run made, and the next run converges: the API holds each declared connection
 * exactly once, the state equals the API, `preview --expect-no-changes` passes, no pending
 * operation is left, and no secret is in plain text in `pulumi stack export` or in what recover
 * prints; after the destroy, nothing is left. The seeded matrices (every kill point, both
 * deliveries, every state backend) are the kill tier's: tests/kill/, `npm run test:kill`.
 */
import { killLifecycle, matrixSimulator } from "../helpers/killedRuns";
import { folderStore } from "../helpers/stateBackends";

describe("a broken run at each step of a stack's life (create, update, a refused checkpoint, destroy), then `pulumi-chatbot recover`", function () {
    this.timeout(900_000);
    const sim = matrixSimulator();

    for (const native of [false, true]) {
        it(`${native ? "the native plugin" : "the dynamic provider"}: up killed while creating, up killed while updating, replacing and deleting, up failed by itself on a refused checkpoint, destroy killed: each recovered, each connection once, then nothing left`, async () => {
            const report = await killLifecycle(sim(), { store: folderStore, native });
            console.log(`      ${report.join("\n      ")}`);
        });
    }
});
