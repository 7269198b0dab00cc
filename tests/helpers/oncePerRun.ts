/**
 * Artifacts built once per test run and shared by every file that needs them, whichever worker of
 * a parallel run (`npm test`) asks first: the others wait for it. The first caller holds a lock
 * (a folder made atomically) while it builds; the result (a path) is written beside it for the
 * rest. A run is the mocha command: .mocharc.js names it in CHATBOT_TEST_RUN, which the workers
 * inherit.
 */
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** Longer than the longest build (the release: up to 20 min, its own limit, tests/helpers/release.ts)
 *  may take, so that a waiter sees it end, or fail and leave the lock to the waiter to try. */
const WAIT_MS = 25 * 60_000;

/** Blocks this thread for `ms` (the callers build synchronously, as the scripts they run do). */
function sleep(ms: number): void {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The folder this run's shared artifacts live in (what oncePerRun builds, Node.js's compile cache:
 *  .mocharc.js names the same one). */
export function runFolder(): string {
    const run = process.env.CHATBOT_TEST_RUN ?? `pid-${process.pid}`;
    const dir = path.join(os.tmpdir(), `chatbot-test-run-${run}`);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
}

/** mocha's global teardown (.mocharc.js requires this file): the run's folder goes when the run
 *  ends, if this mocha command named the run. A name given from outside (.ci/run's passes share
 *  one) is removed by whoever gave it. */
export function mochaGlobalTeardown(): void {
    if (process.env.CHATBOT_TEST_RUN_OWNER !== String(process.pid)) return;
    fs.rmSync(runFolder(), { recursive: true, force: true });
}

/** `build()`'s result for `name`, built by the first caller of this run. */
export function oncePerRun(name: string, build: () => string): string {
    const dir = runFolder();
    const result = path.join(dir, `${name}.result`);
    const lock = path.join(dir, `${name}.lock`);
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
        if (fs.existsSync(result)) return fs.readFileSync(result, "utf8");
        try {
            fs.mkdirSync(lock);
        } catch {
            // Another worker is building it.
            if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 60_000} min for ${name}, built elsewhere`);
            sleep(250);
            continue;
        }
        try {
            const value = build();
            fs.writeFileSync(`${result}.tmp`, value);
            fs.renameSync(`${result}.tmp`, result);
            return value;
        } finally {
            fs.rmdirSync(lock);
        }
    }
}

/** A short name for what `files` of `dir` hold (their names and contents; those in `byNameOnly`
 *  by name alone), for oncePerRun: one build per distinct program a run asks for. */
export function filesKey(dir: string, files: string[], byNameOnly: string[] = []): string {
    const hash = crypto.createHash("sha256");
    for (const file of [...files].sort()) {
        hash.update(`${file}\0`);
        if (!byNameOnly.includes(file)) hash.update(fs.readFileSync(path.join(dir, file)));
        hash.update("\0");
    }
    return hash.digest("hex").slice(0, 16);
}
