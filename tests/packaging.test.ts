/**
 * The installed package as a Pulumi TypeScript project meets it: a small program importing the
 * main entry, `pulumi-chatbot/webhook` and `pulumi-chatbot/testing` type-checks with the settings
 * of Pulumi's TypeScript template (`"module": "commonjs", "moduleResolution": "node"`, where only
 * `typesVersions` makes the subpaths resolve), and with node16 and bundler resolution (`exports`).
 * `@ts-expect-error` lines prove the types are the package's, not `any`.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { root } from "./support";

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

// @ts-expect-error a message is a string
text(5);
// @ts-expect-error the simulator's options are typed
ChatbotSimulator.start({ verifyWebhook: true });
`;

/** Pulumi's TypeScript template, then the two resolutions that read `exports`. */
const SETTINGS: Array<[string, Record<string, unknown>]> = [
    // skipLibCheck here only because zod 4's own declarations need esModuleInterop under node10
    // resolution (TS1259 in zod/v4/locales), whichever entry of this package is imported; the
    // package's declarations are checked by the two settings below.
    ["Pulumi's template: commonjs, node", { module: "commonjs", moduleResolution: "node", skipLibCheck: true }],
    ["node16", { module: "node16", moduleResolution: "node16" }],
    ["bundler", { module: "esnext", moduleResolution: "bundler" }],
];

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

    for (const [name, resolution] of SETTINGS) {
        it(name, () => {
            const config = {
                compilerOptions: {
                    // The rest of Pulumi's template.
                    strict: true,
                    outDir: "bin",
                    target: "es2020",
                    sourceMap: true,
                    experimentalDecorators: true,
                    noFallthroughCasesInSwitch: true,
                    noImplicitReturns: true,
                    forceConsistentCasingInFileNames: true,
                    types: ["node"],
                    noEmit: true,
                    ...resolution,
                },
                files: ["index.ts"],
            };
            const file = path.join(dir, "tsconfig.json");
            fs.writeFileSync(file, JSON.stringify(config));
            const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
            try {
                execFileSync(process.execPath, [tsc, "-p", file], { cwd: dir, encoding: "utf8", stdio: "pipe" });
            } catch (e) {
                const out = e as { stdout?: string; stderr?: string };
                assert.fail(`tsc failed with ${name}:\n${out.stdout ?? ""}${out.stderr ?? ""}`);
            }
        });
    }

    it("npm pack from a checkout without dist builds it first (prepack) and packs every entry", () => {
        const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-fresh-"));
        try {
            for (const f of ["provider", "package.json", "tsconfig.json", "tsconfig.build.json", "README.md"]) {
                fs.cpSync(path.join(root, f), path.join(fresh, f), { recursive: true });
            }
            fs.symlinkSync(path.join(root, "node_modules"), path.join(fresh, "node_modules"), "dir");
            const npm = process.platform === "win32" ? "npm.cmd" : "npm";
            const out = execFileSync(npm, ["pack", "--dry-run", "--json"], {
                cwd: fresh,
                encoding: "utf8",
                stdio: "pipe",
            });
            const [{ files }] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
            const packed = new Set(files.map((f) => f.path));
            for (const entry of ["index", "webhook/index", "webhook/fetch", "testing/index"]) {
                assert.ok(packed.has(`dist/${entry}.js`), `dist/${entry}.js is packed`);
                assert.ok(packed.has(`dist/${entry}.d.ts`), `dist/${entry}.d.ts is packed`);
            }
        } finally {
            fs.rmSync(fresh, { recursive: true, force: true });
        }
    });
});
