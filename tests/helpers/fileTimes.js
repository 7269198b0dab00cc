// A root hook for the workers of a parallel run (mocha --parallel): a worker runs one file per
// root suite, so its root `beforeAll` and `afterAll` bracket that file, hooks included. Each file's
// time is appended to the file CHATBOT_TEST_TIMES names, for tests/helpers/reporter.js to print:
// the events a worker sends reach the reporter in one batch at the file's end, so the reporter's
// own clock cannot time a file there. Beside its time goes the CPU the file used, its child
// processes included (the CLI, its plugins and programs), so the next person sees what costs CPU
// and what only waits: on 2 cores the suite is bound by CPU, not by waiting.
"use strict";
const fs = require("fs");

let started = 0;
let cpuAtStart = 0;

/** Seconds of CPU used by this process and its children that ended and were waited for (Linux's
 *  /proc/self/stat: utime, stime, cutime, cstime, in clock ticks of 1/100 s); elsewhere this
 *  process's own. */
function cpuSeconds() {
    try {
        const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
        // Fields 14-17 of proc(5), counted from 3 after the command's closing parenthesis.
        return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
    } catch {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
    }
}

exports.mochaHooks = {
    beforeAll() {
        started = Date.now();
        cpuAtStart = cpuSeconds();
    },
    afterAll() {
        const out = process.env.CHATBOT_TEST_TIMES;
        const files = [...new Set(this.test.parent.suites.map((s) => s.file).filter(Boolean))];
        // In a serial run the root suite holds every file: the reporter times those itself.
        if (!out || files.length !== 1) return;
        fs.appendFileSync(
            out,
            `${JSON.stringify({ file: files[0], ms: Date.now() - started, cpu: cpuSeconds() - cpuAtStart })}\n`,
        );
    },
};
