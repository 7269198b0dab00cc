/**
 * A program-level engine stand-in: runs a whole Pulumi program (a folder with Pulumi.yaml) the way
 * `pulumi preview`, `up`, `refresh` and `destroy` do, without the Pulumi CLI. Test tooling: not
 * published.
 *
 * What each part stands in for:
 * - the language host (pulumi-language-nodejs): the program runs as
 *   `node @pulumi/pulumi/cmd/run --monitor=<addr> ... .` in the program's folder, with stack config
 *   in PULUMI_CONFIG / PULUMI_CONFIG_SECRET_KEYS and TypeScript through ts-node
 *   (PULUMI_NODEJS_TYPESCRIPT, as the host sets it for `runtime.options.typescript`, the default);
 * - the engine's resource monitor: a gRPC ResourceMonitor served here on 127.0.0.1. Every
 *   RegisterResource becomes a step planned by ./engine.ts (dynamic resources, through the real
 *   dynamic-provider plugin started by ./plugin.ts); outputs go back to the program, secrets marked;
 * - the state backend: one JSON file per stack, with secret values encrypted under a passphrase
 *   (as the CLI's passphrase secrets manager does), read before and written after each run.
 *
 * Measured facts quoted as "NOTES" come from /work/shared/reference/pulumi-engine-standin/NOTES.md;
 * "cmd/run" is node_modules/@pulumi/pulumi/cmd/run/{index,run}.js; "engine" is Pulumi's Go sources
 * (pkg/resource/deploy/source_eval.go, step_generator.go, pkg/engine/).
 *
 * Not modelled: parallel steps (registrations are served one at a time, in arrival order),
 * protect, retainOnDelete, ignoreChanges, replaceOnChanges, aliases, targets, transforms, remote
 * components, invokes, dependency-driven replacement. Non-dynamic custom resources (a cloud
 * provider's) are not sent to any provider: they are echoed (id = name, outputs = inputs), and a
 * `mocks` callback can add the outputs a cloud would compute (e.g. a function URL).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as grpcModule from "@grpc/grpc-js";
import type * as structModule from "google-protobuf/google/protobuf/struct_pb";
import type * as emptyModule from "google-protobuf/google/protobuf/empty_pb";
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { deepEqual, Engine, type ResourceState } from "./engine";
import {
    dropUndefined,
    isRecord,
    isSecret,
    killChild,
    requireFromPulumi,
    secret,
    SECRET_SIG,
    SIG_KEY,
    startProviderPlugin,
    stripSecrets,
    UNKNOWN,
    type PropertyMap,
    type ProviderPlugin,
} from "./plugin";

const grpc = requireFromPulumi<typeof grpcModule>("@grpc/grpc-js");
const { Struct } = requireFromPulumi<typeof structModule>("google-protobuf/google/protobuf/struct_pb");
const { Empty } = requireFromPulumi<typeof emptyModule>("google-protobuf/google/protobuf/empty_pb");

const STACK_TYPE = "pulumi:pulumi:Stack";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic";
/**
 * Exit codes, as the CLI's semantic exit codes (pulumi/pulumi#5144, sdk/go/common/util/cmdutil):
 * 1 for a failed operation or program, 7 when `--expect-no-changes` finds changes. CLIs released
 * before those codes exit 255 for both.
 */
export const FAILURE_EXIT_CODE = 1;
export const CHANGES_EXIT_CODE = 7;
const DEFAULT_TIMEOUT_MS = 90_000;

// ---------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------

export type RunMode = "preview" | "up" | "refresh" | "destroy";

/** A stack config value as `pulumi config set` takes it; `{ secret }` is `config set --secret`. */
export type ConfigValue = string | { secret: string };

/** Outputs a cloud would compute for a non-dynamic custom resource (the stand-in has no cloud). */
export interface ResourceMocks {
    newResource(args: { type: string; name: string; inputs: PropertyMap }): { id?: string; state?: PropertyMap };
}

export interface RunOptions {
    /** The folder holding Pulumi.yaml. Its `main` (if any) names the program's folder. */
    projectDir: string;
    mode: RunMode;
    /** The state file of the stack (created on the first run). */
    stateFile: string;
    /** Default "dev". */
    stack?: string;
    /**
     * Stack config, keys as `pulumi config set` takes them: `webhookToken` means
     * `<project>:webhookToken`; `chatbot:token` is already namespaced.
     */
    config?: Record<string, ConfigValue>;
    /** `--refresh` (preview and up): read every resource first, and plan against what was read. */
    refresh?: boolean;
    /** `--expect-no-changes`: the run fails (exit 7) when any change is planned, made or found. */
    expectNoChanges?: boolean;
    /** Encrypts secrets in the state file. Default: PULUMI_CONFIG_PASSPHRASE, as the CLI. */
    passphrase?: string;
    /** Extra environment for the program and the provider plugin; `undefined` removes a variable. */
    env?: Record<string, string | undefined>;
    /** Type-check the program with ts-node (the CLI's default). Default false: transpile only, as
     *  PULUMI_NODEJS_TRANSPILE_ONLY=true does; `tsc --noEmit` checks the examples instead. */
    typeCheck?: boolean;
    /** Computed outputs for non-dynamic custom resources. */
    mocks?: ResourceMocks;
    /** Bound on the whole run. Default 90 s. */
    timeoutMs?: number;
}

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "import" | "read" | "refresh";

export interface ProgramStep {
    urn: string;
    type: string;
    name: string;
    op: StepOp;
    /** For op "refresh": what the read found. */
    refresh?: "same" | "drift" | "deleted";
    /**
     * Names of the properties that differ: for update and replace, the inputs (old against new);
     * for a refresh, the outputs (before against after). Names only: values may be secret.
     */
    keys?: string[];
}

export interface RunResult {
    mode: RunMode;
    /** True for a preview: nothing was changed and the state file was not written. */
    preview: boolean;
    /** 0; FAILURE_EXIT_CODE when a step or the program failed; CHANGES_EXIT_CODE when
     *  `--expect-no-changes` found changes. */
    exitCode: number;
    /** In order: refresh steps (with `refresh`), then the program's registrations, then deletes. */
    steps: ProgramStep[];
    /** Steps that change something (or, for a refresh, found something changed). */
    changes: number;
    /** The root stack's outputs, secret values still marked; in a preview, unknowns are UNKNOWN. */
    outputs: PropertyMap;
    /** The program's output (stdout and stderr) and the stand-in's own error lines. */
    log: string;
    /** The first error, if the run failed. */
    error?: string;
    stateFile: string;
    durationMs: number;
}

/** `{ create: 2, same: 1 }`: steps by operation (a refresh counts under "refresh-<what it found>"). */
export function summarize(steps: ProgramStep[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of steps) {
        const key = s.op === "refresh" ? `refresh-${s.refresh}` : s.op;
        out[key] = (out[key] ?? 0) + 1;
    }
    return out;
}

function isChange(s: ProgramStep): boolean {
    if (s.op === "refresh") return s.refresh !== "same";
    return s.op !== "same" && s.op !== "read";
}

// ---------------------------------------------------------------------------------------------
// Project, config, state
// ---------------------------------------------------------------------------------------------

export interface PulumiProject {
    name: string;
    dir: string;
    /** Where the program runs: `main` of Pulumi.yaml, else the project folder. */
    programDir: string;
    typescript: boolean;
    /** `runtime.options.tsconfig`: the language host passes it as PULUMI_NODEJS_TSCONFIG_PATH. */
    tsconfig?: string;
}

/** Reads the few top-level keys of Pulumi.yaml the stand-in needs (no YAML library: a project
 *  file's `name`, `main` and `runtime` are plain scalars). */
export function readProject(projectDir: string): PulumiProject {
    const dir = path.resolve(projectDir);
    const text = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    const scalar = (key: string): string | undefined => {
        const m = new RegExp(`^${key}:[ \\t]*(\\S.*?)[ \\t]*$`, "m").exec(text);
        return m ? m[1].replace(/^(["'])(.*)\1$/, "$2") : undefined;
    };
    const name = scalar("name");
    if (!name) throw new Error(`${dir}/Pulumi.yaml has no name`);
    if (!/^runtime:[ \t]*nodejs[ \t]*$/m.test(text) && !/^runtime:[ \t]*\n[ \t]+name:[ \t]*nodejs[ \t]*$/m.test(text)) {
        throw new Error(`${dir}/Pulumi.yaml: only the nodejs runtime is modelled`);
    }
    const main = scalar("main");
    const tsconfig = /^[ \t]+tsconfig:[ \t]*(\S.*?)[ \t]*$/m.exec(text)?.[1];
    return {
        name,
        dir,
        programDir: main ? path.resolve(dir, main) : dir,
        typescript: !/^[ \t]+typescript:[ \t]*false[ \t]*$/m.test(text),
        ...(tsconfig ? { tsconfig: tsconfig.replace(/^(["'])(.*)\1$/, "$2") } : {}),
    };
}

/** A resource as the state file keeps it. Dynamic resources are the Engine's ResourceState. */
export interface StoredResource extends ResourceState {
    /** dynamic: planned by the Engine through the plugin; custom: echoed; component and stack: no provider. */
    kind: "dynamic" | "custom" | "component" | "stack";
    parent: string;
    dependencies: string[];
}

interface StateFile {
    version: 1;
    project: string;
    stack: string;
    /** The passphrase secrets manager's salt and a check value (the CLI keeps them in Pulumi.<stack>.yaml). */
    encryption: { salt: string; check: string };
    resources: StoredResource[];
    pendingDeletes: ResourceState[];
}

/** Secret values in the state file: AES-256-GCM under a key derived from the passphrase. */
class Secrets {
    private readonly key: Buffer;
    constructor(passphrase: string, salt: Buffer) {
        this.key = crypto.scryptSync(passphrase, salt, 32);
    }

    encrypt(text: string): string {
        const iv = crypto.randomBytes(12);
        const c = crypto.createCipheriv("aes-256-gcm", this.key, iv);
        const body = Buffer.concat([c.update(text, "utf8"), c.final()]);
        return Buffer.concat([iv, c.getAuthTag(), body]).toString("base64");
    }

    decrypt(b64: string): string {
        const raw = Buffer.from(b64, "base64");
        const d = crypto.createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
        d.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
    }

    /** Replaces every `{sig, value}` secret with `{sig, ciphertext}` (the checkpoint's form). */
    seal(v: unknown): unknown {
        if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, ciphertext: this.encrypt(JSON.stringify(v.value ?? null)) };
        if (Array.isArray(v)) return v.map((x) => this.seal(x));
        if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.seal(x)]));
        return v;
    }

    open(v: unknown): unknown {
        if (isRecord(v) && v[SIG_KEY] === SECRET_SIG && typeof v.ciphertext === "string") {
            return secret(JSON.parse(this.decrypt(v.ciphertext)) as unknown);
        }
        if (Array.isArray(v)) return v.map((x) => this.open(x));
        if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.open(x)]));
        return v;
    }
}

const PASSPHRASE_CHECK = "pulumi";

interface LoadedState {
    resources: StoredResource[];
    pendingDeletes: ResourceState[];
    secrets: Secrets;
    encryption: StateFile["encryption"];
}

function loadState(file: string, project: string, stack: string, passphrase: string): LoadedState {
    if (!fs.existsSync(file)) {
        const salt = crypto.randomBytes(16);
        const secrets = new Secrets(passphrase, salt);
        return {
            resources: [],
            pendingDeletes: [],
            secrets,
            encryption: { salt: salt.toString("base64"), check: secrets.encrypt(PASSPHRASE_CHECK) },
        };
    }
    const raw = JSON.parse(fs.readFileSync(file, "utf8")) as StateFile;
    if (raw.version !== 1 || raw.project !== project || raw.stack !== stack) {
        throw new Error(`${file} is not the state of stack ${project}/${stack}`);
    }
    const secrets = new Secrets(passphrase, Buffer.from(raw.encryption.salt, "base64"));
    let ok: boolean;
    try {
        ok = secrets.decrypt(raw.encryption.check) === PASSPHRASE_CHECK;
    } catch {
        ok = false; // a wrong key fails GCM authentication
    }
    if (!ok) throw new Error("incorrect passphrase, please set PULUMI_CONFIG_PASSPHRASE to the correct passphrase");
    return {
        resources: secrets.open(raw.resources) as StoredResource[],
        pendingDeletes: secrets.open(raw.pendingDeletes) as ResourceState[],
        secrets,
        encryption: raw.encryption,
    };
}

function saveState(
    file: string,
    project: string,
    stack: string,
    loaded: LoadedState,
    resources: StoredResource[],
    pendingDeletes: ResourceState[],
): void {
    const out: StateFile = {
        version: 1,
        project,
        stack,
        encryption: loaded.encryption,
        resources: loaded.secrets.seal(resources) as StoredResource[],
        pendingDeletes: loaded.secrets.seal(pendingDeletes) as ResourceState[],
    };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(out, null, 2) + "\n", { mode: 0o600 });
    fs.renameSync(tmp, file);
}

/** A stack's resources as the state file holds them, secrets decrypted (still marked). */
export function readStackState(file: string, passphrase: string): StoredResource[] {
    if (!fs.existsSync(file)) return [];
    const raw = JSON.parse(fs.readFileSync(file, "utf8")) as StateFile;
    return loadState(file, raw.project, raw.stack, passphrase).resources;
}

function qualify(project: string, key: string): string {
    return key.includes(":") ? key : `${project}:${key}`;
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/** Runs one `pulumi <mode>` of a program's stack. Never throws for a failed deployment: the
 *  result's exitCode and error say so. Throws only when the run cannot start (no Pulumi.yaml,
 *  wrong passphrase). */
export async function runPulumi(opts: RunOptions): Promise<RunResult> {
    const started = Date.now();
    const project = readProject(opts.projectDir);
    const stack = opts.stack ?? "dev";
    const passphrase = opts.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE;
    if (passphrase === undefined) {
        throw new Error("passphrase must be set with PULUMI_CONFIG_PASSPHRASE (or the passphrase option)");
    }
    const loaded = loadState(opts.stateFile, project.name, stack, passphrase);
    const run = new Deployment(opts, project, stack, loaded, started);
    try {
        await run.execute();
    } finally {
        await run.close();
    }
    return run.result();
}

/** One run: its plugin, engine, monitor and program; its steps and log. */
class Deployment {
    private readonly preview: boolean;
    private readonly steps: ProgramStep[] = [];
    private readonly logChunks: string[] = [];
    private readonly deadline: number;
    private readonly config: Record<string, ConfigValue> = {};
    /** Every resource of the stack by URN, in state order: dynamic ones live in the Engine, the
     *  others here. `meta` has kind, parent and dependencies for all of them. */
    private readonly others = new Map<string, StoredResource>();
    private readonly meta = new Map<string, Pick<StoredResource, "kind" | "parent" | "dependencies">>();
    private readonly oldOrder: string[];
    private readonly registered: string[] = [];
    private stackOutputs: PropertyMap = {};
    private failure: string | undefined;
    /** Set when the only failure is `--expect-no-changes` finding changes. */
    private changesUnexpected = false;
    private plugin: ProviderPlugin | undefined;
    private engineReady: Promise<Engine> | undefined;
    private server: grpcModule.Server | undefined;
    private child: ChildProcess | undefined;
    /** Registrations are planned one at a time, in arrival order. */
    private queue: Promise<unknown> = Promise.resolve();

    constructor(
        private readonly opts: RunOptions,
        private readonly project: PulumiProject,
        private readonly stack: string,
        private readonly loaded: LoadedState,
        private readonly started: number,
    ) {
        this.preview = opts.mode === "preview";
        this.deadline = started + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        for (const [k, v] of Object.entries(opts.config ?? {})) this.config[qualify(project.name, k)] = v;
        this.oldOrder = loaded.resources.map((r) => r.urn);
        for (const r of loaded.resources) {
            this.meta.set(r.urn, { kind: r.kind, parent: r.parent, dependencies: r.dependencies });
            if (r.kind === "stack") this.stackOutputs = r.outputs;
            if (r.kind !== "dynamic") this.others.set(r.urn, r);
        }
    }

    // -- The run ---------------------------------------------------------------------------------

    async execute(): Promise<void> {
        try {
            // The plugin starts while the program starts (it is needed at the first dynamic step).
            this.engineReady = this.startEngine();
            this.engineReady.catch(() => undefined);
            if (this.opts.refresh || this.opts.mode === "refresh") await this.refreshAll();
            if (this.opts.mode === "preview" || this.opts.mode === "up") {
                if (this.failure === undefined) await this.runProgram();
                if (this.failure === undefined) await this.deleteUnregistered();
            } else if (this.opts.mode === "destroy") {
                await this.destroyAll();
            }
        } catch (e) {
            this.fail(errorText(e));
        }
        if (this.failure === undefined && this.opts.expectNoChanges && this.steps.some(isChange)) {
            this.changesUnexpected = true;
            this.fail("no changes were expected but changes were proposed");
        }
        if (!this.preview) await this.save();
    }

    result(): RunResult {
        return {
            mode: this.opts.mode,
            preview: this.preview,
            exitCode: this.failure === undefined ? 0 : this.changesUnexpected ? CHANGES_EXIT_CODE : FAILURE_EXIT_CODE,
            steps: this.steps,
            changes: this.steps.filter(isChange).length,
            outputs: this.stackOutputs,
            log: this.logChunks.join(""),
            ...(this.failure !== undefined ? { error: this.failure } : {}),
            stateFile: this.opts.stateFile,
            durationMs: Date.now() - this.started,
        };
    }

    async close(): Promise<void> {
        if (this.child) await killChild(this.child);
        if (this.server) this.server.forceShutdown();
        // A plugin still starting is waited for (its start is bounded), so it is killed too.
        await this.engineReady?.catch(() => undefined);
        if (this.plugin) {
            const stderr = this.plugin.stderr().trim();
            if (stderr) this.log(`[provider plugin] ${stderr.replace(/\n/g, "\n[provider plugin] ")}\n`);
            await this.plugin.close();
        }
    }

    private fail(message: string): void {
        if (this.failure === undefined) this.failure = message;
        this.log(`error: ${message}\n`);
    }

    private log(text: string): void {
        this.logChunks.push(text);
    }

    private remaining(): number {
        return Math.max(0, this.deadline - Date.now());
    }

    private async startEngine(): Promise<Engine> {
        const plugin = await startProviderPlugin({
            cwd: this.project.programDir,
            project: this.project.name,
            stack: this.stack,
            env: this.opts.env,
            startTimeoutMs: Math.min(30_000, this.remaining()),
        });
        this.plugin = plugin;
        // The engine sends the provider the whole stack config, secrets wrapped (NOTES "whole config").
        const providerConfig: PropertyMap = {};
        for (const [k, v] of Object.entries(this.config))
            providerConfig[k] = typeof v === "string" ? v : secret(v.secret);
        await plugin.configure(providerConfig);
        const engine = new Engine(plugin, { project: this.project.name, stack: this.stack });
        for (const r of this.loaded.resources) {
            if (r.kind !== "dynamic") continue;
            // The Engine's own record: ResourceState without the stand-in's fields.
            const { kind: _k, parent: _p, dependencies: _d, ...state } = r;
            engine.state.set(r.urn, state);
        }
        engine.pendingDeletes.push(...this.loaded.pendingDeletes);
        return engine;
    }

    private engine(): Promise<Engine> {
        if (!this.engineReady) throw new Error("engine not started");
        return this.engineReady;
    }

    private async save(): Promise<void> {
        const engine = await this.engine().catch(() => undefined);
        const registered = new Set(this.registered);
        // The new state lists this run's registrations in registration order (a resource after what
        // it depends on), then what the run did not touch; this order reversed is the delete order.
        const order = [...this.registered, ...this.oldOrder.filter((u) => !registered.has(u))];
        const resources: StoredResource[] = [];
        for (const urn of order) {
            const meta = this.meta.get(urn);
            const dyn = engine?.state.get(urn);
            if (dyn && meta) resources.push({ ...dyn, ...meta, kind: "dynamic" });
            else if (!engine && meta?.kind === "dynamic") {
                // The plugin never started: keep the old record as it was.
                const old = this.loaded.resources.find((r) => r.urn === urn);
                if (old) resources.push(old);
            } else {
                const other = this.others.get(urn);
                if (other) resources.push(other);
            }
        }
        const stackRecord = resources.find((r) => r.kind === "stack");
        if (stackRecord) stackRecord.outputs = this.stackOutputs;
        saveState(
            this.opts.stateFile,
            this.project.name,
            this.stack,
            this.loaded,
            resources,
            engine ? engine.pendingDeletes : this.loaded.pendingDeletes,
        );
    }

    // -- refresh and destroy ---------------------------------------------------------------------

    /** `pulumi refresh` (or the `--refresh` of preview and up): Read every custom resource. A
     *  resource found deleted leaves the state; in a preview the reads are not saved. */
    private async refreshAll(): Promise<void> {
        const engine = await this.engine();
        for (const urn of [...this.oldOrder]) {
            const meta = this.meta.get(urn);
            if (meta?.kind === "dynamic") {
                const r = await engine.refresh(urn);
                const step = this.step(urn, "refresh");
                step.refresh = r.kind;
                if (r.kind !== "same") step.keys = changedKeys(r.before, r.after);
                if (r.kind === "deleted") this.meta.delete(urn);
            } else if (meta?.kind === "custom") {
                // Echoed resources have nothing to read.
                this.step(urn, "refresh").refresh = "same";
            }
        }
    }

    /** `pulumi destroy`: pending deletes, then every resource in reverse state order. */
    private async destroyAll(): Promise<void> {
        const engine = await this.engine();
        await deletePending(engine);
        for (const urn of [...this.oldOrder].reverse()) await this.deleteResource(engine, urn);
        this.stackOutputs = {};
    }

    private async deleteResource(engine: Engine, urn: string): Promise<void> {
        const meta = this.meta.get(urn);
        if (!meta) return;
        this.step(urn, "delete");
        if (this.preview) return;
        if (meta.kind === "dynamic" && engine.state.has(urn)) await engine.destroy(urn);
        this.others.delete(urn);
        this.meta.delete(urn);
    }

    /**
     * engine: after the program exits successfully, resources in the old state that it did not
     * register are deleted, dependents first (the reverse of state order). Only after success: a
     * failed program may simply not have reached them. Old halves of replacements whose delete
     * failed before are retried here too.
     */
    private async deleteUnregistered(): Promise<void> {
        const engine = await this.engine();
        const registered = new Set(this.registered);
        for (const urn of [...this.oldOrder].reverse()) {
            if (!registered.has(urn)) await this.deleteResource(engine, urn);
        }
        if (!this.preview) await deletePending(engine);
    }

    private step(urn: string, op: StepOp, keys?: string[]): ProgramStep {
        const parts = urn.split("::");
        const type = (parts[2] ?? "").split("$").pop() ?? "";
        const s: ProgramStep = { urn, type, name: parts.slice(3).join("::"), op };
        if (keys && keys.length > 0) s.keys = keys;
        this.steps.push(s);
        return s;
    }

    // -- The program -----------------------------------------------------------------------------

    private async runProgram(): Promise<void> {
        const port = await this.startMonitor();
        const runScript = require.resolve("@pulumi/pulumi/cmd/run", { paths: [this.project.programDir] });
        // cmd/run's flags as the language host passes them; "." with --pwd runs the folder's
        // package.json `main` (here index.ts, through ts-node).
        const args = [
            runScript,
            `--monitor=127.0.0.1:${port}`,
            "--organization=organization",
            `--project=${this.project.name}`,
            `--stack=${this.stack}`,
            `--root-directory=${this.project.dir}`,
            `--pwd=${this.project.programDir}`,
            "--parallel=16",
            ...(this.preview ? ["--dry-run"] : []),
            ".",
        ];
        const env: NodeJS.ProcessEnv = {};
        for (const [k, v] of Object.entries(process.env)) {
            // The test runner's own ts-node settings must not leak into the program's ts-node.
            if (!k.startsWith("TS_NODE_") && !k.startsWith("PULUMI_")) env[k] = v;
        }
        const plain: Record<string, string> = {};
        const secretKeys: string[] = [];
        for (const [k, v] of Object.entries(this.config)) {
            plain[k] = typeof v === "string" ? v : v.secret;
            if (typeof v !== "string") secretKeys.push(k);
        }
        Object.assign(env, {
            PULUMI_CONFIG: JSON.stringify(plain),
            PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys),
            PULUMI_NODEJS_TRANSPILE_ONLY: this.opts.typeCheck ? "false" : "true",
        });
        if (this.project.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
        if (this.project.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = this.project.tsconfig;
        for (const [k, v] of Object.entries(this.opts.env ?? {})) {
            if (v === undefined) delete env[k];
            else env[k] = v;
        }

        const child = spawn(process.execPath, args, {
            cwd: this.project.programDir,
            env,
            stdio: ["ignore", "pipe", "pipe"],
        });
        this.child = child;
        child.stdout?.setEncoding("utf8").on("data", (d: string) => this.log(d));
        child.stderr?.setEncoding("utf8").on("data", (d: string) => this.log(d));
        const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
            const timer = setTimeout(() => {
                this.fail(`the program did not finish within ${this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`);
                void killChild(child);
            }, this.remaining());
            child.once("error", (error) => {
                clearTimeout(timer);
                resolve({ code: null, error });
            });
            child.once("exit", (code) => {
                clearTimeout(timer);
                resolve({ code });
            });
        });
        // Wait for the steps already under way (a registration the program did not wait for).
        await this.queue.catch(() => undefined);
        if (exit.error) this.fail(`could not start the program: ${exit.error.message}`);
        else if (exit.code !== 0 && this.failure === undefined) {
            this.fail(`the program exited with code ${exit.code}; see its log`);
        }
    }

    /** Ends the program once a step failed, as the engine cancels a deployment (NOTES "program
     *  failures": left alone, cmd/run spends ~25 s printing the error). */
    private endProgram(): void {
        const child = this.child;
        // Let the failed RPC's answer reach the program first, so its log shows the error.
        if (child) setTimeout(() => void killChild(child), 200).unref();
    }

    private startMonitor(): Promise<number> {
        const server = new grpc.Server();
        this.server = server;
        const unimplemented =
            <Req, Res>(what: string): grpcModule.handleUnaryCall<Req, Res> =>
            (_call, cb) =>
                cb({ code: grpc.status.UNIMPLEMENTED, details: `${what} is not modelled by the engine stand-in` });
        const serial = <T>(fn: () => Promise<T>): Promise<T> => {
            const p = this.queue.then(fn);
            this.queue = p.catch(() => undefined);
            return p;
        };
        const monitor: resrpc.IResourceMonitorServer = {
            // The SDK falls back to SupportsFeature when GetDeploymentInfo is not implemented.
            getDeploymentInfo: unimplemented("GetDeploymentInfo"),
            supportsFeature: (call, cb) => {
                // Secrets only: no output values (inputs arrive as plain values, unknowns as the
                // UNKNOWN sentinel) and no resource references.
                const r = new resproto.SupportsFeatureResponse();
                r.setHassupport(call.request.getId() === "secrets");
                cb(null, r);
            },
            registerResource: (call, cb) => {
                serial(() => this.registerResource(call.request)).then(
                    (resp) => cb(null, resp),
                    (e: unknown) => {
                        this.fail(errorText(e));
                        cb({ code: grpc.status.UNKNOWN, details: errorText(e) });
                        this.endProgram();
                    },
                );
            },
            registerResourceOutputs: (call, cb) => {
                serial(async () => this.registerOutputs(call.request)).then(
                    () => cb(null, new Empty()),
                    (e: unknown) => cb({ code: grpc.status.UNKNOWN, details: errorText(e) }),
                );
            },
            readResource: (call, cb) => {
                serial(() => this.readResource(call.request)).then(
                    (resp) => cb(null, resp),
                    (e: unknown) => {
                        this.fail(errorText(e));
                        cb({ code: grpc.status.UNKNOWN, details: errorText(e) });
                        this.endProgram();
                    },
                );
            },
            signalAndWaitForShutdown: (_call, cb) => cb(null, new Empty()),
            invoke: unimplemented("Invoke"),
            call: unimplemented("Call"),
            existsResource: unimplemented("ExistsResource"),
            registerStackTransform: unimplemented("RegisterStackTransform"),
            registerStackInvokeTransform: unimplemented("RegisterStackInvokeTransform"),
            registerResourceHook: unimplemented("RegisterResourceHook"),
            registerErrorHook: unimplemented("RegisterErrorHook"),
            registerPackage: unimplemented("RegisterPackage"),
        };
        server.addService(resrpc.ResourceMonitorService, monitor);
        return new Promise<number>((resolve, reject) =>
            server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) =>
                err ? reject(err) : resolve(port),
            ),
        );
    }

    /**
     * engine (resource monitor): the URN is `urn:pulumi:<stack>::<project>::<type chain>::<name>`,
     * where the type chain is the parent's chain, `$`, the type, except that the root stack is not
     * part of it (top-level resources are the stack's children).
     */
    private urnOf(type: string, name: string, parent: string): string {
        let qualified = type;
        if (parent !== "") {
            const parentChain = parent.split("::")[2] ?? "";
            if (parentChain !== STACK_TYPE) qualified = `${parentChain}$${type}`;
        }
        return `urn:pulumi:${this.stack}::${this.project.name}::${qualified}::${name}`;
    }

    private async registerResource(req: resproto.RegisterResourceRequest): Promise<resproto.RegisterResourceResponse> {
        if (this.failure !== undefined) throw new Error("the deployment was cancelled after an earlier error");
        const type = req.getType();
        const name = req.getName();
        const parent = req.getParent();
        const custom = req.getCustom();
        const urn = this.urnOf(type, name, parent);
        if (this.registered.includes(urn)) {
            throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`);
        }
        if (req.getRemote()) throw new Error(`${urn}: remote components are not modelled by the engine stand-in`);
        this.registered.push(urn);
        const inputs = (req.getObject()?.toJavaScript() ?? {}) as PropertyMap;
        const kind: StoredResource["kind"] =
            type === STACK_TYPE && parent === ""
                ? "stack"
                : !custom
                  ? "component"
                  : type.startsWith(DYNAMIC_PREFIX)
                    ? "dynamic"
                    : "custom";
        const meta = { kind, parent, dependencies: req.getDependenciesList() };

        let id: string;
        let outputs: PropertyMap;
        if (kind === "dynamic") {
            const engine = await this.engine();
            const old = engine.state.get(urn);
            const deleteBeforeReplace = req.getDeletebeforereplacedefined() ? req.getDeletebeforereplace() : undefined;
            const r = await engine.register(type, name, inputs, {
                urn,
                preview: this.preview,
                additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                ...(req.getImportid() ? { importId: req.getImportid() } : {}),
                ...(deleteBeforeReplace !== undefined ? { deleteBeforeReplace } : {}),
            });
            const op = r.op.replace(/^preview-/, "") as StepOp;
            // Checked inputs: in a preview the outputs of a planned create or update are exactly those.
            const newInputs = this.preview ? r.outputs : engine.state.get(urn)?.inputs;
            this.step(urn, op, op === "update" || op === "replace" ? changedKeys(old?.inputs, newInputs) : undefined);
            if (!this.preview || engine.state.has(urn)) this.meta.set(urn, meta);
            id = r.id;
            outputs = r.outputs;
        } else {
            const old = this.others.get(urn);
            ({ id, outputs } = this.echo(urn, type, name, kind, inputs, req.getAdditionalsecretoutputsList(), old));
            if (!this.preview) {
                this.others.set(urn, {
                    urn,
                    type,
                    name,
                    id,
                    inputs,
                    outputs,
                    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                    external: false,
                    ...meta,
                });
                this.meta.set(urn, meta);
            }
        }
        const resp = new resproto.RegisterResourceResponse();
        resp.setUrn(urn);
        resp.setId(id);
        resp.setObject(Struct.fromJavaScript(dropUndefined(outputs) as Record<string, structModule.JavaScriptValue>));
        resp.setResult(resproto.Result.SUCCESS);
        return resp;
    }

    /**
     * A resource with no provider here: the stack, a component, or a non-dynamic custom resource.
     * Custom ones are echoed: id = name; outputs = inputs plus what `mocks` computes. In a preview
     * a new resource's computed outputs are left out, so the program sees them as unknown, as it
     * would from a real provider; an update keeps the old computed outputs.
     */
    private echo(
        urn: string,
        type: string,
        name: string,
        kind: StoredResource["kind"],
        inputs: PropertyMap,
        aso: string[],
        old: StoredResource | undefined,
    ): { id: string; outputs: PropertyMap } {
        if (kind !== "custom") {
            this.step(urn, old ? "same" : "create");
            // A component's or the stack's outputs come later, through RegisterResourceOutputs.
            return { id: "", outputs: kind === "stack" ? {} : inputs };
        }
        const same = old !== undefined && deepEqual(stripSecrets(old.inputs), stripSecrets(inputs));
        if (same) {
            this.step(urn, "same");
            return { id: old.id, outputs: old.outputs };
        }
        this.step(urn, old ? "update" : "create", old ? changedKeys(old.inputs, inputs) : undefined);
        const base: PropertyMap = old ? { ...old.outputs, ...inputs } : { ...inputs };
        if (this.preview) return { id: old?.id ?? "", outputs: base };
        const mocked = this.opts.mocks?.newResource({ type, name, inputs: stripSecrets(inputs) }) ?? {};
        const outputs = { ...base, ...(mocked.state ?? {}) };
        // Outputs named in additionalSecretOutputs are stored (and returned) secret.
        for (const k of aso) if (k in outputs && !isSecret(outputs[k])) outputs[k] = secret(outputs[k]);
        return { id: old?.id ?? mocked.id ?? name, outputs };
    }

    private registerOutputs(req: resproto.RegisterResourceOutputsRequest): void {
        const urn = req.getUrn();
        const outputs = (req.getOutputs()?.toJavaScript() ?? {}) as PropertyMap;
        if (this.meta.get(urn)?.kind === "stack" || urn.split("::")[2] === STACK_TYPE) {
            this.stackOutputs = outputs;
            return;
        }
        const other = this.others.get(urn);
        if (other && !this.preview) other.outputs = outputs;
    }

    /** `Resource.get(name, id)`: the Engine reads a dynamic resource; others are echoed from state. */
    private async readResource(req: resproto.ReadResourceRequest): Promise<resproto.ReadResourceResponse> {
        if (this.failure !== undefined) throw new Error("the deployment was cancelled after an earlier error");
        const type = req.getType();
        const name = req.getName();
        const urn = this.urnOf(type, name, req.getParent());
        if (!type.startsWith(DYNAMIC_PREFIX))
            throw new Error(`${urn}: reading a ${type} is not modelled by the engine stand-in`);
        this.registered.push(urn);
        const engine = await this.engine();
        const inputs = (req.getProperties()?.toJavaScript() ?? {}) as PropertyMap;
        const state = await engine.get(type, name, req.getId(), inputs, {
            urn,
            additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        });
        this.step(urn, "read");
        this.meta.set(urn, { kind: "dynamic", parent: req.getParent(), dependencies: req.getDependenciesList() });
        const resp = new resproto.ReadResourceResponse();
        resp.setUrn(urn);
        resp.setProperties(
            Struct.fromJavaScript(dropUndefined(state.outputs) as Record<string, structModule.JavaScriptValue>),
        );
        return resp;
    }
}

/** Deletes the old halves of replacements whose delete failed earlier (engine: State.Delete). */
async function deletePending(engine: Engine): Promise<void> {
    while (engine.pendingDeletes.length > 0) {
        const res = engine.pendingDeletes[engine.pendingDeletes.length - 1];
        await engine.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
        engine.pendingDeletes.pop();
    }
}

/** Property names whose values differ, `__provider` aside. */
function changedKeys(before: PropertyMap | undefined, after: PropertyMap | undefined): string[] {
    const a = stripSecrets(before ?? {});
    const b = stripSecrets(after ?? {});
    return [...new Set([...Object.keys(a), ...Object.keys(b)])]
        .filter((k) => k !== "__provider" && !deepEqual(a[k] ?? null, b[k] ?? null))
        .sort();
}

function errorText(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

/** A stack output as a person may see it: secrets hidden, unknowns named. */
export function displayValue(v: unknown): string {
    if (isSecret(v)) return "[secret]";
    if (v === UNKNOWN) return "(known after up)";
    return typeof v === "string" ? v : JSON.stringify(v);
}
