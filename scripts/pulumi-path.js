#!/usr/bin/env node
/**
 * Prints the absolute path of a working `pulumi` as its last line (`npm run --silent pulumi-path`).
 *
 * - A `pulumi` on PATH is used as it is: a user's normal install, with its own plugins.
 * - Otherwise the CLI pinned in tools/pulumi (go.mod, go.sum) is built into .pulumi-cli/ (ignored
 *   by git) with the Go toolchain, once: later calls find it and print at once. Beside it go the
 *   two plugins a TypeScript program with a dynamic provider needs, so that nothing is downloaded:
 *   the Node.js language host built from tools/pulumi/cmd/pulumi-language-nodejs, and
 *   `pulumi-resource-pulumi-nodejs`, the dynamic-provider plugin, the same script as in Pulumi's
 *   release archives (it runs @pulumi/pulumi/cmd/dynamic-provider of the program's node_modules).
 *   Pulumi YAML's language host (tools/pulumi-yaml: github.com/pulumi/pulumi-yaml v1.25.0, in its
 *   own module because it pins pulumi v3.206.0, which the CLI's packages do not build with) goes
 *   there too, for the native provider's second-language program. Every other host of
 *   tools/pulumi/cmd is built there as well (one folder each: Python's, ...); beside the Python
 *   host goes `pulumi-language-python-exec`, the SDK's program runner that host starts, copied
 *   from the pinned github.com/pulumi/pulumi/sdk/v3 module (python/cmd), as in Pulumi's release
 *   archives.
 *   The build is as pulumi/pulumi's .goreleaser.yml makes it: CGO off, -trimpath, the version set
 *   by -ldflags (the Automation API refuses a CLI without one), tags osusergo and grpcnotrace.
 *
 * `PULUMI_CHATBOT_BUILD_CLI=1` skips the PATH and always uses (building when needed) the pinned CLI.
 * Used by the tests, the quickstart and the bench through `pulumiCli()`.
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const toolsDir = path.join(root, "tools", "pulumi");
/** Pulumi YAML's language host, for programs in a second language: its own module, since it pins
 *  its own pulumi packages. */
const yamlDir = path.join(root, "tools", "pulumi-yaml");
/** The Go that the modules built here need: the highest `go` line of their go.mod files, read
 *  rather than written here, so the hint cannot lag a bump. */
function goVersionNeeded() {
    const versions = [toolsDir, yamlDir].map(
        (dir) => /^go (\d+(?:\.\d+)*)\s*$/m.exec(fs.readFileSync(path.join(dir, "go.mod"), "utf8"))?.[1] ?? "0",
    );
    const parts = (v) => v.split(".").map(Number);
    const newer = (a, b) => {
        const [x, y] = [parts(a), parts(b)];
        for (let i = 0; i < Math.max(x.length, y.length); i++) {
            if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
        }
        return false;
    };
    return versions.reduce((a, b) => (newer(b, a) ? b : a));
}

const INSTALL_HINT =
    "Install Pulumi (https://www.pulumi.com/docs/iac/download-install/) so that `pulumi` is on PATH, " +
    `or install Go ${goVersionNeeded()} or later (https://go.dev/dl/) so that this repository can build the pinned CLI.`;

const DYNAMIC_PROVIDER_SCRIPT = `#!/bin/sh
# The dynamic-provider plugin, as Pulumi's release archives ship it: runs the dynamic provider of
# the @pulumi/pulumi that the program's folder resolves.
script=$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))") || exit 1
exec node "$script" "$@"
`;

/** The version of pkg/v3 that go.mod pins, e.g. "v3.274.1". */
function pinnedVersion() {
    const goMod = fs.readFileSync(path.join(toolsDir, "go.mod"), "utf8");
    const m = /github\.com\/pulumi\/pulumi\/pkg\/v3 (v\d+\.\d+\.\d+)/.exec(goMod);
    if (!m) throw new Error("tools/pulumi/go.mod does not pin github.com/pulumi/pulumi/pkg/v3");
    return m[1];
}

/** What the build is made of: a change to any of these builds again (the Go cache makes it quick). */
function sourceStamp() {
    const hash = crypto.createHash("sha256");
    // The hosts (cmd/) and what they share (internal/).
    const sources = ["cmd", "internal"].flatMap((dir) =>
        fs
            .readdirSync(path.join(toolsDir, dir), { recursive: true })
            .filter((f) => f.endsWith(".go"))
            .sort()
            .map((f) => path.join(dir, f)),
    );
    for (const file of ["go.mod", "go.sum", ...sources]) {
        hash.update(file);
        hash.update(fs.readFileSync(path.join(toolsDir, file)));
    }
    for (const file of ["go.mod", "go.sum"]) hash.update(fs.readFileSync(path.join(yamlDir, file)));
    // This script itself: what it puts beside the CLI is part of the build.
    hash.update(fs.readFileSync(path.join(__dirname, "pulumi-path.js")));
    return hash.digest("hex");
}

function onPath(name) {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
        const file = path.join(dir || ".", name);
        try {
            fs.accessSync(file, fs.constants.X_OK);
            if (fs.statSync(file).isFile()) return path.resolve(file);
        } catch {
            // not here
        }
    }
    return undefined;
}

function buildPinned() {
    const version = pinnedVersion();
    const binDir = path.join(root, ".pulumi-cli", version);
    const pulumi = path.join(binDir, "pulumi");
    const stampFile = path.join(binDir, "stamp");
    const stamp = sourceStamp();
    if (fs.existsSync(pulumi) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp) {
        return pulumi;
    }
    const go = onPath("go");
    if (!go) throw new Error(`No pulumi on PATH, and no Go toolchain to build the pinned one. ${INSTALL_HINT}`);
    fs.mkdirSync(binDir, { recursive: true });
    process.stderr.write(
        `Building the pulumi CLI ${version}, the language hosts of tools/pulumi/cmd and Pulumi YAML's (tools/pulumi-yaml) into .pulumi-cli/${version} ` +
            "(the first build takes several minutes; later ones reuse the Go build cache)...\n",
    );
    const started = Date.now();
    const build = (cwd, ldflags, packages) => {
        const result = spawnSync(
            go,
            [
                "build",
                "-v",
                "-trimpath",
                "-tags",
                "osusergo,grpcnotrace",
                "-ldflags",
                ldflags,
                "-o",
                binDir + path.sep,
                ...packages,
            ],
            {
                cwd,
                // Progress on stderr: go -v names each package it compiles; stdout keeps only the path.
                stdio: ["ignore", 2, 2],
                env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim() },
            },
        );
        if (result.status !== 0) {
            throw new Error(
                `Building the pulumi CLI failed (go build in ${path.relative(root, cwd)} exited ${result.status ?? result.signal}): see go's output above. ${INSTALL_HINT}`,
            );
        }
    };
    build(toolsDir, `-w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${version}`, [
        "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
        // Every language host of tools/pulumi/cmd (one folder each).
        "./cmd/...",
    ]);
    build(yamlDir, "-w -s", ["github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"]);
    if (fs.existsSync(path.join(binDir, "pulumi-language-python"))) {
        // The Python host runs programs with the SDK's own runner, taken from the pinned module.
        const sdkDir = execFileSync(go, ["list", "-m", "-f", "{{.Dir}}", "github.com/pulumi/pulumi/sdk/v3"], {
            cwd: toolsDir,
            encoding: "utf8",
            env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim() },
        }).trim();
        const runner = path.join(binDir, "pulumi-language-python-exec");
        fs.rmSync(runner, { force: true });
        fs.writeFileSync(runner, fs.readFileSync(path.join(sdkDir, "python", "cmd", "pulumi-language-python-exec")), {
            mode: 0o755,
        });
    }
    const plugin = path.join(binDir, "pulumi-resource-pulumi-nodejs");
    fs.writeFileSync(plugin, DYNAMIC_PROVIDER_SCRIPT, { mode: 0o755 });
    const shown = execFileSync(pulumi, ["version"], {
        encoding: "utf8",
        env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    }).trim();
    if (shown !== version) throw new Error(`The built pulumi says its version is ${shown}, not ${version}.`);
    fs.writeFileSync(stampFile, stamp);
    process.stderr.write(`Built pulumi ${version} in ${Math.round((Date.now() - started) / 1000)} s.\n`);
    return pulumi;
}

/** The path of a working `pulumi`: the one on PATH, else the pinned one (built when absent). */
function pulumiPath() {
    if (!process.env.PULUMI_CHATBOT_BUILD_CLI) {
        const found = onPath("pulumi");
        if (found) return found;
    }
    return buildPinned();
}

module.exports = { pulumiPath, pinnedVersion, goVersionNeeded };

if (require.main === module) {
    try {
        console.log(pulumiPath());
    } catch (e) {
        console.error(`pulumi-path: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    }
}
