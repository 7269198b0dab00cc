/**
 * What can be checked here of the registry's pages and the SDKs' doc comments, which Pulumi's
 * registry docs generator (not served here) and SDK generators make from the schema: every
 * resource, function and the provider has examples, each `{{% example %}}` has one block in each
 * of the five languages, every code block's tag is one the generators filter on, the examples are
 * what examples/ converts to (its programs all shown), and the package's registry metadata and
 * pages are there. tests/cli/*Program.test.ts and nativeProvider.test.ts run the examples.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { root } from "../helpers/support";
import {
    EXAMPLE_LANGUAGES,
    schemaExamples,
    type ExampleLanguage,
    type SchemaDescriptions,
} from "../helpers/schemaExamples";

const schema = require(path.join(root, "node_modules", "pulumi-chatbot", "dist", "native", "schema.js")) as {
    packageSchema(): SchemaDescriptions & { keywords: string[]; publisher?: string; logoUrl?: string };
    REPOSITORY: string;
};
const EXAMPLES_DIR = path.join(root, "provider", "native", "examples");
const genExamples = require("../../scripts/gen-examples.js") as {
    sourceHashes(name: string): Record<string, string>;
};

/** Every description in the schema, by where it is. */
function descriptions(s: Record<string, unknown>, where = ""): Array<[string, string]> {
    const found: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(s)) {
        if (key === "description" && typeof value === "string") found.push([where, value]);
        else if (value && typeof value === "object") {
            found.push(...descriptions(value as Record<string, unknown>, `${where}/${key}`));
        }
    }
    return found;
}

describe("the schema's docs, as the registry and the SDK generators read them", () => {
    const pkg = schema.packageSchema();

    it("every resource, function and the provider has examples, each in the five languages, once", () => {
        const members = [
            ...Object.keys(pkg.resources),
            ...Object.keys(pkg.functions),
            "pulumi:providers:chatbot",
        ].sort();
        const examples = schemaExamples(pkg);
        assert.deepEqual([...new Set(examples.map((e) => e.member))].sort(), members);
        for (const e of examples) {
            assert.deepEqual(Object.keys(e.code), [...EXAMPLE_LANGUAGES], `${e.member}: ${e.title}`);
            for (const lang of EXAMPLE_LANGUAGES) assert.ok(e.code[lang].trim(), `${e.member}: ${e.title}: ${lang}`);
        }
    });

    it("every code block, anywhere in the schema, is tagged with a language the generators filter on", () => {
        for (const [where, text] of descriptions(pkg as unknown as Record<string, unknown>)) {
            for (const [, tag] of text.matchAll(/^```(.*)$/gm)) {
                // A closing fence has no tag.
                if (tag === "") continue;
                assert.ok((EXAMPLE_LANGUAGES as readonly string[]).includes(tag), `${where}: a block tagged "${tag}"`);
            }
            const opened = (text.match(/\{\{% examples? %\}\}/g) ?? []).length;
            const closed = (text.match(/\{\{% \/examples? %\}\}/g) ?? []).length;
            assert.equal(opened, closed, `${where}: every shortcode closed`);
        }
    });

    it("shows every program of provider/native/examples, and each has its YAML beside it", () => {
        const names = fs
            .readdirSync(EXAMPLES_DIR)
            .filter((f) => f.endsWith(".pp"))
            .map((f) => f.slice(0, -3));
        const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, "examples.json"), "utf8")) as Record<
            string,
            Record<string, string>
        >;
        assert.deepEqual(Object.keys(json).sort(), names.sort(), "run `npm run gen-examples`");
        for (const name of names) {
            assert.ok(fs.existsSync(path.join(EXAMPLES_DIR, `${name}.yaml`)), `${name}.yaml`);
            assert.equal(
                json[name].yaml,
                fs.readFileSync(path.join(EXAMPLES_DIR, `${name}.yaml`), "utf8").trimEnd(),
                `${name}.yaml is what examples.json holds: run \`npm run gen-examples\``,
            );
        }
        const shown = new Set(schemaExamples(pkg).map((e) => e.code.python));
        for (const name of names) assert.ok(shown.has(json[name].python), `${name} is shown in the schema`);
    });

    it("examples.json was generated from the .pp and .yaml files as they are now (their hashes)", () => {
        // The conversion itself needs the CLI (`npm run gen-examples -- --check`); a source edited
        // since the last run is found here from the hashes gen-examples recorded.
        const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, "examples.json"), "utf8")) as Record<
            string,
            { sources: Record<string, string> }
        >;
        for (const [name, example] of Object.entries(json)) {
            const now = genExamples.sourceHashes(name);
            for (const [file, hash] of Object.entries(now)) {
                assert.equal(
                    example.sources?.[file],
                    hash,
                    `provider/native/examples/${file} changed since examples.json was made: run \`npm run gen-examples\``,
                );
            }
            assert.deepEqual(Object.keys(example.sources).sort(), Object.keys(now).sort(), name);
        }
    });

    it("has the registry's metadata: publisher, a logo in the repository, a category and kind/native", () => {
        assert.ok(pkg.publisher, "publisher");
        assert.ok(pkg.keywords.includes("kind/native"));
        assert.equal(pkg.keywords.filter((k) => k.startsWith("category/")).length, 1, "one category");
        const prefix = `https://raw.githubusercontent.com/${schema.REPOSITORY.slice("github.com/".length)}/main/`;
        assert.ok(pkg.logoUrl?.startsWith(prefix), String(pkg.logoUrl));
        const logo = fs.readFileSync(path.join(root, String(pkg.logoUrl).slice(prefix.length)), "utf8");
        assert.match(logo, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    });

    it("docs/_index.md and docs/installation-configuration.md have the registry's front matter; _index.md's first program is the schema's first example in each language", () => {
        for (const page of ["_index.md", "installation-configuration.md"]) {
            const text = fs.readFileSync(path.join(root, "docs", page), "utf8");
            assert.match(text, /^---\ntitle: .+\nmeta_desc: .+\nlayout: package\n---\n/, page);
        }
        const index = fs.readFileSync(path.join(root, "docs", "_index.md"), "utf8");
        const first = schemaExamples(pkg).find((e) => e.member === "chatbot:index:WebhookConnection");
        for (const lang of EXAMPLE_LANGUAGES) {
            const block = new RegExp(
                `\\{\\{% choosable language ${lang} %\\}\\}\\n\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``,
            );
            assert.equal(block.exec(index)?.[1], first?.code[lang], `docs/_index.md's ${lang}`);
        }
    });
});

/** The pages whose whole programs are the schema's examples: the language of their blocks, and
 *  how a whole program of it starts (a fragment, as the lookups' lines are, is not one). */
const DOC_PROGRAMS: Array<[page: string, lang: ExampleLanguage, start: RegExp]> = [
    ["docs/python.md", "python", /^import pulumi\n/],
    ["docs/go.md", "go", /^package main\n/],
    ["docs/java.md", "java", /^package [\w.]+;\n/],
];

/** The README's first program as an example of the schema gives it: the README shows the dynamic
 *  provider, `pulumi-chatbot`, whose classes take the native ones' arguments, and leaves out the
 *  example's comment lines (the README's size is held to 16 KB; its tables say the same). */
function asInReadme(typescript: string): string {
    return typescript
        .split("\n")
        .filter((line) => !/^\s*\/\//.test(line))
        .join("\n")
        .replace('from "pulumi-chatbot/native"', 'from "pulumi-chatbot"');
}

describe("the docs' programs are the schema's examples", () => {
    const examples = schemaExamples(schema.packageSchema());

    for (const [page, lang, start] of DOC_PROGRAMS) {
        it(`${page}: every whole ${lang} program is one of the schema's ${lang} examples, as it shows them`, () => {
            const text = fs.readFileSync(path.join(root, page), "utf8");
            const programs = [...text.matchAll(new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)\n\`\`\`$`, "gm"))]
                .map((m) => m[1])
                .filter((code) => start.test(code));
            assert.ok(programs.length > 0, `${page} shows a whole program`);
            const shown = new Set(examples.map((e) => e.code[lang]));
            for (const program of programs) {
                assert.ok(
                    shown.has(program),
                    `${page}'s program is not one of the schema's examples (copy it from provider/native/examples/examples.json):\n${program}`,
                );
            }
        });
    }

    it("README.md's first program is a schema example in TypeScript, imported from the dynamic provider, its comment lines left out", () => {
        const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
        const first = /^```ts\n([\s\S]*?)\n```$/m.exec(readme)?.[1];
        const forms = examples.map((e) => asInReadme(e.code.typescript));
        assert.ok(
            first !== undefined && forms.includes(first),
            `README.md's first program is not a schema example as the README shows them, e.g.:\n${forms[0]}`,
        );
    });
});

describe("the schema's TypeScript examples", function () {
    this.timeout(120_000);

    it("type-check, each as its own module, against the installed package's pulumi-chatbot/native", () => {
        // The native walk (nativeProvider.test.ts) previews them, but only transpiles them: here the
        // compiler holds each one, under strict, to the classes' and functions' types and names.
        const ts = require("typescript") as typeof import("typescript");
        const examples = schemaExamples(schema.packageSchema());
        const dir = fs.mkdtempSync(path.join(root, ".pulumi-chatbot-examples-tsc-"));
        try {
            const files = examples.map((e, i) => {
                const file = path.join(dir, `example${i}.ts`);
                fs.writeFileSync(file, e.code.typescript);
                return file;
            });
            const program = ts.createProgram(files, {
                strict: true,
                noEmit: true,
                target: ts.ScriptTarget.ES2022,
                module: ts.ModuleKind.Node16,
                moduleResolution: ts.ModuleResolutionKind.Node16,
                esModuleInterop: true,
                skipLibCheck: true,
                types: [],
            });
            const problems = ts
                .getPreEmitDiagnostics(program)
                .map(
                    (d) =>
                        `${path.basename(d.file?.fileName ?? "")}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
                );
            assert.deepEqual(problems, []);
            assert.ok(examples.length >= 8, `${examples.length} examples`);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
