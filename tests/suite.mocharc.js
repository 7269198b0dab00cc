// The suite's four selections, in mocha's parallel mode, by CHATBOT_TESTS:
// - unset: the whole suite (`npm test`), every file of tests/unit and tests/cli;
// - "unit": the quick tier (`npm run test:unit`), tests/unit: no pulumi CLI, no server process;
// - "node22": the second pass, on Node.js 22 (`npm run test:node22`): the quick tier and one file
//   of whole programs;
// - "reproducible": the release built twice from one commit, SHA256SUMS compared
//   (`npm run test:reproducible`, weekly beside the kill tier), tests/reproducible;
// - "kill": the kill tier (`npm run test:kill`, weekly: .github/workflows/kill.yml), tests/kill:
//   every seeded kill point, both deliveries, every state backend. npm test does not run those
//   rounds: it kills each delivery once per step of a stack's life and each shared backend once
//   (docs/killed-runs.md, "Which kill runs where").
// npm runs each on the Node.js 24 that package.json pins (the `node` dev dependency comes first
// on the PATH of npm's scripts, so the programs and plugins the CLI starts run on it too), but
// test:node22, which puts Node.js 22 before it.
//
// Most of a CLI file's time is waiting: on a rate limit's Retry-After, a killed run, a server
// starting, the engine's own pauses. Four workers on two cores keep both cores busy while files
// wait. Each file already owns everything it starts (its simulator on port 0, temporary
// folders, PULUMI_HOME, backend), so files cannot reach each other's state.
//
// A worker takes the next file when it is free, so the longest files go first (their order below,
// from the slowest-files list the reporter prints); files not named run after them.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const base = require("../.mocharc.js");

const root = path.resolve(__dirname, "..");

/** Slowest first; a file missing here still runs, after these. */
const LONGEST_FIRST = [
    // The kill tier's: its own selection, longest first too.
    "kill/killMatrixUp.test.ts",
    "kill/stateBackends.test.ts",
    "kill/killMatrixMore.test.ts",
    "cli/release.test.ts",
    "cli/killedRun.test.ts",
    "cli/stateBackends.test.ts",
    "cli/killLifecycle.test.ts",
    "cli/rateLimits.test.ts",
    "cli/examples.test.ts",
    "cli/goProgram.test.ts",
    "cli/javaProgram.test.ts",
    "cli/killedProcesses.test.ts",
    "cli/packaging.test.ts",
    "cli/echoedSecrets.test.ts",
    "cli/nativeProvider.test.ts",
    "cli/pythonProgram.test.ts",
    "cli/program.test.ts",
    "cli/liveTier.test.ts",
    "cli/webhookConnection.test.ts",
    "cli/discover.test.ts",
    "cli/legacyWebhook.test.ts",
    "cli/policy.test.ts",
    // The quick tier's longest: each mostly waits on the client's timeouts and pauses, 25 to 40 s.
    "unit/client.test.ts",
    "unit/faultsWebhookConnection.test.ts",
    "unit/faultsLegacyWebhook.test.ts",
    "unit/faultsWebhookConnectionAnswers.test.ts",
    "unit/faultsLegacyWebhookAnswers.test.ts",
];

/**
 * The second pass, on Node.js 22, the older LTS that `engines` admits: the whole quick tier (the
 * provider, client, webhook kit and simulator run in mocha's own process), and one file of whole
 * programs whose dynamic provider is serialized and rebuilt by that Node.js (program.test.ts:
 * create, update, replace, refresh, import and secrets of both resources).
 */
const ON_NODE_22 = ["unit", "cli/program.test.ts"];

function testFiles(dir) {
    return fs
        .readdirSync(path.join(__dirname, dir))
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `${dir}/${f}`)
        .sort();
}

function ordered(files) {
    const rank = (f) => (LONGEST_FIRST.includes(f) ? LONGEST_FIRST.indexOf(f) : LONGEST_FIRST.length);
    return [...files].sort((a, b) => rank(a) - rank(b));
}

const all = [...testFiles("cli"), ...testFiles("unit")];
const selections = {
    "": all,
    unit: testFiles("unit"),
    node22: all.filter((f) => ON_NODE_22.some((d) => f === d || f.startsWith(`${d}/`))),
    kill: testFiles("kill"),
    reproducible: testFiles("reproducible"),
};
// CHATBOT_TEST_FILES=cli/a.test.ts,unit/b.test.ts: just those, with the suite's settings and its
// reporter's figures (a file's CPU and pulumi commands), as when working on one file's cost.
const named = process.env.CHATBOT_TEST_FILES?.split(",").filter(Boolean);
const chosen = named ?? selections[process.env.CHATBOT_TESTS ?? ""];
if (!chosen) {
    throw new Error(
        `CHATBOT_TESTS=${process.env.CHATBOT_TESTS}: expected unit, node22, kill, reproducible, or unset for the whole suite`,
    );
}
// The pass's point is its Node.js: a PATH that put another first would prove nothing.
if (process.env.CHATBOT_TESTS === "node22" && !process.version.startsWith("v22.")) {
    throw new Error(`CHATBOT_TESTS=node22 runs on Node.js 22, not ${process.version} (npm run test:node22)`);
}

// `npm test --ignore-scripts` (.ci/run, which builds once beforehand) means npm's own pre-step
// only, but npm hands the setting down to every process: the packaging case's `npm pack` of a fresh
// copy would then skip the prepack build it proves (the release packs dist/ as built when it is
// current, scripts/dist-state.js). The workers inherit this environment, so it is cleared here.
for (const key of Object.keys(process.env)) {
    if (key.toLowerCase() === "npm_config_ignore_scripts") delete process.env[key];
}

// Where the workers write each file's time (tests/helpers/fileTimes.js), for the reporter.
process.env.CHATBOT_TEST_TIMES = path.join(os.tmpdir(), `chatbot-test-times-${process.pid}.jsonl`);
// The run's totals, which the reporter prints: its wall time from here, and its CPU, every process
// it starts included, from a cgroup of its own (tests/helpers/cpuAccounting.js), inside which each
// file gets one. It is removed when this process exits, the workers gone.
process.env.CHATBOT_TEST_STARTED = String(Date.now());
// Whose these are: a mocha run a test starts (the acceptance tier's, in liveTier.test.ts) inherits
// them, and its reporter once took this run's file of times as its own and removed it, which left
// the first 14 files out of the slowest files and the totals.
process.env.CHATBOT_TEST_OWNER = String(process.pid);
{
    const cpu = require("./helpers/cpuAccounting");
    const outer = cpu.ownCgroup();
    const run = cpu.enter(`chatbot-tests-${process.pid}`, outer);
    if (run) {
        process.env.CHATBOT_TEST_CGROUP = run;
        process.on("exit", () => cpu.leave(run, outer));
    } else {
        delete process.env.CHATBOT_TEST_CGROUP;
    }
    // The machine's yardstick, measured beside the run's start (not after its end, where it would
    // add its seconds to the wall time), in the cgroup outside the run's, so the run's CPU is its
    // own; the reporter prints it with the totals.
    process.env.CHATBOT_TEST_YARDSTICK = path.join(os.tmpdir(), `chatbot-test-yardstick-${process.pid}.txt`);
    const measuring = require("../scripts/yardstick").startYardstick(process.env.CHATBOT_TEST_YARDSTICK);
    if (measuring?.pid !== undefined && run && outer) cpu.move(measuring.pid, outer);
}

module.exports = {
    ...base,
    require: [...base.require, path.join(__dirname, "helpers", "fileTimes.js")],
    parallel: true,
    // Four workers, for both selections. The quick tier's longest files (the client's and the fault
    // matrix's four) mostly wait, about 2 s of CPU each in 10 to 40 s: four run them side by side
    // (63 s for the tier, its build included, against 75 s with three). The whole suite's CLI files
    // keep a core busy about half their time: three workers, beside .ci/run's other passes, took
    // 16m35s of wall time for 24m30s of CPU; four, alone on the machine, 11m51s for 21m51s
    // (yardstick 0.50 s), as work of one file fills the other's waits.
    jobs: Number(process.env.CHATBOT_TEST_JOBS || 4),
    spec: ordered(chosen).map((f) => path.relative(root, path.join(__dirname, f))),
};
