/**
 * The real pulumi CLI, run hermetically: `npm run pulumi-path`'s CLI (the one on PATH, or the
 * pinned one this repository builds), a file backend and PULUMI_HOME in a temporary folder, a
 * passphrase, no update check, no plugin download. The tests (tests/helpers/pulumi.ts) and the bench run
 * every whole program through it.
 *
 * `PulumiStack` is one stack of one project folder; `run` is `pulumi <command>` as a user types it,
 * with `--event-log` so a caller can see each step the engine took.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const { pulumiPath } = require("./pulumi-path.js") as { pulumiPath(): string };

const root = path.resolve(__dirname, "..");

let cli: string | undefined;
/** The CLI every run uses (built on first use when none is on PATH). */
export function pulumiCli(): string {
    cli ??= pulumiPath();
    return cli;
}

/** Exit code of `--expect-no-changes` finding changes (pkg/cmd/pulumi/cmd/exit_codes.go). */
export const CHANGES_EXIT_CODE = 7;

/** A stack config value as `pulumi config set` takes it; `{ secret }` is `config set --secret`. */
export type ConfigValue = string | { secret: string };

/** One engine event from `--event-log` (sdk/go/common/apitype/events.go). */
export interface EngineEvent {
    sequence: number;
    resourcePreEvent?: { metadata: StepMetadata };
    resOutputsEvent?: { metadata: StepMetadata };
    resOpFailedEvent?: { metadata: StepMetadata };
    diagnosticEvent?: { urn?: string; message: string; severity: string };
    summaryEvent?: { resourceChanges?: Record<string, number> };
}

export interface StepMetadata {
    op: string;
    urn: string;
    type: string;
    old?: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
    new?: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
    diffs?: string[];
}

export interface RunResult {
    code: number;
    stdout: string;
    stderr: string;
    events: EngineEvent[];
    /** The changes summary: op → count (`same`, `create`, `update`, `replace`, `delete`, ...). */
    changes: Record<string, number>;
    /** Each step the engine finished (`resOutputsEvent`): its op and resource name. */
    steps: Array<{ op: string; name: string; type: string }>;
    /** Every diagnostic message, joined. */
    diagnostics: string;
}

export interface ResourceV3 {
    urn: string;
    type: string;
    id?: string;
    custom: boolean;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    protect?: boolean;
    external?: boolean;
    delete?: boolean;
    initErrors?: string[];
    provider?: string;
}

export interface UntypedDeployment {
    version: number;
    deployment: { resources?: ResourceV3[]; secrets_providers?: unknown; pending_operations?: unknown[] };
}

/** A project folder in a temporary folder, with the repository's node_modules (where the packed
 *  package is installed) linked in. `files` are written as given (Pulumi.yaml, index.js, ...). */
export function tempProject(name: string, files: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `chatbot-${name}-`));
    const project = path.join(dir, name);
    fs.mkdirSync(project);
    const all = { "package.json": JSON.stringify({ name, private: true }), ...files };
    for (const [file, text] of Object.entries(all)) fs.writeFileSync(path.join(project, file), text);
    fs.symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    return project;
}

/** The project file of a JavaScript program in index.js. */
export function jsProjectYaml(name: string): string {
    return `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n`;
}

export interface StackOptions {
    /** The folder holding Pulumi.yaml. */
    projectDir: string;
    stack?: string;
    config?: Record<string, ConfigValue>;
    /** Environment for every run (the CLI passes it on to the program and the plugins);
     *  `undefined` removes a variable. */
    env?: Record<string, string | undefined>;
}

const PASSPHRASE = "chatbot-tests";

/** How many pulumi commands this process started, and how many of them ran the program
 *  (preview, up, refresh, destroy): the test reporter prints them per file, beside its CPU. */
export const pulumiRuns: { commands: number; programs: number } = ((globalThis as Record<symbol, unknown>)[
    Symbol.for("pulumi-chatbot.pulumiRuns")
] ??= { commands: 0, programs: 0 }) as { commands: number; programs: number };
const PROGRAM_COMMANDS = new Set(["preview", "up", "refresh", "destroy", "import"]);

export class PulumiStack {
    readonly name: string;
    readonly projectDir: string;
    /** PULUMI_HOME, the file backend and the commands' TMPDIR live here; removed by `dispose`. */
    readonly scratch: string;
    private env: Record<string, string | undefined>;

    private constructor(opts: StackOptions) {
        this.projectDir = opts.projectDir;
        this.name = opts.stack ?? "dev";
        this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-pulumi-"));
        fs.mkdirSync(path.join(this.scratch, "home"));
        fs.mkdirSync(path.join(this.scratch, "backend"));
        fs.mkdirSync(path.join(this.scratch, "tmp"));
        this.env = opts.env ?? {};
    }

    /** Creates the stack (`pulumi stack init`) and sets its config. */
    static async create(opts: StackOptions): Promise<PulumiStack> {
        const stack = new PulumiStack(opts);
        const init = await stack.pulumi(["stack", "init", stack.name]);
        if (init.code !== 0) throw new Error(`pulumi stack init failed:\n${init.stderr}${init.stdout}`);
        if (opts.config) await stack.setConfig(opts.config);
        return stack;
    }

    /** The environment of every command: hermetic, and the test's own on top. */
    environment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
        const env: NodeJS.ProcessEnv = {
            ...process.env,
            PULUMI_HOME: path.join(this.scratch, "home"),
            PULUMI_BACKEND_URL: `file://${path.join(this.scratch, "backend")}`,
            PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            PULUMI_SKIP_CONFIRMATIONS: "true",
            // `--event-log` is a flag of the CLI's debug commands (pkg/cmd/pulumi/operations/up.go),
            // as the Automation API uses it.
            PULUMI_DEBUG_COMMANDS: "true",
            // The engine leaves each plugin it downloads in TMPDIR (a 44 MB "pulumi-plugin-tar..."
            // file, sdk/go/common/workspace/plugins.go tryDownloadToFile): here it goes with the stack.
            TMPDIR: path.join(this.scratch, "tmp"),
            // The test environment's own settings must not leak in unless a test sets them.
            CHATBOT_TOKEN: undefined,
            CHATBOT_API_URL: undefined,
            ...this.env,
            ...extra,
        };
        for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
        return env;
    }

    /** `pulumi <args>` in the project folder, for this stack; resolves whatever the exit code. */
    pulumi(
        args: string[],
        opts: {
            env?: Record<string, string | undefined>;
            timeoutMs?: number;
            /** Called with the CLI's process id once it is started (the bench watches its plugins). */
            onStart?: (pid: number) => void;
        } = {},
    ): Promise<{ code: number; stdout: string; stderr: string }> {
        // `stack init` names its stack itself; a `plugin` command is not a stack's (no --stack flag).
        const stackArgs =
            (args[0] === "stack" && args[1] === "init") || args[0] === "plugin" ? [] : ["--stack", this.name];
        pulumiRuns.commands++;
        if (PROGRAM_COMMANDS.has(args[0])) pulumiRuns.programs++;
        return new Promise((resolve) => {
            const child = execFile(
                pulumiCli(),
                [...args, ...stackArgs, "--non-interactive", "--color", "never"],
                {
                    cwd: this.projectDir,
                    env: this.environment(opts.env),
                    maxBuffer: 64 * 1024 * 1024,
                    timeout: opts.timeoutMs ?? 240_000,
                    killSignal: "SIGKILL",
                },
                (error, stdout, stderr) => {
                    const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
                    resolve({ code, stdout, stderr });
                },
            );
            if (child.pid !== undefined) opts.onStart?.(child.pid);
        });
    }

    async setConfig(config: Record<string, ConfigValue>): Promise<void> {
        const args = ["config", "set-all"];
        for (const [key, value] of Object.entries(config)) {
            if (typeof value === "string") args.push("--plaintext", `${key}=${value}`);
            else args.push("--secret", `${key}=${value.secret}`);
        }
        const r = await this.pulumi(args);
        if (r.code !== 0) throw new Error(`pulumi config set-all failed:\n${r.stderr}`);
    }

    /**
     * `pulumi preview|up|refresh|destroy` (with `--yes` where it asks), its engine events read
     * from `--event-log`.
     */
    async run(
        command: "preview" | "up" | "refresh" | "destroy",
        opts: {
            refresh?: boolean;
            expectNoChanges?: boolean;
            parallel?: number;
            args?: string[];
            env?: Record<string, string | undefined>;
            onStart?: (pid: number) => void;
        } = {},
    ): Promise<RunResult> {
        const eventLog = path.join(this.scratch, `events-${Date.now()}-${Math.random().toString(16).slice(2)}.jsonl`);
        const args = [command, "--event-log", eventLog, "--skip-preview"];
        if (command === "preview") args.pop();
        if (command !== "preview") args.push("--yes");
        if (opts.refresh) args.push("--refresh");
        if (opts.expectNoChanges) args.push("--expect-no-changes");
        if (opts.parallel !== undefined) args.push("--parallel", String(opts.parallel));
        args.push(...(opts.args ?? []));
        const r = await this.pulumi(args, { env: opts.env, onStart: opts.onStart });
        const events: EngineEvent[] = fs.existsSync(eventLog)
            ? fs
                  .readFileSync(eventLog, "utf8")
                  .split("\n")
                  .filter((line) => line.trim() !== "")
                  .map((line) => JSON.parse(line) as EngineEvent)
            : [];
        fs.rmSync(eventLog, { force: true });
        const summary = events.find((e) => e.summaryEvent)?.summaryEvent?.resourceChanges ?? {};
        const steps = events
            .map((e) => e.resOutputsEvent?.metadata)
            .filter((m): m is StepMetadata => m !== undefined)
            .map((m) => ({ op: m.op, type: m.type, name: m.urn.split("::").pop() ?? "" }));
        const diagnostics = events
            .map((e) => e.diagnosticEvent?.message)
            .filter((m): m is string => typeof m === "string")
            .join("");
        return { ...r, events, changes: summary, steps, diagnostics };
    }

    /** `pulumi stack export`, with or without `--show-secrets`. */
    async export(showSecrets = false): Promise<UntypedDeployment> {
        const r = await this.pulumi(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]);
        if (r.code !== 0) throw new Error(`pulumi stack export failed:\n${r.stderr}`);
        return JSON.parse(r.stdout) as UntypedDeployment;
    }

    /** The custom resources of the given type in the stack, as `stack export --show-secrets` has them. */
    async resources(type?: string): Promise<ResourceV3[]> {
        const all = (await this.export(true)).deployment.resources ?? [];
        return all.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:") && (!type || r.type === type));
    }

    /** `pulumi stack output --json --show-secrets`; without `--show-secrets`, what a reader sees
     *  (each secret output `"[secret]"`). */
    async outputs(showSecrets = true): Promise<Record<string, unknown>> {
        const r = await this.pulumi(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])]);
        if (r.code !== 0) throw new Error(`pulumi stack output failed:\n${r.stderr}`);
        return JSON.parse(r.stdout) as Record<string, unknown>;
    }

    dispose(): void {
        fs.rmSync(this.scratch, { recursive: true, force: true });
    }
}

/** Fails with the run's own output when it did not exit 0. */
export function ok(r: RunResult): RunResult {
    if (r.code !== 0) throw new Error(`pulumi exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return r;
}
