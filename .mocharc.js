// Tests are TypeScript run through ts-node. Type checking is `npm run typecheck`; here ts-node
// only transpiles, which keeps the suite fast.
process.env.TS_NODE_TRANSPILE_ONLY = "true";
process.env.TS_NODE_PROJECT = require("path").join(__dirname, "tsconfig.json");
module.exports = {
    require: ["ts-node/register"],
    spec: ["tests/**/*.test.ts"],
    extension: ["ts"],
    timeout: 60000,
    slow: 2000,
    exit: false,
    reporter: require("path").join(__dirname, "tests", "reporter.js"),
};
