/**
 * The Python SDK (sdk/python, generated from the native plugin's schema by `npm run gen-sdk`) and
 * the Python example (examples/python) through the real pulumi CLI and its Python language host
 * (tools/pulumi/cmd/pulumi-language-python, or a real install's), against two simulators: the
 * stack's account and a second one reached through an explicit provider.
 *
 * The virtual environment is made once from examples/python/requirements.txt (the pinned `pulumi`
 * from PyPI and the SDK, editable) and kept in .pulumi-cli/python-venv/<hash of that file, the checkout and the
 * python version>, so later runs and CI's second pass reuse it: the program runs in it through
 * Pulumi.yaml's `virtualenv` option, as examples/python's own Pulumi.yaml names one. examples/python,
 * with the lookups program added, is one program and one stack walked once.
 */
import { strict as assert } from "assert";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedSchema, installedTesting, root } from "../helpers/support";
import {
    CHANGES_EXIT_CODE,
    isSecret,
    ok,
    plain,
    PulumiStack,
    STORY,
    OTHER_STORY,
    tempProject,
} from "../helpers/pulumi";
import { exampleConfig, PLUGIN_DIR, python, pythonVenv } from "../helpers/languagePrograms";
import { addLookupTargets, assertOnlyLookupTargetsLeft, lookupsThroughReplacement } from "../helpers/lookups";
import { policyPackArgs, policyViolations } from "../helpers/policyPack";
import {
    assertLookupOutputs,
    previewExamples,
    previewOutputs,
    pythonExamples,
    schemaExamples,
} from "../helpers/schemaExamples";

/** The lookups program of tests/helpers/lookups.ts, in Python: added to examples/python's program,
 *  on once `lookupName` is set, through the example's `partner`. */
const LOOKUPS = `
# The lookups of tests/helpers/lookups.ts, once lookupName is set.
if config.get("lookupName"):
    found = chatbot.get_webhook_connection_output(name=config.require("lookupName"), story_id=story_id)
    legacy = chatbot.get_legacy_webhook_output(id=config.require("legacyId"), include_secrets=True)
    plain_form = chatbot.get_legacy_webhook(id=config.require("legacyId"))
    partner_found = chatbot.get_webhook_connection_output(
        name="Partner Orders", opts=pulumi.InvokeOutputOptions(provider=partner)
    )
    twins = chatbot.get_webhook_connections_output(story_id=story_id, name_prefix="Twin")
    chatbot.WebhookConnection("copy", story_id=config.require("copyStoryId"), url=found.url, token=legacy.token)

    pulumi.export("foundId", found.id)
    pulumi.export("foundUrl", found.url)
    pulumi.export("plainFormUrl", plain_form.url)
    pulumi.export("legacyToken", legacy.token)
    pulumi.export("legacyUrl", legacy.url)
    pulumi.export("partnerId", partner_found.id)
    pulumi.export("twinIds", twins.items.apply(lambda items: [c.id for c in items]))
`;

const { check } = require("../../scripts/gen-sdk.js") as {
    check(languages: string[]): Record<string, string[]>;
};

const EXAMPLE = path.join(root, "examples", "python");
const CONNECTION = "chatbot:index:WebhookConnection";
const WEBHOOK_TOKEN = "tok-python-SECRET-9";
const BASIC_PASSWORD = "pw-python-SECRET-9";
const SECRETS = [WEBHOOK_TOKEN, BASIC_PASSWORD];

describe("the Python SDK", function () {
    this.timeout(300_000);

    it("is what the schema generates: a field changed without `npm run gen-sdk` fails here", function () {
        // The pinned generators, built with Go.
        if (spawnSync("go", ["version"]).status !== 0) this.skip();
        const found = check(["python"]);
        assert.deepEqual(Object.keys(found), ["python"], "the Python host is beside the pinned CLI");
        assert.deepEqual(found.python, [], "sdk/python is stale: run `npm run gen-sdk` and commit sdk/");
    });

    it("compiles (python -m compileall) and has the classes the schema names", function () {
        if (!python()) this.skip();
        const cache = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-pycache-"));
        try {
            execFileSync("python3", ["-m", "compileall", "-q", path.join(root, "sdk", "python")], {
                env: { ...process.env, PYTHONPYCACHEPREFIX: cache },
            });
        } finally {
            fs.rmSync(cache, { recursive: true, force: true });
        }
        const init = fs.readFileSync(path.join(root, "sdk", "python", "pulumi_chatbot", "__init__.py"), "utf8");
        for (const name of ["WebhookConnection", "LegacyWebhook", "Provider"]) assert.match(init, new RegExp(name));
        const connection = fs.readFileSync(
            path.join(root, "sdk", "python", "pulumi_chatbot", "webhook_connection.py"),
            "utf8",
        );
        assert.match(connection, /additional_secret_outputs=\["auth", "headers", "token"\]/);
        assert.match(connection, /story_id: .*Changing it replaces the resource/);
    });
});

describe("a Python program (examples/python) under the pulumi CLI", function () {
    this.timeout(600_000);
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let venv: string;
    let stack: PulumiStack | undefined;
    let project: string | undefined;

    const writes = (s: ChatbotSimulator) =>
        s.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

    before(function () {
        if (!python()) this.skip();
    });
    before(async function () {
        this.timeout(600_000);
        venv = pythonVenv();
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

    /** The example as written, its Pulumi.yaml pointed at the virtual environment and at the
     *  installed package's plugin, and a stack of it whose two accounts are the two simulators. */
    const exampleStack = async () => {
        const yaml = fs.readFileSync(path.join(EXAMPLE, "Pulumi.yaml"), "utf8");
        assert.match(yaml, /virtualenv: venv\n/);
        assert.match(yaml, /path: \.\.\/\.\.\/plugin\n/);
        project = tempProject("pyexample", {
            "Pulumi.yaml": yaml
                .replace("virtualenv: venv\n", `virtualenv: ${venv}\n`)
                .replace("path: ../../plugin\n", `path: ${PLUGIN_DIR}\n`),
            "__main__.py": fs.readFileSync(path.join(EXAMPLE, "__main__.py"), "utf8") + LOOKUPS,
            "requirements.txt": fs.readFileSync(path.join(EXAMPLE, "requirements.txt"), "utf8"),
        });
        stack = await PulumiStack.create({
            projectDir: project,
            config: exampleConfig(
                "python",
                sim,
                partnerSim,
                { webhookToken: WEBHOOK_TOKEN, basicPassword: BASIC_PASSWORD },
                "https://bot-backend.example.com",
            ),
            // No bytecode next to the checkout's SDK; retries wait milliseconds.
            env: { PYTHONDONTWRITEBYTECODE: "1", CHATBOT_RETRY_BASE_MS: "5" },
        });
        return stack;
    };

    it("examples/python with the lookups, one program and one stack, one virtual environment: preview sends nothing; up makes each connection in its own account; secrets sealed; drift found and put back; `pulumi import` adopts a connection made by hand with no write, and prints Python that then shows no changes (the policy pack on that preview); lookups (get_webhook_connection_output, ...) by name and story, by id, through the second account's Provider, the list, failures at preview; the copy updated, replaced; destroy", async () => {
        const s = await exampleStack();
        const venvMadeAt = fs.statSync(path.join(venv, ".complete")).mtimeMs;

        sim.resetRequests();
        partnerSim.resetRequests();
        const preview = ok(await s.run("preview"));
        assert.deepEqual([...sim.requests, ...partnerSim.requests], [], "a preview sends nothing");
        assert.equal(preview.changes.create, 5, "the stack, the explicit provider and three connections");

        const up = ok(await s.run("up"));
        assert.equal(up.changes.create, 5);
        const mine = sim.listConnections();
        const theirs = partnerSim.listConnections();
        assert.deepEqual(mine.map((c) => c.name).sort(), ["orders", "support"], "the stack's account");
        assert.deepEqual(
            theirs.map((c) => c.name),
            ["partner-orders"],
            "the second account: only what the provider was given",
        );
        const orders = mine.find((c) => c.name === "orders");
        const support = mine.find((c) => c.name === "support");
        assert.equal(orders?.url, "https://bot-backend.example.com/chatbot/orders");
        assert.equal(orders?.token, WEBHOOK_TOKEN);
        assert.deepEqual(support?.auth, { username: "chatbot", password: BASIC_PASSWORD });
        assert.equal(support?.url, "https://bot-backend.example.com/chatbot/support");
        assert.equal(support?.headers?.["X-Orders-Connection"], orders?.id);
        assert.equal(theirs[0].story.id, OTHER_STORY);
        assert.deepEqual(await s.outputs(), {
            ordersConnectionId: orders?.id,
            supportUrl: support?.url,
            partnerConnectionId: theirs[0].id,
            partnerStory: "Partner",
        });

        // Secrets: sealed in the state, marked down to the value the schema names.
        const exported = await s.pulumi(["stack", "export"]);
        for (const secret of [...SECRETS, sim.token, partnerSim.token]) {
            assert.ok(!exported.stdout.includes(secret), "no secret in plain text in stack export");
        }
        const states = await s.resources(CONNECTION);
        const outputsOf = (id?: string) => (states.find((r) => r.id === id)?.outputs ?? {}) as Record<string, unknown>;
        assert.ok(isSecret(outputsOf(orders?.id).token), "token is secret");
        // The SDK seals the secret inputs whole (additional_secret_outputs); the plugin, inside them.
        const auth = outputsOf(support?.id).auth;
        assert.ok(isSecret(auth), "auth is secret");
        assert.deepEqual(
            plain(plain(auth)),
            { username: "chatbot", password: BASIC_PASSWORD },
            "and its password inside",
        );
        const providerState = (await s.export(true)).deployment.resources?.find(
            (r) => r.type === "pulumi:providers:chatbot" && r.urn.endsWith("::partner"),
        );
        assert.ok(isSecret(providerState?.inputs?.token), "the second account's token is secret in state");
        ok(await s.run("preview", { expectNoChanges: true }));

        // By hand, in the second account: the drift check fails, `up --refresh` puts it back there.
        partnerSim.editConnection(theirs[0].id, { url: "https://changed.example.com/by-hand" });
        sim.resetRequests();
        partnerSim.resetRequests();
        const drift = await s.run("preview", { refresh: true, expectNoChanges: true });
        assert.equal(drift.code, CHANGES_EXIT_CODE, "the drift check fails");
        assert.deepEqual([...writes(sim), ...writes(partnerSim)], [], "the drift check writes nothing");
        const fix = ok(await s.run("up", { refresh: true }));
        assert.equal(fix.changes.update, 1);
        assert.deepEqual(writes(partnerSim), [`PUT /v2/integrations/webhook/${theirs[0].id}`]);
        assert.deepEqual(writes(sim), [], "nothing written to the stack's account");
        assert.equal(
            partnerSim.getConnection(theirs[0].id)?.url,
            "https://bot-backend.example.com/chatbot/partner-orders",
        );
        ok(await s.run("preview", { refresh: true, expectNoChanges: true }));

        // One made by hand, adopted by `pulumi import`.
        const existing = sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "made-by-hand",
            url: "https://hand.example.com/hook",
            token: WEBHOOK_TOKEN,
            headers: { "X-Key": "header-value" },
            auth: { username: "ops", password: BASIC_PASSWORD },
        });
        sim.resetRequests();
        partnerSim.resetRequests();
        const code = path.join(path.dirname(project as string), "imported.py");
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
        assert.deepEqual([...writes(sim), ...writes(partnerSim)], [], "the import writes nothing");
        const printed = fs.readFileSync(code, "utf8");
        assert.match(printed, /import pulumi_chatbot as chatbot/);
        assert.match(printed, /chatbot\.WebhookConnection\("made-by-hand"/);
        for (const secret of SECRETS) assert.match(printed, new RegExp(`pulumi\\.Output\\.secret\\("${secret}"\\)`));
        const [adopted] = (await s.resources(CONNECTION)).filter((r) => r.id === existing.id);
        assert.ok(adopted, "the connection is in the stack");
        assert.ok(isSecret((adopted.outputs as Record<string, unknown>).token), "its token is secret");

        // The printed code, added to the program, declares what the stack now holds. The policy
        // pack on this preview judges what the Python program registered, the explicit provider's
        // connection too; the adopted one's host is allowed. Advisory: the preview passes.
        fs.appendFileSync(path.join(project as string, "__main__.py"), `\n${printed}`);
        const judged = ok(
            await s.run("preview", {
                expectNoChanges: true,
                args: policyPackArgs(path.dirname(project as string), ["hand.example.com"]),
            }),
        );
        const reported = policyViolations(judged.stdout).get("pulumi-chatbot");
        assert.ok(reported, judged.stdout);
        assert.deepEqual(
            [...reported.keys()].sort(),
            ["orders", "partner-orders", "support"].map((name) => `advisory allowed-hosts ${name}`),
        );
        assert.match(
            reported.get("advisory allowed-hosts partner-orders")!,
            /host bot-backend\.example\.com is not one of/,
        );

        // The lookups, on in the same program: the example's connections stay as they are.
        const targets = addLookupTargets(sim, partnerSim);
        await s.setConfig({ copyStoryId: STORY, legacyId: targets.legacy });
        const moved = await lookupsThroughReplacement(s, sim, partnerSim, targets, { plain: true });

        sim.resetRequests();
        partnerSim.resetRequests();
        ok(await s.run("destroy"));
        const deleted = (...ids: Array<string | undefined>) =>
            ids.map((id) => `DELETE /v2/integrations/webhook/${id}`).sort();
        assert.deepEqual(writes(sim).sort(), deleted(orders?.id, support?.id, existing.id, moved?.id));
        assert.deepEqual(writes(partnerSim), deleted(theirs[0].id), "the second account's, through its provider");
        assertOnlyLookupTargetsLeft(sim, partnerSim, targets);

        // The schema's examples, in Python as its docstrings show them, added to the program:
        // a preview runs every one (the lookups find what addLookupTargets made) and writes nothing.
        const examples = schemaExamples(installedSchema());
        const module = path.join(project as string, "doc_examples.py");
        const { module: examplesCode, entry } = pythonExamples(examples, module);
        fs.writeFileSync(module, examplesCode);
        fs.appendFileSync(path.join(project as string, "__main__.py"), entry);
        const previewed = await previewExamples(s, sim, partnerSim, targets);
        // From the preview's stack outputs: the counts are the examples' alone, so these hold only
        // where the examples' lookups ran (the program's own lookups export the same urls).
        assertLookupOutputs(previewOutputs(previewed));

        assert.equal(pythonVenv(), venv, "one virtual environment for the run");
        assert.equal(fs.statSync(path.join(venv, ".complete")).mtimeMs, venvMadeAt, "not made again");
    });
});
