/**
 * The native plugin's lookup functions through the real pulumi CLI, in the two languages that need
 * nothing but the plugin: TypeScript (`pulumi-chatbot/native`) and Pulumi YAML (`fn::invoke`).
 * The same lifecycle (tests/helpers/lookups.ts) runs for Python, Go and Java in their own files.
 */
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting } from "../helpers/support";
import { PulumiStack, STORY, OTHER_STORY, tempProject } from "../helpers/pulumi";
import { PLUGIN_YAML } from "../helpers/languagePrograms";
import { lookupConfig, lookupsLifecycle, makeByHand } from "../helpers/lookups";

const TYPESCRIPT = `import * as pulumi from "@pulumi/pulumi";
import * as chatbot from "pulumi-chatbot/native";

const cfg = new pulumi.Config();
const storyId = cfg.require("storyId");
const found = chatbot.getWebhookConnectionOutput({ name: cfg.require("lookupName"), storyId });
const legacy = chatbot.getLegacyWebhookOutput({ id: cfg.require("legacyId") });
const partner = new chatbot.Provider("partner", {
    apiUrl: cfg.require("partnerApiUrl"),
    token: cfg.requireSecret("partnerToken"),
});
const partnerFound = chatbot.getWebhookConnectionOutput({ name: "Partner Orders" }, { provider: partner });
const twins = chatbot.getWebhookConnectionsOutput({ storyId, namePrefix: "Twin" });
new chatbot.WebhookConnection("copy", { storyId: cfg.require("copyStoryId"), url: found.url, token: legacy.token });

export const foundId = found.id;
export const foundToken = found.token;
export const legacyUrl = legacy.url;
export const partnerId = partnerFound.id;
export const twinIds = twins.items.apply((items) => items.map((c) => c.id));
`;

const YAML = `name: lookupsyaml
runtime: yaml
${PLUGIN_YAML}config:
  storyId:
    type: string
  copyStoryId:
    type: string
  lookupName:
    type: string
  legacyId:
    type: string
  partnerApiUrl:
    type: string
  partnerToken:
    type: string
    secret: true
resources:
  partner:
    type: pulumi:providers:chatbot
    properties:
      apiUrl: \${partnerApiUrl}
      token: \${partnerToken}
  copy:
    type: chatbot:index:WebhookConnection
    properties:
      storyId: \${copyStoryId}
      url: \${found.url}
      token: \${legacy.token}
variables:
  found:
    fn::invoke:
      function: chatbot:index:getWebhookConnection
      arguments:
        name: \${lookupName}
        storyId: \${storyId}
  legacy:
    fn::invoke:
      function: chatbot:index:getLegacyWebhook
      arguments:
        id: \${legacyId}
  partnerFound:
    fn::invoke:
      function: chatbot:index:getWebhookConnection
      arguments:
        name: Partner Orders
      options:
        provider: \${partner}
  twins:
    fn::invoke:
      function: chatbot:index:getWebhookConnections
      arguments:
        storyId: \${storyId}
        namePrefix: Twin
outputs:
  foundId: \${found.id}
  foundToken: \${found.token}
  legacyUrl: \${legacy.url}
  partnerId: \${partnerFound.id}
  twinIds:
    - \${twins.items[0].id}
    - \${twins.items[1].id}
`;

describe("lookups through the native plugin's functions, under the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let stack: PulumiStack | undefined;
    let project: string | undefined;

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
        partnerSim = await installedTesting().ChatbotSimulator.start({ stories: { [OTHER_STORY]: "Partner" } });
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

    const run = async (files: Record<string, string>) => {
        const made = makeByHand(sim, partnerSim);
        project = tempProject("lookups", files);
        stack = await PulumiStack.create({
            projectDir: project,
            config: lookupConfig(sim, partnerSim, made),
            env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        });
        await lookupsLifecycle(stack, sim, partnerSim, made);
    };

    it("TypeScript (pulumi-chatbot/native): by name and story, by id, through a second account's Provider, the list; failures at preview name what was looked for", () =>
        run({
            "Pulumi.yaml": `name: lookupsts\nruntime: nodejs\nmain: index.ts\n${PLUGIN_YAML}`,
            "index.ts": TYPESCRIPT,
        }));

    it("Pulumi YAML (fn::invoke): the same", () => run({ "Pulumi.yaml": YAML }));
});
