#!/usr/bin/env node
/**
 * The Python SDK's wheel and sdist for PyPI: `node scripts/python-dist.js --out DIR` builds
 * sdk/python (as git sees it) with the PyPA `build` front end and the pinned setuptools, checks
 * both with `twine check`, and prints DIR. The tools come from PyPI into a virtual environment of
 * tools/python-release/requirements.txt, made once in release/.cache.
 *
 * The same commit gives the same bytes: the files' times and SOURCE_DATE_EPOCH are the commit's,
 * and the sdist, whose tar.gz setuptools stamps with the current time, is written again with
 * sorted entries and that time.
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { gitFiles, sourceDateEpoch, tarGz } = require("./reproducible.js");

const root = path.resolve(__dirname, "..");
const REQUIREMENTS = path.join(root, "tools", "python-release", "requirements.txt");

/** The virtual environment with build, setuptools and twine; its python. */
function tools() {
    const key = crypto.createHash("sha256").update(fs.readFileSync(REQUIREMENTS)).digest("hex").slice(0, 12);
    const venv = path.join(root, "release", ".cache", `python-${key}`);
    const python = path.join(venv, process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
    if (fs.existsSync(path.join(venv, ".complete"))) return python;
    fs.rmSync(venv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", venv], { stdio: ["ignore", 2, 2] });
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS], {
        stdio: ["ignore", 2, 2],
    });
    fs.writeFileSync(path.join(venv, ".complete"), "");
    return python;
}

/** `file` (a .tar.gz) written again: sorted entries, every time `epoch`, no owner. */
function normalizeTarGz(file, epoch) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-sdist-"));
    try {
        require("tar").x({ file, cwd: dir, sync: true });
        const entries = fs.readdirSync(dir, { recursive: true }).map((e) => e.split(path.sep).join("/"));
        tarGz(dir, entries, file, epoch);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

function build(outDir) {
    const epoch = sourceDateEpoch();
    const python = tools();
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-python-"));
    try {
        const sdk = path.join(stage, "python");
        for (const file of gitFiles("sdk/python")) {
            const target = path.join(sdk, path.relative("sdk/python", file));
            fs.mkdirSync(path.dirname(target), { recursive: true });
            fs.copyFileSync(path.join(root, file), target);
            fs.chmodSync(target, 0o644);
            fs.utimesSync(target, epoch, epoch);
        }
        const dist = path.join(stage, "dist");
        // Its output (setuptools' deprecation notices about the generated pyproject.toml) only
        // matters when it fails.
        const built = spawnSync(
            python,
            ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", dist, sdk],
            {
                cwd: stage,
                encoding: "utf8",
                env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch), PYTHONHASHSEED: "0" },
            },
        );
        if (built.status !== 0) throw new Error(`python -m build failed:\n${built.stdout}${built.stderr}`);
        const made = fs.readdirSync(dist).sort();
        for (const file of made.filter((f) => f.endsWith(".tar.gz"))) normalizeTarGz(path.join(dist, file), epoch);
        execFileSync(python, ["-m", "twine", "check", "--strict", ...made.map((f) => path.join(dist, f))], {
            stdio: ["ignore", 2, 2],
        });
        fs.mkdirSync(outDir, { recursive: true });
        for (const file of made) fs.copyFileSync(path.join(dist, file), path.join(outDir, file));
        return made.map((f) => path.join(outDir, f));
    } finally {
        fs.rmSync(stage, { recursive: true, force: true });
    }
}

module.exports = { build };

if (require.main === module) {
    const outIndex = process.argv.indexOf("--out");
    const outDir = path.resolve(outIndex >= 0 ? process.argv[outIndex + 1] : path.join(root, "release", "python"));
    try {
        for (const file of build(outDir)) process.stderr.write(`python-dist: ${path.basename(file)}\n`);
        console.log(outDir);
    } catch (e) {
        console.error(`python-dist: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    }
}
