/**
 * The machine's yardstick: the line of ../shared/tools/calibrate.js (beside a checkout, as the
 * team's machines and CI have it), to quote beside any time measured here, since machines differ
 * by about 2× in speed. Used by the test reporter and the bench; where the script is not beside
 * the checkout, the line says so.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

function yardstick() {
    const script = path.join(root, "..", "shared", "tools", "calibrate.js");
    if (!fs.existsSync(script)) return "yardstick: none (../shared/tools/calibrate.js is not beside this checkout)";
    const r = spawnSync(process.execPath, [script], { cwd: root, encoding: "utf8", timeout: 120_000 });
    return `yardstick: ${(r.stdout || r.stderr || "no output").trim().split("\n").pop()}`;
}

module.exports = { yardstick };
