#!/usr/bin/env node
// Installs this package into ./node_modules/pulumi-chatbot from `npm pack` output, as a user's
// project gets it. The examples and the tests run against that copy: a provider loaded from
// node_modules is what Pulumi serializes as a small `require("pulumi-chatbot/...")`.
"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const root = path.resolve(__dirname, "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-chatbot-pack-"));
try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const out = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
    });
    const [{ filename }] = JSON.parse(out);
    const target = path.join(root, "node_modules", "pulumi-chatbot");
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", path.join(tmp, filename), "-C", target, "--strip-components=1"]);
    console.log(`installed ${filename} into node_modules/pulumi-chatbot`);
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}
