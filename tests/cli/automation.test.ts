/**
 * An Automation API inline program (`LocalWorkspace`) driving the real pulumi CLI, as a
 * deployment pipeline written in TypeScript does: preview, up, the drift check, refresh and
 * destroy of a WebhookConnection, secrets marked in the exported state.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as automation from "@pulumi/pulumi/automation";
import type * as Package from "pulumi-chatbot";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { isSecret, pulumiCli, STORY } from "../helpers/pulumi";
import { installedRequire, installedTesting, root } from "../helpers/support";

const TOKEN = "tok-auto-5d1c-secret";

describe("Automation API (LocalWorkspace, inline program) with the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let scratch: string;
    let stack: automation.Stack;
    const writes = () => sim.requests.filter((r) => r.method !== "GET");

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-automation-"));
        for (const dir of ["bin", "home", "backend", "work"]) fs.mkdirSync(path.join(scratch, dir));
        // PulumiCommand.get looks for <root>/bin/pulumi; the CLI finds its plugins beside the real file.
        fs.symlinkSync(pulumiCli(), path.join(scratch, "bin", "pulumi"));
        // The plugin resolves the SDK and this package from the work folder, as from a project's.
        fs.symlinkSync(path.join(root, "node_modules"), path.join(scratch, "work", "node_modules"), "dir");
        const pulumiCommand = await automation.PulumiCommand.get({ root: scratch });
        const program = async () => {
            const chatbot: typeof Package = installedRequire("pulumi-chatbot");
            const config = new (await import("@pulumi/pulumi")).Config();
            const orders = new chatbot.WebhookConnection("orders", {
                storyId: STORY,
                url: "https://backend.example.com/orders",
                token: config.requireSecret("webhookToken"),
            });
            return { id: orders.id, url: orders.url };
        };
        stack = await automation.LocalWorkspace.createStack(
            { stackName: "dev", projectName: "automation", program },
            {
                pulumiCommand,
                workDir: path.join(scratch, "work"),
                projectSettings: {
                    name: "automation",
                    runtime: "nodejs",
                    backend: { url: `file://${path.join(scratch, "backend")}` },
                },
                envVars: {
                    PULUMI_HOME: path.join(scratch, "home"),
                    PULUMI_CONFIG_PASSPHRASE: "automation-test",
                    PULUMI_SKIP_UPDATE_CHECK: "true",
                    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
                    CHATBOT_RETRY_BASE_MS: "5",
                },
            },
        );
        await stack.setAllConfig({
            "chatbot:apiUrl": { value: sim.url },
            "chatbot:token": { value: sim.token, secret: true },
            webhookToken: { value: TOKEN, secret: true },
        });
    });
    after(async () => {
        await stack?.workspace.removeStack("dev", { force: true }).catch(() => undefined);
        await sim?.close();
        if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    it("preview sends no request; up creates; the drift check fails after a hand edit; refresh, up and destroy", async () => {
        const preview = await stack.preview();
        assert.equal(preview.changeSummary.create, 2);
        assert.deepEqual(sim.requests, [], "a preview calls no API");

        const up = await stack.up();
        const [made] = sim.listConnections();
        assert.equal(up.outputs.id.value, made.id);
        assert.equal(made.token, TOKEN);
        // The state file as the backend keeps it: secrets encrypted.
        const file = path.join(scratch, "backend", ".pulumi", "stacks", "automation", "dev.json");
        const stored = fs.readFileSync(file, "utf8");
        for (const s of [TOKEN, sim.token]) assert.ok(!stored.includes(s), "the state file shows a secret");
        // exportStack decrypts (it passes --show-secrets): the token is marked secret.
        const state = await stack.exportStack();
        const resources = (
            state.deployment as { resources: Array<{ type: string; outputs?: Record<string, unknown> }> }
        ).resources;
        const orders = resources.find((r) => r.type === "pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        assert.ok(isSecret(orders?.outputs?.token), "the token is secret in state");

        sim.editConnection(made.id, { url: "https://elsewhere.example/hook" });
        sim.resetRequests();
        await assert.rejects(stack.preview({ refresh: true, expectNoChanges: true }), /no changes were expected/);
        assert.deepEqual(writes(), [], "the drift check only reads");
        const refresh = await stack.refresh();
        assert.equal(refresh.summary.resourceChanges?.update, 1);
        await stack.up();
        assert.equal(sim.getConnection(made.id)?.url, "https://backend.example.com/orders");
        await stack.destroy();
        assert.deepEqual(sim.listConnections(), []);
    });
});
