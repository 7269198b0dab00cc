/**
 * The native plugin's lookup functions through the real pulumi CLI in Pulumi YAML (`fn::invoke`),
 * which needs nothing but the plugin. The same lifecycle (tests/helpers/lookups.ts) runs in the
 * walks of TypeScript's native classes (nativeProvider.test.ts), Python, Go and Java.
 */
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting } from "../helpers/support";
import { PulumiStack, STORY, OTHER_STORY, tempProject } from "../helpers/pulumi";
import { PLUGIN_YAML } from "../helpers/languagePrograms";
import { lookupConfig, lookupsLifecycle, makeByHand } from "../helpers/lookups";

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
        includeSecrets: true
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
  foundUrl: \${found.url}
  legacyToken: \${legacy.token}
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
        });
        await lookupsLifecycle(stack, sim, partnerSim, made, { plain: false });
    };

    it("Pulumi YAML (fn::invoke): by name and story, by id, through a second account's Provider, the list; failures at preview name what was looked for; the copy updated, replaced, deleted; `pulumi import`", () =>
        run({ "Pulumi.yaml": YAML }));
});
