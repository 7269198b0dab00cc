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
 *   SHA256SUMS                                            sha256sum's format, over all of the above
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
    const out = path.join(root, "release", `v${version}`);
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    step("npm package", () =>
        execFileSync(npm, ["pack", "--silent", "--pack-destination", out], {
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
    const sums = files(out).map((f) => {
        const hash = crypto
            .createHash("sha256")
            .update(fs.readFileSync(path.join(out, f)))
            .digest("hex");
        return `${hash}  ${f}\n`;
    });
    fs.writeFileSync(path.join(out, "SHA256SUMS"), sums.join(""));
    console.log(path.relative(root, out));
}

try {
    main();
} catch (e) {
    console.error(`release: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
}
