/**
 * The Java SDK (sdk/java, generated from the native plugin's schema by this repository's Java
 * generator through `pulumi package gen-sdk --language java`: `npm run gen-sdk`) and the Java
 * example (examples/java) through the real pulumi CLI and the Java language host
 * (tools/pulumi/cmd/pulumi-language-java), as a Java user of a registry provider has it:
 *
 * - the SDK comes from a Maven repository laid out by the release's own step (scripts/java-dist.js,
 *   built once per run), named in Maven settings, never installed by hand;
 * - the stack runs in a fresh PULUMI_HOME with only `java` and `mvn` (and the few POSIX commands
 *   the mvn script calls) on PATH, no `node`, no `plugins.providers`: the engine downloads the
 *   plugin of the SDK's version from a loopback stand-in for the GitHub release, named by the
 *   plugin.json inside the SDK's jar; and, as the pulumi CLI no longer bundles a Java host, it
 *   downloads that too, the release of pulumi-java it pins, which the stand-in serves as this
 *   repository's host (tools/pulumi/cmd/pulumi-language-java) packed the way pulumi-java's are;
 * - against two simulators: the stack's account and a second one through an explicit provider;
 * - the downloaded plugin run as the `pulumi-chatbot` command line (`pulumi plugin run ... --
 *   recover`), with no `node` on PATH either.
 *
 * Maven's local repository: each run of the program gets its own, made of hard links to the one
 * the SDK's build fills (.maven/repository) without this package's artifacts, so the SDK is always
 * the one of this run's repository; what Maven downloaded is linked back for the next run.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import {
    emptySimulator,
    installedSchema,
    installedTesting,
    loopbackServers,
    root,
    PACKAGE_VERSION,
} from "../helpers/support";
import {
    exampleConfig,
    githubReleases,
    pathOnly,
    pluginArchive,
    releaseAsset,
    REPOSITORY,
    importMadeByHand,
    pluginCommand,
    twoAccountExample,
    GROUP_DIR,
    linkFiles,
    sdkRepository,
    useSdkRepository,
} from "../helpers/languagePrograms";
import { ok, pulumiCli, PulumiStack, STORY, OTHER_STORY, type ConfigValue } from "../helpers/pulumi";
import { addLookupTargets, lookupConfig, lookupsLifecycle, makeByHand } from "../helpers/lookups";
import { packageAndRunFromJar } from "../helpers/javaPrograms";
import {
    assertLookupOutputs,
    javaExamples,
    previewExamples,
    previewOutputs,
    schemaExamples,
} from "../helpers/schemaExamples";
import { NODE_DIR, POLICY_PACK, policyViolations } from "../helpers/policyPack";

const { check } = require("../../scripts/gen-sdk.js") as {
    check(languages: string[]): Record<string, string[]>;
};
const javaDist = require("../../scripts/java-dist.js") as {
    build(outDir: string): string[];
    coordinates(): { groupId: string; artifactId: string; version: string };
    MAVEN_REPO: string;
};

const SDK = path.join(root, "sdk", "java");
const PACKAGE_DIR = path.join(SDK, "src", "main", "java", "com", "pulumichatbot", "chatbot");
const EXAMPLE = path.join(root, "examples", "java");
const CONNECTION = "chatbot:index:WebhookConnection";
const WEBHOOK_TOKEN = "tok-java-SECRET-7";
const BASIC_PASSWORD = "pw-java-SECRET-7";
const HAND_TOKEN = "tok-hand-SECRET-7";
const HAND_PASSWORD = "pw-hand-SECRET-7";

/** The release of pulumi-java's host that the pinned CLI downloads for a Java program: its
 *  knownLanguageRuntimes (pkg/v3 util/plugin.go of the module tools/pulumi pins). */
function javaHostVersion(): string {
    const { pinnedVersion } = require("../../scripts/pulumi-path.js") as { pinnedVersion(): string };
    // The module's folder, downloaded through the Go proxy if the module cache lacks it (a machine
    // whose CLI was built elsewhere, or an emptied cache).
    const { Dir } = JSON.parse(
        execFileSync("go", ["mod", "download", "-json", `github.com/pulumi/pulumi/pkg/v3@${pinnedVersion()}`], {
            cwd: path.join(root, "tools", "pulumi"),
            encoding: "utf8",
            env: { ...process.env, GOWORK: "off" },
        }),
    ) as { Dir: string };
    const source = fs.readFileSync(path.join(Dir, "util", "plugin.go"), "utf8");
    const m = /"java":\s*semver\.MustParse\("([^"]+)"\)/.exec(source);
    assert.ok(m, "the pinned CLI names the Java host's version");
    return m[1];
}

describe("the Java SDK", function () {
    this.timeout(300_000);

    it("is what the schema generates: a field changed without `npm run gen-sdk` fails here", () => {
        const found = check(["java"]);
        assert.deepEqual(Object.keys(found), ["java"], "the Java host is beside the pinned CLI");
        assert.deepEqual(found.java, [], "sdk/java is stale: run `npm run gen-sdk` and commit sdk/");
    });

    it("the generators' own tests pass (go test of the Java host: classes, required inputs, secrets, plugin.json, the Java `pulumi import` prints)", async () => {
        // With the flags scripts/pulumi-path.js builds the hosts with, so that the test reuses the
        // packages that build compiled (a cold Go cache otherwise compiles pkg/v3 again: 100 s).
        const out = execFileSync(
            "go",
            ["test", "-count=1", "-trimpath", "-tags", "osusergo,grpcnotrace", "./cmd/pulumi-language-java"],
            {
                cwd: path.join(root, "tools", "pulumi"),
                encoding: "utf8",
                env: { ...process.env, GOWORK: "off", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
            },
        );
        assert.match(out, /^ok\s/m);
    });

    it("has the classes, annotations and secrets the schema names, and plugin.json for the engine", () => {
        const connection = fs.readFileSync(path.join(PACKAGE_DIR, "WebhookConnection.java"), "utf8");
        assert.match(connection, /@ResourceType\(type="chatbot:index:WebhookConnection"\)/);
        assert.match(connection, /public WebhookConnection\(java\.lang\.String name, WebhookConnectionArgs args\)/);
        assert.match(connection, /@Export\(name="token"/);
        assert.match(connection, /additionalSecretOutputs\(List\.of\(\s*"auth",\s*"headers",\s*"token"\s*\)\)/);
        const args = fs.readFileSync(path.join(PACKAGE_DIR, "WebhookConnectionArgs.java"), "utf8");
        assert.match(args, /@Import\(name="storyId", required=true\)/);
        assert.match(args, /MissingRequiredPropertyException\("WebhookConnectionArgs", "url"\)/);
        // A plain value given for a secret input is sealed before it reaches the engine.
        assert.match(args, /\$\.token = \$\.token\.asSecret\(\);/);
        assert.match(
            fs.readFileSync(path.join(PACKAGE_DIR, "ProviderArgs.java"), "utf8"),
            /\$\.token = \$\.token\.asSecret\(\);/,
        );
        assert.match(fs.readFileSync(path.join(PACKAGE_DIR, "Provider.java"), "utf8"), /"pulumi:providers:chatbot"/);
        const pluginJson = JSON.parse(
            fs.readFileSync(
                path.join(SDK, "src", "main", "resources", "com", "pulumichatbot", "chatbot", "plugin.json"),
                "utf8",
            ),
        );
        assert.deepEqual(pluginJson, {
            resource: true,
            name: "chatbot",
            version: PACKAGE_VERSION,
            server: `github://api.github.com/${REPOSITORY}`,
        });
        assert.deepEqual(javaDist.coordinates(), {
            groupId: "com.pulumichatbot",
            artifactId: "chatbot",
            version: PACKAGE_VERSION,
        });
        assert.match(
            fs.readFileSync(path.join(EXAMPLE, "pom.xml"), "utf8"),
            new RegExp(
                `<artifactId>chatbot</artifactId>\\s*<version>${PACKAGE_VERSION.replace(/\./g, "\\.")}</version>`,
            ),
            "the example names the SDK of this version",
        );
    });
});

describe("Java: examples/java from the SDK's Maven repository, the plugin downloaded, under the pulumi CLI", function () {
    this.timeout(1_200_000);
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let scratch: string;
    const servers = loopbackServers();
    const served: string[] = [];

    before(async () => {
        // The lookups program moves its copy to OTHER_STORY in this account.
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
        partnerSim = await installedTesting().ChatbotSimulator.start({ stories: { [OTHER_STORY]: "Partner" } });
        scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-java-"));
    });
    beforeEach(() => {
        emptySimulator(sim);
        emptySimulator(partnerSim);
    });
    after(async () => {
        await servers.closeAll();
        await sim?.close();
        await partnerSim?.close();
        if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    /**
     * A copy of examples/java (its App.java replaced by `app` when given) as a user's project: the
     * SDK from its Maven repository, named in settings; the Java host and the plugin downloaded
     * from the loopback stand-in for the GitHub releases; only java and mvn on PATH.
     */
    const javaStack = async (config: Record<string, ConfigValue>, app?: string) => {
        const repository = sdkRepository();
        const hostVersion = javaHostVersion();
        const hostArchive = path.join(scratch, `pulumi-language-java-v${hostVersion}-linux-amd64.tar.gz`);
        execFileSync("tar", ["-czf", hostArchive, "-C", path.dirname(pulumiCli()), "pulumi-language-java"]);
        const pluginAsset = releaseAsset(REPOSITORY, PACKAGE_VERSION, path.basename(pluginArchive()));
        const hostAsset = releaseAsset("pulumi/pulumi-java", hostVersion, path.basename(hostArchive));
        const download = await githubReleases(
            servers,
            { [pluginAsset]: pluginArchive(), [hostAsset]: hostArchive },
            served,
        );
        const project = fs.mkdtempSync(path.join(scratch, "java-"));
        fs.cpSync(EXAMPLE, project, { recursive: true });
        if (app) fs.writeFileSync(path.join(project, "src", "main", "java", "chatbot", "App.java"), app);
        // The schema's Java examples beside the program, compiled with it by every build below
        // (issue 70), and run by it in place of its own resources once `docExamples` is set: the
        // outputs are then the examples' alone (one of them exports a name the program exports).
        const sources = path.join(project, "src", "main", "java", "chatbot");
        const examples = javaExamples(schemaExamples(installedSchema()), "chatbot");
        for (const [file, code] of Object.entries(examples.files)) fs.writeFileSync(path.join(sources, file), code);
        const main = path.join(sources, "App.java");
        const start = /^( {4}static void stack\(Context ctx\) \{\n)/m;
        assert.match(fs.readFileSync(main, "utf8"), start);
        fs.writeFileSync(
            main,
            fs
                .readFileSync(main, "utf8")
                .replace(
                    start,
                    `$1        if (ctx.config().get("docExamples").isPresent()) {\n            ${examples.call}\n            return;\n        }\n`,
                ),
        );
        // As outside this repository: no plugins section, the engine downloads the plugin.
        const yaml = path.join(project, "Pulumi.yaml");
        fs.writeFileSync(yaml, fs.readFileSync(yaml, "utf8").replace(/\nplugins:[\s\S]*$/, "\n"));
        assert.doesNotMatch(fs.readFileSync(yaml, "utf8"), /plugins/);
        const localRepository = useSdkRepository(project, scratch);
        const which = (name: string) => execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
        const bin = pathOnly(
            fs.mkdtempSync(path.join(scratch, "bin-")),
            Object.fromEntries(
                ["java", "mvn", "uname", "dirname", "expr", "ls", "tr"].map((name) => [
                    name,
                    fs.realpathSync(which(name)),
                ]),
            ),
        );
        const stack = await PulumiStack.create({
            projectDir: project,
            config,
            env: { ...download, PATH: bin, CHATBOT_RETRY_BASE_MS: "5" },
        });
        return { stack, project, repository, localRepository, hostAsset, pluginAsset, bin };
    };

    it("up, secrets sealed, no change on a second preview, a change by hand found and put back, import prints Java that previews with no change (the policy pack judging it), the plugin's recover through `pulumi plugin run` (nothing to do), destroy; then the schema's Java examples previewed", async () => {
        const { stack, project, repository, localRepository, hostAsset, pluginAsset, bin } = await javaStack(
            exampleConfig(
                "go",
                sim,
                partnerSim,
                { webhookToken: WEBHOOK_TOKEN, basicPassword: BASIC_PASSWORD },
                "https://bot.example.com",
            ),
        );
        try {
            const s = stack;

            // The one run straight from source, as a user runs it: the host's `mvn compile exec:java`
            // (and its classpath scan for the plugins the dependencies need).
            const preview = ok(await s.run("preview"));
            assert.deepEqual([...sim.requests, ...partnerSim.requests], [], "a preview sends nothing");
            assert.equal(preview.changes.create, 5, "the stack, the partner's provider, three connections");
            assert.deepEqual(
                served,
                [`GET ${hostAsset}`, `GET ${pluginAsset}`],
                "the CLI downloaded the Java host it pins, then the plugin of the SDK's version, named by the jar's plugin.json, once each",
            );
            const sdkJar = path.join(
                localRepository,
                GROUP_DIR,
                "chatbot",
                PACKAGE_VERSION,
                `chatbot-${PACKAGE_VERSION}.jar`,
            );
            assert.ok(
                fs
                    .readFileSync(sdkJar)
                    .equals(
                        fs.readFileSync(
                            path.join(repository, GROUP_DIR, "chatbot", PACKAGE_VERSION, path.basename(sdkJar)),
                        ),
                    ),
                "Maven resolved the SDK from its repository",
            );

            // From here the program runs from its jar (runtime.options.binary), packaged once per
            // run: `java -jar`, no Maven, for every preview and up.
            const jar = packageAndRunFromJar(project);
            assert.match(fs.readFileSync(path.join(project, "Pulumi.yaml"), "utf8"), /^ {4}binary: .*\.jar$/m);

            await twoAccountExample(s, sim, partnerSim, {
                webhookToken: WEBHOOK_TOKEN,
                basicPassword: BASIC_PASSWORD,
            });

            // One made by hand, adopted with `pulumi import`: no write; the Java it prints, added to
            // the program, shows no change.
            const { made, generated } = await importMadeByHand(
                s,
                sim,
                partnerSim,
                { token: HAND_TOKEN, password: HAND_PASSWORD },
                path.join(scratch, "Imported.java"),
            );
            assert.match(generated, /^import com\.pulumichatbot\.chatbot\.WebhookConnection;$/m);
            assert.match(generated, /new WebhookConnection\("made-by-hand", WebhookConnectionArgs\.builder\(\)/);
            for (const secret of [HAND_TOKEN, HAND_PASSWORD]) {
                assert.match(generated, new RegExp(`Output\\.ofSecret\\("${secret}"\\)`));
            }
            adopt(path.join(project, "src", "main", "java", "chatbot", "App.java"), generated);
            // The program changed: its new version packaged (once), and run from that jar.
            assert.notEqual(packageAndRunFromJar(project), jar, "the changed program is packaged anew");
            // The policy pack on this preview, as a pipeline runs it on a Java program's: it judges
            // the resources by type, whatever language registered them. The rules of hosts made
            // advisory, with the example's backend the one host allowed: made-by-hand's host breaks
            // it, and nothing else breaks a rule. The pack is a Node.js one: `node` on PATH.
            const policyConfig = path.join(scratch, "java-policy.json");
            fs.writeFileSync(
                policyConfig,
                JSON.stringify({ "allowed-hosts": { enforcementLevel: "advisory", hosts: ["bot.example.com"] } }),
            );
            const judged = ok(
                await s.run("preview", {
                    expectNoChanges: true,
                    args: ["--policy-pack", POLICY_PACK, "--policy-pack-config", policyConfig],
                    env: { PATH: `${bin}${path.delimiter}${NODE_DIR}` },
                }),
            );
            const reported = policyViolations(judged.stdout).get("pulumi-chatbot");
            assert.ok(reported, `the pack ran on the Java program's preview:\n${judged.stdout}`);
            assert.deepEqual([...reported.keys()], ["advisory allowed-hosts made-by-hand"], judged.stdout);
            assert.match(
                reported.get("advisory allowed-hosts made-by-hand") ?? "",
                /url's host hand\.example\.com is not one of the allowed hosts \(bot\.example\.com\)/,
            );
            for (const secret of [WEBHOOK_TOKEN, BASIC_PASSWORD, HAND_TOKEN, HAND_PASSWORD]) {
                assert.ok(!(judged.stdout + judged.stderr).includes(secret), "the pack's report shows no secret");
            }
            const [adopted] = (await s.resources(CONNECTION)).filter((r) => r.urn.endsWith("::made-by-hand"));
            assert.equal(adopted?.id, made.id);

            // The plugin the engine downloaded, as the command line (`pulumi plugin run`), with only
            // java, mvn and the pulumi CLI on PATH: recover before the next up finds nothing to
            // repair and writes nothing.
            sim.resetRequests();
            partnerSim.resetRequests();
            const recovered = await pluginCommand(s, ["recover", "--stack", s.name], {
                PATH: `${bin}${path.delimiter}${path.dirname(pulumiCli())}`,
            });
            assert.equal(recovered.code, 0, recovered.stdout + recovered.stderr);
            assert.match(recovered.stdout, /no pending operation and no lock: nothing to do/);
            assert.deepEqual(
                [...sim.requests, ...partnerSim.requests].filter((r) => r.method !== "GET"),
                [],
            );

            ok(await s.run("destroy"));
            assert.deepEqual(sim.listConnections(), []);
            assert.deepEqual(partnerSim.listConnections(), []);
            assert.equal(served.length, 2, "downloaded once, then used from PULUMI_HOME");

            // The schema's examples, run from the jar in place of the program: a preview of the
            // emptied stack runs every one (the lookups find what addLookupTargets makes) and
            // writes nothing.
            const targets = addLookupTargets(sim, partnerSim);
            const previewed = await previewExamples(s, sim, partnerSim, targets);
            assert.doesNotMatch(previewed.stdout, /partner-orders/, "the program's own resources are not declared");
            assertLookupOutputs(previewOutputs(previewed));
        } finally {
            stack.dispose();
            linkFiles(localRepository, javaDist.MAVEN_REPO);
        }
    });

    it("lookups (ChatbotFunctions): by name and story, by id, through a second account's Provider, the list; failures at preview; the copy updated, replaced, deleted; `pulumi import`", async () => {
        const made = makeByHand(sim, partnerSim);
        const { stack, project, localRepository, pluginAsset } = await javaStack(
            lookupConfig(sim, partnerSim, made),
            LOOKUPS,
        );
        try {
            // Run from its jar, packaged once per run, from the first preview. From a jar, this
            // repository's Java host does not scan the classpath for the plugins the dependencies
            // need (Pulumi's does: docs/java.md), and the engine, asked for the provider by
            // version alone, would look for it under pulumi/: so the plugin is installed first, from
            // the server the SDK's plugin.json names, as that host's user does.
            packageAndRunFromJar(project);
            const before = served.length;
            const installed = await stack.pulumi([
                ...["plugin", "install", "resource", "chatbot", PACKAGE_VERSION],
                ...["--server", `github://api.github.com/${REPOSITORY}`],
            ]);
            assert.equal(installed.code, 0, installed.stderr + installed.stdout);
            assert.deepEqual(served.slice(before), [`GET ${pluginAsset}`], "from the stand-in for the release");
            await lookupsLifecycle(stack, sim, partnerSim, made, { plain: true });
        } finally {
            stack.dispose();
            linkFiles(localRepository, javaDist.MAVEN_REPO);
        }
    });
});

/** The lookups program of tests/helpers/lookups.ts, in Java: examples/java's App.java replaced. */
const LOOKUPS = `package chatbot;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import com.pulumi.deployment.InvokeOutputOptions;
import com.pulumichatbot.chatbot.ChatbotFunctions;
import com.pulumichatbot.chatbot.Provider;
import com.pulumichatbot.chatbot.ProviderArgs;
import com.pulumichatbot.chatbot.WebhookConnection;
import com.pulumichatbot.chatbot.WebhookConnectionArgs;
import com.pulumichatbot.chatbot.inputs.GetLegacyWebhookArgs;
import com.pulumichatbot.chatbot.inputs.GetLegacyWebhookPlainArgs;
import com.pulumichatbot.chatbot.inputs.GetWebhookConnectionArgs;
import com.pulumichatbot.chatbot.inputs.GetWebhookConnectionsArgs;
import java.util.stream.Collectors;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var storyId = config.require("storyId");
        var found = ChatbotFunctions.getWebhookConnection(GetWebhookConnectionArgs.builder()
                .name(config.require("lookupName")).storyId(storyId).build());
        var legacy = ChatbotFunctions.getLegacyWebhook(GetLegacyWebhookArgs.builder()
                .id(config.require("legacyId")).includeSecrets(true).build());
        var plainForm = ChatbotFunctions.getLegacyWebhookPlain(GetLegacyWebhookPlainArgs.builder()
                .id(config.require("legacyId")).build());
        var partner = new Provider("partner", ProviderArgs.builder()
                .apiUrl(config.require("partnerApiUrl"))
                .token(config.requireSecret("partnerToken"))
                .build());
        var partnerFound = ChatbotFunctions.getWebhookConnection(
                GetWebhookConnectionArgs.builder().name("Partner Orders").build(),
                InvokeOutputOptions.builder().provider(partner).build());
        var twins = ChatbotFunctions.getWebhookConnections(GetWebhookConnectionsArgs.builder()
                .storyId(storyId).namePrefix("Twin").build());
        new WebhookConnection("copy", WebhookConnectionArgs.builder()
                .storyId(config.require("copyStoryId"))
                .url(found.applyValue(c -> c.url()))
                .token(legacy.applyValue(w -> w.token().orElse(null)))
                .build());
        ctx.export("foundId", found.applyValue(c -> c.id()));
        ctx.export("foundUrl", found.applyValue(c -> c.url()));
        ctx.export("plainFormUrl", Output.of(plainForm).applyValue(w -> w.url()));
        ctx.export("legacyToken", legacy.applyValue(w -> w.token().orElse(null)));
        ctx.export("legacyUrl", legacy.applyValue(w -> w.url()));
        ctx.export("partnerId", partnerFound.applyValue(c -> c.id()));
        ctx.export("twinIds", twins.applyValue(r -> r.items().stream().map(c -> c.id()).collect(Collectors.toList())));
    }
}
`;

/** Adds what `pulumi import` printed (a whole program) to the example's App.java: its imports, and
 *  the statements of its stack method after the example's own. */
function adopt(app: string, generated: string): void {
    const body = /public static void stack\(Context ctx\) \{\n([\s\S]*?)\n {4}\}\n\}\s*$/.exec(generated);
    assert.ok(body, `the printed program has a stack method:\n${generated}`);
    const imports = generated.match(/^import [\w.]+;$/gm) ?? [];
    let program = fs.readFileSync(app, "utf8");
    const missing = imports.filter((line) => !program.includes(line));
    program = program.replace(/^(import java\.util\.Map;)$/m, [...missing, "$1"].join("\n"));
    const hook = '        ctx.export("ordersConnectionId", orders.id());';
    assert.ok(program.includes(hook));
    fs.writeFileSync(app, program.replace(hook, `${body[1]}\n${hook}`));
}
