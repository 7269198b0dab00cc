#!/usr/bin/env node
/**
 * `npm run release`: every artifact of this version, in release/v<version>/ (printed as the last
 * line), from the commit checked out and the registries the build already uses:
 *
 *   pulumi-chatbot-<version>.tgz                          the npm package (npm pack)
 *   pulumi-resource-chatbot-v<version>-<os>-<arch>.tar.gz the plugin, per platform (scripts/plugin.js)
 *   pulumi-resource-chatbot-v<version>.sbom.cdx.json      CycloneDX: what the plugin ships
 *   pulumi_chatbot-<version>-py3-none-any.whl, .tar.gz    the Python SDK (scripts/python-dist.js)
 *   goproxy/<module>/@v/v<version>.{info,mod,zip}, list   the Go SDK as a proxy serves it (scripts/go-module.js)
 *   maven/<group>/<artifact>/<version>/…                  the Java SDK as a Maven repository: jar, sources,
 *                                                         javadoc, pom, .sha1/.md5 (scripts/java-dist.js)
 *   schema.json                                           the package schema the SDKs come from
 *   webhook/schema/request.json, response.json            the webhook contract as JSON Schema, as the npm
 *                                                         package ships it (pulumi-chatbot/webhook/schema/…)
 *   SHA256SUMS                                            sha256sum's format, over all of the above
 *
 * `--out DIR` writes them in DIR instead (the tests build a release once per run into a folder of
 * their own, and again into another).
 *
 * The npm package is dist/ as `npm run build` (which `npm run release` runs first) has just made
 * it: when dist/ is build-clean's output of the sources now (scripts/dist-state.js) it is packed as
 * it is, with `--ignore-scripts`; otherwise `npm pack` builds it first (prepack).
 *
 * The same commit gives the same bytes (every time is the commit's; entries are sorted; no path
 * of this machine is written): tests/cli/release.test.ts builds twice and compares SHA256SUMS.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

/** Every file under `dir`, relative to it with `/`, sorted. */
function files(dir, prefix = "") {
    return fs
        .readdirSync(path.join(dir, prefix), { withFileTypes: true })
        .flatMap((e) => {
            const rel = prefix ? `${prefix}/${e.name}` : e.name;
            return e.isDirectory() ? files(dir, rel) : [rel];
        })
        .sort();
}

/** Runs `node <script> <args>` and returns the last line it printed. */
function run(script, args) {
    const out = execFileSync(process.execPath, [path.join(__dirname, script), ...args], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", 2],
    });
    return out.trim().split("\n").pop();
}

function step(name, work) {
    const started = Date.now();
    work();
    process.stderr.write(`release: ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

function main() {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    const outIndex = process.argv.indexOf("--out");
    const out = outIndex >= 0 ? path.resolve(process.argv[outIndex + 1]) : path.join(root, "release", `v${version}`);
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const built = require("./dist-state.js").isCurrent(root);
    step(built ? "npm package (dist/ current, packed as built)" : "npm package (prepack builds dist/)", () =>
        execFileSync(npm, ["pack", "--silent", ...(built ? ["--ignore-scripts"] : []), "--pack-destination", out], {
            cwd: root,
            stdio: ["ignore", "ignore", 2],
        }),
    );
    step("plugin archives and SBOM", () => run("plugin.js", ["--all", "--out", out]));
    step("Python SDK", () => run("python-dist.js", ["--out", out]));
    step("Go SDK", () => run("go-module.js", ["--out", path.join(out, "goproxy")]));
    step("Java SDK", () => run("java-dist.js", ["--out", path.join(out, "maven")]));
    step("schema", () => {
        const { packageSchema } = require(path.join(root, "dist", "native", "schema.js"));
        fs.writeFileSync(path.join(out, "schema.json"), `${JSON.stringify(packageSchema(), null, 2)}\n`);
    });
    step("webhook contract (JSON Schema)", () => {
        // The build's files as they are: written by zod from the kit's schemas (scripts/build-clean.js).
        fs.cpSync(path.join(root, "dist", "webhook", "schema"), path.join(out, "webhook", "schema"), {
            recursive: true,
        });
    });
    const sums = files(out).map((f) => {
        const hash = crypto
            .createHash("sha256")
            .update(fs.readFileSync(path.join(out, f)))
            .digest("hex");
        return `${hash}  ${f}\n`;
    });
    fs.writeFileSync(path.join(out, "SHA256SUMS"), sums.join(""));
    console.log(outIndex >= 0 ? out : path.relative(root, out));
}

try {
    main();
} catch (e) {
    console.error(`release: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
}
