/**
 * Killing a pulumi run as a cancelled CI job does (SIGKILL), and the documented step after it,
 * `pulumi-chatbot recover`: shared by the killed-run tests and the rate-limit tests.
 */
import { strict as assert } from "assert";
import { execFile } from "child_process";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { root } from "./support";
import { pulumiCli, type PulumiStack } from "./pulumi";

const CLI = path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js");

/** `pulumi-chatbot recover` as a pipeline runs it: in the project, the CLI on PATH; with
 *  `--stack` unless `selected` (the stack `pulumi stack select` chose is then recovered). */
export function recoverRun(
    stack: PulumiStack,
    args: string[] = [],
    opts: { selected?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = stack.environment({ PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}` });
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            [CLI, "recover", ...(opts.selected ? [] : ["--stack", stack.name]), ...args],
            { cwd: stack.projectDir, env, timeout: 180_000 },
            (error, stdout, stderr) =>
                resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
        );
    });
}

/**
 * Starts `pulumi <command>` and kills it (SIGKILL) once the simulator has answered `afterWrites`
 * writes, or after `deadlineMs` at the latest; resolves when it has exited. Then waits until
 * the simulator has no request in hand (what was in flight has landed).
 */
export async function killDuring(
    sim: ChatbotSimulator,
    stack: PulumiStack,
    command: "up" | "destroy",
    afterWrites: number,
    deadlineMs = 30_000,
): Promise<{ killedAfter: number }> {
    const writes = () => sim.requests.filter((r) => r.method !== "GET").length;
    const start = writes();
    let pid: number | undefined;
    let killedAfter = -1;
    const done = stack.run(command, { onStart: (p) => (pid = p) });
    const began = Date.now();
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished && Date.now() - began < deadlineMs) {
        if (pid !== undefined && writes() - start >= afterWrites) break;
        await new Promise((r) => setTimeout(r, 10));
    }
    if (!finished && pid !== undefined) {
        killedAfter = writes() - start;
        process.kill(pid, "SIGKILL");
    }
    const result = await done;
    assert.ok(killedAfter >= 0, `the run ended before it could be killed:\n${result.stdout}`);
    // What the killed run had sent lands; a plugin that outlives the run starts nothing new.
    await new Promise((r) => setTimeout(r, 300));
    await sim.idle();
    return { killedAfter };
}
