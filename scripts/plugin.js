#!/usr/bin/env node
/**
 * `npm run plugin`: the native provider plugin's release archive,
 * `pulumi-resource-chatbot-v<version>-<os>-<arch>.tar.gz` in .plugin/, as Pulumi's plugin
 * archives are named, for `pulumi plugin install resource chatbot <version> --file <archive>`.
 * Prints the archive's path as its last line.
 *
 * The archive holds what the plugin runs and nothing to install: `pulumi-resource-chatbot` at its
 * top (Pulumi runs it from the plugin's folder), the built package (dist/, package.json), and
 * node_modules with the package's dependencies and @pulumi/pulumi (whose gRPC stubs the plugin
 * serves on), copied from this checkout's node_modules with their own dependencies, in place. So
 * the machine needs only Node.js, and making the archive needs no network.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const OS = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const ARCH = { x64: "amd64", arm64: "arm64" }[process.arch] ?? process.arch;

const PLUGIN_SCRIPT = `#!/bin/sh
# pulumi-chatbot's native provider plugin: its resources as chatbot:index:<Type>.
exec node "$(dirname "$0")/dist/native/server.js" "$@"
`;

/** The folder of package `name` as Node.js resolves it from `fromDir`. */
function findPackage(name, fromDir) {
    for (let dir = fromDir; ; dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", name);
        if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
        if (dir === path.dirname(dir) || !dir.startsWith(root)) return undefined;
    }
}

/** Copies `names`, resolved from `fromDir`, and everything they depend on, each to the same
 *  place under `stage` as under the checkout, so that Node.js resolves them there as here. */
function copyClosure(names, fromDir, stage, copied) {
    for (const name of names) {
        const dir = findPackage(name, fromDir);
        if (!dir || copied.has(dir)) continue; // an optional dependency not installed here
        copied.add(dir);
        fs.cpSync(dir, path.join(stage, path.relative(root, dir)), {
            recursive: true,
            dereference: true,
            // Its own nested dependencies are copied when they are reached.
            filter: (src) => !path.relative(dir, src).split(path.sep).includes("node_modules"),
        });
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
        const needs = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
        copyClosure(Object.keys(needs), dir, stage, copied);
    }
}

function main() {
    const dist = path.join(root, "dist", "native", "server.js");
    if (!fs.existsSync(dist)) throw new Error("dist/ is not built: run `npm run build` first.");
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-plugin-"));
    try {
        fs.cpSync(path.join(root, "dist"), path.join(stage, "dist"), {
            recursive: true,
            filter: (src) => !src.endsWith(".map"),
        });
        fs.copyFileSync(path.join(root, "package.json"), path.join(stage, "package.json"));
        fs.copyFileSync(path.join(root, "README.md"), path.join(stage, "README.md"));
        fs.writeFileSync(path.join(stage, "pulumi-resource-chatbot"), PLUGIN_SCRIPT, { mode: 0o755 });
        const copied = new Set();
        copyClosure([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)], root, stage, copied);
        const outDir = path.join(root, ".plugin");
        fs.mkdirSync(outDir, { recursive: true });
        const archive = path.join(outDir, `pulumi-resource-chatbot-v${pkg.version}-${OS}-${ARCH}.tar.gz`);
        execFileSync("tar", ["-czf", archive, "-C", stage, "."]);
        process.stderr.write(
            `plugin: ${copied.size} packages, ${Math.round(fs.statSync(archive).size / 1024)} KiB compressed\n`,
        );
        console.log(archive);
    } finally {
        fs.rmSync(stage, { recursive: true, force: true });
    }
}

main();
