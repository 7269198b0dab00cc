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
process.env.CHATBOT_TEST_RUN ||= `${process.pid}-${Date.now()}`;

module.exports = {
    require: ["ts-node/register"],
    extension: ["ts"],
    timeout: 60000,
    slow: 2000,
    exit: false,
    reporter: require("path").join(__dirname, "tests", "helpers", "reporter.js"),
};
