#!/usr/bin/env node
/**
 * `npm run gen-sdk`: the native plugin's SDKs for other languages, in sdk/<language>, made from
 * its schema as a user's CLI makes them: `pulumi package gen-sdk <plugin> --language <language>`,
 * which asks that language's host to run Pulumi's code generator (pkg/v3/codegen/<language>).
 * Every language of LANGUAGES whose host is beside the CLI is made (`--language L` for one), with
 * the pinned CLI (tools/pulumi, v3.274.1: the committed SDKs are what its generators write), run
 * hermetically (PULUMI_HOME in a temporary folder, no plugin download). The plugin is the
 * checkout's (plugin/), so run `npm run build` first (`npm run gen-sdk` does).
 *
 * `--check` writes nothing: it generates into a temporary folder and fails, naming the files,
 * where sdk/<language> differs, so a schema change without new SDKs fails (tests/pythonProgram
 * runs it for Python). The files compared are git's view of sdk/<language>: tracked and untracked
 * ones, without what the SDK's own .gitignore leaves out (an editable install's egg-info, caches).
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const PLUGIN = path.join(root, "plugin", "pulumi-resource-chatbot");
const SDK_DIR = path.join(root, "sdk");

/** The languages made here, and what each needs after the generator has written it. */
const LANGUAGES = {
    python: {
        /** The generated pyproject.toml names README.md at the SDK's root; the generator writes the
         *  README into the package's folder only (Pulumi's own providers copy it too). */
        finish(dir) {
            const readme = path.join(dir, "pulumi_chatbot", "README.md");
            if (fs.existsSync(readme)) fs.copyFileSync(readme, path.join(dir, "README.md"));
        },
    },
    go: {
        /** The generator writes no go.mod: the SDK is the module `<repository>/sdk` (go.mod in
         *  sdk/, beside go/, released by the tag `sdk/v<version>`, as registry providers' are), on
         *  the pinned sdk/v3, with the go.sum that `go mod tidy` (from the Go module proxy) makes. */
        moduleFiles: ["go.mod", "go.sum"],
        finish(dir) {
            const { pinnedVersion } = require("./pulumi-path.js");
            const { GO_MODULE } = require(path.join(root, "dist", "native", "schema.js"));
            const moduleDir = path.dirname(dir);
            const goMod = path.join(moduleDir, "go.mod");
            if (!fs.existsSync(goMod)) fs.writeFileSync(goMod, `module ${GO_MODULE}\n\ngo 1.25\n`);
            const go = (args) =>
                execFileSync("go", args, {
                    cwd: moduleDir,
                    stdio: ["ignore", "ignore", "inherit"],
                    env: { ...process.env, GOWORK: "off" },
                });
            go(["mod", "edit", `-require=github.com/pulumi/pulumi/sdk/v3@${pinnedVersion()}`]);
            go(["mod", "tidy"]);
        },
    },
    java: {
        /** The generator (tools/pulumi/cmd/pulumi-language-java) writes the whole Maven project. */
        finish() {},
    },
};

/** The pinned CLI (built when needed). */
function pinnedCli() {
    const { pulumiPath } = require("./pulumi-path.js");
    const before = process.env.PULUMI_CHATBOT_BUILD_CLI;
    process.env.PULUMI_CHATBOT_BUILD_CLI = "1";
    try {
        return pulumiPath();
    } finally {
        if (before === undefined) delete process.env.PULUMI_CHATBOT_BUILD_CLI;
        else process.env.PULUMI_CHATBOT_BUILD_CLI = before;
    }
}

/** The languages asked for whose host is beside `cli`; the others are named on stderr. */
function availableLanguages(cli, asked) {
    return asked.filter((language) => {
        if (!LANGUAGES[language]) throw new Error(`gen-sdk: no language ${language} (${Object.keys(LANGUAGES)})`);
        const found = fs.existsSync(path.join(path.dirname(cli), `pulumi-language-${language}`));
        if (!found)
            process.stderr.write(`gen-sdk: no pulumi-language-${language} beside ${cli}: ${language} skipped\n`);
        return found;
    });
}

/** Generates `language`'s SDK into `out/<language>` (replacing what is there). */
function generate(cli, language, out) {
    if (!fs.existsSync(path.join(root, "dist", "native", "server.js"))) {
        throw new Error("gen-sdk: the plugin is not built: run `npm run build` first");
    }
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gen-sdk-home-"));
    try {
        const result = spawnSync(
            cli,
            ["package", "gen-sdk", PLUGIN, "--language", language, "--out", out, "--non-interactive"],
            {
                cwd: root,
                encoding: "utf8",
                env: {
                    ...process.env,
                    // The CLI finds the hosts it bundles beside itself, and others (Java's, which it
                    // would download) on PATH.
                    PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH}`,
                    PULUMI_HOME: home,
                    PULUMI_SKIP_UPDATE_CHECK: "true",
                    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
                },
            },
        );
        if (result.status !== 0) {
            throw new Error(`gen-sdk: pulumi package gen-sdk --language ${language} failed:\n${result.stderr}`);
        }
    } finally {
        fs.rmSync(home, { recursive: true, force: true });
    }
    LANGUAGES[language].finish(path.join(out, language));
}

/** Every regular file under `dir`, as paths relative to it. */
function walk(dir, prefix = "") {
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(prefix, e.name);
        return e.isDirectory() ? walk(path.join(dir, e.name), rel) : e.isFile() ? [rel] : [];
    });
}

/** The committed SDK's files, as git sees them (tracked and untracked, not ignored). */
function committedFiles(language) {
    const out = execFileSync(
        "git",
        ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", `sdk/${language}`],
        { cwd: root, encoding: "utf8" },
    );
    const prefix = `sdk/${language}/`;
    return [...new Set(out.split("\0").filter((f) => f.startsWith(prefix)))].map((f) => f.slice(prefix.length));
}

/** The files of sdk/<language> that differ from `generated/<language>`: missing, extra, changed. */
function differences(language, generated) {
    const made = walk(path.join(generated, language)).sort();
    const committed = committedFiles(language).sort();
    const problems = [];
    for (const file of made) {
        const there = path.join(SDK_DIR, language, file);
        if (!committed.includes(file) || !fs.existsSync(there)) problems.push(`missing: sdk/${language}/${file}`);
        else if (!fs.readFileSync(there).equals(fs.readFileSync(path.join(generated, language, file)))) {
            problems.push(`differs: sdk/${language}/${file}`);
        }
    }
    for (const file of committed) if (!made.includes(file)) problems.push(`not generated: sdk/${language}/${file}`);
    for (const file of LANGUAGES[language].moduleFiles ?? []) {
        const there = path.join(SDK_DIR, file);
        if (!fs.existsSync(there)) problems.push(`missing: sdk/${file}`);
        else if (!fs.readFileSync(there).equals(fs.readFileSync(path.join(generated, file)))) {
            problems.push(`differs: sdk/${file}`);
        }
    }
    return problems;
}

/** Generates into a temporary folder and returns, per language, how sdk/ differs from it. */
function check(languages, cli = pinnedCli()) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gen-sdk-"));
    try {
        const found = {};
        for (const language of availableLanguages(cli, languages)) {
            generate(cli, language, scratch);
            found[language] = differences(language, scratch);
        }
        return found;
    } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
    }
}

/** Writes sdk/<language> for each language. */
function write(languages, cli = pinnedCli()) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gen-sdk-"));
    try {
        for (const language of availableLanguages(cli, languages)) {
            generate(cli, language, scratch);
            const target = path.join(SDK_DIR, language);
            fs.rmSync(target, { recursive: true, force: true });
            fs.mkdirSync(SDK_DIR, { recursive: true });
            fs.cpSync(path.join(scratch, language), target, { recursive: true });
            for (const file of LANGUAGES[language].moduleFiles ?? []) {
                fs.copyFileSync(path.join(scratch, file), path.join(SDK_DIR, file));
            }
            process.stderr.write(`gen-sdk: wrote ${path.relative(root, target)} (${walk(target).length} files)\n`);
        }
    } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
    }
}

module.exports = { LANGUAGES, check, write };

if (require.main === module) {
    const args = process.argv.slice(2);
    const languages = [];
    for (let i = 0; i < args.length; i++) if (args[i] === "--language") languages.push(args[++i]);
    const asked = languages.length > 0 ? languages : Object.keys(LANGUAGES);
    try {
        if (args.includes("--check")) {
            const found = check(asked);
            const stale = Object.entries(found).filter(([, problems]) => problems.length > 0);
            for (const [language, problems] of stale) {
                console.error(`sdk/${language} is not what the schema generates:\n  ${problems.join("\n  ")}`);
            }
            if (stale.length > 0) {
                console.error("Run `npm run gen-sdk` and commit sdk/.");
                process.exit(1);
            }
            console.error(`gen-sdk: ${Object.keys(found).join(", ") || "no language"} in step with the schema`);
        } else {
            write(asked);
        }
    } catch (e) {
        console.error(e instanceof Error ? e.message : String(e));
        process.exit(1);
    }
}
