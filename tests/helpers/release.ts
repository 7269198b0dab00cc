/**
 * The release (`npm run release`'s scripts/release.js), built once per test run into the run's
 * folder: the release's test reads all of it, and every test that needs one of its parts (this
 * machine's plugin archive, the Java SDK's Maven repository) takes it from there, so each artifact
 * is built once a run (release.test.ts builds a second release, its own, to compare SHA256SUMS).
 * Test tooling: not published.
 */
import { spawn, spawnSync, type ChildProcess } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { oncePerRun, runFolder } from "./oncePerRun";
import { root } from "./support";

/** The release script, its output folder given. */
const command = (out: string) => [path.join(root, "scripts", "release.js"), "--out", out];

/** What a failed build printed last on stderr (each step's name and the failing tool's output),
 *  so that a CI log that keeps only the failures still says which step failed and why. */
function failure(status: number | null, signal: NodeJS.Signals | null, error: Error | undefined, stderr: string) {
    const tail = stderr.trim().split("\n").slice(-60).join("\n");
    return new Error(`npm run release failed (${error?.message ?? `exit ${status ?? signal}`}):\n${tail}`);
}

/** Builds a release into `out` (a folder of its own: removed first); returns it and how long it
 *  took. */
export function buildRelease(out: string): { dir: string; seconds: number } {
    const started = Date.now();
    const result = spawnSync(process.execPath, command(out), {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        timeout: 1_200_000,
    });
    if (result.status !== 0) throw failure(result.status, result.signal, result.error, String(result.stderr));
    return { dir: result.stdout.trim().split("\n").pop() as string, seconds: (Date.now() - started) / 1000 };
}

/** As buildRelease, in a process this one does not wait on (the caller's cases run meanwhile):
 *  the process, and its result when it ends. */
export function buildReleaseInBackground(out: string): {
    child: ChildProcess;
    done: Promise<{ dir: string; seconds: number }>;
} {
    const started = Date.now();
    const child = spawn(process.execPath, command(out), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const done = new Promise<{ dir: string; seconds: number }>((resolve, reject) => {
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        child.stdout?.on("data", (d: Buffer) => stdout.push(d));
        child.stderr?.on("data", (d: Buffer) => stderr.push(d));
        const timer = setTimeout(() => child.kill("SIGKILL"), 1_200_000);
        child.on("error", (e) => {
            clearTimeout(timer);
            reject(failure(null, null, e, Buffer.concat(stderr).toString()));
        });
        child.on("close", (status, signal) => {
            clearTimeout(timer);
            if (status !== 0) return reject(failure(status, signal, undefined, Buffer.concat(stderr).toString()));
            resolve({
                dir: Buffer.concat(stdout).toString().trim().split("\n").pop() as string,
                seconds: (Date.now() - started) / 1000,
            });
        });
    });
    return { child, done };
}

/** How long the run's release took to build, when this process built it (undefined: built by
 *  another worker, or an earlier process of the run). */
export let releaseSeconds: number | undefined;

/** The run's release folder, built by the first caller of the run. */
export function runRelease(): string {
    return oncePerRun("release", () => {
        const made = buildRelease(fs.mkdtempSync(path.join(runFolder(), "release-")));
        releaseSeconds = made.seconds;
        return made.dir;
    });
}
