/**
 * The release (`npm run release`'s scripts/release.js), built once per test run into the run's
 * folder: the release's test reads all of it, and every test that needs one of its parts (this
 * machine's plugin archive, the Java SDK's Maven repository) takes it from there, so each artifact
 * is built once a run (the weekly tier's tests/reproducible/release.test.ts builds a second, to
 * compare SHA256SUMS).
 * Test tooling: not published.
 */
import { spawnSync } from "child_process";
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
