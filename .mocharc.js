// Tests are TypeScript run through ts-node. Type checking is `npm run typecheck`; here ts-node
// only transpiles, which keeps the suite fast.
process.env.TS_NODE_TRANSPILE_ONLY = "true";
process.env.TS_NODE_PROJECT = require("path").join(__dirname, "tsconfig.json");

/**
 * Whether files are named on the command line (`npx mocha tests/killedRun.test.ts`). Mocha adds a
 * config's `spec` to the files named (lib/cli/options.js, loadOptions), so with the suite's spec
 * always given, naming one file ran them all. The arguments are read as mocha reads them (its
 * option types and aliases), so an option's value is not taken for a file.
 */
function filesNamed() {
    const yargsParser = require("yargs-parser");
    const { types, aliases } = require("mocha/lib/cli/run-option-metadata");
    const { YARGS_PARSER_CONFIG } = require("mocha/lib/cli/options");
    const valued = [...types.array, ...types.string, ...types.number];
    const args = yargsParser(process.argv.slice(2), {
        configuration: YARGS_PARSER_CONFIG,
        alias: aliases,
        boolean: types.boolean,
        array: types.array,
        string: types.string,
        number: types.number,
        narg: Object.fromEntries(valued.map((name) => [name, 1])),
    });
    return args._.length > 0 || args.spec !== undefined;
}

module.exports = {
    require: ["ts-node/register"],
    // The whole suite, unless files are named.
    ...(filesNamed() ? {} : { spec: ["tests/**/*.test.ts"] }),
    extension: ["ts"],
    timeout: 60000,
    slow: 2000,
    exit: false,
    reporter: require("path").join(__dirname, "tests", "reporter.js"),
};
