// The spec reporter, plus the run's totals (wall time, and CPU of every process it started: the
// budget of issue 58 is judged by these two), the machine's yardstick line beside them, the 10
// slowest files with their times, and one plain closing line ("N passed, N failed, N skipped")
// that CI reads.
//
// A file's time is from its first suite's start to its last suite's end, hooks included. In serial
// mode the reporter sees events as they happen; in parallel mode a worker sends a file's events in
// one batch when the file is done, so there the worker's own clock is used: tests/helpers/fileTimes.js
// (a root hook each worker loads) writes each file's time to the file CHATBOT_TEST_TIMES names.
"use strict";
const fs = require("fs");
const path = require("path");
const Mocha = require("mocha");
const { readYardstick } = require("../../scripts/yardstick");
const cpuAccounting = require("./cpuAccounting");
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

const root = path.resolve(__dirname, "..", "..");

class SpecWithSummary extends Mocha.reporters.Spec {
    constructor(runner, options) {
        super(runner, options);
        const seen = new Map(); // file -> { start, end }
        runner.on(EVENT_SUITE_BEGIN, (suite) => {
            if (!suite.file || !suite.parent || !suite.parent.root) return;
            const t = seen.get(suite.file) ?? { start: Date.now(), end: Date.now() };
            seen.set(suite.file, t);
        });
        runner.on(EVENT_SUITE_END, (suite) => {
            if (!suite.file || !suite.parent || !suite.parent.root) return;
            const t = seen.get(suite.file);
            if (t) t.end = Date.now();
        });
        runner.once(EVENT_RUN_END, () => {
            const times =
                workerTimes() ?? new Map([...seen].map(([file, t]) => [file, { ms: t.end - t.start, cpu: undefined }]));
            // CHATBOT_TEST_SLOWEST=N lists N files (every file with a large N), when working on the cost.
            const shown = Number(process.env.CHATBOT_TEST_SLOWEST) || 10;
            const slowest = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, shown);
            const cgroups = [...times.values()].every((t) => t.cgroup);
            if (slowest.length > 1) {
                process.stdout.write(
                    `\nslowest files (wall, CPU of every process the file started${cgroups ? "" : " (waited-for children only: no cgroup here)"}, pulumi commands (of them: operations)):\n`,
                );
                for (const [file, t] of slowest) {
                    const used = t.cpu === undefined ? "" : `  cpu ${clock(t.cpu).padStart(7)}`;
                    const runs =
                        t.pulumi === undefined
                            ? ""
                            : `  ${String(t.pulumi).padStart(4)} (${String(t.programs).padStart(3)})`;
                    process.stdout.write(
                        `  ${clock(t.ms / 1000).padStart(7)}${used}${runs}  ${path.relative(root, file)}\n`,
                    );
                }
            }
            const totals = runTotals(times);
            if (totals) process.stdout.write(`\n${totals}\n`);
            // Every file's figures, for a closing note's table: CHATBOT_TEST_REPORT names the file.
            if (process.env.CHATBOT_TEST_REPORT) {
                const rows = [...times].sort((a, b) => a[0].localeCompare(b[0]));
                fs.writeFileSync(
                    process.env.CHATBOT_TEST_REPORT,
                    [
                        "| file | cases | pulumi runs (of them: the program's) | wall | CPU |",
                        "|---|---:|---:|---:|---:|",
                        ...rows.map(
                            ([file, t]) =>
                                `| ${path.relative(root, file)} | ${t.tests ?? ""} | ${t.pulumi ?? ""} (${t.programs ?? ""}) | ${clock(t.ms / 1000)} | ${t.cpu === undefined ? "" : clock(t.cpu)} |`,
                        ),
                        "",
                    ].join("\n"),
                );
            }
            const s = runner.stats || {};
            process.stdout.write(
                `\ntests: ${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} skipped\n`,
            );
        });
    }
}

/** The run's wall time and CPU (the run's cgroup: every process, leftovers included; else the sum of
 *  the files'), its pulumi commands, and the machine's yardstick, measured beside the run's start
 *  (tests/suite.mocharc.js). */
function runTotals(times) {
    const started = Number(process.env.CHATBOT_TEST_STARTED);
    if (!started || process.env.CHATBOT_TEST_OWNER !== String(process.pid)) return undefined;
    const wall = (Date.now() - started) / 1000;
    const run = process.env.CHATBOT_TEST_CGROUP;
    const cpu = run ? cpuAccounting.usage(run) : [...times.values()].reduce((sum, t) => sum + (t.cpu ?? 0), 0);
    const commands = [...times.values()].reduce((sum, t) => sum + (t.pulumi ?? 0), 0);
    const operations = [...times.values()].reduce((sum, t) => sum + (t.programs ?? 0), 0);
    return [
        `run totals: wall ${clock(wall)}, CPU ${clock(cpu)} (${run ? "every process of the run" : "the files' sum, waited-for children only"}), ` +
            `${commands} pulumi commands, ${operations} of them operations, ${times.size} files`,
        readYardstick(process.env.CHATBOT_TEST_YARDSTICK),
    ].join("\n");
}

/** 754 seconds as "12m34s". */
function clock(seconds) {
    const s = Math.round(seconds);
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** The times the workers of a parallel run wrote, or undefined in a serial run. */
function workerTimes() {
    const file = process.env.CHATBOT_TEST_TIMES;
    // Only the run that named the file reads it (a mocha run a test starts inherits the name).
    if (!file || !fs.existsSync(file) || process.env.CHATBOT_TEST_OWNER !== String(process.pid)) return undefined;
    const times = new Map();
    for (const line of fs.readFileSync(file, "utf8").split("\n").filter(Boolean)) {
        const { file: f, ...figures } = JSON.parse(line);
        times.set(f, figures);
    }
    fs.rmSync(file, { force: true });
    return times.size > 0 ? times : undefined;
}

module.exports = SpecWithSummary;
