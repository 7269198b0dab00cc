#!/usr/bin/env node
/**
 * The Go SDK as a module proxy serves it: `node scripts/go-module.js --out DIR` writes
 * `DIR/<module>/@v/v<version>.{info,mod,zip}` and `list` for the module of sdk/go.mod (the files of
 * sdk/ as git sees them), and prints DIR. `GOPROXY=file://DIR` then serves `go get <module>@v<version>`,
 * which checks the zip against the module zip rules; the zip is made by golang.org/x/mod/zip
 * (tools/gomodzip), as the Go command makes one from the `sdk/v<version>` tag.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { gitFiles, sourceDateEpoch } = require("./reproducible.js");

const root = path.resolve(__dirname, "..");

function build(outDir) {
    const version = `v${JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version}`;
    const goMod = fs.readFileSync(path.join(root, "sdk", "go.mod"), "utf8");
    const module = /^module\s+(\S+)/m.exec(goMod)[1];
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-gomod-"));
    try {
        for (const file of gitFiles("sdk")) {
            const target = path.join(stage, path.relative("sdk", file));
            fs.mkdirSync(path.dirname(target), { recursive: true });
            fs.copyFileSync(path.join(root, file), target);
        }
        // Module paths with capitals are escaped on a proxy ("!x"); this one has none.
        if (module !== module.toLowerCase()) throw new Error(`go-module: ${module} needs case escaping`);
        const dir = path.join(outDir, module, "@v");
        fs.mkdirSync(dir, { recursive: true });
        execFileSync("go", ["run", ".", module, version, stage, path.join(dir, `${version}.zip`)], {
            cwd: path.join(root, "tools", "gomodzip"),
            stdio: ["ignore", 2, 2],
            env: { ...process.env, GOWORK: "off", GOFLAGS: "-mod=readonly" },
        });
        fs.writeFileSync(path.join(dir, `${version}.mod`), goMod);
        const time = new Date(sourceDateEpoch() * 1000).toISOString().replace(".000Z", "Z");
        fs.writeFileSync(path.join(dir, `${version}.info`), `${JSON.stringify({ Version: version, Time: time })}\n`);
        fs.writeFileSync(path.join(dir, "list"), `${version}\n`);
        return { module, version };
    } finally {
        fs.rmSync(stage, { recursive: true, force: true });
    }
}

module.exports = { build };

if (require.main === module) {
    const outIndex = process.argv.indexOf("--out");
    const outDir = path.resolve(outIndex >= 0 ? process.argv[outIndex + 1] : path.join(root, "release", "goproxy"));
    try {
        const { module, version } = build(outDir);
        process.stderr.write(`go-module: ${module}@${version}\n`);
        console.log(outDir);
    } catch (e) {
        console.error(`go-module: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    }
}
