/**
 * What the release scripts read of the checkout: the commit's time, and the files of a folder as
 * git sees them (tracked and untracked, not ignored: no virtual environment, cache or build).
 */
"use strict";
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

/** Seconds since the epoch of the commit (SOURCE_DATE_EPOCH wins): every artifact's one time. */
function sourceDateEpoch() {
    if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8" }).trim());
}

/** The files under `folder` (relative to the root), as root-relative paths, sorted. */
function gitFiles(folder) {
    const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", folder], {
        cwd: root,
        encoding: "utf8",
    });
    const fs = require("node:fs");
    // A tracked file deleted in the work tree is listed too: only what exists.
    return [...new Set(out.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(root, f))))].sort();
}

module.exports = { gitFiles, sourceDateEpoch };
