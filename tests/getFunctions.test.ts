/**
 * getWebhookConnection / getLegacyWebhook (and their Output forms) in a whole program, run through
 * the program stand-in: settings from the program's stack config, read only, secrets marked, and
 * errors that say which when there is no match or more than one.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { isSecret, type PropertyMap } from "./engine/plugin";
import { runPulumi, type RunResult } from "./engine/program";
import { installedTesting, root } from "./support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as chatbot from "pulumi-chatbot";

const cfg = new pulumi.Config();
const mode = cfg.require("mode");

// Errors are caught into outputs: an uncaught one fails the up, but cmd/run takes ~50 s to print it.
if (mode === "ok") {
    const byName = chatbot.getWebhookConnection({ name: "Orders", storyId: ${JSON.stringify(STORY)} });
    module.exports.promiseId = byName.then((c) => c.id);
    module.exports.promiseToken = byName.then((c) => c.token);
    module.exports.promiseHeaders = byName.then((c) => c.headers);
    const byId = chatbot.getWebhookConnectionOutput({ id: cfg.require("plainId") });
    module.exports.plainName = byId.name;
    module.exports.plainLastError = byId.lastError;
    module.exports.ordersOutput = chatbot.getWebhookConnectionOutput({ id: byName.then((c) => c.id) });
    module.exports.legacy = chatbot.getLegacyWebhookOutput({ name: "Old" });
    module.exports.legacyById = chatbot.getLegacyWebhook({ id: cfg.require("legacyId") }).then((w) => w.url);
    const message = (p: Promise<unknown>) => p.then(() => "found", (e: Error) => e.message);
    module.exports.ambiguous = message(chatbot.getWebhookConnection({ name: "Orders" }));
    module.exports.none = message(chatbot.getLegacyWebhook({ name: "Nope" }));
    module.exports.unknownId = message(chatbot.getWebhookConnection({ id: "ffffffffffffffffffffffff" }));
    module.exports.both = message(chatbot.getWebhookConnection({ id: "x", name: "y" }));
}
`;

describe("get functions in a program", function () {
    this.timeout(180_000);
    let sim: ChatbotSimulator;
    let dir: string;
    const ids: Record<string, string> = {};

    before(async () => {
        const { ChatbotSimulator } = installedTesting();
        sim = await ChatbotSimulator.start();
        ids.orders = sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "Orders",
            url: "https://orders.example.com/hook",
            token: "get-test-token-1",
            headers: { "X-Key": "get-test-header-1" },
            auth: { username: "bot", password: "get-test-pass-1" },
        }).id;
        // Same name, other story: found by name alone, it is ambiguous.
        ids.ordersOther = sim.addConnection({
            story: { id: OTHER_STORY, name: "Support" },
            name: "Orders",
            url: "https://other.example.com/hook",
        }).id;
        ids.plain = sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "Plain",
            url: "https://p.example.com/",
        }).id;
        ids.legacy = sim.addLegacyWebhook({
            name: "Old",
            url: "https://old.example.org/hook",
            token: "get-test-legacy-token",
        }).id;
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-get-"));
        const project = path.join(dir, "lookups");
        fs.mkdirSync(project);
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: lookups\nruntime: nodejs\n");
        fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "lookups", main: "index.ts" }));
        fs.writeFileSync(path.join(project, "index.ts"), PROGRAM);
        fs.symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    });

    after(async () => {
        await sim?.close();
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    const run = (mode: string): Promise<RunResult> =>
        runPulumi({
            projectDir: path.join(dir, "lookups"),
            mode: "up",
            stateFile: path.join(dir, `${mode}.json`),
            passphrase: "get-test",
            // Settings from stack config only, as the provider reads them.
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                mode,
                plainId: ids.plain,
                legacyId: ids.legacy,
            },
            env: { CHATBOT_TOKEN: undefined, CHATBOT_API_URL: undefined },
        });

    it("reads connections by name and story or by id, secrets marked, writing nothing", async () => {
        sim.resetRequests();
        const r = await run("ok");
        assert.equal(r.exitCode, 0, `${r.error}\n${r.log}`);
        assert.ok(sim.requests.length > 0 && sim.requests.every((x) => x.method === "GET"), "read only");
        const o: PropertyMap = r.outputs;
        assert.equal(o.promiseId, ids.orders);
        assert.ok(isSecret(o.promiseToken), "the token is secret");
        assert.equal(isSecret(o.promiseToken) && o.promiseToken.value, "get-test-token-1");
        assert.ok(isSecret(o.promiseHeaders));
        // A connection with no secret: its fields are plain.
        assert.equal(o.plainName, "Plain");
        assert.equal(o.plainLastError, null);
        // The Output form holding a token is secret as a whole, as an invoke's result is.
        assert.ok(isSecret(o.ordersOutput));
        const orders = isSecret(o.ordersOutput) ? (o.ordersOutput.value as PropertyMap) : {};
        assert.equal(orders.id, ids.orders);
        assert.equal(orders.storyId, STORY);
        assert.deepEqual(orders.auth, { username: "bot", password: "get-test-pass-1" });
        assert.ok(isSecret(o.legacy));
        assert.equal(isSecret(o.legacy) && (o.legacy.value as PropertyMap).token, "get-test-legacy-token");
        assert.equal(o.legacyById, "https://old.example.org/hook");
        for (const s of [
            "get-test-token-1",
            "get-test-pass-1",
            "get-test-header-1",
            "get-test-legacy-token",
            sim.token,
        ]) {
            assert.ok(!r.log.includes(s), "the program's log shows a secret");
        }
    });

    it("says which when several match, none does, or the id is unknown", async () => {
        const r = await run("ok");
        assert.equal(r.exitCode, 0, `${r.error}\n${r.log}`);
        const o: PropertyMap = r.outputs;
        assert.match(String(o.ambiguous), /^get webhook connection: 2 webhook connections are named "Orders" \(ids /);
        assert.ok(String(o.ambiguous).includes(ids.orders) && String(o.ambiguous).includes(ids.ordersOther));
        assert.equal(o.none, 'get legacy webhook: no legacy webhook is named "Nope".');
        assert.equal(o.unknownId, "get webhook connection: no webhook connection has id ffffffffffffffffffffffff.");
        assert.match(String(o.both), /give either `id` or `name`, not both/);
    });
});
