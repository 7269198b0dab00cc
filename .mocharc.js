// What every run of mocha shares: `npx mocha <file>` runs that file alone (no spec here, so mocha
// adds none to the files named), serially. The whole suite and the quick tier name their files and
// their mode in tests/suite.mocharc.js.
//
// Tests are TypeScript run through ts-node. Type checking is `npm run typecheck`; here ts-node
// only transpiles, which keeps the suite fast.
process.env.TS_NODE_TRANSPILE_ONLY = "true";
process.env.TS_NODE_PROJECT = require("path").join(__dirname, "tsconfig.json");
// One name per mocha command, which the workers of a parallel run inherit: what is built once per
// run (tests/helpers/oncePerRun.ts) is shared under it.
if (!process.env.CHATBOT_TEST_RUN) {
    process.env.CHATBOT_TEST_RUN = `${process.pid}-${Date.now()}`;
    // This command named the run, so its global teardown removes the run's folder at the end.
    process.env.CHATBOT_TEST_RUN_OWNER = String(process.pid);
}
// Node.js 22.1+ keeps the code it compiles in this folder for the next process (one folder per run,
// which CI's passes share: Node.js keeps each version's code apart inside it). Every pulumi run
// starts Node.js processes (the program, the dynamic provider's plugin) that each load the 764
// modules of @pulumi/pulumi: with the cache, a CLI file takes about 8% less CPU (CONTRIBUTING).
// mocha's workers, and the CLI, programs and plugins they start, inherit the variable; this process
// turns the cache on for itself too.
process.env.NODE_COMPILE_CACHE ||= require("path").join(
    require("os").tmpdir(),
    `chatbot-test-run-${process.env.CHATBOT_TEST_RUN}`,
    "compile-cache",
);
require("module").enableCompileCache?.(process.env.NODE_COMPILE_CACHE);

module.exports = {
    require: ["ts-node/register", require("path").join(__dirname, "tests", "helpers", "oncePerRun.ts")],
    extension: ["ts"],
    timeout: 60000,
    slow: 2000,
    exit: false,
    reporter: require("path").join(__dirname, "tests", "helpers", "reporter.js"),
};
