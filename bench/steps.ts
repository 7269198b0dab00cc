/**
 * The benchmark's steps, each a real `pulumi` command (scripts/pulumiStack.ts: the pinned CLI or
 * the one on PATH, hermetic) on a program of n connections or on the quickstart, and how each
 * figure is measured: the command's wall time, the CPU of the CLI and all it started, and the CPU
 * and peak memory of the dynamic-provider plugin the CLI starts for it, sampled from /proc. bench/run.ts runs them and prints the table.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import { PulumiStack, type RunResult } from "../scripts/pulumiStack";
import { endedChildrenCpuMs, processCpuMs, processMemory, since } from "./measure";
import { RemoteSimulator, type RequestStats } from "./simulator";

export const root = path.resolve(__dirname, "..");
/** `require` as a program in the root sees it: the installed package, not the checkout. */
export const installedRequire = createRequire(path.join(root, "node_modules", "_bench_.js"));

/** The simulator's delay before every answer. */
export const LATENCY_MS = 50;

/** `--parallel` of every command: undefined is the CLI's own default. */
export type Parallel = number | undefined;

/**
 * Without a flag the bench measures at the CLI's default parallelism and at 16, one after the
 * other in the same run; `npm run bench -- --parallel=<n|default>` measures at that one only.
 */
export const PARALLELS = parallelsFromArgs(process.argv);

function parallelsFromArgs(argv: string[]): Parallel[] {
    const arg = argv.find((a) => a.startsWith("--parallel="))?.slice("--parallel=".length);
    if (arg === undefined) return [undefined, 16];
    if (arg === "default") return [undefined];
    const n = Number(arg);
    if (!Number.isInteger(n) || n < 1)
        throw new Error(`--parallel must be a positive integer or "default", not ${arg}`);
    return [n];
}

/** How a parallelism reads in the report: "the CLI's default parallelism" or "--parallel 16". */
export function parallelLabel(parallel: Parallel): string {
    return parallel === undefined ? "the CLI's default parallelism" : `--parallel ${parallel}`;
}

/** What a program of the bench declares: ours, or one of the reference providers of ./baselines.ts. */
/** `ours`: the dynamic provider; `native`: the same resources through the native plugin. */
export type SubjectName = "ours" | "native" | "waiting-only" | "requests-only";

// ---------------------------------------------------------------------------------------------
// Processes: every stack's scratch folder and the simulator are removed in `finally`; the exit
// hook and the watchdog kill whatever is left.

let sim: RemoteSimulator | undefined;
const stacks = new Set<PulumiStack>();
const running = new Set<number>();

export function killLeftovers(): void {
    for (const pid of [...running, sim?.pid]) {
        if (pid === undefined) continue;
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // already gone
        }
    }
}

export function simulator(): RemoteSimulator {
    if (!sim) throw new Error("the simulator is not running");
    return sim;
}

export async function startSimulator(): Promise<void> {
    sim = await RemoteSimulator.start(LATENCY_MS);
}

export async function stopAll(): Promise<void> {
    for (const s of [...stacks]) disposeStack(s);
    await sim?.close().catch(() => undefined);
    sim = undefined;
}

/** A stack of the bench program in `projectDir`, declaring `count` connections of `subject`. */
export async function benchStack(
    projectDir: string,
    subject: SubjectName,
    count: number,
    prefix: string,
): Promise<PulumiStack> {
    const api = simulator();
    const stack = await PulumiStack.create({
        projectDir,
        stack: `${subject}-${prefix}`,
        config: { subject, count: String(count), prefix },
        // Every provider reads the API's address and token from the environment, and no other
        // CHATBOT_ or BENCH_ setting of the caller's reaches the plugin.
        env: {
            ...Object.fromEntries(
                Object.keys(process.env)
                    .filter((k) => /^(CHATBOT|BENCH)_/.test(k))
                    .map((k) => [k, undefined]),
            ),
            CHATBOT_TOKEN: api.token,
            CHATBOT_API_URL: api.url,
        },
    });
    stacks.add(stack);
    return stack;
}

/** Where `npm start`'s program is: a TypeScript program of two connections (see scripts/quickstart.ts). */
export const QUICKSTART = path.join(root, "examples", "quickstart");

/**
 * A stack of the quickstart (examples/quickstart, the program `npm start` runs), copied into
 * `dir` (inside the repository, so `pulumi-chatbot` and `@pulumi/pulumi` resolve from the root's
 * node_modules) and configured as `npm start` configures it, with the simulator as the API. As
 * `npm start`, ts-node only transpiles the program. `env` is added to every command's environment.
 */
export async function quickstartStack(
    dir: string,
    name: string,
    env: Record<string, string | undefined> = {},
): Promise<PulumiStack> {
    const api = simulator();
    const projectDir = path.join(dir, name);
    fs.cpSync(QUICKSTART, projectDir, { recursive: true, filter: (src) => !src.includes("node_modules") });
    const stack = await PulumiStack.create({
        projectDir,
        stack: name,
        config: {
            storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
            backendUrl: "https://bot-backend.example.com",
            environment: "production",
            "chatbot:apiUrl": api.url,
            "chatbot:token": { secret: api.token },
            webhookToken: { secret: `wt-${name}` },
            basicPassword: { secret: `bp-${name}` },
        },
        env: {
            ...Object.fromEntries(
                Object.keys(process.env)
                    .filter((k) => /^(CHATBOT_|BENCH_|TS_NODE_)/.test(k))
                    .map((k) => [k, undefined]),
            ),
            PULUMI_NODEJS_TRANSPILE_ONLY: "true",
            ...env,
        },
    });
    stacks.add(stack);
    return stack;
}

export function disposeStack(stack: PulumiStack): void {
    stacks.delete(stack);
    stack.dispose();
}

// ---------------------------------------------------------------------------------------------
// One timed command, with the simulator's request log and the plugin's CPU and memory.

export interface Pass {
    command: string;
    n: number;
    wallMs: number;
    /** CPU of the CLI and of every process it started (program, plugins), from /proc/self/stat. */
    cpuMs: number | undefined;
    /** CPU the dynamic-provider plugin used, from its start to its last sample. */
    pluginCpuMs: number | undefined;
    /** The plugin's peak resident memory (VmHWM). */
    pluginPeakRss: number | undefined;
    requests: RequestStats;
    /** The engine's summary: op → count. */
    changes: Record<string, number>;
}

export async function timed(
    stack: PulumiStack,
    command: "up" | "refresh" | "preview",
    n: number,
    parallel: Parallel,
    /** Added to the command's environment; `undefined` removes a variable. */
    env: Record<string, string | undefined> = {},
    /** `--refresh`: read every resource first. */
    refresh = false,
): Promise<Pass> {
    const api = simulator();
    await api.reset();
    const watch = new PluginWatch();
    // The bench runs one command at a time: no other child of this process ends meanwhile.
    const cpu0 = endedChildrenCpuMs();
    const t0 = performance.now();
    let r: RunResult;
    try {
        r = await stack.run(command, {
            parallel,
            env,
            refresh,
            onStart: (pid) => {
                running.add(pid);
                watch.start(pid);
            },
        });
    } finally {
        watch.stop();
        for (const pid of running) running.delete(pid);
    }
    const wallMs = since(t0);
    const cpu1 = endedChildrenCpuMs();
    if (r.code !== 0)
        throw new Error(
            `pulumi ${command}${refresh ? " --refresh" : ""} exited ${r.code}:\n${r.stdout.slice(-2000)}\n${r.stderr}`,
        );
    return {
        command: refresh ? `${command} --refresh` : command,
        n,
        wallMs,
        cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0,
        pluginCpuMs: watch.cpuMs,
        pluginPeakRss: watch.peakRss,
        requests: await api.stats(),
        changes: r.changes,
    };
}

/**
 * The dynamic-provider plugin the CLI starts (a child of the CLI running
 * `@pulumi/pulumi/cmd/dynamic-provider`), sampled every 20 ms until the command ends: its last
 * CPU figure and its peak memory. The plugin idles after its last step, so the CPU it uses
 * between the last sample and its exit is nothing to speak of.
 */
class PluginWatch {
    cpuMs: number | undefined;
    peakRss: number | undefined;
    private timer: NodeJS.Timeout | undefined;
    private plugins = new Set<number>();

    start(cliPid: number): void {
        const cpu = new Map<number, number>();
        this.timer = setInterval(() => {
            for (const pid of childrenOf(cliPid)) if (isPlugin(pid)) this.plugins.add(pid);
            for (const pid of this.plugins) {
                const c = processCpuMs(pid);
                if (c !== undefined) cpu.set(pid, c);
                const m = processMemory(pid);
                if (m) this.peakRss = Math.max(this.peakRss ?? 0, m.peak);
            }
            if (cpu.size > 0) this.cpuMs = [...cpu.values()].reduce((a, b) => a + b, 0);
        }, 20);
    }

    stop(): void {
        clearInterval(this.timer);
    }
}

function childrenOf(pid: number): number[] {
    try {
        return fs
            .readdirSync(`/proc/${pid}/task`)
            .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" "))
            .filter((s) => s.trim() !== "")
            .map(Number);
    } catch {
        return [];
    }
}

function isPlugin(pid: number): boolean {
    try {
        // The dynamic-provider plugin, or the native one: the package's (pulumi-resource-chatbot runs
        // dist/native/start.js) or the release's single executable.
        const command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return (
            command.includes("dynamic-provider") ||
            command.includes(`native${path.sep}start.js`) ||
            command.split("\0")[0].endsWith(`${path.sep}pulumi-resource-chatbot`)
        );
    } catch {
        return false;
    }
}

/** The summary counts the stack's own `pulumi:pulumi:Stack` resource besides the n connections. */
export function expectChanges(pass: Pass, op: string): void {
    const other = Object.entries(pass.changes).filter(([k, v]) => k !== op && v > 0);
    if (other.length > 0 || pass.changes[op] !== pass.n + 1)
        throw new Error(`pulumi ${pass.command}: expected ${pass.n} × ${op}, got ${JSON.stringify(pass.changes)}`);
}

/** The floor of a pass: its API time spread over as many lanes as steps ran at once. */
export function floorMs(pass: Pass): number {
    return (pass.requests.requests * LATENCY_MS) / Math.max(1, pass.requests.maxInFlight);
}

// ---------------------------------------------------------------------------------------------
// Figure 1: the serialized provider, as the real CLI stores it in state

export interface SizeFigures {
    /** `__provider` of a WebhookConnection and of a LegacyWebhook in `stack export`. */
    connection: number;
    connectionText: string;
    legacy: number;
    /** Whether any secret value shows in the serialized providers. */
    secretInProvider: boolean;
    /** node_modules/pulumi-chatbot holds exactly what `npm pack` packs now. */
    packMatch: string;
    /** Serialized in a fresh project that installed the tarball (full runs only). */
    freshProject: string;
}

export async function sizes(projectDir: string, opts: { freshProject: boolean }): Promise<SizeFigures> {
    const stack = await benchStack(projectDir, "ours", 1, "size");
    try {
        await stack.setConfig({ legacy: "true" });
        const up = await stack.run("up");
        if (up.code !== 0) throw new Error(`pulumi up of the size stack exited ${up.code}:\n${up.stderr}`);
        const resources = (await stack.export(true)).deployment.resources ?? [];
        const providerOf = (type: string) => {
            const r = resources.find((x) => x.type === type);
            const text = r?.outputs?.__provider;
            if (typeof text !== "string") throw new Error(`no ${type} with a __provider in the export`);
            return text;
        };
        const connectionText = providerOf("pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        const legacyText = providerOf("pulumi-nodejs:dynamic/chatbot:LegacyWebhook");
        const secrets = [simulator().token, "token-size-0", "pw-size-0", "key-size-0"];
        const secretInProvider = secrets.some((s) => connectionText.includes(s) || legacyText.includes(s));
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-chatbot-bench-"));
        try {
            const packed = JSON.parse(
                execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], {
                    cwd: root,
                    encoding: "utf8",
                    stdio: ["ignore", "pipe", "pipe"],
                    timeout: 120_000,
                }),
            ) as Array<{ filename: string; files: Array<{ path: string; size: number }> }>;
            return {
                connection: Buffer.byteLength(connectionText),
                connectionText,
                legacy: Buffer.byteLength(legacyText),
                secretInProvider,
                packMatch: comparePack(packed[0].files),
                freshProject: !opts.freshProject
                    ? "not checked in --quick"
                    : verifyInFreshProject(path.join(tmp, packed[0].filename), tmp, connectionText),
            };
        } finally {
            fs.rmSync(tmp, { recursive: true, force: true });
        }
    } finally {
        disposeStack(stack);
    }
}

/** Whether node_modules/pulumi-chatbot holds exactly the files (and sizes) `npm pack` packs. */
function comparePack(files: Array<{ path: string; size: number }>): string {
    const dir = path.join(root, "node_modules", "pulumi-chatbot");
    const installed = new Map<string, number>();
    const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            else installed.set(path.relative(dir, p).split(path.sep).join("/"), fs.statSync(p).size);
        }
    };
    walk(dir);
    const differ = files.filter((f) => installed.get(f.path) !== f.size).map((f) => f.path);
    const extra = [...installed.keys()].filter((p) => !files.some((f) => f.path === p));
    if (differ.length === 0 && extra.length === 0) return `yes (${files.length} files)`;
    return `NO: ${[...differ, ...extra].slice(0, 5).join(", ")} differ (rebuilt since \`npm run build\`?)`;
}

/**
 * Installs the tarball and the same @pulumi/pulumi into an empty project (from npm's cache where
 * it can), serializes the provider there as the SDK does for a program, and compares with what
 * the CLI stored.
 */
function verifyInFreshProject(tarball: string, tmp: string, expected: string): string {
    const project = path.join(tmp, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "p", version: "0.0.0", private: true }),
    );
    const sdk = (installedRequire("@pulumi/pulumi/package.json") as { version: string }).version;
    try {
        execFileSync(
            "npm",
            [
                "install",
                "--prefer-offline",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--no-package-lock",
                tarball,
                `@pulumi/pulumi@${sdk}`,
            ],
            { cwd: project, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 },
        );
    } catch (e) {
        return `not checked: the install failed (${firstLine(e)})`;
    }
    const script =
        `const pulumi = require("@pulumi/pulumi");` +
        `const provider = require("pulumi-chatbot/providers/webhookConnection");` +
        `pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })` +
        `.then((f) => process.stdout.write(f.text), (e) => { console.error(e.message); process.exit(1); });`;
    const text = execFileSync(process.execPath, ["-e", script], {
        cwd: project,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 60_000,
    });
    return text === expected
        ? `yes: the same ${Buffer.byteLength(text)} bytes in a fresh project that installed the tarball`
        : `NO: ${Buffer.byteLength(text)} bytes in a fresh project that installed the tarball: ${JSON.stringify(text.slice(0, 200))}`;
}

export function firstLine(e: unknown): string {
    const msg = e instanceof Error ? e.message : String(e);
    return msg.split("\n")[0].slice(0, 200);
}
