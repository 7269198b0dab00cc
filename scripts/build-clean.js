#!/usr/bin/env node
/**
 * `npm pack`'s build (prepack): dist/ exactly as provider/ compiles now, with no file left from an
 * older build, and never missing while it is made. Programs and plugins may be running from dist/
 * meanwhile (npm test runs the release's `npm pack` beside the other files, whose plugin archive
 * and SDK checks read dist/), so dist/ is not deleted first: tsc writes into a fresh folder, each
 * file that differs is moved into dist/ by a rename (which replaces a file at once), and only then
 * are the files no longer made removed. Last, it records that dist/ is its output of the sources
 * now (scripts/dist-state.js), so that a later `npm pack` of the same sources need not build again.
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

/** schema/zod.js as the zod it names, bundled (zod is a devDependency: the package carries the
 *  ~200 kB it uses, not zod's 8 MB). Zod's license goes with it, at the top of the file. */
function bundleZod(out) {
    const zod = path.join(root, "node_modules", "zod");
    const license = fs.readFileSync(path.join(zod, "LICENSE"), "utf8").trim();
    const { version } = JSON.parse(fs.readFileSync(path.join(zod, "package.json"), "utf8"));
    require("esbuild").buildSync({
        entryPoints: [path.join(root, "provider", "schema", "zod.ts")],
        absWorkingDir: root,
        bundle: true,
        platform: "node",
        format: "cjs",
        target: "node22",
        outfile: path.join(out, "schema", "zod.js"),
        allowOverwrite: true,
        banner: { js: `/*! zod ${version}, bundled:\n${license}\n*/` },
        legalComments: "none",
        logLevel: "error",
    });
    fs.rmSync(path.join(out, "schema", "zod.js.map")); // tsc's, of the module before the bundle
    dropDeclarationsReaching("zod", out);
}

/** Removes the declaration files that name `pkg` or import one that does (internal modules: the
 *  zod schemas themselves), so that no declaration names a package the package does not depend
 *  on. A public entry's declarations may not be among them. */
function dropDeclarationsReaching(pkg, out) {
    const declarations = files(out).filter((f) => f.endsWith(".d.ts"));
    const imports = (file) =>
        [...fs.readFileSync(path.join(out, file), "utf8").matchAll(/(?:from\s+|import\s*\(\s*)"([^"]+)"/g)].map(
            ([, spec]) =>
                spec.startsWith(".")
                    ? [`${spec}.d.ts`, `${spec}/index.d.ts`].map((s) => path.join(path.dirname(file), s))
                    : [spec],
        );
    const reaching = new Set();
    for (let grew = true; grew;) {
        grew = false;
        for (const file of declarations) {
            if (reaching.has(file)) continue;
            if (imports(file).some((alternatives) => alternatives.some((s) => s === pkg || reaching.has(s)))) {
                reaching.add(file);
                grew = true;
            }
        }
    }
    const pkgJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    const entries = Object.values(pkgJson.exports).map((e) => e.types && path.relative("dist", e.types));
    const publicOnes = entries.filter((e) => e && reaching.has(e));
    if (publicOnes.length) throw new Error(`public declarations reach ${pkg}: ${publicOnes.join(", ")}`);
    for (const file of reaching) fs.rmSync(path.join(out, file));
}

/** The webhook contract as JSON Schema, written by zod from the kit's zod schemas as just built
 *  (dist/webhook/jsonSchema.js): webhook/schema/request.json and response.json, which package.json
 *  exports as pulumi-chatbot/webhook/schema/… and scripts/release.js copies into the release. */
function writeWebhookJsonSchemas(out) {
    const { webhookJsonSchemas } = require(path.join(out, "webhook", "jsonSchema.js"));
    const dir = path.join(out, "webhook", "schema");
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, schema] of Object.entries(webhookJsonSchemas())) {
        fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(schema, null, 2)}\n`);
    }
}

try {
    const tsc = require.resolve("typescript/bin/tsc", { paths: [root] });
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", fresh], {
        cwd: root,
        stdio: "inherit",
    });
    bundleZod(fresh);
    writeWebhookJsonSchemas(fresh);
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
    // What scripts/release.js checks before it packs dist/ as it is (scripts/dist-state.js).
    require("./dist-state.js").record(root);
} finally {
    fs.rmSync(fresh, { recursive: true, force: true });
}
