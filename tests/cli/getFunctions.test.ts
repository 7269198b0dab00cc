/**
 * getWebhookConnection / getLegacyWebhook (and their Output forms) in a whole program, run by
 * `pulumi up` of the real CLI: settings from the program's stack config, read only, secrets
 * marked in `pulumi stack export`, and errors that say which when there is no match or more than
 * one.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { isSecret, ok, plain, PulumiStack, tempProject, type RunResult } from "../helpers/pulumi";
import { CONNECTION_KEYS_WITHOUT_SECRETS, installedTesting } from "../helpers/support";

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
    module.exports.promiseUrl = byName.then((c) => c.url);
    module.exports.promiseKeys = byName.then((c) => Object.keys(c).sort());
    const sealed = chatbot.getWebhookConnection({ name: "Orders", storyId: ${JSON.stringify(STORY)}, includeSecrets: true });
    module.exports.promiseToken = sealed.then((c) => c.token);
    module.exports.promiseHeaders = sealed.then((c) => c.headers);
    const byId = chatbot.getWebhookConnectionOutput({ id: cfg.require("plainId") });
    module.exports.plainName = byId.name;
    module.exports.plainLastError = byId.lastError;
    module.exports.ordersOutput = chatbot.getWebhookConnectionOutput({ id: byName.then((c) => c.id), includeSecrets: true });
    module.exports.ordersPlainOutput = chatbot.getWebhookConnectionOutput({ id: byName.then((c) => c.id) });
    module.exports.legacy = chatbot.getLegacyWebhookOutput({ name: "Old", includeSecrets: true });
    module.exports.legacyPlain = chatbot.getLegacyWebhookOutput({ name: "Old" });
    module.exports.legacyById = chatbot.getLegacyWebhook({ id: cfg.require("legacyId") }).then((w) => w.url);
    const message = (p: Promise<unknown>) => p.then(() => "found", (e: Error) => e.message);
    module.exports.badFlag = message(chatbot.getWebhookConnection({ id: cfg.require("plainId"), includeSecrets: "yes" as unknown as boolean }));
    module.exports.ambiguous = message(chatbot.getWebhookConnection({ name: "Orders" }));
    module.exports.none = message(chatbot.getLegacyWebhook({ name: "Nope" }));
    module.exports.unknownId = message(chatbot.getWebhookConnection({ id: "ffffffffffffffffffffffff" }));
    module.exports.both = message(chatbot.getWebhookConnection({ id: "x", name: "y" }));
    module.exports.shopIds = chatbot.getWebhookConnectionsOutput({ storyId: ${JSON.stringify(STORY)} }).items.apply((items) =>
        items.map((c) => c.id),
    );
    module.exports.prefixed = chatbot.getWebhookConnections({ namePrefix: "Ord" }).then((r) => r.items);
    module.exports.legacyList = chatbot.getLegacyWebhooks().then((r) => r.items);
}
`;

describe("get functions in a program", function () {
    this.timeout(180_000);
    let sim: ChatbotSimulator;
    let dir: string;
    let stack: PulumiStack;
    let up: RunResult;
    let outputs: Record<string, unknown>;
    let exported: string;
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
        const project = tempProject("lookups", {
            "Pulumi.yaml": "name: lookups\nruntime: nodejs\nmain: index.ts\n",
            "index.ts": PROGRAM,
        });
        dir = path.dirname(project);
        stack = await PulumiStack.create({
            projectDir: project,
            // Settings from stack config only, as the provider reads them.
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                mode: "ok",
                plainId: ids.plain,
                legacyId: ids.legacy,
            },
            env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        });
        sim.resetRequests();
        up = ok(await stack.run("up"));
        const resources = (await stack.export(true)).deployment.resources ?? [];
        outputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
        exported = JSON.stringify(await stack.export());
    });

    after(async () => {
        stack?.dispose();
        await sim?.close();
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** A secret output's value; fails when it is not marked secret. */
    const secretValue = (key: string): Record<string, unknown> => {
        assert.ok(isSecret(outputs[key]), `${key} is secret in state`);
        return plain(outputs[key]) as Record<string, unknown>;
    };

    it("reads connections by name and story or by id, nothing secret unless asked for, writing nothing", () => {
        assert.ok(sim.requests.length > 0 && sim.requests.every((x) => x.method === "GET"), "read only");
        assert.equal(up.changes.create, 1, "nothing but the stack itself is created");
        assert.equal(outputs.promiseId, ids.orders);
        assert.equal(outputs.promiseUrl, "https://orders.example.com/hook", "a looked-up url is a plain value");
        assert.deepEqual(outputs.promiseKeys, CONNECTION_KEYS_WITHOUT_SECRETS);
        // The Output form without includeSecrets: plain as a whole, no secret field in it.
        const ordersPlain = outputs.ordersPlainOutput as Record<string, unknown>;
        assert.ok(!isSecret(ordersPlain), "the Output form holds no secret unless asked for");
        assert.equal(ordersPlain.url, "https://orders.example.com/hook");
        assert.ok(!("token" in ordersPlain) && !("auth" in ordersPlain), JSON.stringify(ordersPlain));
        const legacyPlain = outputs.legacyPlain as Record<string, unknown>;
        assert.ok(
            !isSecret(legacyPlain) && legacyPlain.url === "https://old.example.org/hook",
            JSON.stringify(legacyPlain),
        );
        assert.equal(
            outputs.badFlag,
            "getWebhookConnection: `includeSecrets` must be true or false, not a string.",
            "a non-boolean includeSecrets is refused, naming it",
        );
        // With includeSecrets: the secret fields, each sealed.
        assert.equal(secretValue("promiseToken"), "get-test-token-1");
        assert.deepEqual(secretValue("promiseHeaders"), { "X-Key": "get-test-header-1" });
        // A connection with no secret: its fields are plain.
        assert.equal(outputs.plainName, "Plain");
        assert.equal(outputs.plainLastError, null);
        // The Output form asked for its secrets is secret as a whole, as an invoke's result is.
        const orders = secretValue("ordersOutput");
        assert.equal(orders.id, ids.orders);
        assert.equal(orders.storyId, STORY);
        assert.deepEqual(orders.auth, { username: "bot", password: "get-test-pass-1" });
        assert.equal(secretValue("legacy").token, "get-test-legacy-token");
        assert.equal(outputs.legacyById, "https://old.example.org/hook");
        for (const s of [
            "get-test-token-1",
            "get-test-pass-1",
            "get-test-header-1",
            "get-test-legacy-token",
            sim.token,
        ]) {
            assert.ok(!`${up.stdout}${up.stderr}`.includes(s), "the CLI's output shows a secret");
            assert.ok(!exported.includes(s), "`pulumi stack export` shows a secret");
        }
    });

    it("lists: one story's connections, names by prefix with the list read's fields (no secret), legacy webhooks", () => {
        assert.deepEqual(outputs.shopIds, [ids.orders, ids.plain]);
        const prefixed = outputs.prefixed as Array<Record<string, unknown>>;
        assert.deepEqual(
            prefixed.map((c) => [c.id, c.storyId, c.name]),
            [
                [ids.orders, STORY, "Orders"],
                [ids.ordersOther, OTHER_STORY, "Orders"],
            ],
        );
        for (const c of prefixed) for (const key of ["token", "headers", "auth"]) assert.ok(!(key in c), key);
        assert.deepEqual(outputs.legacyList, [{ id: ids.legacy, name: "Old", url: "https://old.example.org/hook" }]);
    });

    it("says which when several match, none does, or the id is unknown", () => {
        const o = outputs;
        assert.match(String(o.ambiguous), /^get webhook connection: 2 webhook connections are named "Orders" \(ids /);
        assert.ok(String(o.ambiguous).includes(ids.orders) && String(o.ambiguous).includes(ids.ordersOther));
        assert.equal(o.none, 'get legacy webhook: no legacy webhook is named "Nope".');
        assert.equal(o.unknownId, "get webhook connection: no webhook connection has id ffffffffffffffffffffffff.");
        assert.match(String(o.both), /give either `id` or `name`, not both/);
    });
});
