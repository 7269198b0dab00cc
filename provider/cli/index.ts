#!/usr/bin/env node
/**
 * The `pulumi-chatbot` command: `discover`, `recover`, `sweep` and `probe`. One implementation,
 * `main`, run by the npm package's bin (this file) and by the plugin executable when it is started
 * with a command (`pulumi plugin run --kind resource chatbot -- <command>`, ../native/commandLine.ts).
 */
import * as fs from "fs";
import { discover, DISCOVER_USAGE, EXIT } from "./discover";
import { probe, PROBE_USAGE } from "./probe";
import { pulumiOnPath } from "./pulumiCli";
import { processIo, recover, RECOVER_USAGE } from "./recover";
import { sweep, SWEEP_USAGE } from "./sweep";

/** The command names: what the plugin executable takes as a command rather than a provider start. */
export const COMMANDS = ["discover", "recover", "sweep", "probe"] as const;

const USAGE = `Usage: pulumi-chatbot <command>

Commands:
  discover   find connections no stack manages and write a program that adopts them
  recover    repair a stack after a killed pulumi run (before \`pulumi up\`)
  sweep      delete the connections whose names start with a prefix (what test runs left)
  probe      call backends as ChatBot does (one URL, a stack's connections, or the account's)
             and say whether ChatBot would accept each

${DISCOVER_USAGE}
${RECOVER_USAGE}
${SWEEP_USAGE}
${PROBE_USAGE}`;

/** Runs the command `argv` names with this process's streams and environment; resolves its exit
 *  code. Only what the command itself needs is loaded (a state backend's client on first use). */
export async function main(argv: string[]): Promise<number> {
    // The AWS SDK (an S3 state backend) warns on every Node.js older than 22, its future floor;
    // this command supports 20. Set here, by the process's owner, not by the backend it loads.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    const [command, ...rest] = argv;
    if (command === "discover") {
        return discover(rest, {
            stdout: (t) => process.stdout.write(t),
            stderr: (t) => process.stderr.write(t),
            env: process.env,
            readStdin: () => fs.readFileSync(0, "utf8"),
            pulumi: pulumiOnPath(),
        });
    }
    if (command === "recover") return recover(rest, processIo());
    if (command === "sweep") {
        return sweep(rest, {
            stdout: (t) => process.stdout.write(t),
            stderr: (t) => process.stderr.write(t),
            env: process.env,
        });
    }
    if (command === "probe") {
        return probe(rest, {
            stdout: (t) => process.stdout.write(t),
            stderr: (t) => process.stderr.write(t),
            env: process.env,
            pulumi: pulumiOnPath(),
        });
    }
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
        process.stdout.write(USAGE);
        return command === undefined ? EXIT.failed : EXIT.ok;
    }
    process.stderr.write(`pulumi-chatbot: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return EXIT.failed;
}

/** `main`, its exit code set on the process, which ends once its output is written. */
export function run(argv: string[]): void {
    main(argv).then(
        (code) => {
            process.exitCode = code;
        },
        (e: unknown) => {
            // Unexpected: the name and message only (the client redacts secrets from its messages).
            process.stderr.write(`pulumi-chatbot: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n`);
            process.exitCode = EXIT.failed;
        },
    );
}

if (require.main === module) run(process.argv.slice(2));
