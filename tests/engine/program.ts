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
 * - the state backend: one JSON file per stack holding what `pulumi stack export` prints (a
 *   version-3 deployment, R8), secret values encrypted as the CLI's passphrase secrets manager
 *   does; read before and written after each run. exportStack() gives the export, with or
 *   without `--show-secrets`.
 *
 * Rules cited as "R<n>" and measured facts quoted as "NOTES" are in ./ENGINE-RULES.md, with the
 * engine file and function each was read from; "cmd/run" is
 * node_modules/@pulumi/pulumi/cmd/run/{index,run}.js.
 *
 * Registrations are served concurrently, as they arrive; the Engine plans them one at a time and
 * runs their steps on `parallel` workers (R4). Refreshes run in parallel with independent
 * failures; deletes run a dependency level at a time; the old halves of create-before-delete
 * replacements are deleted after the program's steps.
 *
 * Not modelled: aliases, targets, transforms, remote components, invokes, dependency-driven
 * replacement, hooks, plans. Non-dynamic custom resources (a cloud
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
import {
    deepEqual,
    defaultParallelism,
    Engine,
    scheduleDeletes,
    type ImportFileEntry,
    type ResourceState,
    type StepResult as EngineStep,
} from "./engine";
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

/** `import` is `pulumi import --file` (needs `importFile`). */
export type RunMode = "preview" | "up" | "refresh" | "destroy" | "import";

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
    /** `--expect-no-changes`: the run fails (exit 7) when any change is planned or made; what a
     *  `--refresh` found counts only through the steps it leads to (R3). */
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
    /** `--parallel`. Default: PULUMI_PARALLEL, else 4 × CPUs (R4.1, defaultParallelism). */
    parallel?: number;
    /** For mode "import": the import file's resources (R1.3). */
    importFile?: { resources: ImportFileEntry[] };
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
    /** The `--parallel` the run used. */
    parallel: number;
    /** The most provider steps that ran at once. */
    peakParallel: number;
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

/** A resource as the stand-in works with it. Dynamic resources are the Engine's ResourceState. */
export interface StoredResource extends ResourceState {
    /** dynamic: planned by the Engine through the plugin; custom: echoed; component and stack: no provider. */
    kind: "dynamic" | "custom" | "component" | "stack";
    parent: string;
    dependencies: string[];
}

// -- The checkpoint: what `pulumi stack export` prints (R8, sdk/go/common/apitype/core.go) ------

/** apitype.ResourceV3: one resource of a version-3 deployment; empty fields are left out (omitempty). */
export interface ResourceV3 {
    urn: string;
    custom: boolean;
    delete?: boolean;
    id?: string;
    type: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    parent?: string;
    protect?: boolean;
    external?: boolean;
    dependencies?: string[];
    initErrors?: string[];
    provider?: string;
    additionalSecretOutputs?: string[];
    importID?: string;
    retainOnDelete?: boolean;
    ignoreChanges?: string[];
    replaceOnChanges?: string[];
    created?: string;
    modified?: string;
}

/** apitype.DeploymentV3. */
export interface DeploymentV3 {
    manifest: { time: string; magic: string; version: string };
    secrets_providers?: { type: string; state: { salt: string } };
    resources?: ResourceV3[];
}

/** apitype.UntypedDeployment with version 3: the JSON `pulumi stack export` prints. */
export interface UntypedDeployment {
    version: 3;
    deployment: DeploymentV3;
}

/** The version the stand-in writes into the manifest: the engine it models, marked as a stand-in. */
const MANIFEST_VERSION = "v3.259.0-engine-standin";
const PROVIDER_PREFIX = "pulumi:providers:";

/**
 * The passphrase secrets manager (pkg/secrets/passphrase/manager.go, sdk/go/common/resource/config
 * crypt.go symmetricCrypter): key = PBKDF2-SHA256(passphrase, 8-byte salt, 1,000,000 rounds);
 * a value is "v1:<nonce>:<AES-256-GCM ciphertext and tag>", base64; the state is
 * "v1:<salt>:<the encryption of 'pulumi'>", which tells a wrong passphrase. The same format as
 * the CLI's, so a state written here can be `pulumi stack import`ed with the same passphrase.
 */
class PassphraseSecrets {
    private static readonly keys = new Map<string, Buffer>();
    private readonly key: Buffer;

    private constructor(
        passphrase: string,
        salt: Buffer,
        readonly state: string,
    ) {
        const cacheKey = `${salt.toString("base64")}\0${passphrase}`;
        let key = PassphraseSecrets.keys.get(cacheKey);
        if (!key) {
            // ~0.4 s, as the CLI's; each (salt, passphrase) is derived once per process.
            key = crypto.pbkdf2Sync(passphrase, salt, 1_000_000, 32, "sha256");
            PassphraseSecrets.keys.set(cacheKey, key);
        }
        this.key = key;
    }

    static create(passphrase: string): PassphraseSecrets {
        const salt = crypto.randomBytes(8);
        const probe = new PassphraseSecrets(passphrase, salt, "");
        return new PassphraseSecrets(passphrase, salt, `v1:${salt.toString("base64")}:${probe.encrypt("pulumi")}`);
    }

    static fromState(passphrase: string, state: string): PassphraseSecrets {
        const parts = state.split(":");
        if (parts.length !== 5 || parts[0] !== "v1") throw new Error("the secrets provider's salt is malformed");
        const sm = new PassphraseSecrets(passphrase, Buffer.from(parts[1], "base64"), state);
        let check: string | undefined;
        try {
            check = sm.decrypt(parts.slice(2).join(":"));
        } catch {
            check = undefined; // a wrong key fails GCM authentication
        }
        if (check !== "pulumi") {
            throw new Error("incorrect passphrase, please set PULUMI_CONFIG_PASSPHRASE to the correct passphrase");
        }
        return sm;
    }

    encrypt(text: string): string {
        const nonce = crypto.randomBytes(12);
        const c = crypto.createCipheriv("aes-256-gcm", this.key, nonce);
        const body = Buffer.concat([c.update(text, "utf8"), c.final(), c.getAuthTag()]);
        return `v1:${nonce.toString("base64")}:${body.toString("base64")}`;
    }

    decrypt(value: string): string {
        const [v, nonce, body] = value.split(":");
        if (v !== "v1" || nonce === undefined || body === undefined) throw new Error("bad secret value");
        const raw = Buffer.from(body, "base64");
        const d = crypto.createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64"));
        d.setAuthTag(raw.subarray(raw.length - 16));
        return Buffer.concat([d.update(raw.subarray(0, raw.length - 16)), d.final()]).toString("utf8");
    }
}

/**
 * pkg/resource/stack/deployment.go SerializePropertyValue: a secret becomes
 * `{sig, ciphertext}` (the JSON of its value, encrypted), or with `--show-secrets`
 * `{sig, plaintext}` (that JSON in the clear).
 */
function serializeSecrets(v: unknown, seal: (json: string) => Record<string, string>): unknown {
    if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, ...seal(JSON.stringify(stripSecrets(v.value) ?? null)) };
    if (Array.isArray(v)) return v.map((x) => serializeSecrets(x, seal));
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, serializeSecrets(x, seal)]));
    return v;
}

/** The reverse, for either form (stack import accepts both). */
function deserializeSecrets(v: unknown, sm: PassphraseSecrets | undefined): unknown {
    if (isRecord(v) && v[SIG_KEY] === SECRET_SIG) {
        if (typeof v.plaintext === "string") return secret(JSON.parse(v.plaintext) as unknown);
        if (typeof v.ciphertext === "string") {
            if (!sm) throw new Error("the state holds encrypted secrets but has no secrets provider");
            return secret(JSON.parse(sm.decrypt(v.ciphertext)) as unknown);
        }
        return v;
    }
    if (Array.isArray(v)) return v.map((x) => deserializeSecrets(x, sm));
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deserializeSecrets(x, sm)]));
    return v;
}

interface LoadedState {
    resources: StoredResource[];
    pendingDeletes: StoredResource[];
    secrets: PassphraseSecrets;
    /** Default providers by package, with the id they were given (kept across runs). */
    providerIds: Map<string, string>;
    /** Timestamps and the serialized text of each resource as loaded, to keep `created` and set `modified`. */
    stamps: Map<string, { created?: string; modified?: string; text: string }>;
}

function kindOf(r: Pick<ResourceV3, "type" | "custom" | "parent">): StoredResource["kind"] {
    if (r.type === STACK_TYPE && !r.parent) return "stack";
    if (!r.custom) return "component";
    return r.type.startsWith(DYNAMIC_PREFIX) ? "dynamic" : "custom";
}

/** urn:pulumi:<stack>::<project>::<type chain>::<name> */
function urnParts(urn: string): { stack: string; project: string; name: string } {
    const parts = urn.split("::");
    return {
        stack: (parts[0] ?? "").replace(/^urn:pulumi:/, ""),
        project: parts[1] ?? "",
        name: parts.slice(3).join("::"),
    };
}

function fromV3(r: ResourceV3, sm: PassphraseSecrets | undefined): StoredResource {
    const res: StoredResource = {
        urn: r.urn,
        type: r.type,
        name: urnParts(r.urn).name,
        id: r.id ?? "",
        inputs: (deserializeSecrets(r.inputs ?? {}, sm) ?? {}) as PropertyMap,
        outputs: (deserializeSecrets(r.outputs ?? {}, sm) ?? {}) as PropertyMap,
        additionalSecretOutputs: r.additionalSecretOutputs ?? [],
        external: r.external ?? false,
        kind: kindOf(r),
        parent: r.parent ?? "",
        dependencies: r.dependencies ?? [],
    };
    if (r.importID) res.importId = r.importID;
    if (r.initErrors?.length) res.initErrors = r.initErrors;
    if (r.protect) res.protect = true;
    if (r.retainOnDelete) res.retainOnDelete = true;
    if (r.ignoreChanges?.length) res.ignoreChanges = r.ignoreChanges;
    if (r.replaceOnChanges?.length) res.replaceOnChanges = r.replaceOnChanges;
    return res;
}

function toV3(r: StoredResource, provider: string | undefined, deleted: boolean): ResourceV3 {
    const nonEmpty = (m: PropertyMap): boolean => Object.keys(m).length > 0;
    return {
        urn: r.urn,
        custom: r.kind === "dynamic" || r.kind === "custom",
        ...(deleted ? { delete: true } : {}),
        ...(r.id ? { id: r.id } : {}),
        type: r.type,
        ...(nonEmpty(r.inputs) ? { inputs: r.inputs } : {}),
        ...(nonEmpty(r.outputs) ? { outputs: r.outputs } : {}),
        ...(r.parent ? { parent: r.parent } : {}),
        ...(r.protect ? { protect: true } : {}),
        ...(r.external ? { external: true } : {}),
        ...(r.dependencies.length ? { dependencies: r.dependencies } : {}),
        ...(r.initErrors?.length ? { initErrors: r.initErrors } : {}),
        ...(provider ? { provider } : {}),
        ...(r.additionalSecretOutputs.length ? { additionalSecretOutputs: r.additionalSecretOutputs } : {}),
        ...(r.importId ? { importID: r.importId } : {}),
        ...(r.retainOnDelete ? { retainOnDelete: true } : {}),
        ...(r.ignoreChanges?.length ? { ignoreChanges: r.ignoreChanges } : {}),
        ...(r.replaceOnChanges?.length ? { replaceOnChanges: r.replaceOnChanges } : {}),
    };
}

function readCheckpoint(file: string): UntypedDeployment | undefined {
    if (!fs.existsSync(file)) return undefined;
    const raw = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<UntypedDeployment>;
    if (raw.version !== 3 || !raw.deployment) throw new Error(`${file} is not a version-3 Pulumi deployment`);
    return raw as UntypedDeployment;
}

function loadState(file: string, project: string, stack: string, passphrase: string): LoadedState {
    const raw = readCheckpoint(file);
    if (!raw) {
        return {
            resources: [],
            pendingDeletes: [],
            secrets: PassphraseSecrets.create(passphrase),
            providerIds: new Map(),
            stamps: new Map(),
        };
    }
    const d = raw.deployment;
    for (const r of d.resources ?? []) {
        const u = urnParts(r.urn);
        if (u.project !== project || u.stack !== stack) {
            throw new Error(`${file} is not the state of stack ${project}/${stack}`);
        }
    }
    const sm = PassphraseSecrets.fromState(
        passphrase,
        d.secrets_providers?.state.salt ?? PassphraseSecrets.create(passphrase).state,
    );
    const loaded: LoadedState = {
        resources: [],
        pendingDeletes: [],
        secrets: sm,
        providerIds: new Map(),
        stamps: new Map(),
    };
    for (const r of d.resources ?? []) {
        if (r.type.startsWith(PROVIDER_PREFIX)) {
            loaded.providerIds.set(r.type.slice(PROVIDER_PREFIX.length), r.id ?? "");
            continue;
        }
        const res = fromV3(r, sm);
        if (r.delete) loaded.pendingDeletes.push(res);
        else {
            loaded.resources.push(res);
            loaded.stamps.set(r.urn, { created: r.created, modified: r.modified, text: stampText(res) });
        }
    }
    return loaded;
}

function stampText(r: StoredResource): string {
    return JSON.stringify(stripSecrets({ id: r.id, inputs: r.inputs, outputs: r.outputs }));
}

function packageOf(type: string): string {
    return type.split(":")[0] ?? "";
}

function saveState(
    file: string,
    project: string,
    stack: string,
    loaded: LoadedState,
    resources: StoredResource[],
    pendingDeletes: StoredResource[],
): void {
    const now = new Date().toISOString();
    // Default providers (engine: one `pulumi:providers:<package>::default` resource per package),
    // placed before the first resource that uses them; their ids are kept across runs.
    const providers = new Map<string, { urn: string; id: string }>();
    const providerRef = (r: StoredResource): string | undefined => {
        if (r.kind !== "dynamic" && r.kind !== "custom") return undefined;
        const pkg = packageOf(r.type);
        let p = providers.get(pkg);
        if (!p) {
            p = {
                urn: `urn:pulumi:${stack}::${project}::${PROVIDER_PREFIX}${pkg}::default`,
                id: loaded.providerIds.get(pkg) ?? crypto.randomUUID(),
            };
            providers.set(pkg, p);
        }
        return `${p.urn}::${p.id}`;
    };
    const out: ResourceV3[] = [];
    const emitted = new Set<string>();
    const emit = (r: StoredResource, deleted: boolean): void => {
        const ref = providerRef(r);
        const pkg = packageOf(r.type);
        if (ref && !emitted.has(pkg)) {
            emitted.add(pkg);
            const p = providers.get(pkg);
            if (p) out.push({ urn: p.urn, custom: true, id: p.id, type: `${PROVIDER_PREFIX}${pkg}` });
        }
        const v3 = toV3(r, ref, deleted);
        const stamp = loaded.stamps.get(r.urn);
        const created = stamp?.created ?? now;
        const modified = stamp && stamp.text === stampText(r) ? (stamp.modified ?? created) : now;
        out.push({ ...v3, ...(r.kind === "stack" ? {} : { created, modified }) });
    };
    for (const r of resources) emit(r, false);
    for (const r of pendingDeletes) emit(r, true);
    const deployment: UntypedDeployment = {
        version: 3,
        deployment: {
            manifest: {
                time: now,
                magic: crypto.createHash("sha256").update(MANIFEST_VERSION).digest("hex"),
                version: MANIFEST_VERSION,
            },
            secrets_providers: { type: "passphrase", state: { salt: loaded.secrets.state } },
            ...(out.length ? { resources: out } : {}),
        },
    };
    const sealed = serializeSecrets(deployment, (json) => ({ ciphertext: loaded.secrets.encrypt(json) }));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(sealed, null, 4) + "\n", { mode: 0o600 });
    fs.renameSync(tmp, file);
}

/** A stack's resources as the state file holds them (providers aside), secrets decrypted (still marked). */
export function readStackState(file: string, passphrase: string): StoredResource[] {
    const raw = readCheckpoint(file);
    if (!raw) return [];
    const first = raw.deployment.resources?.[0];
    if (!first) return [];
    const u = urnParts(first.urn);
    return loadState(file, u.project, u.stack, passphrase).resources;
}

function qualify(project: string, key: string): string {
    return key.includes(":") ? key : `${project}:${key}`;
}

/**
 * What `pulumi stack export` prints for the stack whose checkpoint is `file` (R8): secrets as
 * `{sig, ciphertext}`, or with `showSecrets` (`--show-secrets`, which needs the passphrase) as
 * `{sig, plaintext}`. An empty stack exports a deployment with no resources.
 */
export function exportStack(
    file: string,
    opts: { showSecrets?: boolean; passphrase?: string } = {},
): UntypedDeployment {
    const raw = readCheckpoint(file) ?? {
        version: 3,
        deployment: { manifest: { time: new Date().toISOString(), magic: "", version: MANIFEST_VERSION } },
    };
    if (!opts.showSecrets) return raw;
    const passphrase = opts.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE;
    if (passphrase === undefined) throw new Error("--show-secrets needs the stack's passphrase");
    const salt = raw.deployment.secrets_providers?.state.salt;
    const sm = salt ? PassphraseSecrets.fromState(passphrase, salt) : undefined;
    const opened = deserializeSecrets(raw, sm);
    return serializeSecrets(opened, (json) => ({ plaintext: json })) as UntypedDeployment;
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
    if (opts.mode === "import" && !opts.importFile) throw new Error("mode import needs an importFile");
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
    /** Steps in the order they were planned (a registration's slot is taken when it arrives). */
    private readonly steps: ProgramStep[] = [];
    private readonly logChunks: string[] = [];
    private readonly deadline: number;
    private readonly config: Record<string, ConfigValue> = {};
    readonly parallel: number;
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
    /** Registrations and reads under way: the program may end without waiting for them. */
    private readonly inFlight = new Set<Promise<unknown>>();

    constructor(
        private readonly opts: RunOptions,
        private readonly project: PulumiProject,
        private readonly stack: string,
        private readonly loaded: LoadedState,
        private readonly started: number,
    ) {
        this.preview = opts.mode === "preview";
        this.deadline = started + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        this.parallel = opts.parallel ?? defaultParallelism({ ...process.env, ...opts.env });
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
            } else if (this.opts.mode === "import") {
                await this.importAll();
            }
        } catch (e) {
            this.fail(errorText(e));
        }
        // R3 (engine/update.go HasChanges, operations/up.go): `--expect-no-changes` counts the
        // steps that changed something; refresh steps count only in `pulumi refresh` itself
        // (update.go OnResourceStepPost records a refresh step only when isRefresh).
        if (this.failure === undefined && this.opts.expectNoChanges && this.steps.some((s) => this.counts(s))) {
            this.changesUnexpected = true;
            this.fail("no changes were expected but changes were proposed");
        }
        if (!this.preview) await this.save();
    }

    private counts(s: ProgramStep): boolean {
        if (s.op === "refresh") return this.opts.mode === "refresh" && s.refresh !== "same";
        return s.op !== "same" && s.op !== "read";
    }

    result(): RunResult {
        return {
            mode: this.opts.mode,
            preview: this.preview,
            exitCode: this.failure === undefined ? 0 : this.changesUnexpected ? CHANGES_EXIT_CODE : FAILURE_EXIT_CODE,
            steps: this.steps,
            changes: this.steps.filter((s) => this.counts(s)).length,
            outputs: this.stackOutputs,
            log: this.logChunks.join(""),
            ...(this.failure !== undefined ? { error: this.failure } : {}),
            stateFile: this.opts.stateFile,
            durationMs: Date.now() - this.started,
            parallel: this.parallel,
            peakParallel: this.peak,
        };
    }

    private peak = 0;

    async close(): Promise<void> {
        if (this.child) await killChild(this.child);
        if (this.server) this.server.forceShutdown();
        // A plugin still starting is waited for (its start is bounded), so it is killed too.
        const engine = await this.engineReady?.catch(() => undefined);
        if (engine) this.peak = engine.workers.peak;
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
        const env = { ...process.env, ...this.opts.env };
        const engine = new Engine(plugin, {
            project: this.project.name,
            stack: this.stack,
            parallel: this.parallel,
            legacyRefreshDiff: /^(1|true)$/i.test(env.PULUMI_ENABLE_LEGACY_REFRESH_DIFF ?? ""),
            parallelDiff: /^(1|true)$/i.test(env.PULUMI_PARALLEL_DIFF ?? ""),
        });
        for (const r of this.loaded.resources) {
            if (r.kind !== "dynamic") continue;
            // The Engine's own record: ResourceState without the stand-in's kind.
            const { kind: _k, ...state } = r;
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
        // it depends on), then what the run did not touch.
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
        const pending = (engine ? engine.pendingDeletes : this.loaded.pendingDeletes).map((r): StoredResource => ({
            parent: "",
            dependencies: [],
            ...r,
            kind: "dynamic",
        }));
        saveState(this.opts.stateFile, this.project.name, this.stack, this.loaded, resources, pending);
    }

    // -- refresh, import and destroy ---------------------------------------------------------------

    /**
     * `pulumi refresh` (or the `--refresh` of preview and up): Read every custom resource, in
     * parallel (R4.3, deployment_executor.go refresh: one worker pool, errors do not stop the
     * others). A read that failed leaves its resource as it was and fails the run once all are
     * done; a resource found deleted leaves the state; in a preview nothing is saved.
     */
    private async refreshAll(): Promise<void> {
        const engine = await this.engine();
        const urns = [...this.oldOrder];
        const steps = urns.map((urn) => {
            const kind = this.meta.get(urn)?.kind;
            return kind === "dynamic" || kind === "custom" ? this.step(urn, "refresh") : undefined;
        });
        const results = await Promise.allSettled(
            urns.map(async (urn, i) => {
                const step = steps[i];
                if (!step) return;
                if (this.meta.get(urn)?.kind !== "dynamic") {
                    step.refresh = "same"; // echoed resources have nothing to read
                    return;
                }
                const r = await engine.refresh(urn);
                step.refresh = r.kind;
                if (r.kind !== "same") step.keys = r.changedKeys ?? changedKeys(r.before, r.after);
                if (r.kind === "deleted") this.meta.delete(urn);
            }),
        );
        // Steps whose read failed are not shown as refreshed.
        for (let i = steps.length - 1; i >= 0; i--) {
            const s = steps[i];
            if (s && s.refresh === undefined) this.steps.splice(this.steps.indexOf(s), 1);
        }
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        for (const f of failed) this.log(`error: refresh: ${errorText(f.reason)}\n`);
        if (failed.length > 0) this.fail(errorText(failed[0].reason));
    }

    /** `pulumi import --file` (R1.3): every entry imported, in parallel; check failures are warnings. */
    private async importAll(): Promise<void> {
        const engine = await this.engine();
        const entries = this.opts.importFile?.resources ?? [];
        const results = await Promise.allSettled(
            entries.map(async (entry) => {
                const step = this.step(engine.urn(entry.type, entry.name), "import");
                const { state, checkFailures } = await engine.importFromFile(entry);
                for (const f of checkFailures) this.log(`warning: ${state.urn}: ${f.property}: ${f.reason}\n`);
                this.meta.set(state.urn, { kind: "dynamic", parent: this.stackUrn(), dependencies: [] });
                this.registered.push(state.urn);
                return step;
            }),
        );
        const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed) this.fail(errorText(failed.reason));
    }

    private stackUrn(): string {
        return `urn:pulumi:${this.stack}::${this.project.name}::${STACK_TYPE}::${this.project.name}-${this.stack}`;
    }

    /** `pulumi destroy`: pending deletes, then every resource, dependents first, a level at a time (R4.5). */
    private async destroyAll(): Promise<void> {
        const engine = await this.engine();
        if (!this.preview) await engine.deletePending();
        await this.deleteInLevels(engine, [...this.oldOrder]);
        if (this.failure === undefined) this.stackOutputs = {};
    }

    /**
     * Deletes `urns` as the engine schedules deletes (step_generator.go ScheduleDeletes): levels
     * in which no resource depends on another still to be deleted, each level in parallel. A
     * failed delete stops the levels after it (deployment_executor.go performPostSteps).
     */
    private async deleteInLevels(engine: Engine, urns: string[]): Promise<void> {
        const condemned = urns
            .map((urn) => ({
                urn,
                ...(this.meta.get(urn) ?? { kind: "custom" as const, parent: "", dependencies: [] }),
            }))
            .filter((r) => this.meta.has(r.urn));
        // Steps are shown in reverse state order, whatever order they finish in.
        const stepOf = new Map(condemned.map((r) => [r.urn, r]));
        for (const urn of [...urns].reverse()) if (stepOf.has(urn)) this.step(urn, "delete");
        for (const level of scheduleDeletes(condemned, condemned)) {
            const results = await Promise.allSettled(
                level.map(async (r) => {
                    if (r.kind === "dynamic" && engine.state.has(r.urn)) {
                        await engine.destroy(r.urn, { preview: this.preview });
                    } else if (this.others.get(r.urn)?.protect) {
                        throw new Error(`resource "${r.urn}" cannot be deleted\nbecause it is protected`);
                    }
                    if (!this.preview) {
                        this.others.delete(r.urn);
                        this.meta.delete(r.urn);
                    }
                }),
            );
            const failed = results.find((x): x is PromiseRejectedResult => x.status === "rejected");
            if (failed) throw failed.reason;
        }
    }

    /**
     * engine: after the program exits successfully, resources in the old state that it did not
     * register are deleted, together with the old halves of create-before-delete replacements
     * (R4.6: those are deleted after all program steps). Only after success: a failed program
     * may simply not have reached them.
     */
    private async deleteUnregistered(): Promise<void> {
        const engine = await this.engine();
        const registered = new Set(this.registered);
        if (!this.preview) await engine.deletePending();
        await this.deleteInLevels(
            engine,
            this.oldOrder.filter((urn) => !registered.has(urn)),
        );
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
            `--parallel=${this.parallel}`,
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
        await Promise.allSettled([...this.inFlight]);
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
        // R4.4: registrations are served as they arrive, concurrently; the Engine plans them one
        // at a time and runs their steps on its workers.
        const track = <T>(fn: () => Promise<T>): Promise<T> => {
            const p = fn();
            this.inFlight.add(p);
            void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
            return p;
        };
        const failed = (e: unknown): void => {
            this.fail(errorText(e));
            // R4.2: a failed step cancels the deployment: steps not yet started never start.
            void this.engineReady?.then(
                (engine) => engine.cancel(),
                () => undefined,
            );
            this.endProgram();
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
                track(() => this.registerResource(call.request)).then(
                    (resp) => cb(null, resp),
                    (e: unknown) => {
                        cb({ code: grpc.status.UNKNOWN, details: errorText(e) });
                        failed(e);
                    },
                );
            },
            registerResourceOutputs: (call, cb) => {
                try {
                    this.registerOutputs(call.request);
                    cb(null, new Empty());
                } catch (e) {
                    cb({ code: grpc.status.UNKNOWN, details: errorText(e) });
                }
            },
            readResource: (call, cb) => {
                track(() => this.readResource(call.request)).then(
                    (resp) => cb(null, resp),
                    (e: unknown) => {
                        cb({ code: grpc.status.UNKNOWN, details: errorText(e) });
                        failed(e);
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
            // The step's place in the list is taken on arrival, so that the list does not depend on
            // which of the concurrent steps finishes first.
            const slot = this.step(urn, "same");
            let r: EngineStep;
            try {
                r = await engine.register(type, name, inputs, {
                    urn,
                    preview: this.preview,
                    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                    ...(req.getImportid() ? { importId: req.getImportid() } : {}),
                    ...(deleteBeforeReplace !== undefined ? { deleteBeforeReplace } : {}),
                    // R5: the resource options the engine acts on.
                    ...(req.getProtect() ? { protect: true } : {}),
                    ...(req.getRetainondelete() ? { retainOnDelete: true } : {}),
                    ignoreChanges: req.getIgnorechangesList(),
                    replaceOnChanges: req.getReplaceonchangesList(),
                    parent,
                    dependencies: req.getDependenciesList(),
                    deferReplacedDelete: true,
                });
            } catch (e) {
                this.steps.splice(this.steps.indexOf(slot), 1);
                throw e;
            }
            const op = r.op.replace(/^preview-/, "") as StepOp;
            // Checked inputs: in a preview the outputs of a planned create or update are exactly those.
            const newInputs = this.preview ? r.outputs : engine.state.get(urn)?.inputs;
            slot.op = op;
            const keys = op === "update" || op === "replace" ? changedKeys(old?.inputs, newInputs) : [];
            if (keys.length > 0) slot.keys = keys;
            if (r.imported && op !== "import") {
                // R1.2: the import, then the update that makes the resource match the program.
                slot.op = "import";
                delete slot.keys;
                const next: ProgramStep = { ...slot, op };
                if (keys.length > 0) next.keys = keys;
                this.steps.splice(this.steps.indexOf(slot) + 1, 0, next);
            }
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
        const slot = this.step(urn, "read");
        let state: ResourceState;
        try {
            state = await engine.get(type, name, req.getId(), inputs, {
                urn,
                additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                preview: this.preview,
                parent: req.getParent(),
            });
        } catch (e) {
            this.steps.splice(this.steps.indexOf(slot), 1);
            throw e;
        }
        this.meta.set(urn, { kind: "dynamic", parent: req.getParent(), dependencies: req.getDependenciesList() });
        const resp = new resproto.ReadResourceResponse();
        resp.setUrn(urn);
        resp.setProperties(
            Struct.fromJavaScript(dropUndefined(state.outputs) as Record<string, structModule.JavaScriptValue>),
        );
        return resp;
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
