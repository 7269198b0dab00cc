/**
 * The Go SDK (sdk/go, generated from the native plugin's schema by Pulumi's Go code generator
 * through `pulumi package gen-sdk`: `npm run gen-sdk`) and the Go example (examples/go) through the
 * real pulumi CLI and its Go language host (tools/pulumi/cmd/pulumi-language-go, or a real
 * install's), against two simulators: the stack's account and a second one reached through an
 * explicit provider. Go builds share the Go build cache (GOCACHE), so only a cold cache compiles
 * the Pulumi SDK (minutes). examples/go, with the lookups program beside it, is one program and one
 * stack walked once; each version of it is built once per run (goProgramBinary) and run through
 * the host's `binary` option, so no preview or up compiles it. The `pulumi package add` case runs
 * as a user does, the host building the program from source on each command.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedSchema, installedTesting, root, PACKAGE_VERSION } from "../helpers/support";
import { isSecret, ok, pulumiCli, PulumiStack, STORY, OTHER_STORY } from "../helpers/pulumi";
import {
    copyGoExample,
    exampleConfig,
    go,
    goProgramBinary,
    PLUGIN_DIR,
    pluginArchive,
    importMadeByHand,
    runGoBinary,
    twoAccountExample,
} from "../helpers/languagePrograms";
import { addLookupTargets, assertOnlyLookupTargetsLeft, lookupsThroughReplacement } from "../helpers/lookups";
import { policyPackArgs, policyViolations } from "../helpers/policyPack";
import {
    assertLookupOutputs,
    goExamples,
    previewExamples,
    previewOutputs,
    schemaExamples,
} from "../helpers/schemaExamples";

/** The lookups program of tests/helpers/lookups.ts, in Go: a function beside examples/go's main
 *  (lookups.go), which main calls once `lookupName` is set, through the example's `partner`. */
const LOOKUPS = `package main

import (
	"github.com/pulumi-chatbot/pulumi-chatbot/sdk/go/chatbot"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func lookups(ctx *pulumi.Context, cfg *config.Config, partner *chatbot.Provider) error {
	storyId := cfg.Require("storyId")
	found := chatbot.LookupWebhookConnectionOutput(ctx, chatbot.LookupWebhookConnectionOutputArgs{
		Name:    pulumi.String(cfg.Require("lookupName")),
		StoryId: pulumi.String(storyId),
	})
	legacy := chatbot.LookupLegacyWebhookOutput(ctx, chatbot.LookupLegacyWebhookOutputArgs{
		Id:             pulumi.String(cfg.Require("legacyId")),
		IncludeSecrets: pulumi.Bool(true),
	})
	// The plain form: without includeSecrets its result holds no secret, which Go's plain
	// invoke would refuse.
	legacyId := cfg.Require("legacyId")
	plainForm, err := chatbot.LookupLegacyWebhook(ctx, &chatbot.LookupLegacyWebhookArgs{Id: &legacyId})
	if err != nil {
		return err
	}
	partnerFound := chatbot.LookupWebhookConnectionOutput(ctx, chatbot.LookupWebhookConnectionOutputArgs{
		Name: pulumi.String("Partner Orders"),
	}, pulumi.Provider(partner))
	twins := chatbot.GetWebhookConnectionsOutput(ctx, chatbot.GetWebhookConnectionsOutputArgs{
		StoryId:    pulumi.String(storyId),
		NamePrefix: pulumi.String("Twin"),
	})
	if _, err := chatbot.NewWebhookConnection(ctx, "copy", &chatbot.WebhookConnectionArgs{
		StoryId: pulumi.String(cfg.Require("copyStoryId")),
		Url:     found.Url(),
		Token:   legacy.Token(),
	}); err != nil {
		return err
	}
	ctx.Export("foundId", found.Id())
	ctx.Export("foundUrl", found.Url())
	ctx.Export("plainFormUrl", pulumi.String(plainForm.Url))
	ctx.Export("legacyToken", legacy.Token())
	ctx.Export("legacyUrl", legacy.Url())
	ctx.Export("partnerId", partnerFound.Id())
	ctx.Export("twinIds", twins.Items().ApplyT(func(items []chatbot.WebhookConnectionListItem) []string {
		ids := []string{}
		for _, c := range items {
			ids = append(ids, c.Id)
		}
		return ids
	}).(pulumi.StringArrayOutput))
	return nil
}
`;

const { check } = require("../../scripts/gen-sdk.js") as {
    check(languages: string[]): Record<string, string[]>;
};

/** The Go SDK's module: go.mod in sdk/, the generated package in sdk/go/chatbot. */
const SDK_MODULE = path.join(root, "sdk");
const SDK = path.join(SDK_MODULE, "go");
const EXAMPLE = path.join(root, "examples", "go");
const CONNECTION = "chatbot:index:WebhookConnection";
const WEBHOOK_TOKEN = "tok-go-SECRET-5";
const BASIC_PASSWORD = "pw-go-SECRET-5";
const HAND_TOKEN = "tok-hand-SECRET-5";
const HAND_PASSWORD = "pw-hand-SECRET-5";

/** examples/go's main.go (in `project`) with `call` added before its first export. */
function callFromMain(project: string, call: string): void {
    const main = path.join(project, "main.go");
    const program = fs.readFileSync(main, "utf8");
    const hook = '\t\tctx.Export("ordersConnectionId", orders.ID())';
    assert.ok(program.includes(hook));
    fs.writeFileSync(main, program.replace(hook, call + hook));
}

/** The program `pulumi import` printed, as a function the example's main calls. */
function asFunction(generated: string): string {
    const head = "func main() {\n\tpulumi.Run(func(ctx *pulumi.Context) error {";
    assert.ok(generated.includes(head), generated);
    assert.match(generated, /\t\}\)\n\}\n*$/);
    return generated
        .replace(head, "func adopted(ctx *pulumi.Context) error {\n\t{")
        .replace(/\t\}\)\n\}\n*$/, "\t}\n}\n");
}

describe("the Go SDK", function () {
    this.timeout(300_000);

    it("is what the schema generates: a field changed without `npm run gen-sdk` fails here", () => {
        const found = check(["go"]);
        assert.deepEqual(Object.keys(found), ["go"], "the Go host is beside the pinned CLI");
        assert.deepEqual(found.go, [], "sdk/go is stale: run `npm run gen-sdk` and commit sdk/");
    });

    it("has the classes, documented fields and secrets the schema names", () => {
        const connection = fs.readFileSync(path.join(SDK, "chatbot", "webhookConnection.go"), "utf8");
        assert.match(connection, /func NewWebhookConnection\(ctx \*pulumi\.Context,/);
        assert.match(
            connection,
            /secrets := pulumi\.AdditionalSecretOutputs\(\[\]string\{\n\t\t"auth",\n\t\t"headers",\n\t\t"token",/,
        );
        assert.match(connection, /\/\/ .*Changing it replaces the resource.*\n\tStoryId pulumi\.StringInput/);
        const provider = fs.readFileSync(path.join(SDK, "chatbot", "provider.go"), "utf8");
        assert.match(provider, /func NewProvider\(ctx \*pulumi\.Context,/);
        assert.match(provider, /args\.Token = pulumi\.ToSecret\(args\.Token\)/);
        assert.match(
            fs.readFileSync(path.join(SDK_MODULE, "go.mod"), "utf8"),
            /^module github\.com\/pulumi-chatbot\/pulumi-chatbot\/sdk$/m,
        );
    });
});

describe("Go: the SDK builds, and a Go program (examples/go) under the pulumi CLI", function () {
    this.timeout(900_000);
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let stack: PulumiStack | undefined;
    let project: string | undefined;

    before(async () => {
        // The lookups program moves its copy to OTHER_STORY in this account.
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
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

    it("the SDK's module (sdk/) passes go vet and go build, its go.sum complete", async () => {
        // -trimpath as the Go host builds programs (tools/pulumi/cmd/pulumi-language-go): the
        // Pulumi SDK compiled for this check is then the one the program builds below reuse, where
        // a cold Go cache would otherwise compile it twice (the flag is part of each package's key).
        const readonly = { GOFLAGS: "-mod=readonly -trimpath", GOWORK: "off" };
        await go(["vet", "./..."], SDK_MODULE, readonly);
        await go(["build", "./..."], SDK_MODULE, readonly);
    });

    it("examples/go with the lookups, one program and one stack, built once: preview sends nothing, up, secrets sealed, a change by hand found and put back, import with no write (the policy pack on its preview), the second account's connection there only; lookups (LookupWebhookConnectionOutput, ...) by name and story, by id, through the second account's Provider, the list, failures at preview; the copy updated, replaced; destroy", async () => {
        project = await copyGoExample();
        fs.writeFileSync(path.join(project, "lookups.go"), LOOKUPS);
        callFromMain(
            project,
            '\t\tif cfg.Get("lookupName") != "" {\n\t\t\tif err := lookups(ctx, cfg, partner); err != nil {\n' +
                "\t\t\t\treturn err\n\t\t\t}\n\t\t}\n",
        );
        // The schema's examples, in Go as its doc comments show them, each a function of the
        // program, called once `docExamples` is set: in every build of it, so none builds again.
        for (const [file, code] of Object.entries(goExamples(schemaExamples(installedSchema())))) {
            fs.writeFileSync(path.join(project, file), code);
        }
        callFromMain(
            project,
            '\t\tif cfg.Get("docExamples") != "" {\n\t\t\tif err := docExamples(ctx); err != nil {\n' +
                "\t\t\t\treturn err\n\t\t\t}\n\t\t}\n",
        );
        await go(["vet", "./..."], project, { GOWORK: "off", GOFLAGS: "-trimpath" });
        // Built once per run, as the host builds it (a cold cache compiles the Pulumi SDK here).
        const binary = goProgramBinary(project);
        runGoBinary(project, binary);
        stack = await PulumiStack.create({
            projectDir: project,
            config: exampleConfig(
                "go",
                sim,
                partnerSim,
                { webhookToken: WEBHOOK_TOKEN, basicPassword: BASIC_PASSWORD },
                "https://bot.example.com",
            ),
            env: { CHATBOT_RETRY_BASE_MS: "5" },
        });
        const s = stack;
        const writes = (a: ChatbotSimulator) =>
            a.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

        const preview = ok(await s.run("preview"));
        assert.deepEqual([...sim.requests, ...partnerSim.requests], [], "a preview sends nothing");
        assert.equal(preview.changes.create, 5, "the stack, the partner's provider, three connections");

        const { orders, partners } = await twoAccountExample(s, sim, partnerSim, {
            webhookToken: WEBHOOK_TOKEN,
            basicPassword: BASIC_PASSWORD,
        });
        const supportId = sim.listConnections().find((c) => c.name === "support")?.id;

        // One made by hand, adopted with `pulumi import`: no write; the Go it prints, added to the
        // program (built once more, and run from then on), shows no change.
        const { made, generated } = await importMadeByHand(
            s,
            sim,
            partnerSim,
            { token: HAND_TOKEN, password: HAND_PASSWORD },
            path.join(path.dirname(project), "imported.go"),
        );
        assert.match(generated, /"github\.com\/pulumi-chatbot\/pulumi-chatbot\/sdk\/go\/chatbot"/);
        assert.match(
            generated,
            /chatbot\.NewWebhookConnection\(ctx, "made-by-hand", &chatbot\.WebhookConnectionArgs\{/,
        );
        for (const secret of [HAND_TOKEN, HAND_PASSWORD]) {
            assert.match(generated, new RegExp(`pulumi\\.ToSecret\\("${secret}"\\)`));
        }
        fs.writeFileSync(path.join(project, "adopted.go"), asFunction(generated));
        callFromMain(project, "\t\tif err := adopted(ctx); err != nil {\n\t\t\treturn err\n\t\t}\n");
        const withAdopted = goProgramBinary(project);
        assert.notEqual(withAdopted, binary, "the changed program is a build of its own");
        runGoBinary(project, withAdopted);
        // The policy pack on this preview: it judges what the Go program registered, the explicit
        // provider's connection too; the adopted one's host is allowed. Advisory: the preview passes.
        const judged = ok(
            await s.run("preview", {
                expectNoChanges: true,
                args: policyPackArgs(path.dirname(project), ["hand.example.com"]),
            }),
        );
        const found = policyViolations(judged.stdout).get("pulumi-chatbot");
        assert.ok(found, judged.stdout);
        assert.deepEqual(
            [...found.keys()].sort(),
            ["orders", "partner-orders", "support"].map((name) => `advisory allowed-hosts ${name}`),
        );
        assert.match(found.get("advisory allowed-hosts partner-orders")!, /host bot\.example\.com is not one of/);
        const [adopted] = (await s.resources(CONNECTION)).filter((r) => r.urn.endsWith("::made-by-hand"));
        assert.equal(adopted?.id, made.id);
        assert.ok(isSecret(adopted?.outputs?.token), "its token sealed");

        // The lookups, on in the same program: the example's connections stay as they are.
        const targets = addLookupTargets(sim, partnerSim);
        await s.setConfig({ copyStoryId: STORY, legacyId: targets.legacy });
        const moved = await lookupsThroughReplacement(s, sim, partnerSim, targets, { plain: true });

        sim.resetRequests();
        partnerSim.resetRequests();
        ok(await s.run("destroy"));
        const deleted = (...ids: Array<string | undefined>) =>
            ids.map((id) => `DELETE /v2/integrations/webhook/${id}`).sort();
        assert.deepEqual(writes(sim).sort(), deleted(orders?.id, supportId, made.id, moved?.id));
        assert.deepEqual(writes(partnerSim), deleted(partners[0].id), "the second account's, through its provider");
        assertOnlyLookupTargetsLeft(sim, partnerSim, targets);

        // The examples, on: a preview runs every one (the lookups find what addLookupTargets
        // made) and writes nothing.
        const previewed = await previewExamples(s, sim, partnerSim, targets);
        // From the preview's stack outputs: the counts are the examples' alone, so these hold only
        // where the examples' lookups ran (the program's own lookups export the same urls).
        assertLookupOutputs(previewOutputs(previewed));
    });

    it("`pulumi package add` in a Go project: the SDK generated and linked (a replace line), the plugin from its archive, up and destroy", async () => {
        project = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-go-add-")), "added");
        fs.mkdirSync(project);
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: added\nruntime: go\n");
        fs.writeFileSync(
            path.join(project, "go.mod"),
            "module example.com/added\n\ngo 1.26.6\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.274.1\n",
        );
        fs.copyFileSync(path.join(EXAMPLE, "go.sum"), path.join(project, "go.sum"));
        const main = path.join(project, "main.go");
        fs.writeFileSync(
            main,
            'package main\n\nimport "github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n\n' +
                "func main() { pulumi.Run(func(ctx *pulumi.Context) error { return nil }) }\n",
        );
        stack = await PulumiStack.create({
            projectDir: project,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token } },
        });
        // Not stack commands: in this stack's PULUMI_HOME.
        const cli = (args: string[]) =>
            execFileSync(pulumiCli(), args, {
                cwd: project,
                env: (stack as PulumiStack).environment(),
                encoding: "utf8",
                stdio: ["ignore", "pipe", "pipe"],
            });
        const added = cli(["package", "add", path.join(PLUGIN_DIR, "pulumi-resource-chatbot")]);
        assert.match(
            added,
            /"github\.com\/pulumi-chatbot\/pulumi-chatbot\/sdk\/go\/chatbot"/,
            "the import line to use",
        );
        assert.ok(fs.existsSync(path.join(project, "sdks", "chatbot", "chatbot", "webhookConnection.go")));
        assert.match(
            fs.readFileSync(path.join(project, "go.mod"), "utf8"),
            /^replace github\.com\/pulumi-chatbot\/pulumi-chatbot\/sdk\/go => \.\/sdks\/chatbot$/m,
        );
        assert.match(fs.readFileSync(path.join(project, "Pulumi.yaml"), "utf8"), /packages:\n\s+chatbot: /);

        fs.writeFileSync(
            main,
            `package main

import (
	"github.com/pulumi-chatbot/pulumi-chatbot/sdk/go/chatbot"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		_, err := chatbot.NewLegacyWebhook(ctx, "added", &chatbot.LegacyWebhookArgs{
			Url: pulumi.String("https://added.example.com/hook"),
		})
		return err
	})
}
`,
        );
        await go(["mod", "tidy"], project, { GOWORK: "off" });
        // The SDK asks for the plugin at the schema's version: installed from the release archive.
        const archive = pluginArchive();
        const version = PACKAGE_VERSION;
        cli(["plugin", "install", "resource", "chatbot", version, "--file", archive]);
        ok(await stack.run("up"));
        assert.deepEqual(
            sim.listLegacyWebhooks().map((w) => [w.name, w.url]),
            [["added", "https://added.example.com/hook"]],
        );
        ok(await stack.run("destroy"));
        assert.deepEqual(sim.listLegacyWebhooks(), []);
    });
});
