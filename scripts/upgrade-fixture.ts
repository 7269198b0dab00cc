/**
 * `npm run upgrade-fixture`: the state this version writes, kept as a test fixture so that every
 * later version proves it previews that state with no change (tests/cli/upgrade.test.ts). Run it once
 * per release, before changing anything, with the release's build installed (`npm run build`);
 * prints the folder it wrote, tests/fixtures/upgrade/v<version>/, as its last line.
 *
 * The program uses both deliveries (the dynamic classes and the native plugin's), both resource
 * types, and every kind of secret: a token, headers (a record and a list), basic auth, the stack's
 * developer token and an explicit provider's. It runs against the simulator on a fixed port with a
 * fixed token, so the stack config a later preview reads is the config the state was made with.
 * The folder holds the program, the project and stack files (the stack's encryption salt
 * included) and `pulumi stack export` as the CLI wrote it; the secrets are test values.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ChatbotSimulator } from "pulumi-chatbot/testing";
import { PulumiStack, tempProject } from "./pulumiStack";

const ROOT = path.resolve(__dirname, "..");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** What the fixture's stack was made with; tests/cli/upgrade.test.ts starts the simulator alike. */
export const FIXTURE = {
    project: "chatbot-upgrade",
    stack: "fixture",
    port: 47131,
    developerToken: "fixture-developer-token-SECRET",
    storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
    dir: (version: string) => path.join(ROOT, "tests", "fixtures", "upgrade", `v${version}`),
};

const PROGRAM = `// The program of the upgrade fixture (scripts/upgrade-fixture.ts): both deliveries, both
// resource types, every kind of secret, from stack config.
"use strict";
const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot");
const native = require("pulumi-chatbot/native");

const config = new pulumi.Config();
const storyId = config.require("storyId");
const token = config.requireSecret("webhookToken");
const headerValue = config.requireSecret("headerValue");
const auth = { username: "bot", password: config.requireSecret("basicPassword") };
const url = (name) => \`https://bot-backend.example.com/chatbot/\${name}\`;

const dynamicConnection = new chatbot.WebhookConnection("dynamic-connection", {
    storyId,
    url: url("dynamic-connection"),
    token,
    headers: { "X-Key": headerValue, "X-Env": "prod" },
    auth,
});
new chatbot.WebhookConnection("dynamic-plain", { storyId, name: "Plain", url: url("dynamic-plain") });
new chatbot.LegacyWebhook("dynamic-legacy", {
    url: url("dynamic-legacy"),
    token,
    headers: [
        { name: "X-Key", value: headerValue },
        { name: "X-Connection", value: dynamicConnection.id },
    ],
    auth,
});

const nativeConnection = new native.WebhookConnection("native-connection", {
    storyId,
    url: url("native-connection"),
    token,
    headers: { "X-Key": headerValue },
    auth,
});
new native.LegacyWebhook("native-legacy", {
    name: "Native legacy",
    url: url("native-legacy"),
    token,
    headers: [{ name: "X-Key", value: headerValue }],
    auth,
});
const partner = new native.Provider("partner", {
    token: config.requireSecret("partnerToken"),
    apiUrl: config.require("partnerApiUrl"),
});
new native.WebhookConnection(
    "partner-connection",
    { storyId, url: url("partner-connection"), headers: { "X-Of": nativeConnection.id } },
    { provider: partner },
);

exports.dynamicConnectionId = dynamicConnection.id;
exports.nativeConnectionId = nativeConnection.id;
`;

const PROJECT_YAML = `name: ${FIXTURE.project}
runtime:
  name: nodejs
  options:
    typescript: false
main: index.js
plugins:
  providers:
    - name: chatbot
      path: node_modules/pulumi-chatbot/plugin
`;

async function main(): Promise<void> {
    const out = FIXTURE.dir(VERSION);
    if (fs.existsSync(out)) throw new Error(`${path.relative(ROOT, out)} exists: a fixture is kept as it was made`);
    const sim = await ChatbotSimulator.start({
        port: FIXTURE.port,
        token: FIXTURE.developerToken,
        stories: { [FIXTURE.storyId]: "Shop" },
    });
    const project = tempProject(FIXTURE.project, { "Pulumi.yaml": PROJECT_YAML, "index.js": PROGRAM });
    const stack = await PulumiStack.create({
        projectDir: project,
        stack: FIXTURE.stack,
        config: {
            "chatbot:apiUrl": sim.url,
            "chatbot:token": { secret: FIXTURE.developerToken },
            storyId: FIXTURE.storyId,
            webhookToken: { secret: "fixture-webhook-token-SECRET" },
            headerValue: { secret: "fixture-header-value-SECRET" },
            basicPassword: { secret: "fixture-basic-password-SECRET" },
            partnerToken: { secret: FIXTURE.developerToken },
            partnerApiUrl: sim.url,
        },
    });
    try {
        const up = await stack.run("up");
        if (up.code !== 0) throw new Error(`pulumi up failed:\n${up.stdout}${up.stderr}`);
        const again = await stack.run("preview", { expectNoChanges: true });
        if (again.code !== 0) throw new Error(`the fixture's own preview shows changes:\n${again.stdout}`);
        const exported = await stack.pulumi(["stack", "export"]);
        if (exported.code !== 0) throw new Error(`pulumi stack export failed:\n${exported.stderr}`);
        fs.mkdirSync(out, { recursive: true });
        for (const file of ["Pulumi.yaml", "index.js", `Pulumi.${FIXTURE.stack}.yaml`]) {
            fs.copyFileSync(path.join(project, file), path.join(out, file));
        }
        fs.writeFileSync(path.join(out, "stack.json"), exported.stdout);
        process.stderr.write(
            `upgrade-fixture: ${sim.listConnections().length} connections and ${sim.listLegacyWebhooks().length} legacy webhooks\n`,
        );
        await stack.run("destroy");
        console.log(path.relative(ROOT, out));
    } finally {
        stack.dispose();
        fs.rmSync(path.dirname(project), { recursive: true, force: true });
        await sim.close();
    }
}

if (require.main === module) {
    main().catch((e: unknown) => {
        console.error(`upgrade-fixture: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    });
}
