/**
 * What makes the release the same bytes for the same commit: the commit's time as every
 * artifact's time, the files of a folder as git sees them (tracked and untracked, not ignored: no
 * virtual environment, cache or build), and .tar.gz archives with sorted entries, fixed owners and
 * that time.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
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
    // A tracked file deleted in the work tree is listed too: only what exists.
    return [...new Set(out.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(root, f))))].sort();
}

/** Writes `out`, a .tar.gz of `entries` (paths relative to `dir`, each listed: folders are not
 *  walked), sorted, with every time `epoch` and no owner. */
function tarGz(dir, entries, out, epoch) {
    require("tar").c(
        {
            // zlib's default level: on a plugin executable (125 MB of Node.js) level 9 took 11.4 s
            // of CPU against 4.1 s, for an archive 0.4% smaller; a release makes five of them.
            gzip: { level: 6 },
            portable: true,
            noDirRecurse: true,
            mtime: new Date(epoch * 1000),
            cwd: dir,
            file: out,
            sync: true,
        },
        [...entries].sort(),
    );
    return out;
}

module.exports = { gitFiles, sourceDateEpoch, tarGz };
