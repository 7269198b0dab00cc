#!/usr/bin/env node
/**
 * The Java SDK as a Maven repository: `node scripts/java-dist.js --out DIR` builds sdk/java (as
 * git sees it) with Maven and lays out, under DIR, what `mvn deploy` to a repository writes and
 * Maven Central is given: `<group path>/<artifact>/<version>/` with the jar, the sources jar, the
 * javadoc jar and the pom, each with the .sha1 and .md5 files Maven checks, and the artifact's
 * maven-metadata.xml. Prints DIR. A program resolves the SDK from it as from any repository (a
 * `<repository>` with a file:// or https:// address).
 *
 * The same commit gives the same bytes: the sources' times are the commit's, and so is Maven's
 * project.build.outputTimestamp, which the jar, source and javadoc plugins write into every entry
 * (https://maven.apache.org/guides/mini/guide-reproducible-builds.html).
 *
 * Maven's local repository (its plugins, com.pulumi:pulumi and what it needs, from Maven Central)
 * is MAVEN_REPO, kept between runs; the SDK itself is never installed there.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { gitFiles, sourceDateEpoch } = require("./reproducible.js");

const root = path.resolve(__dirname, "..");
const SDK = "sdk/java";
/** Maven's local repository for the SDK's build and the tests' Java programs (ignored by git). */
const MAVEN_REPO = path.join(root, ".maven", "repository");

/** `<tag>value</tag>` of the pom's project (not of a parent, dependency or plugin). */
function pomValue(pom, tag) {
    const project = pom.replace(/<(parent|dependencies|build|licenses|scm|properties)>[\s\S]*?<\/\1>/g, "");
    const m = new RegExp(`<${tag}>([^<]+)</${tag}>`).exec(project);
    if (!m) throw new Error(`${SDK}/pom.xml has no <${tag}>`);
    return m[1].trim();
}

/** The SDK's coordinates, from its pom. */
function coordinates() {
    const pom = fs.readFileSync(path.join(root, SDK, "pom.xml"), "utf8");
    return {
        groupId: pomValue(pom, "groupId"),
        artifactId: pomValue(pom, "artifactId"),
        version: pomValue(pom, "version"),
    };
}

/** `mvn <args>` in `cwd` with the shared local repository; throws with Maven's output. */
function mvn(args, cwd) {
    const result = spawnSync("mvn", ["-B", "--no-transfer-progress", `-Dmaven.repo.local=${MAVEN_REPO}`, ...args], {
        cwd,
        encoding: "utf8",
    });
    if (result.error) throw new Error(`mvn could not be run (is Maven installed?): ${result.error.message}`);
    if (result.status !== 0) throw new Error(`mvn ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    return result.stdout;
}

/** yyyyMMddHHmmss in UTC, maven-metadata.xml's lastUpdated. */
function mavenTime(epoch) {
    return new Date(epoch * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** Writes `file` and its .sha1 and .md5, as a repository holds every file. */
function withChecksums(file, data) {
    fs.writeFileSync(file, data);
    for (const algorithm of ["sha1", "md5"]) {
        fs.writeFileSync(`${file}.${algorithm}`, crypto.createHash(algorithm).update(data).digest("hex"));
    }
}

/** Builds the SDK and writes the repository under `outDir`; returns the files written. */
function build(outDir) {
    const epoch = sourceDateEpoch();
    const { groupId, artifactId, version } = coordinates();
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-java-"));
    try {
        const sdk = path.join(stage, "java");
        for (const file of gitFiles(SDK)) {
            const target = path.join(sdk, path.relative(SDK, file));
            fs.mkdirSync(path.dirname(target), { recursive: true });
            fs.copyFileSync(path.join(root, file), target);
            fs.utimesSync(target, epoch, epoch);
        }
        mvn(["-q", `-Dproject.build.outputTimestamp=${epoch}`, "package"], sdk);
        const dir = path.join(outDir, ...groupId.split("."), artifactId);
        const versionDir = path.join(dir, version);
        fs.mkdirSync(versionDir, { recursive: true });
        const base = `${artifactId}-${version}`;
        const written = [];
        for (const suffix of [".jar", "-sources.jar", "-javadoc.jar"]) {
            const made = path.join(sdk, "target", base + suffix);
            if (!fs.existsSync(made)) throw new Error(`mvn package made no ${base + suffix}`);
            withChecksums(path.join(versionDir, base + suffix), fs.readFileSync(made));
            written.push(path.join(versionDir, base + suffix));
        }
        withChecksums(path.join(versionDir, `${base}.pom`), fs.readFileSync(path.join(sdk, "pom.xml")));
        written.push(path.join(versionDir, `${base}.pom`));
        const metadata =
            `<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>${groupId}</groupId>\n` +
            `  <artifactId>${artifactId}</artifactId>\n  <versioning>\n    <latest>${version}</latest>\n` +
            `    <release>${version}</release>\n    <versions>\n      <version>${version}</version>\n` +
            `    </versions>\n    <lastUpdated>${mavenTime(epoch)}</lastUpdated>\n  </versioning>\n</metadata>\n`;
        withChecksums(path.join(dir, "maven-metadata.xml"), metadata);
        written.push(path.join(dir, "maven-metadata.xml"));
        return written;
    } finally {
        fs.rmSync(stage, { recursive: true, force: true });
    }
}

module.exports = { build, coordinates, MAVEN_REPO };

if (require.main === module) {
    const outIndex = process.argv.indexOf("--out");
    const outDir = path.resolve(outIndex >= 0 ? process.argv[outIndex + 1] : path.join(root, "release", "maven"));
    try {
        for (const file of build(outDir)) process.stderr.write(`java-dist: ${path.relative(outDir, file)}\n`);
        console.log(outDir);
    } catch (e) {
        console.error(`java-dist: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    }
}
