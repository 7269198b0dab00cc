/**
 * The machine's yardstick: the line of ../shared/tools/calibrate.js (beside a checkout, as the
 * team's machines and CI have it), to quote beside any time measured here, since machines differ
 * by about 2× in speed. Used by the test reporter and the bench; where the script is not beside
 * the checkout, the line says so.
 */
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

const script = path.join(root, "..", "shared", "tools", "calibrate.js");
const NONE = "yardstick: none (../shared/tools/calibrate.js is not beside this checkout)";
const line = (text) => `yardstick: ${(text || "no output").trim().split("\n").pop()}`;

/** The line, measured now (the bench, before its runs). */
function yardstick() {
    if (!fs.existsSync(script)) return NONE;
    const r = spawnSync(process.execPath, [script], { cwd: root, encoding: "utf8", timeout: 120_000 });
    return line(r.stdout || r.stderr);
}

/** Starts measuring it in the background, its output to `file`; returns the process (undefined
 *  where there is no script). The test suite does so at its start, so that its 8 s or so are not
 *  added to the run's wall time; `readYardstick(file)` gives the line at the end. */
function startYardstick(file) {
    if (!fs.existsSync(script)) return undefined;
    const out = fs.openSync(file, "w");
    const child = spawn(process.execPath, [script], { cwd: root, stdio: ["ignore", out, out] });
    fs.closeSync(out);
    child.unref();
    return child;
}

/** The line startYardstick wrote to `file`, waiting up to 60 s for it; the file is removed. */
function readYardstick(file) {
    if (!fs.existsSync(script)) return NONE;
    const deadline = Date.now() + 60_000;
    for (;;) {
        const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
        if (/calibration|Error/.test(text) || Date.now() > deadline) {
            fs.rmSync(file, { force: true });
            return line(text);
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
}

module.exports = { yardstick, startYardstick, readYardstick };
