/**
 * The acceptance tier (tests/live, `npm run test:live`) run as a maintainer runs it, in a process
 * of its own: against the simulator's address, as CI runs it; in live mode (CHATBOT_LIVE_*)
 * against a simulator that answers one documented behaviour differently, which the tier must name;
 * and killed in the middle of a run, after which `pulumi-chatbot sweep --prefix` removes what it
 * left and nothing else.
 */
import { strict as assert } from "assert";
import { execFile, spawn } from "child_process";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting, root } from "../helpers/support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const MOCHA = path.join(root, "node_modules", "mocha", "bin", "mocha.js");

interface Ran {
    code: number | null;
    out: string;
}

/** `npm run test:live` as its script runs it (the build done already), in a process group of its
 *  own; `onStart` gets the child. The environment's own CHATBOT_LIVE_* are left out. */
function tier(env: Record<string, string>, args: string[] = [], onStart?: (pid: number) => void): Promise<Ran> {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CHATBOT_LIVE_")));
    const child = spawn(process.execPath, [MOCHA, "--config", "tests/live/mocharc.js", ...args], {
        cwd: root,
        env: { ...base, ...env },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    onStart?.(child.pid!);
    return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

/** The account's whole content: every field of every item. */
function holdings(sim: ChatbotSimulator): string {
    return JSON.stringify([sim.listConnections(), sim.listLegacyWebhooks()]);
}

/** `npx pulumi-chatbot sweep ...` of the installed package against `sim`. */
function sweepCli(sim: ChatbotSimulator, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const cli = path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js");
    const env = { ...process.env, CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url };
    return new Promise((resolve) =>
        execFile(process.execPath, [cli, "sweep", ...args], { env }, (e, stdout, stderr) =>
            resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
        ),
    );
}

describe("the acceptance tier (npm run test:live)", function () {
    this.timeout(240_000);

    it("passes against the simulator's address, the simulator a process of its own", async () => {
        const r = await tier({});
        assert.equal(r.code, 0, r.out);
        assert.match(r.out, /against the simulator at http:\/\/127\.0\.0\.1:\d+ \(a process of its own\)/);
        assert.match(r.out, /whole programs through the pulumi CLI/);
        assert.doesNotMatch(r.out, /failing|pending/);
    });

    describe("in live mode, against a simulator on loopback", () => {
        let sim: ChatbotSimulator | undefined;
        afterEach(() => sim?.close());

        it("an API whose list read includes `token` fails the tier, naming that behaviour; the sweep leaves the account as found", async () => {
            sim = await installedTesting().ChatbotSimulator.start({ deviation: "listShowsToken" });
            sim.addConnection({
                story: { id: STORY, name: "Shop" },
                name: "orders",
                url: "https://example.com/o",
                token: "t-1",
            });
            sim.addLegacyWebhook({ name: "legacy orders", url: "https://example.com/l" });
            const found = holdings(sim);
            const live = { CHATBOT_LIVE_TOKEN: sim.token, CHATBOT_LIVE_API_URL: sim.url, CHATBOT_LIVE_STORY_ID: STORY };
            const r = await tier({ ...live, CHATBOT_LIVE_RUN_ID: "deviant" }, ["--grep", "the API contract"]);
            assert.equal(r.code, 1, r.out);
            assert.match(r.out, /\b1 failing\b/);
            assert.match(r.out, /"v2 list read": the live API answered HTTP 200; [^;]*\btoken\b/);
            assert.match(r.out, /the live API answered .* the simulator answered/);
            assert.ok(!r.out.includes(sim.token), "no token printed");
            await sim.idle();
            assert.equal(holdings(sim), found, "the account holds what it held before, unchanged");
            const sweep = await sweepCli(sim, "--prefix", "pcb-acc-deviant-");
            assert.equal(sweep.code, 0, sweep.stderr);
            assert.equal(sweep.stdout, "", "the tier's own sweep left nothing of its run");
        });

        it("a tier killed in the middle of a run leaves items that `sweep --prefix` removes, and nothing else", async () => {
            sim = await installedTesting().ChatbotSimulator.start();
            const s = sim;
            const byHand = s.addConnection({
                story: { id: STORY, name: "Shop" },
                name: "by hand",
                url: "https://example.com/h",
            });
            const live = { CHATBOT_LIVE_TOKEN: s.token, CHATBOT_LIVE_API_URL: s.url, CHATBOT_LIVE_STORY_ID: STORY };
            const mine = () =>
                [...s.listConnections(), ...s.listLegacyWebhooks()].filter((i) => i.name.startsWith("pcb-acc-killed-"));
            let killed = false;
            const run = tier({ ...live, CHATBOT_LIVE_RUN_ID: "killed" }, [], (pid) => {
                // Kill the whole group (mocha and what it started) once the run has made something.
                const watch = setInterval(() => {
                    if (mine().length === 0) return;
                    clearInterval(watch);
                    killed = true;
                    process.kill(-pid, "SIGKILL");
                }, 10);
                setTimeout(() => clearInterval(watch), 60_000).unref();
            });
            const r = await run;
            assert.ok(killed, `the tier was killed before it ended: ${r.out}`);
            await s.idle();
            const left = mine();
            assert.ok(left.length > 0, "the killed run left something");

            const dry = await sweepCli(s, "--prefix", "pcb-acc-", "--dry-run");
            assert.equal(dry.code, 0, dry.stderr);
            assert.equal(dry.stdout.trim().split("\n").length, left.length, dry.stdout);
            assert.equal(mine().length, left.length, "--dry-run deletes nothing");

            const swept = await sweepCli(s, "--prefix", "pcb-acc-");
            assert.equal(swept.code, 0, swept.stderr);
            for (const item of left) assert.match(swept.stdout, new RegExp(`^deleted .*\\(${item.id}\\)$`, "m"));
            assert.deepEqual(mine(), [], "nothing of the run is left");
            assert.deepEqual(
                s.listConnections(),
                [byHand],
                "the connection made by hand without the prefix is still there",
            );
        });
    });
});
