/**
 * Whether dist/ is what scripts/build-clean.js makes of the sources now, without building it
 * again: build-clean writes, when done, a record (`.dist-state.json`, beside dist/, not packed) of
 * the hash of its inputs (provider/, the tsconfigs, package.json, package-lock.json, itself) and of
 * the dist/ it wrote. dist/ is current when both hashes are those of now: a source changed since,
 * another dependency installed, or a file of dist/ changed or gone by hand, and it is not.
 * scripts/release.js packs a current dist/ as it is (`npm pack --ignore-scripts`: `npm run release`
 * has just built it), and lets prepack build it otherwise.
 */
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

/** Every file under `dir` (relative, `/`-separated, sorted); none when it is missing. */
function files(dir, prefix = "") {
    const here = path.join(dir, prefix);
    if (!fs.existsSync(here)) return [];
    return fs
        .readdirSync(here, { withFileTypes: true })
        .flatMap((e) => {
            const rel = prefix ? `${prefix}/${e.name}` : e.name;
            return e.isDirectory() ? files(dir, rel) : [rel];
        })
        .sort();
}

/** The hash of `root`'s `names` (files, or folders: every file under them), names and contents. */
function hashOf(root, names) {
    const hash = crypto.createHash("sha256");
    for (const name of names) {
        const full = path.join(root, name);
        const list =
            fs.existsSync(full) && fs.statSync(full).isDirectory() ? files(full).map((f) => `${name}/${f}`) : [name];
        for (const file of list) {
            hash.update(`${file}\0`);
            hash.update(fs.existsSync(path.join(root, file)) ? fs.readFileSync(path.join(root, file)) : "missing");
            hash.update("\0");
        }
    }
    return hash.digest("hex");
}

/** What build-clean's output follows from. */
const INPUTS = [
    "provider",
    "tsconfig.json",
    "tsconfig.build.json",
    "package.json",
    "package-lock.json",
    "scripts/build-clean.js",
];

const stateFile = (root) => path.join(root, ".dist-state.json");

/** Now's hashes of `root`'s inputs and of its dist/. */
function state(root) {
    return { inputs: hashOf(root, INPUTS), dist: hashOf(root, ["dist"]) };
}

/** Records that `root`'s dist/ is build-clean's output of its inputs now (build-clean, when done). */
function record(root) {
    fs.writeFileSync(stateFile(root), `${JSON.stringify(state(root), null, 2)}\n`);
}

/** Whether `root`'s dist/ is build-clean's output of its inputs now. */
function isCurrent(root) {
    let recorded;
    try {
        recorded = JSON.parse(fs.readFileSync(stateFile(root), "utf8"));
    } catch {
        return false;
    }
    const now = state(root);
    return recorded.inputs === now.inputs && recorded.dist === now.dist;
}

module.exports = { isCurrent, record };
