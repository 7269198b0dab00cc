// A root hook for the workers of a parallel run (mocha --parallel): a worker runs one file per
// root suite, so its root `beforeAll` and `afterAll` bracket that file, hooks included. Each file's
// time is appended to the file CHATBOT_TEST_TIMES names, for tests/helpers/reporter.js to print:
// the events a worker sends reach the reporter in one batch at the file's end, so the reporter's
// own clock cannot time a file there. Beside its time goes the CPU the file used, every process it
// started included (tests/helpers/cpuAccounting.js: the file's own cgroup inside the run's), so the
// next person sees what costs CPU and what only waits: on 2 cores the suite is bound by CPU.
"use strict";
const fs = require("fs");
const cpu = require("./cpuAccounting");

let started = 0;
let cpuAtStart = 0;
let runsAtStart = { commands: 0, programs: 0 };

/** The pulumi commands this process started so far (scripts/pulumiStack.ts counts them). */
function pulumiRuns() {
    const counted = globalThis[Symbol.for("pulumi-chatbot.pulumiRuns")];
    return { commands: counted?.commands ?? 0, programs: counted?.programs ?? 0 };
}

let fileCgroup;
let filesSeen = 0;

/** CPU seconds of this file so far: its cgroup's, or (no cgroup) this process's and its waited-for
 *  children's. */
function cpuSeconds() {
    return fileCgroup ? cpu.usage(fileCgroup) : cpu.ownCpu();
}

/** The cases of a suite and its suites. */
function countTests(suite) {
    return suite.tests.length + suite.suites.reduce((n, s) => n + countTests(s), 0);
}

let caseStarted = 0;
let caseCpuAtStart = 0;

exports.mochaHooks = {
    // With CHATBOT_TEST_CASES naming a file, each case's time and CPU go there too (hooks' are the
    // file's only): where to look when a file's CPU grows.
    beforeEach() {
        caseStarted = Date.now();
        caseCpuAtStart = cpuSeconds();
    },
    afterEach() {
        const out = process.env.CHATBOT_TEST_CASES;
        if (!out || !this.currentTest) return;
        fs.appendFileSync(
            out,
            `${JSON.stringify({
                file: this.currentTest.file,
                title: this.currentTest.fullTitle(),
                ms: Date.now() - caseStarted,
                cpu: cpuSeconds() - caseCpuAtStart,
            })}\n`,
        );
    },
    beforeAll() {
        const run =
            process.env.CHATBOT_TEST_OWNER === String(process.ppid) ? process.env.CHATBOT_TEST_CGROUP : undefined;
        fileCgroup = run ? cpu.enter(`file-${process.pid}-${++filesSeen}`, run) : undefined;
        started = Date.now();
        cpuAtStart = cpuSeconds();
        runsAtStart = pulumiRuns();
    },
    afterAll() {
        // A worker of the run that named the file (not of a mocha run a test started, which
        // inherits the name): mocha forks its workers itself.
        const out =
            process.env.CHATBOT_TEST_OWNER === String(process.ppid) ? process.env.CHATBOT_TEST_TIMES : undefined;
        const files = [...new Set(this.test.parent.suites.map((s) => s.file).filter(Boolean))];
        // In a serial run the root suite holds every file: the reporter times those itself.
        if (!out || files.length !== 1) return;
        const runs = pulumiRuns();
        fs.appendFileSync(
            out,
            `${JSON.stringify({
                file: files[0],
                ms: Date.now() - started,
                cpu: cpuSeconds() - cpuAtStart,
                cgroup: fileCgroup !== undefined,
                tests: this.test.parent.suites.reduce((n, s) => n + countTests(s), 0),
                pulumi: runs.commands - runsAtStart.commands,
                programs: runs.programs - runsAtStart.programs,
            })}\n`,
        );
    },
};
