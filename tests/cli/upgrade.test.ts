/**
 * Upgrades never touch production: the state each released version wrote (a fixture per version,
 * made by `npm run upgrade-fixture` with that version's build: both deliveries, both resource
 * types, every kind of secret) is imported into a new stack and previewed by this build, through
 * the real CLI. The preview shows no change (`--expect-no-changes` exits 0) and sends nothing to
 * ChatBot. docs/releasing.md's semver policy names this test: a release that fails it is breaking.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting, PACKAGE_VERSION } from "../helpers/support";
import { ok, PulumiStack, tempProject } from "../helpers/pulumi";
import { FIXTURE } from "../../scripts/upgrade-fixture";

const FIXTURES = path.dirname(FIXTURE.dir("0"));
const versions = fs
    .readdirSync(FIXTURES)
    .filter((d) => /^v\d+\.\d+\.\d+/.test(d))
    .map((d) => d.slice(1));

describe("upgrades: the state an earlier version wrote previews with no change", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    before(async () => {
        // The port and token the fixture's stack config names.
        sim = await installedTesting().ChatbotSimulator.start({
            port: FIXTURE.port,
            token: FIXTURE.developerToken,
            stories: { [FIXTURE.storyId]: "Shop" },
        });
    });
    after(async () => await sim?.close());

    it("there is a fixture of 0.1.0, the first release", () => assert.ok(versions.includes("0.1.0"), `${versions}`));

    for (const version of versions) {
        it(`${version}: pulumi stack import, then preview --expect-no-changes exits 0 and sends nothing`, async () => {
            const dir = FIXTURE.dir(version);
            const read = (file: string) => fs.readFileSync(path.join(dir, file), "utf8");
            const project = tempProject(FIXTURE.project, {
                "Pulumi.yaml": read("Pulumi.yaml"),
                "index.js": read("index.js"),
                // The stack's config as it was, with its encryption salt: the state's secrets
                // were sealed with it.
                [`Pulumi.${FIXTURE.stack}.yaml`]: read(`Pulumi.${FIXTURE.stack}.yaml`),
            });
            const stack = await PulumiStack.create({ projectDir: project, stack: FIXTURE.stack });
            try {
                const imported = await stack.pulumi(["stack", "import", "--file", path.join(dir, "stack.json")]);
                assert.equal(imported.code, 0, imported.stderr);
                const before = (await stack.export()).deployment.resources?.length;
                sim.resetRequests();
                const preview = ok(await stack.run("preview", { expectNoChanges: true, args: ["--diff"] }));
                assert.deepEqual(sim.requests, [], "the preview sends nothing to ChatBot");
                const custom = preview.steps.filter((s) => !s.type.startsWith("pulumi:"));
                assert.ok(custom.length >= 6, `every resource was previewed: ${JSON.stringify(preview.steps)}`);
                // The native classes now name the plugin's version and download address (issue 37),
                // so the engine's default chatbot provider of an older state is swapped for the one
                // named by them: a step of the engine's own, not counted by --expect-no-changes
                // (which passed above), with no request to ChatBot. Everything else is the same.
                const swapped = (s: { op: string; type: string; name: string }) =>
                    s.type === "pulumi:providers:chatbot" &&
                    ((s.op === "create" &&
                        s.name ===
                            `default_${PACKAGE_VERSION.replace(/\./g, "_")}_github_/api.github.com/pulumi-chatbot/pulumi-chatbot`) ||
                        (s.op === "delete" && s.name === "default"));
                assert.deepEqual(
                    [...new Set(preview.steps.filter((s) => !swapped(s)).map((s) => s.op))],
                    ["same"],
                    JSON.stringify(preview.steps),
                );
                assert.equal((await stack.export()).deployment.resources?.length, before, "the state is unchanged");
            } finally {
                stack.dispose();
                fs.rmSync(path.dirname(project), { recursive: true, force: true });
            }
        });
    }
});
