/**
 * Artifacts built once per test run and shared by every file that needs them, whichever worker of
 * a parallel run (`npm test`) asks first: the others wait for it. The first caller holds a lock
 * (a folder made atomically) while it builds; the result (a path) is written beside it for the
 * rest. A run is the mocha command: .mocharc.js names it in CHATBOT_TEST_RUN, which the workers
 * inherit.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

const WAIT_MS = 20 * 60_000;

/** Blocks this thread for `ms` (the callers build synchronously, as the scripts they run do). */
function sleep(ms: number): void {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** `build()`'s result for `name`, built by the first caller of this run. */
export function oncePerRun(name: string, build: () => string): string {
    const run = process.env.CHATBOT_TEST_RUN ?? `pid-${process.pid}`;
    const dir = path.join(os.tmpdir(), `chatbot-test-run-${run}`);
    fs.mkdirSync(dir, { recursive: true });
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
