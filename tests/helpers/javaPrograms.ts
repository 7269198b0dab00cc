/**
 * A Java program packaged once per run and run from its jar, as pulumi-java's host runs a program
 * whose Pulumi.yaml names one (`runtime.options.binary`: `java -jar <binary>`, no Maven): each
 * preview or up then starts one JVM on the jar instead of `mvn compile exec:java`, twice (the
 * host's classpath scan for plugins, then the run). Test tooling: not published.
 *
 * The jar is thin: the program's classes, and a manifest naming its main class and, in
 * `Class-Path`, the jars of its runtime classpath beside it (`lib/`), hard links of what Maven
 * resolved. Maven resolves and compiles it once (`mvn compile exec:exec` printing `%classpath`,
 * the plugin the host's own run uses, so nothing more is downloaded), with the project's own Maven
 * settings (.mvn/maven.config: the SDK's repository, its local repository). Keyed by a hash of
 * the project's pom.xml and sources, in the run's folder: a second file asking for the same
 * program gets the same jar, whichever worker built it.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { filesKey, oncePerRun, runFolder } from "./oncePerRun";

/** The files that make the program: pom.xml, .mvn and src, sorted (target/ left out). */
function sources(project: string): string[] {
    const files = ["pom.xml"];
    for (const dir of [".mvn", "src"]) {
        if (!fs.existsSync(path.join(project, dir))) continue;
        for (const f of fs.readdirSync(path.join(project, dir), { recursive: true }) as string[]) {
            if (fs.statSync(path.join(project, dir, f)).isFile()) files.push(path.join(dir, f));
        }
    }
    return files.sort();
}

/** A manifest's attribute, wrapped as the format requires: lines of at most 72 bytes, each
 *  continuation starting with one space. */
function manifestLine(name: string, value: string): string {
    const text = `${name}: ${value}`;
    const lines = [text.slice(0, 72)];
    for (let i = 72; i < text.length; i += 71) lines.push(` ${text.slice(i, i + 71)}`);
    return lines.map((l) => `${l}\r\n`).join("");
}

function run(cmd: string, args: string[], cwd: string): void {
    const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}:\n${r.stdout}${r.stderr}`);
}

function packageProgram(project: string): string {
    const pom = fs.readFileSync(path.join(project, "pom.xml"), "utf8");
    const mainClass = /<mainClass>([\w.]+)<\/mainClass>/.exec(pom)?.[1];
    assert.ok(mainClass, `${project}/pom.xml names the program's main class`);
    const out = fs.mkdtempSync(path.join(runFolder(), "java-jar-"));
    // Built in a copy, so the project keeps no target/ of this build.
    const stage = path.join(out, "project");
    for (const file of sources(project)) {
        fs.mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
        fs.copyFileSync(path.join(project, file), path.join(stage, file));
    }
    const classpathFile = path.join(out, "classpath.txt");
    run(
        "mvn",
        [
            "--batch-mode",
            "--quiet",
            "--no-transfer-progress",
            "compile",
            "exec:exec",
            "-Dexec.executable=echo",
            "-Dexec.args=%classpath",
            `-Dexec.outputFile=${classpathFile}`,
        ],
        stage,
    );
    const classes = path.join(stage, "target", "classes");
    const entries = fs.readFileSync(classpathFile, "utf8").trim().split(path.delimiter);
    assert.equal(entries[0], classes, `the classpath starts with the program's classes: ${entries[0]}`);
    const lib = path.join(out, "lib");
    fs.mkdirSync(lib);
    const names: string[] = [];
    for (const jar of entries.slice(1)) {
        const name = path.basename(jar);
        assert.ok(name.endsWith(".jar") && !names.includes(name), `one jar of each name: ${jar}`);
        names.push(name);
        try {
            fs.linkSync(jar, path.join(lib, name));
        } catch {
            fs.copyFileSync(jar, path.join(lib, name));
        }
    }
    const manifest = path.join(out, "MANIFEST.MF");
    fs.writeFileSync(
        manifest,
        manifestLine("Manifest-Version", "1.0") +
            manifestLine("Main-Class", mainClass) +
            manifestLine("Class-Path", names.map((n) => `lib/${n}`).join(" ")),
    );
    const jar = path.join(out, "program.jar");
    run("jar", ["--create", "--file", jar, "--manifest", manifest, "-C", classes, "."], out);
    fs.rmSync(stage, { recursive: true, force: true });
    return jar;
}

/** The jar of the Java program in `project` (a Maven project whose .mvn/maven.config names its
 *  settings: useSdkRepository), packaged by the first caller of this run for these sources. */
export function javaJar(project: string): string {
    // The local repository's folder differs per copy of a project; what it holds does not.
    const key = filesKey(project, sources(project), [path.join(".mvn", "maven.config")]);
    return oncePerRun(`java-jar-${key}`, () => packageProgram(project));
}

/** Points `project`'s Pulumi.yaml at `jar` (`runtime: java` becomes the runtime with the
 *  `binary` option), as a user does who ships the program built. */
export function runFromJar(project: string, jar: string): void {
    const yaml = path.join(project, "Pulumi.yaml");
    const text = fs.readFileSync(yaml, "utf8");
    const runtime = /^runtime:(?: java\n|\n {2}name: java\n(?: {2}options:\n {4}binary: .*\n)?)/m;
    assert.match(text, runtime, `${yaml}: runtime java`);
    fs.writeFileSync(yaml, text.replace(runtime, `runtime:\n  name: java\n  options:\n    binary: ${jar}\n`));
}

/** Packages the program in `project` (javaJar) and runs it from the jar from now on (runFromJar);
 *  returns the jar. */
export function packageAndRunFromJar(project: string): string {
    const jar = javaJar(project);
    runFromJar(project, jar);
    return jar;
}
