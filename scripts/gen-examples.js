#!/usr/bin/env node
/**
 * `npm run gen-examples`: the schema's examples in each language, from programs written once.
 * Each provider/native/examples/<name>.pp (PCL) is turned into TypeScript, Python, Go and Java by
 * `pulumi convert --from pcl --language <lang> --generate-only`, as `discover` does (the pinned
 * CLI, hermetically, the schema read from the checkout's plugin); <name>.yaml beside it is the
 * YAML, written by hand: pulumi v3.274.1's `convert --language yaml` fails (it asks the YAML host
 * to Link, which Pulumi YAML v1.25.0 does not implement), and the program it writes before failing
 * drops `secret` from a config value given to a top-level property. The result is
 * provider/native/examples/examples.json, committed: the build reads it, so it needs no pulumi CLI.
 * Each example there records the SHA-256 of the .pp and .yaml it was made from (`sources`), so that
 * tests/unit/schemaDocs.test.ts finds a program edited without regenerating, with no CLI.
 *
 * `--check` writes nothing and fails, naming the examples, where examples.json differs from what
 * the programs convert to.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const DIR = path.join(root, "provider", "native", "examples");
const OUT = path.join(DIR, "examples.json");
const PLUGIN_DIR = path.join(root, "plugin");

/** Each language `pulumi convert` writes, and the file of its project that holds the program. */
const CONVERTED = {
    typescript: "index.ts",
    python: "__main__.py",
    go: "main.go",
    java: path.join("src", "main", "java", "generated_program", "App.java"),
};

/** What Pulumi's program generators write that the SDK does not have. */
const FIXES = {
    // Pulumi's Go program generator names a `get` function of an `index` token (`chatbot:index:getX`)
    // GetX, where the Go SDK generator, to keep GetX free for the resource's own lookup, names it
    // LookupX when a resource X exists (pkg/codegen/go gen.go); the program generator finds that
    // rename only for tokens of the `index/getX:getX` form.
    // And it reads a list field of an Output-form result by an ApplyT that asserts a slice to a
    // slice, which does not compile; the result's own accessor (`.Items()`) is that field.
    go: (text, sdkNames) =>
        text
            .replace(/\bchatbot\.Get(\w+?)(OutputArgs|Output|Args)?\b/g, (whole, name, suffix = "") =>
                sdkNames.has(`Lookup${name}`) ? `chatbot.Lookup${name}${suffix}` : whole,
            )
            .replace(
                /(\w+)\.ApplyT\(func\(\w+ chatbot\.\w+Result\) \(\[\]chatbot\.\w+, error\) \{\n\s*return \w+\.(\w+)\.\(\[\]chatbot\.\w+\), nil\n\s*\}\)\.\(pulumi\.ArrayOutput\)/g,
                "$1.$2()",
            ),
    // The generator's banner says not to edit the file: in an example it says nothing.
    java: (text) => text.replace(/^(\/\/ \*\*\*.*\*\*\*\n)+\n/, ""),
};

/** The Go SDK's exported function names (sdk/go/chatbot), for FIXES.go. */
function goSdkNames() {
    const dir = path.join(root, "sdk", "go", "chatbot");
    const names = new Set();
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".go"))) {
        for (const m of fs.readFileSync(path.join(dir, file), "utf8").matchAll(/^func (\w+)\(/gm)) names.add(m[1]);
    }
    return names;
}

/** `sources` of an example in examples.json: each file it is made from, by name, to its SHA-256. */
function sourceHashes(name) {
    return Object.fromEntries(
        [`${name}.pp`, `${name}.yaml`].map((file) => [
            file,
            crypto
                .createHash("sha256")
                .update(fs.readFileSync(path.join(DIR, file)))
                .digest("hex"),
        ]),
    );
}

function convert(cli, pcl, language, home) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gen-examples-"));
    try {
        const project = path.join(work, "pcl");
        fs.mkdirSync(project);
        fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            `name: example\nruntime: ${language === "typescript" ? "nodejs" : language}\n` +
                `plugins:\n  providers:\n    - name: chatbot\n      path: ${JSON.stringify(PLUGIN_DIR)}\n`,
        );
        fs.writeFileSync(path.join(project, "main.pp"), pcl);
        const out = path.join(work, "out");
        const result = spawnSync(
            cli,
            ["convert", "--cwd", project, "--from", "pcl", "--language", language, "--out", out, "--generate-only"],
            {
                encoding: "utf8",
                env: {
                    ...process.env,
                    PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH}`,
                    PULUMI_HOME: home,
                    PULUMI_SKIP_UPDATE_CHECK: "true",
                    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
                },
            },
        );
        if (result.status !== 0) throw new Error(`gen-examples: convert --language ${language}:\n${result.stderr}`);
        return fs.readFileSync(path.join(out, CONVERTED[language]), "utf8");
    } finally {
        fs.rmSync(work, { recursive: true, force: true });
    }
}

/** Every example, by name, in every language: what examples.json holds. */
function generate() {
    if (!fs.existsSync(path.join(root, "dist", "native", "server.js"))) {
        throw new Error("gen-examples: the plugin is not built: run `npm run build` first");
    }
    const { pulumiPath } = require("./pulumi-path.js");
    const cli = pulumiPath();
    const sdkNames = goSdkNames();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gen-examples-home-"));
    try {
        const examples = {};
        for (const file of fs
            .readdirSync(DIR)
            .filter((f) => f.endsWith(".pp"))
            .sort()) {
            const name = file.slice(0, -3);
            const pcl = fs.readFileSync(path.join(DIR, file), "utf8");
            const yaml = path.join(DIR, `${name}.yaml`);
            if (!fs.existsSync(yaml)) throw new Error(`gen-examples: ${file} has no ${name}.yaml beside it`);
            const languages = {};
            for (const language of Object.keys(CONVERTED)) {
                const text = convert(cli, pcl, language, home);
                languages[language] = (FIXES[language] ? FIXES[language](text, sdkNames) : text).trimEnd();
            }
            languages.yaml = fs.readFileSync(yaml, "utf8").trimEnd();
            languages.sources = sourceHashes(name);
            examples[name] = languages;
        }
        return `${JSON.stringify(examples, null, 4)}\n`;
    } finally {
        fs.rmSync(home, { recursive: true, force: true });
    }
}

module.exports = { generate, sourceHashes, DIR, OUT };

if (require.main === module) {
    try {
        const made = generate();
        if (process.argv.includes("--check")) {
            const committed = fs.existsSync(OUT) ? fs.readFileSync(OUT, "utf8") : "";
            if (committed !== made) {
                console.error(
                    `${path.relative(root, OUT)} is not what the examples convert to: run \`npm run gen-examples\`.`,
                );
                process.exit(1);
            }
            console.error("gen-examples: examples.json in step with the programs");
        } else {
            fs.writeFileSync(OUT, made);
            console.error(`gen-examples: wrote ${path.relative(root, OUT)}`);
        }
    } catch (e) {
        console.error(e instanceof Error ? e.message : String(e));
        process.exit(1);
    }
}
