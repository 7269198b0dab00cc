// A root hook for the workers of a parallel run (mocha --parallel): a worker runs one file per
// root suite, so its root `beforeAll` and `afterAll` bracket that file, hooks included. Each file's
// time is appended to the file CHATBOT_TEST_TIMES names, for tests/helpers/reporter.js to print:
// the events a worker sends reach the reporter in one batch at the file's end, so the reporter's
// own clock cannot time a file there.
"use strict";
const fs = require("fs");

let started = 0;

exports.mochaHooks = {
    beforeAll() {
        started = Date.now();
    },
    afterAll() {
        const out = process.env.CHATBOT_TEST_TIMES;
        const files = [...new Set(this.test.parent.suites.map((s) => s.file).filter(Boolean))];
        // In a serial run the root suite holds every file: the reporter times those itself.
        if (!out || files.length !== 1) return;
        fs.appendFileSync(out, `${JSON.stringify({ file: files[0], ms: Date.now() - started })}\n`);
    },
};
