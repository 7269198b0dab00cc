/**
 * The `pulumi` runs that `recover`, `discover` and `probe` make, and what they read through them:
 * the ids every stack of a backend records (the CLI lists the stacks and exports each, on every
 * kind of backend), one stack's resources, and a stack's config.
 */
import { spawn } from "child_process";
import { scrub } from "../client/redact";
import { managedResources, type ManagedResource } from "./stackExport";

export interface PulumiResult {
    code: number;
    stdout: string;
    stderr: string;
}

/** Runs `pulumi <args>` (in the command's folder, with its environment and `env` on top),
 *  `stdin` given; resolves whatever its exit code. */
export type PulumiRun = (
    args: string[],
    opts?: { stdin?: string; env?: Record<string, string> },
) => Promise<PulumiResult>;

/** A `pulumi` run that failed: its message quotes the command's output, scrubbed. */
export class PulumiFailed extends Error {}

/** Runs `pulumi <args>` with no prompt and no colour, and returns its standard output; `what`
 *  names the command in the failure. */
export type CheckedRun = (
    args: string[],
    what: string,
    stdin?: string,
    env?: Record<string, string>,
) => Promise<string>;

/** `pulumi` as `recover` and `discover` run it: an exit code other than 0 throws PulumiFailed with
 *  the output, scrubbed (pulumi's errors quote a backend URL as given: `unable to open postgres
 *  database "postgres://user:password@..."`), and `secrets` (read at the time of the failure). */
export function checkedRun(pulumi: PulumiRun, secrets: readonly string[]): CheckedRun {
    return async (args, what, stdin, env) => {
        const r = await pulumi([...args, "--non-interactive", "--color", "never"], { stdin, env });
        if (r.code !== 0) {
            throw new PulumiFailed(
                `\`pulumi ${what}\` failed (exit ${r.code}):\n${scrub(`${r.stderr}${r.stdout}`, secrets).trim()}`,
            );
        }
        return r.stdout;
    };
}

/** `pulumi` from PATH, in the current folder. */
export function pulumiOnPath(): PulumiRun {
    return (args, opts = {}) =>
        new Promise((resolve) => {
            const child = spawn("pulumi", args, {
                stdio: ["pipe", "pipe", "pipe"],
                env: { ...process.env, ...opts.env },
            });
            let stdout = "";
            let stderr = "";
            child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
            child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
            child.on("error", (e) => resolve({ code: 127, stdout, stderr: `${stderr}${e.message}` }));
            child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
            // A pulumi that fails before reading its input (a backend gone at that moment) closes
            // the pipe: EPIPE here would end this process with a stack trace instead of the
            // message of what was written; its exit code and output say what happened.
            child.stdin.on("error", () => undefined);
            child.stdin.end(opts.stdin ?? "");
        });
}

/**
 * The ids of this package's resources that the stacks of the backend record (`pulumi stack ls
 * --all`, then `pulumi stack export` of each), but for `skip`'s. `read` runs a command and
 * returns its output (it fails on an exit code other than 0).
 *
 * The stacks are listed one at a time unless PULUMI_DIY_BACKEND_PARALLEL says otherwise: with
 * more at once, pulumi v3.274.1's PostgreSQL backend can hang for ever (its listing holds one
 * connection of a small pool while it asks for another, pkg/backend/diy/postgres/bucket.go
 * ListPaged: on 2 cores, 4 stacks were enough). Elsewhere it only makes the listing slower.
 */
export async function idsOfStacks(
    read: CheckedRun,
    env: NodeJS.ProcessEnv,
    skip: (name: string) => boolean = () => false,
): Promise<Set<string>> {
    const bound = { PULUMI_DIY_BACKEND_PARALLEL: env.PULUMI_DIY_BACKEND_PARALLEL || "1" };
    const stacks = JSON.parse(await read(["stack", "ls", "--all", "--json"], "stack ls", undefined, bound)) as {
        name: string;
    }[];
    const ids = new Set<string>();
    for (const { name } of stacks) {
        if (skip(name)) continue;
        for (const r of await managedInStack(read, name)) ids.add(r.id);
    }
    return ids;
}

/** This package's resources that stack `name` manages, from its `pulumi stack export` (no
 *  secrets shown: ids and types are all it needs). */
export async function managedInStack(read: CheckedRun, name: string): Promise<ManagedResource[]> {
    const text = await read(["stack", "export", "--stack", name], `stack export --stack ${name}`);
    return managedResources(text, `stack ${name}`);
}

/** A stack's config, secrets in plaintext (kept in memory, never printed): a key's string value,
 *  else undefined. `onStack` is `["--stack", name]`. */
export async function stackConfig(read: CheckedRun, onStack: string[]): Promise<(key: string) => string | undefined> {
    const config = JSON.parse(await read(["config", "--json", "--show-secrets", ...onStack], "config")) as Record<
        string,
        { value?: unknown }
    >;
    return (key) => {
        const v = config[key]?.value;
        return typeof v === "string" ? v : undefined;
    };
}
