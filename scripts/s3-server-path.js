#!/usr/bin/env node
/**
 * Prints the absolute path of an S3-compatible server as its last line
 * (`npm run --silent s3-server-path`): Versity's S3 gateway (versitygw, Apache-2.0, run in
 * production over POSIX file systems), pinned in tools/versitygw (go.mod, go.sum) and built into
 * .s3-server/ (ignored by git) with the Go toolchain, once; later calls find it and print at once.
 *
 * The tests of the state backends (tests/helpers/stateBackends.ts) run pulumi's `s3://` backend against
 * it. MinIO is not used: it is under the AGPL.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const toolDir = path.join(root, "tools", "versitygw");

function pinnedVersion() {
    const m = /github\.com\/versity\/versitygw (v\S+)/.exec(fs.readFileSync(path.join(toolDir, "go.mod"), "utf8"));
    if (!m) throw new Error("tools/versitygw/go.mod does not pin github.com/versity/versitygw");
    return m[1];
}

function s3ServerPath() {
    const version = pinnedVersion();
    const binDir = path.join(root, ".s3-server", version);
    const server = path.join(binDir, "versitygw");
    const stampFile = path.join(binDir, "stamp");
    const hash = crypto.createHash("sha256");
    for (const file of ["go.mod", "go.sum"]) hash.update(fs.readFileSync(path.join(toolDir, file)));
    hash.update(fs.readFileSync(path.join(__dirname, "s3-server-path.js")));
    const stamp = hash.digest("hex");
    if (fs.existsSync(server) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp) {
        return server;
    }
    fs.mkdirSync(binDir, { recursive: true });
    process.stderr.write(
        `Building the S3 server versitygw ${version} into .s3-server/${version} (about 3 minutes the first time on 2 cores; later builds reuse the Go build cache)...\n`,
    );
    const started = Date.now();
    const result = spawnSync(
        "go",
        [
            "build",
            "-trimpath",
            "-ldflags",
            "-w -s",
            "-o",
            binDir + path.sep,
            "github.com/versity/versitygw/cmd/versitygw",
        ],
        {
            cwd: toolDir,
            stdio: ["ignore", 2, 2],
            env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim() },
        },
    );
    if (result.error) throw new Error(`cannot run go to build versitygw: ${result.error.message}`);
    if (result.status !== 0) {
        throw new Error(
            `building versitygw failed (go build exited ${result.status ?? result.signal}): see go's output above`,
        );
    }
    fs.writeFileSync(stampFile, stamp);
    process.stderr.write(`Built versitygw ${version} in ${Math.round((Date.now() - started) / 1000)} s.\n`);
    return server;
}

module.exports = { s3ServerPath };

if (require.main === module) {
    try {
        console.log(s3ServerPath());
    } catch (e) {
        console.error(`s3-server-path: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    }
}
