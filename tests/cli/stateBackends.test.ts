/**
 * The state backends teams share (issue 32): `recover` and `discover` on PostgreSQL and on
 * S3-compatible storage, against real servers this file starts and stops (tests/helpers/stateBackends.ts),
 * through the real pulumi CLI. On each: `up` killed while creating (on PostgreSQL through the
 * dynamic provider, on S3 through the native plugin), then the dead run's lock is removed, and
 * `recover` and `up` leave each connection once, the state equal to the API, no pending
 * operation, and `preview --expect-no-changes` passing. A live run's lock is refused.
 * `discover --all-stacks` offers no connection another stack holds (on a folder too), and the
 * plugin executable's `recover` reads each backend's lock as the npm command does. The seeded
 * matrices on these backends, both deliveries with updates, replaces, deletes and destroy killed,
 * are the kill tier's (tests/kill/stateBackends.test.ts, `npm run test:kill`): what differs
 * between backends is the lock and the listing of stacks, which every kill goes through.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { chatbotCli, killLifecycle, liveRunRefused, matrixSimulator } from "../helpers/killedRuns";
import { pluginCommand, pluginExecutable } from "../helpers/languagePrograms";
import { declareStack, ok, pulumiCli, STORY, type Declared } from "../helpers/pulumi";
import { FOLDER, POSTGRES, S3, serveFor, type Backend, type BackendServer } from "../helpers/stateBackends";

describe("state kept where every CI runner reaches it: recover and discover", function () {
    this.timeout(900_000);
    const simulator = matrixSimulator();

    for (const backend of [POSTGRES, S3]) {
        describe(`on ${backend.name}`, () => {
            const server = serveFor(backend);
            // One delivery on each backend: the lock and the listing of stacks are the backend's,
            // whichever plugin's creates are pending.
            const native = backend === S3;

            it(`up killed while creating (${native ? "the native plugin" : "the dynamic provider"}): the dead run's lock removed, each connection once`, async () => {
                const report = await killLifecycle(simulator(), {
                    store: server().store,
                    secrets: server().secrets,
                    native,
                    steps: ["create"],
                });
                console.log(`      ${report.join("\n      ")}`);
            });

            it("a run that is still going keeps its lock: recover refuses (its pid named) and changes nothing", () =>
                liveRunRefused(simulator(), server().store));

            discoverAcrossStacks(backend, server);
        });
    }

    describe(`on ${FOLDER.name}`, () => {
        discoverAcrossStacks(FOLDER, serveFor(FOLDER));
    });

    /** Two stacks of one backend hold connections of one account (and two more stacks are empty,
     *  so that PostgreSQL's listing would hang without its bound): `discover --all-stacks`, run
     *  outside any project, offers only the connection no stack holds. */
    function discoverAcrossStacks(backend: Backend, server: () => BackendServer) {
        it("discover --all-stacks: the connections two stacks hold are offered by neither; the plugin's recover (`pulumi plugin run`, no node) reads the backend as the npm command", async () => {
            const env = await server().store.namespace();
            const made: Array<Awaited<ReturnType<typeof declareStack>>> = [];
            try {
                for (const name of ["team-a", "team-b", "empty-c", "empty-d"]) {
                    const s = await declareStack(simulator(), { stack: name, env });
                    made.push(s);
                    if (name.startsWith("empty")) continue;
                    const want: Declared[] = [0, 1].map((i) => ({
                        kind: "WebhookConnection",
                        name: `${name}-${i}`,
                        args: { storyId: STORY, url: `https://hooks.example.com/${name}/${i}`, token: "t" },
                    }));
                    await s.declare(want);
                    ok(await s.stack.run("up"));
                }
                const held = simulator()
                    .listConnections()
                    .map((c) => c.id);
                assert.equal(held.length, 4);
                const byHand = simulator().addConnection({
                    story: { id: STORY, name: "Shop" },
                    name: "made by hand",
                    url: "https://hooks.example.com/by-hand",
                });
                const outside = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-all-"));
                const r = await chatbotCli(
                    made[0].stack,
                    ["discover", "--all-stacks", "--json"],
                    {
                        CHATBOT_TOKEN: simulator().token,
                        CHATBOT_API_URL: simulator().url,
                        CHATBOT_RETRY_BASE_MS: "2",
                    },
                    outside,
                ).finally(() => fs.rmSync(outside, { recursive: true, force: true }));
                assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
                const summary = JSON.parse(r.stdout) as { managed: string[]; unmanaged: Array<{ id: string }> };
                assert.deepEqual(summary.managed, [...held].sort(), "every id the stacks hold is known");
                assert.deepEqual(
                    summary.unmanaged.map((u) => u.id),
                    [byHand.id],
                    `${backend.name}: only the connection no stack holds is offered`,
                );
                for (const s of server().secrets) assert.ok(!(r.stdout + r.stderr).includes(s), "no secret shown");

                // recover reads a stack's lock with the backend's own client (pg, the S3 SDK): the
                // plugin executable's, through `pulumi plugin run` with no node on PATH, answers as
                // the npm command, byte for byte.
                const args = ["recover", "--stack", "team-a"];
                const fromNpm = await chatbotCli(made[0].stack, args);
                const fromPlugin = await pluginCommand(
                    made[0].stack,
                    args,
                    { PATH: path.dirname(pulumiCli()) },
                    pluginExecutable(),
                );
                assert.deepEqual(fromPlugin, fromNpm);
                assert.equal(fromPlugin.code, 0, `${fromPlugin.stdout}${fromPlugin.stderr}`);
                assert.match(fromPlugin.stdout, /nothing to do/);
                for (const s of server().secrets) assert.ok(!(fromPlugin.stdout + fromPlugin.stderr).includes(s));
            } finally {
                for (const s of made) s.dispose();
            }
        });
    }
});
