/**
 * The README's TypeScript compiles as pasted: each ```ts block, against the installed package,
 * under `pulumi new typescript`'s tsconfig. A block with no import of its own continues the first
 * program (as "Looking connections up" does), so it is compiled after it. And the README stays
 * within its size, for users, with depth in docs/.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { root } from "../helpers/support";
import { PULUMI_TEMPLATE_TSCONFIG } from "../helpers/typescriptProject";

const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

describe("the README", function () {
    this.timeout(120_000);

    it("is at most 16 KB", () => {
        assert.ok(Buffer.byteLength(readme) <= 16_000, `the README is ${Buffer.byteLength(readme)} bytes`);
    });

    it("its first program's config lines set every value the program reads", () => {
        const program = blocks[0];
        const commands = readme.slice(readme.indexOf("```sh\npulumi config set"), readme.indexOf("## A first program"));
        const reads = [...program.matchAll(/config\.(require|requireSecret)\("([^"]+)"\)/g)];
        assert.ok(reads.length > 0, "the first program reads its config as `config.require...`");
        for (const [, kind, key] of reads) {
            const line = new RegExp(`pulumi config set ${kind === "requireSecret" ? "--secret " : ""}${key} `);
            assert.match(
                commands,
                line,
                `the config lines set ${key}${kind === "requireSecret" ? " as a secret" : ""}`,
            );
        }
    });

    it("every TypeScript block compiles as pasted (a block without imports after the first program)", () => {
        assert.ok(blocks.length >= 4, `${blocks.length} TypeScript blocks found`);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-readme-"));
        try {
            // The project sees the package as installed (npm pack output, by `npm run build`).
            fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
            const files = blocks.map((code, i) => {
                const file = `block${i}.ts`;
                const whole = /^import /m.test(code) ? code : `${blocks[0]}\n${code}`;
                fs.writeFileSync(path.join(dir, file), whole);
                return file;
            });
            const tsconfig = path.join(dir, "tsconfig.json");
            fs.writeFileSync(tsconfig, JSON.stringify({ compilerOptions: PULUMI_TEMPLATE_TSCONFIG, files }));
            const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
            try {
                execFileSync(process.execPath, [tsc, "-p", tsconfig, "--pretty", "false"], { cwd: dir, stdio: "pipe" });
            } catch (e) {
                const out = e as { stdout?: Buffer; stderr?: Buffer };
                assert.fail(`the README's TypeScript does not compile:\n${out.stdout ?? ""}${out.stderr ?? ""}`);
            }
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
