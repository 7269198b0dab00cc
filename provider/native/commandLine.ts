/**
 * The plugin executable as the `pulumi-chatbot` command: started with a command (`pulumi plugin run
 * --kind resource chatbot -- recover --stack prod`), it runs the same `main` as the npm package's
 * bin (../cli/index.ts), with the same options, output and exit codes. The command line is loaded
 * only then, so a provider's start reads none of it.
 *
 * In the release's single executable the command line is a chunk of its own (scripts/plugin.js), a
 * bundle of ../cli/index.ts kept in the executable as an asset, and so are the clients of the state
 * backends it may need, `pg` and `@aws-sdk/client-s3` (optional peer dependencies of the npm
 * package): each is compiled the first time it is required, so `recover` on a folder backend never
 * reads the S3 client.
 */
import * as path from "path";

/** Flags Pulumi puts before a plugin's own arguments when the CLI logs or traces
 *  (pkg/resource/plugin/plugin.go, buildPluginArguments, v3.274.1): `--logtostderr`, `-v=<level>`,
 *  `--tracing <endpoint>`. Neither the provider nor the command line uses them. */
function withoutPulumiFlags(argv: string[]): string[] {
    let i = 0;
    while (i < argv.length) {
        if (argv[i] === "--logtostderr" || /^-v=\d+$/.test(argv[i])) i += 1;
        else if (argv[i] === "--tracing" && i + 1 < argv.length) i += 2;
        else break;
    }
    return argv.slice(i);
}

/** The engine's address, which is all the engine passes a provider it starts (`127.0.0.1:<port>`,
 *  pkg/resource/plugin/provider_plugin.go and host/host_server.go). */
const ENGINE_ADDRESS = /^[\w.-]+:\d+$|^\[[\da-fA-F:.]+\]:\d+$/;

/**
 * The command line's arguments in `argv` (the process's, after the script), or undefined when the
 * process is to serve the provider protocol: the engine starts it with its address alone, and a
 * start with no argument serves too (as the bench and a debugger start it), but under `pulumi
 * plugin run`, which sets PULUMI_RPC_TARGET (pkg/cmd/pulumi/plugin/plugin_run.go): there no
 * argument is a person asking what the command does, answered as the npm bin answers it.
 */
export function commandArgs(argv: string[], env: NodeJS.ProcessEnv): string[] | undefined {
    const args = withoutPulumiFlags(argv);
    if (args.length === 0) return env.PULUMI_RPC_TARGET ? [] : undefined;
    if (args.length === 1 && ENGINE_ADDRESS.test(args[0])) return undefined;
    return args;
}

type CommandLine = typeof import("../cli/index");

/** Runs the command line with `args`; the process ends with its exit code once its output is written. */
export function runCommandLine(args: string[]): void {
    const sea = require("node:sea") as typeof import("node:sea");
    let cli: CommandLine;
    try {
        // Outside a single executable (the npm package's plugin folder runs dist/ with node), the
        // package's own module, from beside this one.
        cli = (sea.isSea() ? fromChunk("cli") : require("../cli/index")) as CommandLine;
    } catch (e) {
        // As the bin reports what it did not expect (../cli/index.ts, run): name and message, exit 2.
        process.stderr.write(`pulumi-chatbot: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n`);
        process.exitCode = 2;
        return;
    }
    cli.run(args);
}

/** What is used of Node.js's Module, whose `_compile` is not in its types. */
type ModuleClass = new (id: string) => {
    exports: unknown;
    filename: string;
    paths: string[];
    require(request: string): unknown;
    _compile(source: string, filename: string): void;
};

const chunks = new Map<string, InstanceType<ModuleClass>>();

/**
 * The exports of the executable's chunk `name` (its asset `<name>.js`: scripts/plugin.js, CHUNKS),
 * compiled and run as a CommonJS module the first time. Compiled as Node.js compiles a module file
 * (Module's `_compile`), not by `vm.compileFunction`: there, an `import()` needs an experimental
 * option that warns on stderr, and the AWS SDK imports node:http so (its instance-metadata
 * credentials, for S3 state read from an EC2 runner).
 */
function fromChunk(name: string): unknown {
    const done = chunks.get(name);
    if (done) return done.exports;
    const sea = require("node:sea") as typeof import("node:sea");
    const { Module } = require("node:module") as { Module: ModuleClass };
    // Named as if beside the executable, whose folder is the plugin's: where a stack trace points.
    const filename = path.join(path.dirname(process.execPath), `${name}.js`);
    const chunk = new Module(filename);
    chunk.filename = filename;
    chunk.paths = [];
    chunk.require = chunkRequire;
    chunks.set(name, chunk); // a cycle sees the exports so far, as Node's require does
    chunk._compile(sea.getAsset(`${name}.js`, "utf8"), filename);
    return chunk.exports;
}

/** `require` inside a chunk: a module of Node.js itself (all a single executable's require loads),
 *  else the package of that name, which is a chunk (`pg`, `@aws-sdk/client-s3`). */
function chunkRequire(request: string): unknown {
    const { isBuiltin } = require("node:module") as typeof import("node:module");
    return isBuiltin(request) ? require(request) : fromChunk(request);
}
