#!/usr/bin/env node
/**
 * `npm pack`'s build (prepack): dist/ exactly as provider/ compiles now, with no file left from an
 * older build, and never missing while it is made. Programs and plugins may be running from dist/
 * meanwhile (npm test runs the release's `npm pack` beside the other files, whose plugin archive
 * and SDK checks read dist/), so dist/ is not deleted first: tsc writes into a fresh folder, each
 * file that differs is moved into dist/ by a rename (which replaces a file at once), and only then
 * are the files no longer made removed.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const dist = path.join(root, "dist");
const fresh = fs.mkdtempSync(path.join(root, ".dist-"));

/** Every file under `dir`, relative to it. */
function files(dir) {
    if (!fs.existsSync(dir)) return [];
    return fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)));
}

try {
    const tsc = require.resolve("typescript/bin/tsc", { paths: [root] });
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", fresh], {
        cwd: root,
        stdio: "inherit",
    });
    const made = files(fresh);
    for (const file of made) {
        const target = path.join(dist, file);
        const text = fs.readFileSync(path.join(fresh, file));
        if (fs.existsSync(target) && text.equals(fs.readFileSync(target))) continue;
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.renameSync(path.join(fresh, file), target);
    }
    const wanted = new Set(made);
    for (const file of files(dist)) if (!wanted.has(file)) fs.rmSync(path.join(dist, file));
    // Folders that held only removed files.
    const folders = fs
        .readdirSync(dist, { recursive: true, withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => path.join(e.parentPath ?? e.path, e.name))
        .sort((a, b) => b.length - a.length);
    for (const folder of folders) if (fs.readdirSync(folder).length === 0) fs.rmdirSync(folder);
} finally {
    fs.rmSync(fresh, { recursive: true, force: true });
}
