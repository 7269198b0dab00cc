/**
 * The benchmark's steps: the processes it starts (plugins, the simulator) and how each figure is
 * measured. bench/run.ts runs them and prints the table.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultParallelism, Engine, type ResourceState } from "../tests/engine/engine";
import { secret, startProviderPlugin, type PropertyMap, type ProviderPlugin } from "../tests/engine/plugin";
import { serializeProvider } from "../tests/engine/serialize";
import { installedRequire, root } from "../tests/support";
import { pool, processCpuMs, processMemory, since, withTimeout } from "./measure";
import { RemoteSimulator, type RequestStats } from "./simulator";

/** The simulator's delay before every answer. */
export const LATENCY_MS = 50;
/**
 * Resource operations at once, as `pulumi up --parallel`. Without a flag the bench measures at the
 * engine's default (4 × CPUs, or PULUMI_PARALLEL; tests/engine/engine.ts) and at 16, one after the
 * other in the same run; `npm run bench -- --parallel=<n|default>` measures at that one only.
 */
export const PARALLELS = parallelsFromArgs(process.argv);

function parallelsFromArgs(argv: string[]): number[] {
    const arg = argv.find((a) => a.startsWith("--parallel="))?.slice("--parallel=".length);
    if (arg === undefined) return [...new Set([defaultParallelism(), 16])];
    if (arg === "default") return [defaultParallelism()];
    const n = Number(arg);
    if (!Number.isInteger(n) || n < 1)
        throw new Error(`--parallel must be a positive integer or "default", not ${arg}`);
    return [n];
}

/** How a parallelism reads in the report: "8 (the default)" or "16". */
export function parallelLabel(parallel: number): string {
    return parallel === defaultParallelism() ? `${parallel} (the default)` : String(parallel);
}

export const TYPE = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
export const MODULE = "pulumi-chatbot/providers/webhookConnection";
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const SECRET_OUTPUTS = { additionalSecretOutputs: ["token", "headers", "auth"] };

/** Inputs as the SDK registers them for `new WebhookConnection(name, {storyId, url, token, headers, auth})`. */
export function connectionInputs(provider: string, name: string): PropertyMap {
    return {
        storyId: STORY,
        name,
        url: `https://backend.example.com/hooks/${name}`,
        token: secret(`token-${name}-0123456789abcdef`),
        headers: secret({ "X-Env": "prod", "X-Key": `key-${name}` }),
        auth: secret({ username: "bot", password: `pw-${name}` }),
        __provider: provider,
    };
}

// ---------------------------------------------------------------------------------------------
// Processes: every plugin and the simulator are closed in `finally`; the exit hook and the
// watchdog kill whatever is left.

const plugins = new Set<ProviderPlugin>();
let sim: RemoteSimulator | undefined;

async function startPlugin(cwd: string, env: Record<string, string | undefined>): Promise<ProviderPlugin> {
    const plugin = await startProviderPlugin({ cwd, env, startTimeoutMs: 30_000, rpcTimeoutMs: 60_000 });
    plugins.add(plugin);
    return plugin;
}

async function closePlugin(plugin: ProviderPlugin): Promise<void> {
    plugins.delete(plugin);
    await plugin.close();
}

export async function withPlugin<T>(
    cwd: string,
    env: Record<string, string | undefined>,
    use: (p: ProviderPlugin) => Promise<T>,
): Promise<T> {
    const plugin = await startPlugin(cwd, env);
    try {
        // The engine configures a provider before its first step.
        await plugin.configure({});
        return await use(plugin);
    } finally {
        await closePlugin(plugin);
    }
}

export function killLeftovers(): void {
    const pids = [...[...plugins].map((p) => p.pid), sim?.pid];
    for (const pid of pids) {
        if (pid === undefined) continue;
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // already gone
        }
    }
}

/** The plugin's environment: the simulator's address and token, no other CHATBOT_ or BENCH_ setting. */
export function pluginEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = {};
    for (const k of Object.keys(process.env)) if (/^(CHATBOT|BENCH)_/.test(k)) env[k] = undefined;
    const api = simulator();
    return { ...env, CHATBOT_TOKEN: api.token, CHATBOT_API_URL: api.url, ...extra };
}

// ---------------------------------------------------------------------------------------------
// One timed pass: n steps at a parallelism, with the simulator's request log and the plugin's CPU.

export interface Pass {
    n: number;
    /** Steps at once. */
    parallel: number;
    wallMs: number;
    /** CPU the plugin process used during the pass. */
    pluginCpuMs: number | undefined;
    requests: RequestStats;
    /** How many steps ended how ("create", "same", ...). */
    outcomes: Record<string, number>;
}

export async function timedPass(
    plugin: ProviderPlugin,
    n: number,
    parallel: number,
    step: (i: number) => Promise<string>,
): Promise<Pass> {
    const api = simulator();
    await api.reset();
    const cpu0 = processCpuMs(plugin.pid);
    const t0 = performance.now();
    const results = await withTimeout(
        pool(n, parallel, step),
        60_000 + (n * 4 * LATENCY_MS * 10) / parallel,
        `${n} steps`,
    );
    const wallMs = since(t0);
    const cpu1 = processCpuMs(plugin.pid);
    const outcomes: Record<string, number> = {};
    for (const r of results) outcomes[r] = (outcomes[r] ?? 0) + 1;
    return {
        n,
        parallel,
        wallMs,
        pluginCpuMs: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined,
        requests: await api.stats(),
        outcomes,
    };
}

function simulator(): RemoteSimulator {
    if (!sim) throw new Error("the simulator is not running");
    return sim;
}

/** Starts the simulator every step uses. */
export async function startSimulator(): Promise<void> {
    sim = await RemoteSimulator.start(LATENCY_MS);
}

/** Closes every plugin still open and the simulator. */
export async function stopAll(): Promise<void> {
    for (const p of [...plugins]) await closePlugin(p).catch(() => undefined);
    await sim?.close().catch(() => undefined);
    sim = undefined;
}

/** The floor of a pass: its API time spread over as many lanes as steps run at once. */
export function floorMs(pass: Pick<Pass, "requests" | "parallel">): number {
    return (pass.requests.requests * LATENCY_MS) / pass.parallel;
}

function expectOnly(pass: Pass, outcome: string, what: string): void {
    const other = Object.entries(pass.outcomes).filter(([k]) => k !== outcome);
    if (other.length > 0)
        throw new Error(`${what}: expected ${pass.n} × ${outcome}, got ${JSON.stringify(pass.outcomes)}`);
}

// ---------------------------------------------------------------------------------------------
// Figure 1: serialized provider size

export interface SizeFigures {
    installed: number;
    installedText: string;
    legacy: number;
    /** The checkout's dist module object, which the SDK copies by value. */
    byValue: { bytes: number; text: string } | { error: string };
    /** node_modules/pulumi-chatbot holds exactly what `npm pack` packs now. */
    packMatch: string;
    /** Serialized in a fresh project that installed the tarball (full runs only). */
    freshProject: string;
}

export async function sizes(opts: { freshProject: boolean }): Promise<SizeFigures> {
    const installedText = await serializeProvider(installedRequire(MODULE) as object);
    const legacyText = await serializeProvider(installedRequire("pulumi-chatbot/providers/legacyWebhook") as object);
    let byValue: SizeFigures["byValue"];
    try {
        const checkout = require(path.join(root, "dist", "resources", "webhookConnection.js")) as object;
        const text = await serializeProvider(checkout);
        byValue = { bytes: Buffer.byteLength(text), text };
    } catch (e) {
        byValue = { error: firstLine(e) };
    }
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
        const packMatch = comparePack(packed[0].files);
        const freshProject = !opts.freshProject
            ? "not checked in --quick"
            : verifyInFreshProject(path.join(tmp, packed[0].filename), tmp, installedText);
        return {
            installed: Buffer.byteLength(installedText),
            installedText,
            legacy: Buffer.byteLength(legacyText),
            byValue,
            packMatch,
            freshProject,
        };
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
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
 * it can: with --offline npm cannot resolve the peer range without a cached packument), serializes the provider there as a program would, and compares with ours.
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
        `const provider = require(${JSON.stringify(MODULE)});` +
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

// ---------------------------------------------------------------------------------------------
// Figures 2 and 3: up and refresh, each in a fresh plugin (as `pulumi up` and `pulumi refresh`
// start one), then once more in the same, warm plugin.

export interface Lifecycle {
    up: Pass;
    upWarm: Pass;
    refresh: Pass;
    refreshWarm: Pass;
}

export interface Subject {
    provider: string;
    cwd: string;
    env: Record<string, string | undefined>;
}

export async function lifecycle(subject: Subject, rep: number, n: number, parallel: number): Promise<Lifecycle> {
    const names = (set: string) => Array.from({ length: n }, (_, i) => `${set}-${rep}-${i}`);
    const first = names("a");
    const second = names("b");
    const register = (engine: Engine, name: string) =>
        engine.register(TYPE, name, connectionInputs(subject.provider, name), SECRET_OUTPUTS).then((r) => r.op);

    let state: Map<string, ResourceState> = new Map();
    const [up, upWarm] = await withPlugin(subject.cwd, subject.env, async (plugin) => {
        const engine = new Engine(plugin, { parallel });
        const cold = await timedPass(plugin, n, parallel, (i) => register(engine, first[i]));
        expectOnly(cold, "create", "up");
        const warm = await timedPass(plugin, n, parallel, (i) => register(engine, second[i]));
        expectOnly(warm, "create", "up (warm plugin)");
        state = engine.state;
        return [cold, warm];
    });
    const urns = first.map((name) => urnOf(state, name));
    const [refresh, refreshWarm] = await withPlugin(subject.cwd, subject.env, async (plugin) => {
        const engine = new Engine(plugin, { parallel });
        for (const urn of urns) engine.state.set(urn, state.get(urn) as ResourceState);
        const cold = await timedPass(plugin, n, parallel, (i) => engine.refresh(urns[i]).then((r) => r.kind));
        expectOnly(cold, "same", "refresh");
        const warm = await timedPass(plugin, n, parallel, (i) => engine.refresh(urns[i]).then((r) => r.kind));
        expectOnly(warm, "same", "refresh (warm plugin)");
        return [cold, warm];
    });
    return { up, upWarm, refresh, refreshWarm };
}

export function urnOf(state: Map<string, ResourceState>, name: string): string {
    for (const [urn, s] of state) if (s.name === name) return urn;
    throw new Error(`no resource ${name} in state`);
}

// ---------------------------------------------------------------------------------------------
// Figures 4 and 5: a stack of `scale` connections in one plugin: up, preview, refresh; its peak RSS.

export interface Scale {
    up: Pass;
    preview: Pass;
    refresh: Pass;
    memory: { peak: number; current: number } | undefined;
    /** What the plugin makes of the by-value provider text. */
    byValueLoads: string;
}

export async function scale(
    cwd: string,
    provider: string,
    byValueText: string | undefined,
    n: number,
    parallel: number,
): Promise<Scale> {
    return withPlugin(cwd, pluginEnv(), async (plugin) => {
        const engine = new Engine(plugin, { parallel });
        const names = Array.from({ length: n }, (_, i) => `s-${i}`);
        const register = (name: string, preview: boolean) =>
            engine
                .register(TYPE, name, connectionInputs(provider, name), { ...SECRET_OUTPUTS, preview })
                .then((r) => r.op);
        const up = await timedPass(plugin, n, parallel, (i) => register(names[i], false));
        expectOnly(up, "create", "up");
        const preview = await timedPass(plugin, n, parallel, (i) => register(names[i], true));
        const urns = names.map((name) => urnOf(engine.state, name));
        const refresh = await timedPass(plugin, n, parallel, (i) => engine.refresh(urns[i]).then((r) => r.kind));
        expectOnly(refresh, "same", "refresh");
        const memory = processMemory(plugin.pid);
        let byValueLoads = "not serializable";
        if (byValueText !== undefined) {
            try {
                const r = await plugin.check(
                    engine.urn(TYPE, "by-value"),
                    {},
                    connectionInputs(byValueText, "by-value"),
                );
                byValueLoads = r.failures.length === 0 ? "loads and checks" : `check failed: ${r.failures[0].reason}`;
            } catch (e) {
                byValueLoads = `fails in the plugin: ${firstLine(e)}`;
            }
        }
        return { up, preview, refresh, memory, byValueLoads };
    });
}

// ---------------------------------------------------------------------------------------------
// Figure 6: cold start, spawn to the first Check answered, ours against a provider that does nothing.

export interface ColdStart {
    /** Spawn to first Check answered, per run. */
    ours: number[];
    empty: number[];
    /** Spawn to port printed (the SDK's own start), per run. */
    oursPort: number[];
    emptyPort: number[];
    /** Peak RSS of the plugin after its first Check. */
    oursMemory: number[];
    emptyMemory: number[];
}

export async function coldStarts(cwd: string, ours: string, empty: string, reps: number): Promise<ColdStart> {
    const out: ColdStart = { ours: [], empty: [], oursPort: [], emptyPort: [], oursMemory: [], emptyMemory: [] };
    for (let r = 0; r < reps; r++) {
        // Alternate which goes first, so a drift in the machine's load favours neither.
        const order: Array<"ours" | "empty"> = r % 2 === 0 ? ["empty", "ours"] : ["ours", "empty"];
        for (const kind of order) {
            const provider = kind === "ours" ? ours : empty;
            const t0 = performance.now();
            const plugin = await startPlugin(cwd, pluginEnv());
            try {
                await plugin.configure({});
                const res = await plugin.check(
                    `urn:pulumi:dev::bench::${TYPE}::cold`,
                    {},
                    connectionInputs(provider, "cold"),
                );
                const total = since(t0);
                if (res.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(res.failures)}`);
                out[kind].push(total);
                out[kind === "ours" ? "oursPort" : "emptyPort"].push(plugin.startupMs);
                const mem = processMemory(plugin.pid);
                if (mem) out[kind === "ours" ? "oursMemory" : "emptyMemory"].push(mem.peak);
            } finally {
                await closePlugin(plugin);
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
export function firstLine(e: unknown): string {
    const msg = e instanceof Error ? e.message : String(e);
    return msg.split("\n")[0].slice(0, 200);
}
