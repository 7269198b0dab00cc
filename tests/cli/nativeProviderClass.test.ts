/**
 * `Provider` of `pulumi-chatbot/native`, the native plugin's explicit provider, through the real
 * pulumi CLI: one TypeScript program manages connections in two accounts (two simulators, each
 * with its own token), the stack's through the default provider and the other through a Provider.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedTesting, root } from "../helpers/support";
import { CHANGES_EXIT_CODE, isSecret, ok, PulumiStack, STORY, OTHER_STORY, tempProject } from "../helpers/pulumi";

const PLUGIN_DIR = path.join(root, "node_modules", "pulumi-chatbot", "plugin");
const HOOK_TOKEN = "tok-provider-class-SECRET-3";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as chatbot from "pulumi-chatbot/native";

const config = new pulumi.Config();
const partner = new chatbot.Provider("partner", {
    token: config.requireSecret("partnerToken"),
    apiUrl: config.require("partnerApiUrl"),
});
const mine = new chatbot.WebhookConnection("mine", { storyId: config.require("storyId"), url: "https://mine.example.com/hook" });
const theirs = new chatbot.WebhookConnection(
    "theirs",
    { storyId: config.require("partnerStoryId"), url: "https://theirs.example.com/hook", token: config.requireSecret("hookToken") },
    { provider: partner },
);
export const mineId = mine.id;
export const theirsStory: pulumi.Output<string> = theirs.story.name;
`;

describe("the native plugin's Provider class (pulumi-chatbot/native)", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let stack: PulumiStack | undefined;
    let project: string | undefined;

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        partnerSim = await installedTesting().ChatbotSimulator.start({ stories: { [OTHER_STORY]: "Partner" } });
    });
    beforeEach(() => {
        emptySimulator(sim);
        emptySimulator(partnerSim);
    });
    afterEach(() => {
        stack?.dispose();
        stack = undefined;
        if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true });
        project = undefined;
    });
    after(async () => {
        await sim?.close();
        await partnerSim?.close();
    });

    it("one program, two accounts: each connection made, refreshed and deleted in its own; the second token sealed", async () => {
        project = tempProject("twoaccounts", {
            "Pulumi.yaml":
                "name: twoaccounts\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n" +
                `plugins:\n  providers:\n    - name: chatbot\n      path: ${PLUGIN_DIR}\n`,
            "index.ts": PROGRAM,
            "tsconfig.json": JSON.stringify({
                compilerOptions: { strict: true, target: "es2020", module: "commonjs", moduleResolution: "node" },
                files: ["index.ts"],
            }),
        });
        // The class type-checks as a user's program uses it.
        execFileSync(process.execPath, [
            path.join(root, "node_modules", "typescript", "bin", "tsc"),
            "-p",
            path.join(project, "tsconfig.json"),
            "--noEmit",
        ]);
        stack = await PulumiStack.create({
            projectDir: project,
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                storyId: STORY,
                partnerApiUrl: partnerSim.url,
                partnerToken: { secret: partnerSim.token },
                partnerStoryId: OTHER_STORY,
                hookToken: { secret: HOOK_TOKEN },
            },
            // tsc has checked its types, above: the runs only transpile it.
            env: { CHATBOT_RETRY_BASE_MS: "5", PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        });
        const s = stack;

        ok(await s.run("up"));
        assert.deepEqual(
            sim.listConnections().map((c) => c.name),
            ["mine"],
            "the stack's account",
        );
        const [theirs] = partnerSim.listConnections();
        assert.deepEqual([theirs?.name, theirs?.token], ["theirs", HOOK_TOKEN], "the second account");
        assert.equal((await s.outputs()).theirsStory, "Partner");

        const exported = await s.pulumi(["stack", "export"]);
        for (const secret of [HOOK_TOKEN, partnerSim.token, sim.token]) {
            assert.ok(!exported.stdout.includes(secret), "no token in plain text in stack export");
        }
        const provider = (await s.export(true)).deployment.resources?.find(
            (r) => r.type === "pulumi:providers:chatbot" && r.urn.endsWith("::partner"),
        );
        assert.ok(isSecret(provider?.inputs?.token), "the Provider's token is secret in state");
        assert.equal(provider?.inputs?.apiUrl, partnerSim.url);
        ok(await s.run("preview", { expectNoChanges: true }));

        // A change by hand in the second account is read through the Provider.
        partnerSim.editConnection(theirs.id, { url: "https://changed.example.com/by-hand" });
        sim.resetRequests();
        const drift = await s.run("preview", { refresh: true, expectNoChanges: true });
        assert.equal(drift.code, CHANGES_EXIT_CODE);
        ok(await s.run("up", { refresh: true }));
        assert.equal(partnerSim.getConnection(theirs.id)?.url, "https://theirs.example.com/hook");
        assert.deepEqual(
            sim.requests.filter((r) => r.method !== "GET"),
            [],
            "nothing written to the stack's account",
        );

        ok(await s.run("destroy"));
        assert.equal(sim.listConnections().length + partnerSim.listConnections().length, 0);
    });
});
