/**
 * `pulumi-chatbot sweep`, called as the command calls it, against the simulator in this process:
 * it refuses to run without a prefix, deletes only what the prefix names (v2 connections and legacy
 * webhooks), prints each, deletes nothing with --dry-run, and with --older-than goes by createdAt.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { sweep } from "../../provider/cli/sweep";
import { emptySimulator, installedTesting } from "../helpers/support";

const STORY = { id: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "Orders" };

describe("pulumi-chatbot sweep", () => {
    let sim: ChatbotSimulator;
    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
    });
    after(() => sim.close());
    beforeEach(() => emptySimulator(sim));

    async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
        let stdout = "";
        let stderr = "";
        const env = { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url };
        const code = await sweep(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
        return { code, stdout, stderr };
    }

    function seed() {
        const url = "https://example.com/hook";
        return {
            mine: sim.addConnection({ story: STORY, name: "pcb-acc-r1-orders", url }),
            mineLegacy: sim.addLegacyWebhook({ name: "pcb-acc-r1-legacy", url }),
            other: sim.addConnection({ story: STORY, name: "orders", url }),
            otherLegacy: sim.addLegacyWebhook({ name: "legacy pcb-acc-r1", url }),
        };
    }

    for (const argv of [[], ["--prefix", ""], ["--prefix", "  "], ["--dry-run"]]) {
        it(`refuses to run without a prefix (${argv.join(" ") || "no options"}), sending no request`, async () => {
            seed();
            sim.resetRequests();
            const r = await run(...argv);
            assert.equal(r.code, 2);
            assert.match(r.stderr, /refusing to run without --prefix/);
            assert.deepEqual(sim.requests, []);
            assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 4);
        });
    }

    it("deletes the connections and legacy webhooks whose names start with the prefix, and prints each", async () => {
        const s = seed();
        const r = await run("--prefix", "pcb-acc-r1-");
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(r.stdout.trim().split("\n"), [
            `deleted webhook connection "pcb-acc-r1-orders" (${s.mine.id})`,
            `deleted legacy webhook "pcb-acc-r1-legacy" (${s.mineLegacy.id})`,
        ]);
        assert.deepEqual(
            sim.listConnections().map((c) => c.id),
            [s.other.id],
        );
        assert.deepEqual(
            sim.listLegacyWebhooks().map((w) => w.id),
            [s.otherLegacy.id],
        );
        assert.ok(!r.stdout.includes(sim.token) && !r.stderr.includes(sim.token), "no token printed");
    });

    it("prints a name holding terminal codes escaped, so it cannot draw a line of its own (issue 65)", async () => {
        const c = sim.addConnection({
            story: STORY,
            name: "pcb-acc-r1-\u001b[2K\rdeleted nothing",
            url: "https://example.com/h",
        });
        const r = await run("--prefix", "pcb-acc-r1-", "--dry-run");
        assert.equal(r.code, 0, r.stderr);
        assert.equal(
            r.stdout,
            `would delete webhook connection "pcb-acc-r1-\\u{1b}[2K\\u{d}deleted nothing" (${c.id})\n`,
        );
    });

    it("--dry-run prints what it would delete and sends no write", async () => {
        seed();
        sim.resetRequests();
        const r = await run("--prefix", "pcb-acc-", "--dry-run");
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^would delete webhook connection "pcb-acc-r1-orders"/m);
        assert.match(r.stdout, /^would delete legacy webhook "pcb-acc-r1-legacy"/m);
        assert.deepEqual(
            sim.requests.filter((q) => q.method !== "GET"),
            [],
        );
        assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 4);
    });

    it("--older-than deletes connections created before then, keeps newer ones, and skips legacy webhooks, saying so", async () => {
        const s = seed();
        const old = sim.addConnection({
            story: STORY,
            name: "pcb-acc-r0-old",
            url: "https://example.com/hook",
            createdAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
        });
        const r = await run("--prefix", "pcb-acc-", "--older-than", "1h");
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(r.stdout.trim().split("\n"), [
            `deleted webhook connection "pcb-acc-r0-old" (${old.id})`,
            `skipped legacy webhook "pcb-acc-r1-legacy" (${s.mineLegacy.id}): the list read gives no createdAt, and --older-than was given`,
        ]);
        assert.equal(sim.getConnection(s.mine.id)?.name, "pcb-acc-r1-orders", "the newer one is kept");
        assert.ok(sim.getLegacyWebhook(s.mineLegacy.id));
    });

    it("a duration it cannot read, a missing token and a rejected one fail with exit 2", async () => {
        assert.equal((await run("--prefix", "p", "--older-than", "1 week")).code, 2);
        let stderr = "";
        const noToken = await sweep(["--prefix", "p"], { stdout: () => {}, stderr: (t) => (stderr += t), env: {} });
        assert.equal(noToken, 2);
        assert.match(stderr, /set CHATBOT_TOKEN/);
        stderr = "";
        const env = { CHATBOT_TOKEN: "wrong", CHATBOT_API_URL: sim.url };
        assert.equal(await sweep(["--prefix", "p"], { stdout: () => {}, stderr: (t) => (stderr += t), env }), 2);
        assert.match(stderr, /HTTP 401/);
    });
});
