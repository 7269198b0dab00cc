/**
 * What an account holds cannot run code (issue 65): each string `discover` writes into a program
 * is read back by that language's own parser, and equals the account's value. Python's `ast`,
 * Go's compiler, the Java compiler (`java` running a source file), TypeScript's parser, and Pulumi
 * YAML's own parser with its interpolation (tools/pulumi-yaml/readback), each over the hostile
 * values an attacker tried and 300 random strings of any code point (fast-check, fixed seed).
 * YAML's cases need the pinned pulumi-yaml built (npm test builds it first; the quick tier on a
 * fresh machine skips them, saying so in its count).
 * A value no program can hold (a lone surrogate, NUL) is refused, naming the connection's id and
 * the field, never the value. The programs `pulumi convert` writes from these are run through the
 * real CLI in tests/cli/discover.test.ts.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import fc from "fast-check";
import * as ts from "typescript";
import { generateProgram, Unwritable, type Found } from "../../provider/cli/generate";
import { literal, unwritable, type LiteralLanguage } from "../../provider/cli/literals";
import { root } from "../helpers/support";

/** What was tried against discover at f44abb5 (issue 65), and more of the same kinds. */
export const HOSTILE = [
    // Python: code after a triple quote, which Pulumi's generator left raw inside `"""…"""`.
    'x\n""" + str(__import__("os").system("touch /tmp/pwned")) + """',
    "x\n''' + str(__import__('os').system('id')) + '''",
    // YAML: NEL, a line break to YAML, then a resource; Pulumi YAML's `$$` and `${`.
    'n\u0085  evil:\n    type: pulumi:providers:chatbot\n    properties: {token: {fn::readFile: "/etc/passwd"}}',
    "$${x}",
    "${pulumi.stack}",
    "$$",
    "a$",
    "%{x}",
    // Terminal and invisible characters, line and paragraph separators, noncharacters.
    "\u001b[2K\r ok",
    "\u2028\u2029",
    "\ufeffbom",
    "del\u007f c1\u0080\u009b",
    "\ufffe\uffff",
    "rtl\u202eevil",
    "\t\r\n\v\f\b",
    "null",
    // Java reads \uXXXX before it reads a literal; Go's raw strings; comments.
    "\\u000a\\u0022); System.exit(1); (\\u0022",
    "\\",
    '"',
    "'",
    "`raw`",
    "*/ /* -->",
    "😀 née \u{f0000} \u{10fffd}",
];

const STRINGS = [
    ...HOSTILE,
    ...fc.sample(
        fc.string({ unit: "binary", maxLength: 30 }).filter((s) => unwritable(s) === undefined),
        { seed: 20261205, numRuns: 300 },
    ),
];

const has = (command: string, args: string[]) => () => spawnSync(command, args).status === 0;

/** Whether the pinned pulumi-yaml has been built here (with the CLI, by `npm test`'s pre-step): its
 *  packages are then in the Go build cache and readback builds in a second, where a cold build of
 *  them takes minutes, too long for the quick tier on a fresh machine. */
const pulumiYamlBuilt = () => {
    const cli = path.join(root, ".pulumi-cli");
    return (
        has("go", ["version"])() &&
        fs.existsSync(cli) &&
        fs.readdirSync(cli).some((v) => fs.existsSync(path.join(cli, v, "pulumi-language-yaml")))
    );
};

/** Runs a language's reader on a file; its standard output. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
    const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
    assert.equal(r.status, 0, `${command} ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
}

/** Pulumi YAML's reading of a Pulumi.yaml, by the pinned pulumi-yaml's own packages; built as the
 *  language host is (pulumi-path.js), so its packages come from the Go build cache. */
export function pulumiYamlReads(file: string): Record<string, { type: string; name: string; properties: unknown }> {
    const out = run("go", ["run", "-trimpath", "-tags", "osusergo,grpcnotrace", "./readback", file], {
        cwd: path.join(root, "tools", "pulumi-yaml"),
        env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly", GOWORK: "off" },
    });
    return JSON.parse(out);
}

/** Each language: a file holding every string as a literal, and what its parser reads from it. */
const READERS: Record<LiteralLanguage, { needs?: () => boolean; read(dir: string, values: string[]): string[] }> = {
    typescript: {
        read: (_dir, values) => {
            const source = ts.createSourceFile(
                "values.ts",
                `export const v = [\n${values.map((s) => `    ${literal("typescript", s)},`).join("\n")}\n];\n`,
                ts.ScriptTarget.ES2022,
            );
            const statement = source.statements[0] as ts.VariableStatement;
            assert.equal(source.statements.length, 1);
            const list = statement.declarationList.declarations[0].initializer as ts.ArrayLiteralExpression;
            return list.elements.map((e) => {
                assert.ok(ts.isStringLiteral(e), "a string literal");
                return e.text;
            });
        },
    },
    python: {
        needs: has("python3", ["--version"]),
        read: (dir, values) => {
            const file = path.join(dir, "values.py");
            fs.writeFileSync(file, `v = [\n${values.map((s) => `    ${literal("python", s)},`).join("\n")}\n]\n`);
            const script =
                "import ast, json, sys\n" +
                "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())\n" +
                "assert len(tree.body) == 1\n" +
                "values = tree.body[0].value.elts\n" +
                "assert all(type(e) is ast.Constant and type(e.value) is str for e in values)\n" +
                "print(json.dumps([e.value for e in values]))\n";
            return JSON.parse(run("python3", ["-c", script, file]));
        },
    },
    go: {
        needs: has("go", ["version"]),
        read: (dir, values) => {
            const file = path.join(dir, "values.go");
            fs.writeFileSync(
                file,
                'package main\n\nimport (\n\t"encoding/json"\n\t"os"\n)\n\nvar v = []string{\n' +
                    values.map((s) => `\t${literal("go", s)},`).join("\n") +
                    "\n}\n\nfunc main() { _ = json.NewEncoder(os.Stdout).Encode(v) }\n",
            );
            return JSON.parse(
                run("go", ["run", "-trimpath", "-tags", "osusergo,grpcnotrace", file], {
                    env: { ...process.env, CGO_ENABLED: "0", GOWORK: "off", GOFLAGS: "" },
                }),
            );
        },
    },
    java: {
        needs: has("java", ["-version"]),
        read: (dir, values) => {
            const file = path.join(dir, "Values.java");
            // Each string as its UTF-16 units in hex: no encoding of the output is trusted.
            fs.writeFileSync(
                file,
                "class Values {\n    public static void main(String[] a) {\n        String[] v = {\n" +
                    values.map((s) => `            ${literal("java", s)},`).join("\n") +
                    '\n        };\n        for (String s : v) {\n            StringBuilder b = new StringBuilder("[");\n' +
                    '            for (int i = 0; i < s.length(); i++) b.append(i == 0 ? "" : ",").append((int) s.charAt(i));\n' +
                    '            System.out.println(b.append("]"));\n        }\n    }\n}\n',
            );
            return run("java", [file])
                .trim()
                .split("\n")
                .map((line) => String.fromCharCode(...(JSON.parse(line) as number[])));
        },
    },
    yaml: {
        needs: pulumiYamlBuilt,
        read: (dir, values) => {
            const file = path.join(dir, "Pulumi.yaml");
            fs.writeFileSync(
                file,
                "name: values\nruntime: yaml\nresources:\n  r:\n    type: chatbot:index:WebhookConnection\n    properties:\n      v:\n" +
                    values.map((s) => `        - ${literal("yaml", s)}\n`).join("") +
                    "      m:\n" +
                    values.map((s, i) => `        ${literal("yaml", s)}: "${i}"\n`).join(""),
            );
            const read = pulumiYamlReads(file);
            assert.deepEqual(Object.keys(read), ["r"], "no resource but the one written");
            const [[, list], [, map]] = read.r.properties as [[string, string[]], [string, { object: string[][] }]];
            // A map's keys are read too: each key is its value again.
            const keys = map.object.map(([k, i]) => [k, Number(i)] as const).filter(([, i]) => i >= 0);
            assert.deepEqual(
                new Map(keys.map(([k]) => [k, true])).size,
                new Set(values).size,
                "every key read as written",
            );
            for (const [k, i] of keys) assert.equal(k, values[i]);
            return list;
        },
    },
};

describe("discover: every account string written exactly, read back by each language's own parser (issue 65)", function () {
    this.timeout(120_000);
    let dir: string;
    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-literals-"));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    for (const [language, reader] of Object.entries(READERS)) {
        it(`${language}: ${HOSTILE.length} hostile values and 300 random strings read back as written`, function () {
            if (reader.needs && !reader.needs()) this.skip();
            const read = reader.read(dir, STRINGS);
            assert.equal(read.length, STRINGS.length);
            for (let i = 0; i < STRINGS.length; i++) assert.equal(read[i], STRINGS[i], `value ${i}`);
        });
    }

    it("comments and literals hold nothing a reader does not see: no line break, escape or invisible character", () => {
        for (const language of Object.keys(READERS) as LiteralLanguage[]) {
            for (const s of STRINGS) {
                assert.doesNotMatch(
                    literal(language, s),
                    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u,
                    `${language}: ${JSON.stringify(s)}`,
                );
            }
        }
        for (const s of STRINGS) assert.match(literal("java", s), /^[\x20-\x7e]*$/, "Java's source is ASCII");
    });

    const legacy = (id: string, name: string, more: Record<string, unknown> = {}): Found => ({
        kind: "LegacyWebhook",
        id,
        outputs: { name, url: "https://a.example.com/x", lastError: null, lastErrorAt: null, ...more },
    });

    it("refuses a value no program can hold (a lone surrogate, NUL), naming the id and the field, never the value", () => {
        const cases: Array<[Found, RegExp]> = [
            [legacy("id-1", "a\ud800b"), /legacy webhook "id-1" \("a\\u\{d800\}b"\): its name holds a lone surrogate/],
            [legacy("id-2", "ok", { token: "s3cr3t\0" }), /"id-2" \("ok"\): its token holds a NUL character/],
            [
                legacy("id-3", "ok", { headers: [{ name: "X-K", value: "v\0hidden" }] }),
                /its headers\[0\]\.value holds a NUL/,
            ],
            [legacy("id-4", "ok", { auth: { username: "u\udc00", password: "p" } }), /its auth\.username holds a lone/],
        ];
        for (const language of ["typescript", "pcl", "yaml"] as const) {
            for (const [found, message] of cases) {
                assert.throws(
                    () => generateProgram([legacy("fine", "fine"), found], language, "https://api.chatbot.com"),
                    (e: Error) =>
                        e instanceof Unwritable && message.test(e.message) && !/s3cr3t|hidden/.test(e.message),
                    `${language}: ${found.id}`,
                );
            }
        }
    });

    it("yaml: a header named fn::readFile is refused, as Pulumi YAML would call the function", () => {
        const found: Found = {
            kind: "WebhookConnection",
            id: "c1",
            outputs: {
                name: "n",
                url: "https://a.example.com",
                storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
                story: { id: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "s" },
                headers: { "fn::readFile": "/etc/passwd" },
            },
        };
        assert.throws(
            () => generateProgram([found], "yaml", "https://x"),
            /headers key "fn::readFile" would be read by Pulumi YAML as a function/,
        );
        assert.doesNotThrow(() => generateProgram([found], "typescript", "https://x"));
    });

    it("the YAML program discover writes: Pulumi YAML reads each hostile connection's fields as the account holds them, and nothing more", function () {
        if (!pulumiYamlBuilt()) this.skip();
        const found = HOSTILE.map((name, i) =>
            legacy(`id-${i}`, name, { url: `https://a.example.com/${encodeURIComponent(name)}` }),
        );
        const g = generateProgram(found, "yaml", "https://api.chatbot.com/\u0085x: y");
        const file = path.join(dir, "Pulumi.yaml");
        fs.writeFileSync(file, `name: adopted\nruntime: yaml\n${g.program}`);
        const read = pulumiYamlReads(file);
        assert.equal(Object.keys(read).length, HOSTILE.length, "one resource a connection, none injected");
        const byId = new Map(
            Object.values(read).map((r) => [
                (r.properties as Array<[string, unknown]>).find(([k]) => k === "adoptId")?.[1],
                Object.fromEntries(r.properties as Array<[string, unknown]>),
            ]),
        );
        for (const f of found) {
            assert.deepEqual(byId.get(f.id), { adoptId: f.id, name: f.outputs.name, url: f.outputs.url });
        }
    });

    it("the TypeScript program discover writes parses to one statement a connection, each field as the account holds it", () => {
        const found = HOSTILE.map((name, i) => legacy(`id-${i}`, name));
        const g = generateProgram(found, "typescript", "https://api.chatbot.com/\u2028x");
        const source = ts.createSourceFile("index.ts", g.program, ts.ScriptTarget.ES2022);
        const news = source.statements.filter(
            (s) => ts.isExpressionStatement(s) && ts.isNewExpression(s.expression),
        ) as ts.ExpressionStatement[];
        // Two imports and `void pulumi;` (no secret to read from config), then a `new` a connection.
        assert.equal(source.statements.length, 3 + news.length, "no statement but the program's own");
        assert.equal(news.length, HOSTILE.length);
        news.forEach((s, i) => {
            const args = (s.expression as ts.NewExpression).arguments as ts.NodeArray<ts.Expression>;
            const inputs = Object.fromEntries(
                (args[1] as ts.ObjectLiteralExpression).properties.map((p) => {
                    const a = p as ts.PropertyAssignment;
                    return [(a.name as ts.Identifier).text, (a.initializer as ts.StringLiteral).text];
                }),
            );
            assert.deepEqual(inputs, { adoptId: found[i].id, name: found[i].outputs.name, url: found[i].outputs.url });
        });
    });
});
