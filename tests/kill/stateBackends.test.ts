/**
 * The kill matrices on the state backends teams share (issue 32), PostgreSQL and S3-compatible
 * storage, against real servers this file starts and stops (tests/helpers/stateBackends.ts),
 * through the real pulumi CLI, for both deliveries: `up` killed at seeded moments with creates,
 * then updates, replaces and deletes in flight, and then `destroy` killed; after each, the dead
 * run's lock is removed, and `recover` and the command again leave each connection once, the
 * state equal to the API, no pending operation, and `preview --expect-no-changes` passing. The
 * kill tier (`npm run test:kill`); `npm test` kills once on each backend, with its other proofs
 * there (tests/cli/stateBackends.test.ts). Smaller than the folder's matrices (killMatrixUp.test.ts):
 * what differs between backends is the lock and the listing of stacks, which every kill goes
 * through.
 */
import { matrixSimulator, upKillMatrix } from "../helpers/killedRuns";
import { POSTGRES, S3, serveFor } from "../helpers/stateBackends";

describe("the kill matrices with the state on PostgreSQL and on S3", function () {
    this.timeout(900_000);
    const simulator = matrixSimulator();

    for (const backend of [POSTGRES, S3]) {
        describe(`on ${backend.name}`, () => {
            const server = serveFor(backend);
            const matrix = (seed: number, rounds: number, native = false) => ({
                store: server().store,
                secrets: server().secrets,
                seed,
                rounds,
                native,
                thenDestroy: true,
            });

            it("up killed at 2 seeded moments (creates, then updates, replaces and deletes in flight), then destroy: the dead run's lock removed, each connection once", async () => {
                const report = await upKillMatrix(simulator(), matrix(20261125, 2));
                console.log(`      ${report.join("\n      ")}`);
            });

            it("the native plugin: up killed, then destroy: recovered", async () => {
                const report = await upKillMatrix(simulator(), matrix(42, 1, true));
                console.log(`      ${report.join("\n      ")}`);
            });
        });
    }
});
