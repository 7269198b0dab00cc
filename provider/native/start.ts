/**
 * `pulumi-resource-chatbot`'s entry (the release's single executable, and the npm package's
 * plugin/ script): started by the engine, it serves the provider protocol (./server.ts); started
 * with a command (`pulumi plugin run --kind resource chatbot -- recover --stack prod`), it is the
 * `pulumi-chatbot` command line (./commandLine.ts). Each loads only its own code, so the provider
 * starts as it did before the command line was in the executable.
 */
import { commandArgs, runCommandLine } from "./commandLine";

const command = commandArgs(process.argv.slice(2), process.env);
if (command) {
    runCommandLine(command);
} else {
    (require("./server") as typeof import("./server")).main().catch((e: unknown) => {
        process.stderr.write(`pulumi-resource-chatbot: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
    });
}
