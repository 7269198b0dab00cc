/**
 * The policy pack through the real CLI, as a pipeline runs it: `pulumi preview --policy-pack
 * node_modules/pulumi-chatbot/policy-pack`, a TypeScript program with both deliveries and a YAML one of
 * the native plugin. Each case is one CLI run; a stack serves several cases by changing its config.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { PLUGIN_YAML } from "../helpers/languagePrograms";
import { PulumiStack, STORY, tempProject, type ConfigValue, type RunResult } from "../helpers/pulumi";
import { installedTesting } from "../helpers/support";
import { policyViolations } from "../helpers/policyPack";

/** The shipped pack, where a pipeline finds it (relative to the project). */
const PACK = "node_modules/pulumi-chatbot/policy-pack";
/** A team's own pack of the exported rules, which the tests write into the project. */
const TEAM_PACK = "team-pack";

const TOKEN = "tok-policy-SECRET-1";
const PASSWORD = "pw-policy-SECRET-2";
const HEADER_VALUE = "hv-policy-SECRET-3";
const SECRETS = [TOKEN, PASSWORD, HEADER_VALUE];

/** `d-` resources are the dynamic provider's, `n-` the native plugin's. Config `variant` picks
 *  the resources: `violations` breaks each rule once per delivery, `compliant` breaks none,
 *  `advisory` passes by default (a connection without token, a url unknown at preview). */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "pulumi-chatbot";
import * as native from "pulumi-chatbot/native";

const config = new pulumi.Config();
const storyId = config.require("storyId");
const token = config.requireSecret("hookToken");
const auth = { username: "bot", password: config.requireSecret("hookPassword") };
const headers = { "X-Key": config.requireSecret("hookHeader") };
const variant = config.require("variant");

for (const [d, lib] of [["d", dynamic], ["n", native]] as const) {
    const api = (p: string) => \`https://api.example.com/\${p}-\${d}\`;
    if (variant === "violations") {
        new lib.WebhookConnection(\`\${d}-http\`, { storyId, url: \`http://api.example.com/http-\${d}\`, token, headers });
        new lib.WebhookConnection(\`\${d}-unverified\`, { storyId, url: api("unverified") });
        new lib.WebhookConnection(\`\${d}-elsewhere\`, { storyId, url: \`https://hooks.example.net/\${d}\`, auth });
        new lib.WebhookConnection(\`\${d}-twin-a\`, { storyId, url: api("twin"), token });
        new lib.WebhookConnection(\`\${d}-twin-b\`, { storyId, url: api("twin"), token });
        new lib.LegacyWebhook(\`\${d}-legacy\`, { url: api("legacy"), token });
    } else if (variant === "compliant") {
        new lib.WebhookConnection(\`\${d}-orders\`, { storyId, url: api("orders"), token, auth, headers });
    } else {
        const base = new lib.WebhookConnection(\`\${d}-base\`, { storyId, url: api("base"), token });
        new lib.WebhookConnection(\`\${d}-unverified\`, { storyId, url: api("unverified") });
        new lib.WebhookConnection(\`\${d}-later\`, {
            storyId,
            url: pulumi.interpolate\`http://api.example.com/later/\${base.id}\`,
            token,
        });
    }
}
`;

const TEAM_PACK_FILES = {
    "package.json": JSON.stringify({ name: "team-pack", version: "1.0.0" }),
    "PulumiPolicy.yaml": "runtime:\n  name: nodejs\n  options:\n    typescript: false\n",
    "index.js": `const { PolicyPack } = require("@pulumi/policy");
const { httpsOnly, callerVerified, allowedHosts, uniqueTarget, legacyWebhook } = require("pulumi-chatbot/policy");
new PolicyPack("team", { policies: [httpsOnly, callerVerified, allowedHosts, uniqueTarget, legacyWebhook] });
`,
};

/** The YAML program of the native plugin: one resource breaking each rule. */
const yamlResource = (name: string, type: string, props: Record<string, string>) =>
    `  ${name}:\n    type: chatbot:index:${type}\n    properties:\n` +
    Object.entries(props)
        .map(([key, value]) => `      ${key}: ${JSON.stringify(value)}\n`)
        .join("");
const YAML_PROGRAM =
    `name: yamlpolicy\nruntime: yaml\n${PLUGIN_YAML}config:\n  hookToken:\n    type: string\n    secret: true\nresources:\n` +
    [
        ["y-http", { url: "http://api.example.com/http", token: "${hookToken}" }],
        ["y-unverified", { url: "https://api.example.com/unverified" }],
        ["y-elsewhere", { url: "https://hooks.example.net/y", token: "${hookToken}" }],
        ["y-twin-a", { url: "https://api.example.com/twin", token: "${hookToken}" }],
        ["y-twin-b", { url: "https://api.example.com/twin", token: "${hookToken}" }],
    ]
        .map(([name, props]) =>
            yamlResource(name as string, "WebhookConnection", { storyId: STORY, ...(props as object) }),
        )
        .join("") +
    yamlResource("y-legacy", "LegacyWebhook", { url: "https://api.example.com/legacy", token: "${hookToken}" });

/** The five rules, broken once each by the resources of `prefix` (hosts allowed: *.example.com). */
const brokenOnce = (prefix: string) => [
    `mandatory https-only ${prefix}-http`,
    `advisory caller-verified ${prefix}-unverified`,
    `mandatory allowed-hosts ${prefix}-elsewhere`,
    `advisory unique-target ${prefix}-twin-b`,
    `advisory legacy-webhook ${prefix}-legacy`,
];

describe("policy pack: pulumi preview --policy-pack (real CLI)", function () {
    this.timeout(600_000);
    let sim: ChatbotSimulator;
    const cleanup: Array<() => void> = [];

    /** A stack of a project holding `files` and the team's pack, with a file of each config. */
    async function stackOf(
        name: string,
        files: Record<string, string>,
        config: Record<string, ConfigValue>,
        env: Record<string, string> = {},
    ) {
        const project = tempProject(name, files);
        fs.mkdirSync(path.join(project, TEAM_PACK));
        for (const [file, text] of Object.entries(TEAM_PACK_FILES))
            fs.writeFileSync(path.join(project, TEAM_PACK, file), text);
        const stack = await PulumiStack.create({
            projectDir: project,
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                hookToken: { secret: TOKEN },
                ...config,
            },
            env,
        });
        cleanup.push(() => {
            stack.dispose();
            fs.rmSync(path.dirname(project), { recursive: true, force: true });
        });
        return stack;
    }

    /** A policy config file in the project, for --policy-pack-config. */
    function configFile(stack: PulumiStack, name: string, config: unknown): string {
        const file = path.join(stack.projectDir, name);
        fs.writeFileSync(file, JSON.stringify(config));
        return file;
    }

    /** One CLI run, timed (the closing note reports each), which must leave ChatBot untouched
     *  unless it is an up, and must never print a secret. */
    async function run(
        stack: PulumiStack,
        label: string,
        command: "preview" | "up",
        args: string[],
    ): Promise<RunResult> {
        sim.resetRequests();
        const started = Date.now();
        const r = await stack.run(command, { args });
        console.log(`      [${label}: ${((Date.now() - started) / 1000).toFixed(1)} s]`);
        if (command === "preview") assert.deepEqual(sim.requests, [], "a preview sends no request to ChatBot");
        for (const secret of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(secret), `${label} printed a secret`);
        return r;
    }

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
    });
    after(async () => {
        for (const dispose of cleanup) dispose();
        await sim?.close();
    });

    describe("a TypeScript program with both deliveries", () => {
        let stack: PulumiStack;
        before(async () => {
            stack = await stackOf(
                "tspolicy",
                {
                    "Pulumi.yaml":
                        "name: tspolicy\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n" +
                        PLUGIN_YAML,
                    "index.ts": PROGRAM,
                    "tsconfig.json": JSON.stringify({
                        compilerOptions: {
                            strict: true,
                            target: "es2020",
                            module: "commonjs",
                            moduleResolution: "node",
                        },
                        files: ["index.ts"],
                    }),
                },
                {
                    storyId: STORY,
                    hookPassword: { secret: PASSWORD },
                    hookHeader: { secret: HEADER_VALUE },
                    variant: "violations",
                },
                // The cases are about the pack's verdicts, not the program's types: its runs only
                // transpile it.
                { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
            );
        });

        it("fails on a mandatory violation, printing each with its rule, resource and property; the exported rules in a team's pack give the same", async () => {
            const hosts = configFile(stack, "hosts.json", { "allowed-hosts": { hosts: ["*.example.com"] } });
            const r = await run(stack, "violations, shipped and team pack", "preview", [
                ...["--policy-pack", PACK, "--policy-pack-config", hosts],
                ...["--policy-pack", TEAM_PACK, "--policy-pack-config", hosts],
            ]);
            assert.notEqual(r.code, 0, r.stdout);
            const packs = policyViolations(r.stdout);
            const shipped = packs.get("pulumi-chatbot");
            assert.ok(shipped, r.stdout);
            assert.deepEqual([...shipped.keys()].sort(), [...brokenOnce("d"), ...brokenOnce("n")].sort());
            assert.deepEqual(packs.get("team"), shipped, "the team's pack of the exported rules reports the same");
            // The property and the fix, in the message.
            assert.match(shipped.get("mandatory https-only d-http")!, /url uses http, not https .* Fix: /);
            assert.match(
                shipped.get("advisory caller-verified n-unverified")!,
                /neither token nor auth is set\. Fix: /,
            );
            assert.match(shipped.get("mandatory allowed-hosts n-elsewhere")!, /host hooks\.example\.net is not one of/);
        });

        it("refuses a --policy-pack-config that the pack's schema does not accept, with the schema's message", async () => {
            const bad = configFile(stack, "bad.json", { "allowed-hosts": { hosts: "api.example.com" } });
            const r = await run(stack, "invalid config", "preview", [
                "--policy-pack",
                PACK,
                "--policy-pack-config",
                bad,
            ]);
            assert.notEqual(r.code, 0);
            assert.match(r.stdout + r.stderr, /allowed-hosts: hosts: Invalid type\. Expected: array, given: string/);
        });

        it("a compliant program previews with exit 0 and no violation", async () => {
            await stack.setConfig({ variant: "compliant" });
            const r = await run(stack, "compliant", "preview", ["--policy-pack", PACK]);
            assert.equal(r.code, 0, r.stdout + r.stderr);
            assert.equal(policyViolations(r.stdout).get("pulumi-chatbot")?.size, 0, r.stdout);
        });

        it("advisories and a url unknown at preview pass; config makes caller-verified mandatory and names allowed hosts, and then fails", async () => {
            await stack.setConfig({ variant: "advisory" });
            const passes = await run(stack, "advisory", "preview", ["--policy-pack", PACK]);
            assert.equal(passes.code, 0, passes.stdout + passes.stderr);
            const advisories = policyViolations(passes.stdout).get("pulumi-chatbot")!;
            assert.deepEqual([...advisories.keys()].sort(), [
                "advisory caller-verified d-unverified",
                "advisory caller-verified n-unverified",
                "advisory https-only d-later",
                "advisory https-only n-later",
            ]);
            assert.match(
                advisories.get("advisory https-only d-later")!,
                /can't run policy 'https-only'.* during preview/,
            );

            const stricter = configFile(stack, "stricter.json", {
                "caller-verified": "mandatory",
                "allowed-hosts": { hosts: ["*.example.org"] },
            });
            const fails = await run(stack, "advisory, stricter config", "preview", [
                ...["--policy-pack", PACK, "--policy-pack-config", stricter],
            ]);
            assert.notEqual(fails.code, 0);
            const found = [...policyViolations(fails.stdout).get("pulumi-chatbot")!.keys()];
            for (const v of [
                "mandatory caller-verified d-unverified",
                "mandatory caller-verified n-unverified",
                "mandatory allowed-hosts d-base",
            ]) {
                assert.ok(found.includes(v), `${v} in:\n${fails.stdout}`);
            }
        });

        it("the url unknown at preview is checked at up: the http url fails before it is created", async () => {
            await stack.setConfig({ variant: "advisory" });
            const up = await run(stack, "up, url known", "up", ["--policy-pack", PACK]);
            assert.notEqual(up.code, 0, up.stdout);
            const found = [...(policyViolations(up.stdout).get("pulumi-chatbot")?.keys() ?? [])];
            assert.ok(
                found.some((v) => /^mandatory https-only [dn]-later$/.test(v)),
                up.stdout,
            );
            assert.ok(
                sim.listConnections().every((c) => !c.url.includes("/later/")),
                "no connection with the http url was created",
            );
        });
    });

    it("a YAML program of the native plugin: the same violations", async () => {
        const stack = await stackOf("yamlpolicy", { "Pulumi.yaml": YAML_PROGRAM }, {});
        const hosts = configFile(stack, "hosts.json", { "allowed-hosts": { hosts: ["*.example.com"] } });
        const r = await run(stack, "YAML violations", "preview", [
            "--policy-pack",
            PACK,
            "--policy-pack-config",
            hosts,
        ]);
        assert.notEqual(r.code, 0, r.stdout);
        assert.deepEqual([...policyViolations(r.stdout).get("pulumi-chatbot")!.keys()].sort(), brokenOnce("y").sort());
    });
});
