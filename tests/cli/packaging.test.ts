/**
 * The installed package (npm pack output) as a new Pulumi TypeScript project meets it: a small
 * program importing the main entry, `pulumi-chatbot/webhook` and `pulumi-chatbot/testing`
 * type-checks with the exact tsconfig of `pulumi new typescript` (strict, module commonjs,
 * moduleResolution node, no skipLibCheck, no esModuleInterop) on the oldest and newest
 * TypeScript 5 and on the latest TypeScript, and with node16 and bundler resolution (`exports`).
 * `@ts-expect-error` lines prove the types are the package's, not `any`. The public declarations
 * reach no zod: its own need esModuleInterop (63 errors TS1259 in zod/v4/locales before).
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { root } from "../helpers/support";
import { PULUMI_TEMPLATE_TSCONFIG } from "../helpers/typescriptProject";

const PROGRAM = `
import * as chatbot from "pulumi-chatbot";
import { createFetchHandler, createWebhookHandler, forLambdaFunctionUrl, probeWebhook, text } from "pulumi-chatbot/webhook";
import type { ProbeResult, WebhookHandlerOptions } from "pulumi-chatbot/webhook";
import { ChatbotSimulator } from "pulumi-chatbot/testing";

const options: WebhookHandlerOptions = { token: "t", auth: { username: "u", password: "p" } };
export const fetchHandler: (request: Request) => Promise<Response> = createFetchHandler(
    (call) => ({ responses: [text(\`Hi \${call.userId}\`)] }),
    options,
);
export const lambda = forLambdaFunctionUrl(fetchHandler);
export const listener = createWebhookHandler(() => ({ attributes: { seen: true } }), options);
export async function check(url: string): Promise<boolean> {
    const r: ProbeResult = await probeWebhook(url, { token: "t" });
    return r.ok && r.verification?.ok !== false;
}
export const start: () => Promise<ChatbotSimulator> = () => ChatbotSimulator.start({ verifyWebhooks: true });
export type Connection = chatbot.WebhookConnection;

// A lookup's result: no secret field unless asked for; its url and token go straight into a resource.
export async function lookups(): Promise<void> {
    const found = await chatbot.getWebhookConnection({ id: "x" });
    const url: string = found.url;
    // @ts-expect-error without includeSecrets there is no token
    void found.token;
    const sealed = await chatbot.getWebhookConnection({ id: "x", includeSecrets: true });
    const token: import("@pulumi/pulumi").Output<string | undefined> = sealed.token;
    const output = chatbot.getLegacyWebhookOutput({ id: "y" });
    // @ts-expect-error nor in the Output form
    void output.token;
    const withSecrets = chatbot.getLegacyWebhookOutput({ id: "y", includeSecrets: true });
    new chatbot.WebhookConnection("copy", { storyId: "s", url: output.url, token: withSecrets.token });
    new chatbot.WebhookConnection("again", { storyId: "s", url, token });
    // @ts-expect-error includeSecrets is a boolean
    void chatbot.getWebhookConnection({ id: "x", includeSecrets: "yes" });
}

// @ts-expect-error a message is a string
text(5);
// @ts-expect-error the simulator's options are typed
ChatbotSimulator.start({ verifyWebhook: true });
`;

const TEMPLATE = PULUMI_TEMPLATE_TSCONFIG;

/** The TypeScripts a user may have, each installed under its own name (package.json). */
const TYPESCRIPT = { "5.0": "typescript-5.0", "5.9": "typescript", latest: "typescript-latest" } as const;

const SETTINGS: Array<[string, keyof typeof TYPESCRIPT, Record<string, unknown>]> = [
    ["TypeScript 5.0, Pulumi's template exactly", "5.0", TEMPLATE],
    ["TypeScript 5.9, Pulumi's template exactly", "5.9", TEMPLATE],
    // TypeScript 6 deprecates and 7 removes `moduleResolution: node` (TS5108): the template's one
    // line that latest refuses, whatever is imported, so only it goes.
    [
        "the latest TypeScript, Pulumi's template without moduleResolution",
        "latest",
        omitKey(TEMPLATE, "moduleResolution"),
    ],
    ["TypeScript 5.9, node16", "5.9", { ...TEMPLATE, module: "node16", moduleResolution: "node16" }],
    ["TypeScript 5.9, bundler", "5.9", { ...TEMPLATE, module: "esnext", moduleResolution: "bundler" }],
];

function omitKey(o: Record<string, unknown>, key: string): Record<string, unknown> {
    const { [key]: _left, ...rest } = o;
    return rest;
}

describe("the installed package type-checks in a user's project", function () {
    this.timeout(120_000);
    let dir: string;
    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-packaging-"));
        // The project sees the package as installed (npm pack output, by `npm run build`).
        fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
        fs.writeFileSync(path.join(dir, "index.ts"), PROGRAM);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    for (const [name, version, compilerOptions] of SETTINGS) {
        it(name, () => {
            const file = path.join(dir, "tsconfig.json");
            fs.writeFileSync(file, JSON.stringify({ compilerOptions, files: ["index.ts"] }));
            const tsc = path.join(root, "node_modules", TYPESCRIPT[version], "bin", "tsc");
            try {
                const out = execFileSync(process.execPath, [tsc, "--version"], { encoding: "utf8" });
                if (version !== "latest") assert.ok(out.includes(`Version ${version}.`), out);
                execFileSync(process.execPath, [tsc, "-p", file, "--pretty", "false"], {
                    cwd: dir,
                    encoding: "utf8",
                    stdio: "pipe",
                });
            } catch (e) {
                const out = e as { stdout?: string; stderr?: string };
                assert.fail(`tsc failed with ${name}:\n${out.stdout ?? ""}${out.stderr ?? ""}`);
            }
        });
    }

    it("the declarations of the entries reach no zod", () => {
        const dist = path.join(root, "node_modules", "pulumi-chatbot", "dist");
        const seen = new Set<string>();
        const packages = new Set<string>();
        const visit = (file: string) => {
            if (seen.has(file)) return;
            seen.add(file);
            const text = fs.readFileSync(file, "utf8");
            for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)"([^"]+)"/g)) {
                if (spec.startsWith(".")) {
                    const target = path.resolve(path.dirname(file), spec);
                    visit(fs.existsSync(`${target}.d.ts`) ? `${target}.d.ts` : path.join(target, "index.d.ts"));
                } else {
                    const parts = spec.split("/");
                    packages.add(parts.slice(0, spec.startsWith("@") ? 2 : 1).join("/"));
                }
            }
        };
        for (const entry of ["index.d.ts", "webhook/index.d.ts", "testing/index.d.ts", "native/index.d.ts"]) {
            visit(path.join(dist, entry));
        }
        assert.ok(seen.size > 10, `${seen.size} declaration files read`);
        assert.ok(!packages.has("zod"), `reached: ${[...packages].join(", ")}`);
        assert.ok(packages.has("@pulumi/pulumi"), "the resources' declarations are read");
    });

    it("the packed package depends only on what every user needs: zod is bundled, the state readers and the policy SDK are optional peers", () => {
        const installed = path.join(root, "node_modules", "pulumi-chatbot");
        const manifest = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as {
            dependencies: Record<string, string>;
            peerDependencies: Record<string, string>;
            peerDependenciesMeta: Record<string, { optional?: boolean }>;
        };
        assert.deepEqual(Object.keys(manifest.dependencies), ["undici"]);
        for (const name of ["pg", "@aws-sdk/client-s3", "@pulumi/policy"]) {
            assert.ok(manifest.peerDependencies[name], `${name} is a peer dependency`);
            assert.equal(manifest.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
        }
        const declarations = (fs.readdirSync(path.join(installed, "dist"), { recursive: true }) as string[]).filter(
            (f) => f.endsWith(".d.ts"),
        );
        const namingZod = declarations.filter((f) =>
            /(from\s+|import\s*\(\s*)"zod["/]/.test(fs.readFileSync(path.join(installed, "dist", f), "utf8")),
        );
        assert.deepEqual(namingZod, [], "no declaration names zod, which is not a dependency");
    });

    it("npm pack builds dist first (prepack): every entry packed, and nothing an older build left there", () => {
        const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-fresh-"));
        try {
            for (const f of [
                "provider",
                "scripts",
                "plugin",
                "policy-pack",
                "package.json",
                "tsconfig.json",
                "tsconfig.build.json",
                "README.md",
            ]) {
                fs.cpSync(path.join(root, f), path.join(fresh, f), { recursive: true });
            }
            fs.symlinkSync(path.join(root, "node_modules"), path.join(fresh, "node_modules"), "dir");
            // What a build of an older source tree leaves: a module since removed, in a folder
            // since removed too.
            fs.mkdirSync(path.join(fresh, "dist", "gone"), { recursive: true });
            fs.writeFileSync(path.join(fresh, "dist", "gone", "removed.js"), "module.exports = 1;\n");
            const npm = process.platform === "win32" ? "npm.cmd" : "npm";
            const out = execFileSync(npm, ["pack", "--dry-run", "--json"], {
                cwd: fresh,
                encoding: "utf8",
                stdio: "pipe",
            });
            const [{ files }] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
            const packed = new Set(files.map((f) => f.path));
            assert.ok(packed.has("plugin/pulumi-resource-chatbot"), "the native provider plugin is packed");
            assert.ok(![...packed].some((f) => f.startsWith("dist/gone")), "an older build's file is not packed");
            assert.ok(!fs.existsSync(path.join(fresh, "dist", "gone")), "nor left in dist/");
            // The webhook contract as JSON Schema, written by the build from the zod schemas.
            for (const file of ["request", "response"]) {
                assert.ok(packed.has(`dist/webhook/schema/${file}.json`), `dist/webhook/schema/${file}.json is packed`);
            }
            for (const file of ["PulumiPolicy.yaml", "package.json", "index.js"]) {
                assert.ok(packed.has(`policy-pack/${file}`), `the policy pack's ${file} is packed`);
            }
            for (const entry of [
                "index",
                "webhook/index",
                "webhook/fetch",
                "testing/index",
                "native/index",
                "native/server",
                "policy/index",
                "policy/pack",
            ]) {
                assert.ok(packed.has(`dist/${entry}.js`), `dist/${entry}.js is packed`);
                assert.ok(packed.has(`dist/${entry}.d.ts`), `dist/${entry}.d.ts is packed`);
            }
        } finally {
            fs.rmSync(fresh, { recursive: true, force: true });
        }
    });
});
