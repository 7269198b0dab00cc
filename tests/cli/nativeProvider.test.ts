/**
 * The native provider plugin, `pulumi-resource-chatbot` (provider/native/), through the real
 * pulumi CLI: installed as Pulumi installs a local plugin (the project's Pulumi.yaml lists the
 * installed package's plugin/ folder under plugins.providers), with a TypeScript program of the
 * typed classes `pulumi-chatbot/native`, against the simulator on loopback.
 *
 * Its lifecycle (the last describe) is the TypeScript native column of docs/parity.md walked on
 * one program and one stack: create, drift found and put back, update, replace, secrets, `pulumi
 * import`, `.get`, a second account through a `Provider` (a second simulator), the lookup
 * functions (tests/helpers/lookups.ts), refresh before update, the stack's autonaming and
 * destroy. The release archive's case runs `pulumi do` on the plugin as a user installs it.
 */
import { strict as assert } from "assert";
import { execFile, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import { resources } from "../../provider/resources/registry";
import { keysWhere, type Field } from "../../provider/resources/spec";
import {
    emptySimulator,
    installedRequire,
    installedSchema,
    installedTesting,
    root,
    PACKAGE_VERSION,
} from "../helpers/support";
import {
    assertLookupOutputs,
    EXAMPLE_RESOURCES,
    examplesConfig,
    previewExamples,
    previewOutputs,
    schemaExamples,
    typescriptExamples,
    yamlExamples,
} from "../helpers/schemaExamples";
import {
    CHANGES_EXIT_CODE,
    isSecret,
    ok,
    plain,
    pulumiCli,
    PulumiStack,
    STORY,
    OTHER_STORY,
    tempProject,
} from "../helpers/pulumi";
import { PLUGIN_DIR, pluginArchive } from "../helpers/languagePrograms";
import {
    addLookupTargets,
    assertOnlyLookupTargetsLeft,
    lookupsThroughReplacement,
    type LookupAccounts,
} from "../helpers/lookups";
const CONNECTION = "chatbot:index:WebhookConnection";
const LEGACY = "chatbot:index:LegacyWebhook";
const TOKEN = "tok-native-SECRET-7";
const PASSWORD = "pw-native-SECRET-7";
const HEADER_VALUE = "hv-native-SECRET-7";
const SECRETS = [TOKEN, PASSWORD, HEADER_VALUE];

/** A TypeScript program of the native classes: two resources with every kind of secret, and
 *  `bulk` plain connections; `adopted.ts`, where a test writes it, is run too. With
 *  `partnerApiUrl`, a second account's `Provider` and a connection there; with `lookupName` too,
 *  the lookups of tests/helpers/lookups.ts and their `copy`. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as chatbot from "pulumi-chatbot/native";

const config = new pulumi.Config();
const orders = new chatbot.WebhookConnection("orders", {
    storyId: config.require("storyId"),
    url: config.require("url"),
    token: config.requireSecret("hookToken"),
    headers: { "X-Env": "prod", "X-Key": config.requireSecret("headerValue") },
    auth: { username: "bot", password: config.requireSecret("password") },
});
const legacy = new chatbot.LegacyWebhook("legacy", {
    url: "https://legacy.example.com/hook",
    headers: [{ name: "X-Key", value: config.requireSecret("headerValue") }],
});
for (let i = 0; i < Number(config.get("bulk") ?? "0"); i++) {
    new chatbot.WebhookConnection(\`bulk-\${i}\`, { storyId: config.require("storyId"), url: \`https://bulk.example.com/\${i}\` });
}
// Named by the program, where autonaming would name it otherwise.
const explicitName = config.get("explicitName");
if (explicitName) new chatbot.WebhookConnection("explicit", { storyId: config.require("storyId"), url: "https://explicit.example.com/hook", name: explicitName });
if (config.getBoolean("adopted")) require("./adopted");
// Read only: the connection above, by id, as another resource of the program.
export const seen = config.getBoolean("lookUp") ? chatbot.WebhookConnection.get("seen", orders.id) : undefined;
export const seenUrl = seen?.url;
export const seenToken = seen?.token;

export const ordersId = orders.id;
export const story: pulumi.Output<{ id: string; name: string }> = orders.story;
export const legacyError: pulumi.Output<string | null> = legacy.lastError;

// A second account: its own token and address, through an explicit Provider.
const partner = config.get("partnerApiUrl")
    ? new chatbot.Provider("partner", { apiUrl: config.require("partnerApiUrl"), token: config.requireSecret("partnerToken") })
    : undefined;
const theirs = partner
    ? new chatbot.WebhookConnection(
          "theirs",
          { storyId: config.require("partnerStoryId"), url: "https://theirs.example.com/hook", token: config.requireSecret("hookToken") },
          { provider: partner },
      )
    : undefined;
export const theirsStory: pulumi.Output<string> | undefined = theirs?.story.name;

// The lookups: by name and story, by id, through the second account's Provider, the list (on the
// story the lookup targets were made on, whatever story the program's own connections moved to).
// Only the legacy webhook's asks for its secrets (its token is the copy's).
const found = config.get("lookupName")
    ? chatbot.getWebhookConnectionOutput({ name: config.require("lookupName"), storyId: "${STORY}" })
    : undefined;
const oldOne = found ? chatbot.getLegacyWebhookOutput({ id: config.require("legacyId"), includeSecrets: true }) : undefined;
const plainForm = found ? chatbot.getLegacyWebhook({ id: config.require("legacyId") }) : undefined;
const partnerFound = found ? chatbot.getWebhookConnectionOutput({ name: "Partner Orders" }, { provider: partner }) : undefined;
const twins = found ? chatbot.getWebhookConnectionsOutput({ storyId: "${STORY}", namePrefix: "Twin" }) : undefined;
if (found && oldOne) {
    new chatbot.WebhookConnection("copy", { storyId: config.require("copyStoryId"), url: found.url, token: oldOne.token });
}
export const foundId = found?.id;
export const foundUrl: pulumi.Output<string> | undefined = found?.url;
export const plainFormUrl = plainForm?.then((w) => w.url);
export const legacyToken = oldOne?.token;
export const legacyUrl = oldOne?.url;
export const partnerId = partnerFound?.id;
export const twinIds = twins?.items.apply((items) => items.map((c) => c.id));

// The schema's examples, where a test wrote them beside this program (tests/helpers/schemaExamples.ts).
export const docExamples = config.getBoolean("docExamples") ? require("./doc_examples").default : undefined;
`;

/** The connection the examples look up by name: the YAML case makes it, as addLookupTargets does. */
const ORDERS_URL = "https://orders.example.com/by-hand";

/**
 * `pulumi do` (pkg/cmd/pulumi/do/, pulumi/pulumi v3.274.1: a command line built from the schema,
 * no program) on the plugin `pulumi plugin install` put in the stack's PULUMI_HOME: the engine
 * finds it by the package name of the type. `list` (the schema's `listInputs`) prints exactly the
 * account's connections, narrowed as asked, nothing secret; a bad `storyId` is refused with no
 * request; `read` takes its settings from `--provider-file` (PCL: the pinned CLI has no YAML
 * converter, and `list`'s own `--input` flag hides the provider file's); the lookup functions and
 * `--stateless` create, patch and delete each send what they say.
 */
async function pulumiDo(stack: PulumiStack): Promise<void> {
    const sim = doSim as ChatbotSimulator;
    const shop = { id: STORY, name: "Shop" };
    const orders = sim.addConnection({ story: shop, name: "Orders", url: "https://o.example.com/h", token: TOKEN });
    const twin = sim.addConnection({ story: shop, name: "Twin", url: "https://t.example.com/h" });
    const other = sim.addConnection({
        story: { id: OTHER_STORY, name: "Support" },
        name: "Twin",
        url: "https://u.example.com/h",
    });
    const fromEnv = { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url };
    /** `pulumi do ARGS`: exit code, stdout, stderr, and the requests it sent. Not spawnSync: the
     *  simulator answers from this process. */
    const run = async (args: string[], env: Record<string, string | undefined> = fromEnv) => {
        sim.resetRequests();
        const done = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
            execFile(
                pulumiCli(),
                ["do", ...args, "--non-interactive", "--color", "never"],
                { cwd: stack.projectDir, env: stack.environment(env), encoding: "utf8" },
                (error, stdout, stderr) =>
                    resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
            ),
        );
        return { ...done, sent: requestsOf(sim) };
    };
    const listed = (out: string) => (JSON.parse(out) as Array<{ id: string; name: string }>).map((c) => c.id);

    const all = await run([CONNECTION, "list", "--output", "json"]);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
        JSON.parse(all.stdout),
        [orders, twin, other].map((c) => ({ id: c.id, name: c.name })),
    );
    assert.deepEqual(all.sent, ["GET /v2/integrations/webhook"], "one list read");
    assert.ok(!all.stdout.includes(TOKEN), "nothing secret");
    const narrowed = await run([CONNECTION, "list", "--story-id", STORY, "--name-prefix", "Tw", "--output", "json"]);
    assert.deepEqual(listed(narrowed.stdout), [twin.id]);
    assert.deepEqual(listed((await run([CONNECTION, "list", "--count", "2", "--output", "json"])).stdout), [
        orders.id,
        twin.id,
    ]);
    const legacy = await run([LEGACY, "list", "--output", "json"]);
    assert.deepEqual(
        JSON.parse(legacy.stdout).map((w: { name: string }) => w.name),
        ["from-archive"],
    );
    const bad = await run([CONNECTION, "list", "--story-id", "short"]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /storyId: must be exactly 24 characters/);
    assert.deepEqual(bad.sent, [], "refused before any request");
    const unset = await run([CONNECTION, "list"], {});
    assert.notEqual(unset.code, 0);
    assert.match(unset.stderr, /No ChatBot developer access token is set/);

    // Settings from --provider-file, none from the environment.
    const providerFile = path.join(stack.scratch, "provider.pcl");
    fs.writeFileSync(providerFile, `token = "${sim.token}"\napiUrl = "${sim.url}"\n`);
    const read = await run(
        [CONNECTION, "read", orders.id, "--provider-file", providerFile, "--input", "pcl", "--output", "json"],
        {},
    );
    assert.equal(read.code, 0, read.stderr);
    assert.deepEqual([JSON.parse(read.stdout).url, JSON.parse(read.stdout).token], [orders.url, "[secret]"]);
    assert.deepEqual(read.sent, [`GET /v2/integrations/webhook/${orders.id}`]);

    const fn = await run([
        "chatbot:index:getWebhookConnection",
        "--name",
        "Orders",
        "--story-id",
        STORY,
        "--output",
        "json",
    ]);
    assert.equal(JSON.parse(fn.stdout).id, orders.id, fn.stderr);
    assert.ok(!fn.stdout.includes(TOKEN), "a lookup holds no secret");

    // `--stateless` before the type (a flag of `pulumi do`), `--yes` after the verb (its own).
    const made = await run([
        "--stateless",
        CONNECTION,
        "create",
        "--yes",
        "--story-id",
        STORY,
        "--url",
        "https://do.example.com/h",
        "--name",
        "Made by do",
        "--output",
        "json",
    ]);
    assert.equal(made.code, 0, made.stderr);
    const id = JSON.parse(made.stdout.slice(made.stdout.indexOf("{"))).id as string;
    assert.deepEqual(made.sent, ["POST /v2/integrations/webhook", `GET /v2/integrations/webhook/${id}`]);
    const patched = await run([
        "--stateless",
        CONNECTION,
        "patch",
        id,
        "--url",
        "https://do.example.com/patched",
        "--yes",
    ]);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(sim.getConnection(id)?.url, "https://do.example.com/patched");
    assert.ok(patched.sent.includes(`PUT /v2/integrations/webhook/${id}`), patched.sent.join(", "));
    const deleted = await run(["--stateless", CONNECTION, "delete", id, "--yes"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.ok(deleted.sent.includes(`DELETE /v2/integrations/webhook/${id}`) && !sim.getConnection(id));
    for (const c of [orders, twin, other]) sim.deleteConnection(c.id);
}

/** Every request the simulator saw, as `METHOD /path`. */
const requestsOf = (sim: ChatbotSimulator) => sim.requests.map((r) => `${r.method} ${r.path}`);
/** The simulator of the file, for `pulumiDo`. */
let doSim: ChatbotSimulator | undefined;

describe("the native provider plugin under the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    /** The second account, which the lifecycle reaches through a Provider. */
    let partnerSim: ChatbotSimulator;
    let stack: PulumiStack | undefined;
    let project: string;

    const writes = () => sim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

    /** A new project and stack of the native program, `config` on top of what reaches the simulator.
     *  Its runs only transpile the program (the lifecycle's first case type-checks it with tsc, and
     *  the import case the code `pulumi import` adds to it), but with `typeChecked`, where the case
     *  is about a program's types: ts-node then checks it at every run, as in a user's stack. */
    const nativeProject = async (config: Record<string, string | { secret: string }> = {}, typeChecked = false) => {
        const dir = tempProject("native", {
            "Pulumi.yaml":
                "name: native\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n" +
                `plugins:\n  providers:\n    - name: chatbot\n      path: ${PLUGIN_DIR}\n`,
            "index.ts": PROGRAM,
            "tsconfig.json": JSON.stringify({
                compilerOptions: { strict: true, target: "es2020", module: "commonjs", moduleResolution: "node" },
                files: ["index.ts"],
            }),
        });
        try {
            const made = await PulumiStack.create({
                projectDir: dir,
                config: {
                    "chatbot:apiUrl": sim.url,
                    "chatbot:token": { secret: sim.token },
                    storyId: STORY,
                    url: "https://orders.example.com/hook",
                    hookToken: { secret: TOKEN },
                    headerValue: { secret: HEADER_VALUE },
                    password: { secret: PASSWORD },
                    ...config,
                },
                env: { CHATBOT_RETRY_BASE_MS: "5", PULUMI_NODEJS_TRANSPILE_ONLY: typeChecked ? undefined : "true" },
            });
            return { stack: made, project: dir };
        } catch (e) {
            fs.rmSync(path.dirname(dir), { recursive: true, force: true });
            throw e;
        }
    };
    /** A new stack of the native program, this case's own (`stack`, `project`: removed after it). */
    const nativeStack = async (config: Record<string, string | { secret: string }> = {}, typeChecked = false) => {
        const made = await nativeProject(config, typeChecked);
        ({ stack, project } = made);
        return made.stack;
    };
    /** Set while the cases of a shared lifecycle (below) run: they continue from the connections
     *  the one before left, so the simulator is emptied once, by their `before`, not before each. */
    let lifecycle = false;

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
        doSim = sim;
        partnerSim = await installedTesting().ChatbotSimulator.start({ stories: { [OTHER_STORY]: "Partner" } });
    });
    beforeEach(() => {
        if (!lifecycle) emptySimulator(sim);
    });
    afterEach(() => {
        stack?.dispose();
        stack = undefined;
        if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true });
    });
    after(async () => {
        await sim?.close();
        await partnerSim?.close();
    });

    it("`pulumi package get-schema` prints the schema made from the specs, in step with their checks", async () => {
        const schema = JSON.parse(
            execFileSync(pulumiCli(), ["package", "get-schema", path.join(PLUGIN_DIR, "pulumi-resource-chatbot")], {
                encoding: "utf8",
                env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
            }),
        );
        assert.equal(schema.name, "chatbot");
        assert.deepEqual(schema.config.variables.token.secret, true);
        assert.deepEqual(Object.keys(schema.resources).sort(), [CONNECTION, LEGACY].sort());
        for (const spec of resources) {
            const resource = schema.resources[`chatbot:index:${spec.type}`];
            const fields = spec.fields as Record<string, Field<unknown>>;
            assert.deepEqual(Object.keys(resource.inputProperties).sort(), [...Object.keys(fields), "adoptId"].sort());
            assert.deepEqual(
                Object.keys(resource.properties).sort(),
                [...Object.keys(fields), ...Object.keys(spec.outputTypes)].sort(),
            );
            for (const [key, field] of Object.entries(fields)) {
                assert.equal(resource.inputProperties[key].secret === true, field.secret, `${spec.type}.${key} secret`);
                assert.equal(resource.inputProperties[key].willReplaceOnChanges === true, field.replaces, key);
            }
            // The inputs the checks call required are the schema's (`name` defaults to the resource's).
            const { check } = installedRequire(
                `pulumi-chatbot/providers/${spec.type[0].toLowerCase()}${spec.type.slice(1)}`,
            ) as {
                check(olds: object, news: object): Promise<{ failures: Array<{ property: string; reason: string }> }>;
            };
            const { failures } = await check({}, { name: "n" });
            const required = failures.filter((f) => /is required/.test(f.reason)).map((f) => f.property);
            assert.deepEqual(required.sort(), [...resource.requiredInputs].sort(), spec.type);
            assert.deepEqual(keysWhere(spec, "secret").sort(), ["auth", "headers", "token"]);
        }
    });

    it("20 connections at the CLI's default parallelism, with 429 and 503 answers: one up, no duplicate", async () => {
        const s = await nativeStack({ bulk: "20" });
        sim.inject({ method: "POST", fault: { status: 429, retryAfter: "0" }, times: 6 });
        sim.inject({ method: "GET", fault: { status: 503 }, times: 6 });
        const up = ok(await s.run("up"));
        assert.equal(up.changes.create, 23, "the stack and 22 resources");
        const names = sim.listConnections().map((c) => c.name);
        assert.equal(names.length, 21);
        assert.equal(new Set(names).size, 21, "no duplicate");
        sim.clearFaults();
        ok(await s.run("destroy"));
        assert.equal(sim.listConnections().length, 0);
    });

    it("a program in a second language, Pulumi YAML: up, no change, a change by hand refreshed, destroy", async () => {
        project = tempProject("yamlprog", {
            "Pulumi.yaml": `name: yamlprog
runtime: yaml
plugins:
  providers:
    - name: chatbot
      path: ${PLUGIN_DIR}
config:
  hookToken:
    type: string
    secret: true
resources:
  orders:
    type: ${CONNECTION}
    properties:
      storyId: ${STORY}
      url: https://orders.example.com/yaml
      token: \${hookToken}
      auth:
        username: bot
        password: ${PASSWORD}
  legacy:
    type: ${LEGACY}
    properties:
      url: https://legacy.example.com/yaml
outputs:
  story: \${orders.story.name}
`,
        });
        stack = await PulumiStack.create({
            projectDir: project,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token }, hookToken: { secret: TOKEN } },
        });
        const up = ok(await stack.run("up"));
        assert.equal(up.changes.create, 3);
        const [made] = sim.listConnections();
        assert.deepEqual(
            [made.name, made.token, made.auth?.password],
            ["orders", TOKEN, PASSWORD],
            "name defaults to the resource's",
        );
        assert.equal(sim.listLegacyWebhooks()[0].name, "legacy");
        assert.deepEqual(await stack.outputs(), { story: "Shop" });
        const exported = await stack.pulumi(["stack", "export"]);
        for (const secret of [TOKEN, PASSWORD])
            assert.ok(!exported.stdout.includes(secret), "secrets encrypted in state");
        ok(await stack.run("preview", { expectNoChanges: true }));
        sim.editConnection(made.id, { name: "renamed-by-hand" });
        assert.equal((await stack.run("preview", { refresh: true, expectNoChanges: true })).code, CHANGES_EXIT_CODE);
        ok(await stack.run("up", { refresh: true }));
        assert.equal(sim.getConnection(made.id)?.name, "orders");
        ok(await stack.run("destroy"));
        assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 0);

        // The schema's examples in YAML, merged into one program in place of this one: a preview
        // of the same stack runs every one (the lookups find what is added here; the second
        // account is this one) and writes nothing.
        const orders = sim.addConnection({ story: { id: STORY, name: "Shop" }, name: "Orders", url: ORDERS_URL });
        const legacy = sim.addLegacyWebhook({ name: "Old", url: "https://old.example.org/hook" });
        const yaml = path.join(project, "Pulumi.yaml");
        const head = fs.readFileSync(yaml, "utf8").split("config:\n")[0];
        fs.writeFileSync(yaml, head + yamlExamples(schemaExamples(installedSchema())));
        await stack.setConfig(
            examplesConfig({ partner: sim.url, partnerToken: sim.token }, { orders: orders.id, legacy: legacy.id }),
        );
        sim.resetRequests();
        const previewed = ok(await stack.run("preview", { args: ["--diff"] }));
        assert.deepEqual(
            sim.requests.filter((r) => r.method !== "GET"),
            [],
            "the examples' preview writes nothing",
        );
        for (const name of EXAMPLE_RESOURCES) assert.match(previewed.stdout, new RegExp(`\\b${name}\\b`));
        assert.ok(previewed.stdout.includes(ORDERS_URL), "getWebhookConnection found Orders");
        assert.match(previewed.stdout, /https:\/\/old\.example\.org\/hook/, "getLegacyWebhook read it");
    });

    it("the release archive: `pulumi plugin install --file` takes it, and a project without plugins.providers uses it", async function () {
        // The run's release, which the first file to ask builds (tests/helpers/release.ts): this
        // case may wait for it, up to oncePerRun's 25 min, on top of its own 5.
        this.timeout(1_800_000);
        const archive = pluginArchive();
        const version = PACKAGE_VERSION;
        assert.match(
            path.basename(archive),
            new RegExp(`^pulumi-resource-chatbot-v${version}-(linux|darwin|windows)-(amd64|arm64)\\.tar\\.gz$`),
        );
        project = tempProject("installed", {
            "Pulumi.yaml":
                "name: installed\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
            "index.js":
                'const chatbot = require("pulumi-chatbot/native");\n' +
                `new chatbot.LegacyWebhook("from-archive", { url: "https://archive.example.com/hook" });\n`,
        });
        stack = await PulumiStack.create({
            projectDir: project,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token } },
        });
        // Not stack commands: into this stack's PULUMI_HOME.
        const cli = (args: string[]) =>
            execFileSync(pulumiCli(), args, {
                cwd: project,
                env: (stack as PulumiStack).environment(),
                encoding: "utf8",
            });
        cli(["plugin", "install", "resource", "chatbot", version, "--file", archive]);
        const plugins = JSON.parse(cli(["plugin", "ls", "--json"])) as Array<{
            name: string;
            kind: string;
            version: string;
        }>;
        assert.ok(plugins.some((p) => p.name === "chatbot" && p.kind === "resource" && p.version === version));
        ok(await stack.run("up"));
        assert.deepEqual(
            sim.listLegacyWebhooks().map((w) => w.name),
            ["from-archive"],
        );
        await pulumiDo(stack);
        ok(await stack.run("destroy"));
    });

    it("the release executable prints its port, nothing on stderr, and ends by itself when its stdin (the engine's pipe) ends", async function () {
        // The run's release, which the first file to ask builds (tests/helpers/release.ts): this
        // case may wait for it, up to oncePerRun's 25 min, on top of its own 5.
        this.timeout(1_800_000);
        const archive = pluginArchive();
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-executable-"));
        try {
            execFileSync("tar", ["-xzf", archive, "-C", dir]);
            const exe = path.join(
                dir,
                process.platform === "win32" ? "pulumi-resource-chatbot.exe" : "pulumi-resource-chatbot",
            );
            const child = spawn(exe, [], { stdio: ["pipe", "pipe", "pipe"] });
            let out = "";
            let err = "";
            child.stderr.on("data", (d: Buffer) => (err += d.toString()));
            const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
                child.on("exit", (code, signal) => resolve({ code, signal })),
            );
            await new Promise<void>((resolve, reject) => {
                child.stdout.on("data", (d: Buffer) => {
                    out += d.toString();
                    if (out.includes("\n")) resolve();
                });
                child.on("exit", () => reject(new Error(`exited before a port: ${err}`)));
            });
            assert.match(out, /^\d+\n$/, "the port, alone");
            child.stdin.end();
            // Killed after 10 s if it has not ended: a plugin that outlives its engine fails here.
            const limit = setTimeout(() => child.kill("SIGKILL"), 10_000);
            const { code, signal } = await ended;
            clearTimeout(limit);
            assert.deepEqual({ code, signal }, { code: 1, signal: null }, "it ended by itself, not a success");
            // Node.js says "Code cache data rejected" there when the code cache does not fit it.
            assert.equal(err, "", "nothing on stderr");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("moving a stack from the dynamic to the native type with an alias: no write to ChatBot, then no change", async () => {
        const args = `{ storyId: "${STORY}", url: "https://orders.example.com/hook", token: "${TOKEN}" }`;
        project = tempProject("moving", {
            "Pulumi.yaml":
                "name: moving\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n" +
                `plugins:\n  providers:\n    - name: chatbot\n      path: ${PLUGIN_DIR}\n`,
            "index.js": `const chatbot = require("pulumi-chatbot");\nnew chatbot.WebhookConnection("orders", ${args});\n`,
        });
        stack = await PulumiStack.create({
            projectDir: project,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token } },
        });
        ok(await stack.run("up"));
        const [before] = await stack.resources("pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        // The README's move: the native class, aliased to the dynamic type it had.
        fs.writeFileSync(
            path.join(project, "index.js"),
            'const chatbot = require("pulumi-chatbot/native");\n' +
                `new chatbot.WebhookConnection("orders", ${args}, { aliases: [{ type: "pulumi-nodejs:dynamic/chatbot:WebhookConnection" }] });\n`,
        );
        sim.resetRequests();
        const moved = ok(await stack.run("up"));
        assert.deepEqual(writes(), [], "the move writes nothing to ChatBot");
        assert.equal(moved.changes.create ?? 0, 0);
        assert.equal(moved.changes.delete ?? 0, 0);
        const [after] = await stack.resources(CONNECTION);
        assert.equal(after.id, before.id, "the same connection, now of the native type");
        assert.equal((await stack.resources("pulumi-nodejs:dynamic/chatbot:WebhookConnection")).length, 0);
        ok(await stack.run("preview", { refresh: true, expectNoChanges: true }));
        const exported = await stack.pulumi(["stack", "export"]);
        assert.ok(!exported.stdout.includes(TOKEN), "the token stays secret");
        ok(await stack.run("destroy"));
        assert.equal(sim.listConnections().length, 0);
    });

    it("discover --native writes a program of the native classes that adopts with no write, and an import file `pulumi import --file` takes", async () => {
        sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "orders",
            url: "https://o.example.com/h",
            token: TOKEN,
        });
        sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "support",
            url: "https://s.example.com/h",
            headers: { "X-Key": HEADER_VALUE },
            auth: { username: "ops", password: PASSWORD },
        });
        sim.addLegacyWebhook({
            name: "old",
            url: "https://old.example.com/h",
            headers: [{ name: "X-Key", value: HEADER_VALUE }],
        });
        const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-native-discover-"));
        try {
            const [program, secrets, imports] = ["index.ts", "secrets.sh", "import.json"].map((f) =>
                path.join(scratch, f),
            );
            // Not execFileSync: the simulator answers from this process.
            await promisify(execFile)(
                process.execPath,
                [
                    path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js"),
                    "discover",
                    "--native",
                    "--out",
                    program,
                    "--with-secrets",
                    secrets,
                    "--import-file",
                    imports,
                ],
                { env: { ...process.env, CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url }, encoding: "utf8" },
            );
            assert.match(fs.readFileSync(program, "utf8"), /from "pulumi-chatbot\/native"/);
            const config: Record<string, { secret: string }> = {};
            for (const [, key, value] of fs
                .readFileSync(secrets, "utf8")
                .matchAll(/^pulumi config set --secret (\S+) -- '(.*)'$/gm)) {
                config[key] = { secret: value };
            }
            assert.equal(Object.keys(config).length, 4, "token, two header values, password");

            // The program adopts all three, writing nothing; and type-checks, as a user's stack
            // checks it at every run.
            await nativeStack(config, true);
            fs.copyFileSync(program, path.join(project, "index.ts"));
            sim.resetRequests();
            const adopted = ok(await (stack as PulumiStack).run("up"));
            assert.equal(adopted.changes.create, 4, "the stack and three adopted");
            assert.deepEqual(writes(), [], "adopting writes nothing");
            ok(await (stack as PulumiStack).run("preview", { expectNoChanges: true }));
            const states = await (stack as PulumiStack).resources();
            assert.deepEqual(states.map((r) => r.type).sort(), [CONNECTION, CONNECTION, LEGACY].sort());
            // discover's resources are protected; a later test empties the simulator. The next
            // stack takes `stack` and `project`, so this one's are removed here.
            stack?.dispose();
            stack = undefined;
            fs.rmSync(path.dirname(project), { recursive: true, force: true });

            // The import file: `pulumi import --file` adopts the same three in another stack.
            const file = JSON.parse(fs.readFileSync(imports, "utf8")) as {
                resources: Array<{ type: string; id: string }>;
            };
            assert.deepEqual(file.resources.map((r) => r.type).sort(), [CONNECTION, CONNECTION, LEGACY].sort());
            const other = await nativeStack();
            fs.writeFileSync(path.join(project, "index.ts"), "export {};\n");
            sim.resetRequests();
            const imported = await other.pulumi([
                "import",
                "--file",
                imports,
                "--yes",
                "--protect=false",
                "--out",
                path.join(scratch, "imported.ts"),
            ]);
            assert.equal(imported.code, 0, imported.stderr + imported.stdout);
            assert.deepEqual(writes(), [], "importing writes nothing");
            assert.equal((await other.resources()).length, 3);
            assert.match(
                fs.readFileSync(path.join(scratch, "imported.ts"), "utf8"),
                /new chatbot\.LegacyWebhook\("old"/,
            );
        } finally {
            fs.rmSync(scratch, { recursive: true, force: true });
        }
    });

    it("bad input fails the preview naming the property and the limit; a read-back that keeps failing records what was made", async () => {
        const s = await nativeStack({ url: "ftp://orders.example.com/hook" });
        const bad = await s.run("preview");
        assert.notEqual(bad.code, 0);
        assert.match(bad.stdout + bad.stderr, /url: must be an absolute http:\/\/ or https:\/\/ URL/);
        assert.deepEqual(sim.requests, [], "nothing sent");

        await s.setConfig({ url: "https://orders.example.com/hook" });
        sim.inject({
            method: "GET",
            path: /^\/v2\/integrations\/webhook\/[0-9a-f]{24}$/,
            fault: { status: 503 },
            times: 1000,
        });
        const failed = await s.run("up", { env: { CHATBOT_RETRY_MAX_ATTEMPTS: "2" } });
        assert.notEqual(failed.code, 0);
        assert.match(failed.stdout + failed.stderr, /It exists \(id \w{24}\) and is recorded in state/);
        const [recorded] = await s.resources(CONNECTION);
        assert.equal(recorded?.id, sim.listConnections()[0].id, "what was made is in state");
        for (const secret of SECRETS)
            assert.ok(!(failed.stdout + failed.stderr).includes(secret), "no secret in the error");
        sim.clearFaults();
        ok(await s.run("up"));
        ok(await s.run("preview", { refresh: true, expectNoChanges: true }));
        assert.equal(sim.listConnections().length, 1, "no duplicate");
        ok(await s.run("destroy"));
    });

    // One stack of the native program through one lifecycle: its cases continue it in order (each
    // from the state the one before left), so a failure in one may fail those after it. Each checks
    // what its own steps did; the destroy is one, a case of its own.
    describe("the native program, one stack through its lifecycle", () => {
        let s: PulumiStack;
        let dir: string;
        /** What the lookups case made by hand, and the copy it leaves. */
        let targets: LookupAccounts | undefined;
        let copy: StoredConnection | undefined;
        before(async () => {
            emptySimulator(sim);
            ({ stack: s, project: dir } = await nativeProject());
            lifecycle = true;
        });
        after(() => {
            lifecycle = false;
            s?.dispose();
            if (dir) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
        });

        it("preview, up, a change by hand found by refresh, update and replace; secrets marked by the provider", async () => {
            const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
            execFileSync(process.execPath, [tsc, "-p", path.join(dir, "tsconfig.json"), "--noEmit"]);

            sim.resetRequests();
            const preview = ok(await s.run("preview"));
            assert.deepEqual(sim.requests, [], "a preview sends nothing");
            assert.equal(preview.changes.create, 3);

            const up = ok(await s.run("up"));
            assert.equal(up.changes.create, 3);
            assert.equal(sim.listConnections().length, 1);
            assert.equal(sim.listLegacyWebhooks().length, 1);
            const exported = await s.pulumi(["stack", "export"]);
            for (const secret of SECRETS)
                assert.ok(!exported.stdout.includes(secret), "no secret in plain text in stack export");
            const [orders] = await s.resources(CONNECTION);
            assert.ok(isSecret((orders.outputs as Record<string, unknown>).token), "token is secret");
            assert.ok(isSecret((orders.inputs as Record<string, unknown>).token), "token input is secret");
            const auth = (orders.outputs as Record<string, unknown>).auth as Record<string, unknown>;
            assert.ok(
                !isSecret(auth) && isSecret(auth.password) && auth.username === "bot",
                "only auth's password is secret",
            );
            assert.equal(plain(auth.password), PASSWORD);
            ok(await s.run("preview", { expectNoChanges: true }));

            // By hand: a new url. Refresh finds it; the preview names the property and says update.
            const id = sim.listConnections()[0].id;
            sim.editConnection(id, { url: "https://changed.example.com/by-hand" });
            const drift = await s.run("preview", { refresh: true, expectNoChanges: true, args: ["--diff"] });
            assert.equal(drift.code, CHANGES_EXIT_CODE, "the drift check fails");
            assert.match(
                drift.stdout,
                /~ url: "https:\/\/changed\.example\.com\/by-hand" => "https:\/\/orders\.example\.com\/hook"/,
            );
            ok(await s.run("refresh"));
            sim.resetRequests();
            const fix = ok(await s.run("up"));
            assert.equal(fix.changes.update, 1);
            assert.deepEqual(writes(), [`PUT /v2/integrations/webhook/${id}`]);
            assert.equal(sim.getConnection(id)?.url, "https://orders.example.com/hook");

            // A new story replaces: the diff says so, the new one is made before the old one goes.
            await s.setConfig({ storyId: OTHER_STORY });
            const replace = ok(await s.run("preview", { args: ["--diff"] }));
            assert.match(replace.stdout, /storyId: "5f3c0d1e2a4b6c8d9e0f1a2b" => "6a1b2c3d4e5f6a7b8c9d0e1f"/);
            assert.equal(replace.changes.replace, 1);
            sim.resetRequests();
            ok(await s.run("up"));
            assert.deepEqual(
                writes().map((w) => w.split(" ")[0]),
                ["POST", "DELETE"],
            );
            assert.equal(sim.listConnections()[0].story.id, OTHER_STORY);
        });

        it("refresh before update (chatbot:refreshBeforeUpdate): after one refresh a plain up puts a url changed by hand back with exactly its PUT; off again, a preview calls no API", async () => {
            // The setting reaches the default provider with an up (a refresh runs the providers
            // its state recorded); the refresh then flags each connection it reads.
            await s.setConfig({ "chatbot:refreshBeforeUpdate": "true" });
            sim.resetRequests();
            ok(await s.run("up"));
            assert.deepEqual(writes(), [], "a new provider setting writes nothing");
            ok(await s.run("refresh"));
            // The flag as the state keeps it (apitype.ResourceV3's `refreshBeforeUpdate`).
            const flagged = ((await s.export()).deployment.resources ?? []).filter((r) =>
                r.type.startsWith("chatbot:index:"),
            ) as Array<{ urn: string; refreshBeforeUpdate?: boolean }>;
            assert.ok(
                flagged.length === 2 && flagged.every((r) => r.refreshBeforeUpdate === true),
                JSON.stringify(flagged),
            );

            const [orders] = sim.listConnections();
            sim.editConnection(orders.id, { url: "https://changed.example.com/by-hand" });
            sim.resetRequests();
            const preview = ok(await s.run("preview"));
            assert.equal(preview.changes.update, 1, "the preview sees the change without --refresh");
            assert.equal(requestsOf(sim).length, flagged.length, "one read per flagged resource, no write");
            sim.resetRequests();
            const fix = ok(await s.run("up"));
            assert.equal(fix.changes.update, 1);
            assert.deepEqual(writes(), [`PUT /v2/integrations/webhook/${orders.id}`]);
            assert.equal(sim.getConnection(orders.id)?.url, "https://orders.example.com/hook");

            // Off: an up gives the provider the setting, a refresh clears the flags.
            await s.setConfig({ "chatbot:refreshBeforeUpdate": "false" });
            ok(await s.run("up"));
            ok(await s.run("refresh"));
            sim.resetRequests();
            ok(await s.run("preview", { expectNoChanges: true }));
            assert.deepEqual(sim.requests, [], "a preview calls no API");
        });

        it("the stack's autonaming (pulumi:autonaming, enforced): a new connection takes the pattern's name, an explicit name wins, the existing keep theirs; without it nothing changes", async () => {
            for (const [key, value] of [
                ["pulumi:autonaming.pattern", "${project}-${stack}-${name}"],
                ["pulumi:autonaming.enforce", "true"],
            ]) {
                const set = await s.pulumi(["config", "set", "--path", key, value]);
                assert.equal(set.code, 0, set.stderr);
            }
            await s.setConfig({ bulk: "1", explicitName: "Chosen Name" });
            sim.resetRequests();
            const up = ok(await s.run("up"));
            assert.equal(up.changes.create, 2);
            assert.deepEqual(
                writes().filter((w) => !w.startsWith("POST")),
                [],
                "the existing connections keep their names",
            );
            const names = sim.listConnections().map((c) => c.name);
            assert.ok(names.includes("native-dev-bulk-0") && names.includes("Chosen Name"), names.join(", "));
            assert.ok(!/does not support autonaming/.test(up.stdout + up.stderr), "the engine's warning is not given");

            const removed = await s.pulumi(["config", "rm", "--path", "pulumi:autonaming"]);
            assert.equal(removed.code, 0, removed.stderr);
            await s.setConfig({ bulk: "0", explicitName: "" });
            sim.resetRequests();
            ok(await s.run("up"));
            assert.deepEqual(
                writes().map((w) => w.split(" ")[0]),
                ["DELETE", "DELETE"],
            );
            ok(await s.run("preview", { expectNoChanges: true }));
        });

        it("`pulumi import` adopts with no write and prints code that, added to the program, shows no changes", async () => {
            // One more, made outside this stack (the program's own are up: the case before).
            const existing = sim.addConnection({
                story: { id: STORY, name: "Shop" },
                name: "made-by-hand",
                url: "https://hand.example.com/hook",
                token: TOKEN,
                headers: { "X-Key": HEADER_VALUE },
                auth: { username: "ops", password: PASSWORD },
            });
            sim.resetRequests();
            const code = path.join(dir, "adopted.ts");
            const imported = await s.pulumi([
                "import",
                CONNECTION,
                "made-by-hand",
                existing.id,
                "--yes",
                "--protect=false",
                "--out",
                code,
            ]);
            assert.equal(imported.code, 0, imported.stderr + imported.stdout);
            assert.deepEqual(writes(), [], "the import writes nothing");
            const program = fs.readFileSync(code, "utf8");
            assert.match(program, /from "pulumi-chatbot\/native"/);
            assert.match(program, /new chatbot\.WebhookConnection\("made-by-hand"/);
            for (const secret of SECRETS) assert.match(program, new RegExp(`pulumi\\.secret\\("${secret}"\\)`));
            assert.match(program, /username: "ops"/);
            // The code type-checks with the program (the stack's runs only transpile it).
            const withAdopted = path.join(dir, "tsconfig.adopted.json");
            fs.writeFileSync(
                withAdopted,
                JSON.stringify({ extends: "./tsconfig.json", files: ["index.ts", "adopted.ts"] }),
            );
            const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
            execFileSync(process.execPath, [tsc, "-p", withAdopted, "--noEmit"]);

            await s.setConfig({ adopted: "true" });
            ok(await s.run("preview", { expectNoChanges: true }));
        });

        it("WebhookConnection.get reads an existing one into the program: every input and output, the token secret", async () => {
            await s.setConfig({ lookUp: "true" });
            ok(await s.run("up"));
            const outputs = await s.outputs();
            assert.equal(outputs.seenUrl, "https://orders.example.com/hook");
            assert.equal(outputs.seenToken, TOKEN);
            const shown = await s.pulumi(["stack", "output", "--json"]);
            assert.ok(!shown.stdout.includes(TOKEN), "the token read by .get() is secret");
        });

        it("a second account through a Provider: its connection made, refreshed and put back there, its token sealed, nothing written to the stack's account", async () => {
            emptySimulator(partnerSim);
            await s.setConfig({
                partnerApiUrl: partnerSim.url,
                partnerToken: { secret: partnerSim.token },
                partnerStoryId: OTHER_STORY,
            });
            sim.resetRequests();
            ok(await s.run("up"));
            assert.deepEqual(writes(), [], "the new connection is not in the stack's account");
            const [theirs] = partnerSim.listConnections();
            assert.deepEqual([theirs?.name, theirs?.token], ["theirs", TOKEN], "the second account");
            assert.equal((await s.outputs()).theirsStory, "Partner");
            const exported = await s.pulumi(["stack", "export"]);
            for (const secret of [TOKEN, partnerSim.token, sim.token]) {
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
            assert.deepEqual(writes(), [], "nothing written to the stack's account");
        });

        it("lookups (getWebhookConnectionOutput, ...): by name and story, by id, through the second account's Provider, the list; failures at preview name what was looked for; the copy updated and replaced", async () => {
            targets = addLookupTargets(sim, partnerSim);
            await s.setConfig({ copyStoryId: STORY, legacyId: targets.legacy });
            copy = await lookupsThroughReplacement(s, sim, partnerSim, targets, { plain: true });
        });

        it("destroy: nothing of the program left in ChatBot, the connection `pulumi import` adopted, the legacy webhook and the second account's included; what was only looked up stays", async () => {
            const theirs = partnerSim.listConnections().find((c) => c.name === "theirs");
            sim.resetRequests();
            partnerSim.resetRequests();
            ok(await s.run("destroy"));
            assert.ok(copy && !sim.getConnection(copy.id), "the lookups' copy is deleted");
            assertOnlyLookupTargetsLeft(sim, partnerSim, targets as LookupAccounts);
            assert.ok(theirs, "it was there before the destroy");
            assert.deepEqual(
                partnerSim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`),
                [`DELETE /v2/integrations/webhook/${theirs.id}`],
            );
        });

        it("the schema's TypeScript examples, each a module of the program as the registry shows it: a preview runs every one and writes nothing", async () => {
            // In the stack the destroy emptied: the lookups find what the lookups case made by hand.
            const examples = schemaExamples(installedSchema());
            for (const [file, code] of Object.entries(typescriptExamples(examples))) {
                fs.writeFileSync(path.join(dir, file), code);
            }
            const previewed = await previewExamples(s, sim, partnerSim, targets as LookupAccounts);
            // What the examples export, apart from the program's own outputs: one entry per example.
            const outputs = previewOutputs(previewed).docExamples as Array<Record<string, unknown>> | undefined;
            assert.equal(outputs?.length, examples.length, JSON.stringify(outputs));
            assertLookupOutputs(Object.assign({}, ...outputs!));
        });
    });
});
