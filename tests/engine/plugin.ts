/**
 * Low-level driver for the REAL Pulumi Node.js dynamic-provider plugin
 * (`@pulumi/pulumi/cmd/dynamic-provider`), started and called exactly as the Pulumi engine does.
 *
 * The Pulumi CLI cannot be installed on our machines (it downloads from Pulumi's own servers), but
 * everything on the provider side ships in `@pulumi/pulumi`. This file launches the plugin as a
 * child process, reads its port and talks gRPC to it with the stubs shipped in
 * `@pulumi/pulumi/proto`. Facts quoted below as "NOTES" are the measured facts (the M entries) of
 * ./ENGINE-RULES.md (measured with @pulumi/pulumi 3.270.0); facts quoted as "engine" come from
 * the Pulumi engine's Go sources (sdk/go/common/resource/plugin/provider_plugin.go,
 * pkg/resource/deploy/step*.go), also listed there with the commit that was read.
 *
 * Higher-level engine semantics (state, secrets re-marking, step planning) live in ./engine.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import type * as grpcModule from "@grpc/grpc-js";
import type * as structModule from "google-protobuf/google/protobuf/struct_pb";
import type * as emptyModule from "google-protobuf/google/protobuf/empty_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";

// IMPORTANT: use the SAME @grpc/grpc-js and google-protobuf instances the generated stubs were
// built with (the copies @pulumi/pulumi itself resolves). With a second copy, channel credentials
// and Struct messages built by one copy may be rejected by the other. Today both are hoisted to the
// root node_modules, but resolving them from @pulumi/pulumi's folder keeps this true if they are not.
const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
export function requireFromPulumi<T>(id: string): T {
    return require(require.resolve(id, { paths: [pulumiDir] })) as T;
}
const grpc = requireFromPulumi<typeof grpcModule>("@grpc/grpc-js");
const { Struct } = requireFromPulumi<typeof structModule>("google-protobuf/google/protobuf/struct_pb");
const { Empty } = requireFromPulumi<typeof emptyModule>("google-protobuf/google/protobuf/empty_pb");

type JavaScriptValue = structModule.JavaScriptValue;

// ---------------------------------------------------------------------------------------------
// Pulumi's special property-value encodings (sdk/nodejs/runtime/rpc.ts)
// ---------------------------------------------------------------------------------------------

/** A property bag as it crosses the wire: plain JSON-like values, maybe secret-wrapped, maybe UNKNOWN. */
export type PropertyMap = Record<string, unknown>;

/** The key that marks a "special" object in Pulumi's property encoding. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** `SIG_KEY`'s value for a secret. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/**
 * The sentinel for a value not known yet. NOTES: in preview, unknown inputs reach Check and Diff as
 * this string (the engine marshals with KeepUnknowns only when it is a preview).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A secret-marked value as the SDK sends it and as the engine stores it. */
export interface SecretValue<T = unknown> {
    [SIG_KEY]: typeof SECRET_SIG;
    value: T;
}

/** Wraps `value` the way the SDK marks a secret (`pulumi.secret(...)` once serialized). */
export function secret<T>(value: T): SecretValue<T> {
    return { [SIG_KEY]: SECRET_SIG, value };
}

export function isSecret(v: unknown): v is SecretValue {
    return isRecord(v) && v[SIG_KEY] === SECRET_SIG;
}

/** True if `v` is a secret or contains one anywhere inside. */
export function containsSecrets(v: unknown): boolean {
    if (isSecret(v)) return true;
    if (Array.isArray(v)) return v.some(containsSecrets);
    if (isRecord(v)) return Object.values(v).some(containsSecrets);
    return false;
}

/**
 * Removes every secret wrapper, keeping the wrapped values: what the engine does to properties
 * before it sends them to a provider that answered Configure with acceptSecrets=false (the
 * dynamic-provider plugin always does, NOTES "secrets").
 * A top-level property map is never itself a secret, hence the first overload.
 */
export function stripSecrets(v: PropertyMap): PropertyMap;
export function stripSecrets(v: unknown): unknown;
export function stripSecrets(v: unknown): unknown {
    if (isSecret(v)) return stripSecrets(v.value);
    if (Array.isArray(v)) return v.map((x) => stripSecrets(x));
    if (isRecord(v)) {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stripSecrets(x)]));
    }
    return v;
}

/** A plain object (not an array, not null). Secret wrappers are plain objects too. */
export function isRecord(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The engine never sends `undefined` (its property model has no such value); protobuf Struct would
 * throw "Unexpected struct type." on it (NOTES "outputs"). Object keys whose value is undefined are
 * dropped; undefined array elements become null, as JSON does.
 */
export function dropUndefined(v: PropertyMap): PropertyMap;
export function dropUndefined(v: unknown): unknown;
export function dropUndefined(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : dropUndefined(x)));
    if (isRecord(v)) {
        return Object.fromEntries(
            Object.entries(v)
                .filter(([, x]) => x !== undefined)
                .map(([k, x]) => [k, dropUndefined(x)]),
        );
    }
    return v;
}

/**
 * The URN the engine gives a top-level resource (no parent): `urn:pulumi:<stack>::<project>::<type>::<name>`.
 * Dynamic resources registered with `new pulumi.dynamic.Resource(provider, name, props, opts)` have
 * type `pulumi-nodejs:dynamic:Resource`; with the module/type arguments, `pulumi-nodejs:dynamic/<module>:<type>`.
 */
export function urnFor(type: string, name: string, opts: { project?: string; stack?: string } = {}): string {
    const project = opts.project ?? DEFAULT_PROJECT;
    const stack = opts.stack ?? DEFAULT_STACK;
    return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

export const DEFAULT_PROJECT = "harness";
export const DEFAULT_STACK = "dev";

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/**
 * The detail the plugin packs into `grpc-status-details-bin` when create/update throws an error
 * carrying `id` (a partial failure: the resource exists but failed to initialise).
 */
export interface InitFailure {
    id: string;
    properties: PropertyMap;
    reasons: string[];
}

/** A gRPC call to the plugin failed. `message` is the gRPC status details (the thrown Error's message). */
export class PluginError extends Error {
    override readonly name = "PluginError";
    constructor(
        /** The RPC that failed, e.g. "create". */
        readonly method: string,
        /** The gRPC status code (a provider exception is UNKNOWN = 2; a missed deadline is 4). */
        readonly code: number,
        message: string,
        /** Decoded ErrorResourceInitFailed details: one entry for a partial failure, else empty. */
        readonly initFailures: InitFailure[] = [],
    ) {
        super(message);
    }
}

function toPluginError(method: string, err: grpcModule.ServiceError): PluginError {
    let initFailures: InitFailure[] = [];
    const bin = err.metadata?.get("grpc-status-details-bin")[0];
    if (bin !== undefined && typeof bin !== "string") {
        const status = statusproto.Status.deserializeBinary(new Uint8Array(bin));
        initFailures = status
            .getDetailsList()
            .filter((any) => any.getTypeName() === "pulumirpc.ErrorResourceInitFailed")
            .map((any) => {
                const d = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
                return { id: d.getId(), properties: fromStruct(d.getProperties()) ?? {}, reasons: d.getReasonsList() };
            });
    }
    return new PluginError(method, err.code, err.details, initFailures);
}

// ---------------------------------------------------------------------------------------------
// Struct conversion
// ---------------------------------------------------------------------------------------------

function toStruct(props: PropertyMap): structModule.Struct {
    // Values are JSON-like by construction (dropUndefined removed the only non-JSON value the SDK
    // can produce); anything else (a Date, a function) is turned by Struct into {} or rejected,
    // which is what the plugin's own Struct.fromJavaScript calls do with provider results.
    return Struct.fromJavaScript(dropUndefined(props) as Record<string, JavaScriptValue>);
}

function fromStruct(s: structModule.Struct | undefined): PropertyMap | undefined {
    return s ? (s.toJavaScript() as PropertyMap) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

export interface ConfigureResult {
    acceptSecrets: boolean;
    supportsPreview: boolean;
    acceptResources: boolean;
    acceptOutputs: boolean;
}

export interface CheckFailure {
    property: string;
    reason: string;
}

export interface CheckResult {
    inputs: PropertyMap;
    failures: CheckFailure[];
}

export type DiffChanges = "unknown" | "none" | "some";

/** NOTES "diff": only changes, replaces and deleteBeforeReplace cross the plugin. */
export interface DiffResult {
    changes: DiffChanges;
    replaces: string[];
    deleteBeforeReplace: boolean;
}

export interface CreateResult {
    id: string;
    properties: PropertyMap;
}

export interface ReadResult {
    /** "" means the resource is gone (NOTES "read"). */
    id: string;
    properties: PropertyMap;
    /** Only set when the provider's read returned `inputs` (SDK 3.216+, pulumi/pulumi#21315). */
    inputs: PropertyMap | undefined;
}

export interface UpdateResult {
    properties: PropertyMap;
}

// ---------------------------------------------------------------------------------------------
// Starting the plugin
// ---------------------------------------------------------------------------------------------

export interface StartOptions {
    /** Project folder: the plugin resolves the serialized provider's `require()`s from its cwd (NOTES "working directory"). */
    cwd: string;
    /** PULUMI_NODEJS_PROJECT (default "harness"): `config.get("key")` means `<project>:key` (NOTES "project name"). */
    project?: string;
    /** PULUMI_NODEJS_STACK (default "dev"). */
    stack?: string;
    /** Node binary to run the plugin with (default: this process's node). */
    node?: string;
    /** Extra environment; a value of `undefined` REMOVES that variable from the child's environment. */
    env?: Record<string, string | undefined>;
    /** Bound on start-up (spawn to port printed). Default 30 s. */
    startTimeoutMs?: number;
    /** Deadline for every RPC. Default 60 s. */
    rpcTimeoutMs?: number;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_RPC_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 5_000;

/** Path of the plugin's entry point in the installed @pulumi/pulumi. */
export function dynamicProviderScript(): string {
    return require.resolve("@pulumi/pulumi/cmd/dynamic-provider");
}

/**
 * Starts the plugin as the engine does: `node <sdk>/cmd/dynamic-provider/index.js <engine-address>`.
 * NOTES "plugin start": argv[2] must be present (the plugin exits with "fatal: Missing <engine>
 * address" otherwise) but is never dialled, so no stub engine is needed. The port is the first
 * line of stdout.
 */
export async function startProviderPlugin(opts: StartOptions): Promise<ProviderPlugin> {
    const project = opts.project ?? DEFAULT_PROJECT;
    const stack = opts.stack ?? DEFAULT_STACK;
    const env: NodeJS.ProcessEnv = {
        ...process.env,
        // engine (provider_plugin.go NewProvider): PULUMI_NODEJS_PROJECT and PULUMI_PROJECT are set
        // for the pulumi-nodejs plugin.
        PULUMI_NODEJS_PROJECT: project,
        PULUMI_PROJECT: project,
        PULUMI_NODEJS_STACK: stack,
    };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
        if (v === undefined) delete env[k];
        else env[k] = v;
    }

    const t0 = process.hrtime.bigint();
    const child = spawn(opts.node ?? process.execPath, [dynamicProviderScript(), "127.0.0.1:0"], {
        cwd: opts.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
    });
    const output = { stdout: "", stderr: "" };
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (output.stderr += d));

    let port: number;
    try {
        port = await readPort(child, output, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    } catch (e) {
        await killChild(child);
        throw e;
    }
    const startupMs = Number(process.hrtime.bigint() - t0) / 1e6;
    // Keep draining stdout: console.log in provider code writes there, and an undrained pipe would
    // eventually block the plugin.
    child.stdout?.on("data", (d: string) => (output.stdout += d));

    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const plugin = new ProviderPlugin(
        child,
        client,
        port,
        startupMs,
        output,
        opts.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
    );
    try {
        await plugin.waitForReady(opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    } catch (e) {
        await plugin.close();
        throw e;
    }
    return plugin;
}

function readPort(child: ChildProcess, output: { stdout: string; stderr: string }, timeoutMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
        const stdout = child.stdout;
        if (!stdout) {
            reject(new Error("plugin has no stdout pipe"));
            return;
        }
        stdout.setEncoding("utf8");
        const cleanup = (): void => {
            clearTimeout(timer);
            stdout.off("data", onData);
            child.off("exit", onExit);
            child.off("error", onError);
        };
        const onData = (d: string): void => {
            output.stdout += d;
            const nl = output.stdout.indexOf("\n");
            if (nl < 0) return;
            cleanup();
            const line = output.stdout.slice(0, nl).trim();
            output.stdout = output.stdout.slice(nl + 1);
            const port = Number(line);
            if (Number.isInteger(port) && port > 0 && port < 65536) resolve(port);
            else
                reject(
                    new Error(
                        `plugin's first stdout line is not a port: ${JSON.stringify(line)}; stderr: ${output.stderr}`,
                    ),
                );
        };
        const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
            cleanup();
            reject(
                new Error(
                    `plugin exited (code ${code}, signal ${signal}) before printing its port; stderr: ${output.stderr}`,
                ),
            );
        };
        const onError = (err: Error): void => {
            cleanup();
            reject(new Error(`could not start the plugin: ${err.message}`));
        };
        const timer = setTimeout(() => {
            cleanup();
            reject(new Error(`plugin did not print its port within ${timeoutMs} ms; stderr: ${output.stderr}`));
        }, timeoutMs);
        stdout.on("data", onData);
        child.once("exit", onExit);
        child.once("error", onError);
    });
}

/** SIGTERM (the engine kills plugins too: there is no shutdown RPC), then SIGKILL; each wait bounded. */
export async function killChild(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const waitExit = (ms: number): Promise<boolean> =>
        new Promise<boolean>((resolve) => {
            const t = setTimeout(() => resolve(false), ms);
            void exited.then(() => {
                clearTimeout(t);
                resolve(true);
            });
        });
    child.kill("SIGTERM");
    if (await waitExit(KILL_GRACE_MS)) return;
    child.kill("SIGKILL");
    await waitExit(KILL_GRACE_MS);
}

// ---------------------------------------------------------------------------------------------
// The plugin client
// ---------------------------------------------------------------------------------------------

type Callback<R> = (err: grpcModule.ServiceError | null, res: R) => void;

export class ProviderPlugin {
    private acceptSecretsAnswer: boolean | undefined;

    /** @internal use startProviderPlugin */
    constructor(
        private readonly child: ChildProcess,
        private readonly client: provrpc.ResourceProviderClient,
        /** The port the plugin printed. */
        readonly port: number,
        /** Milliseconds from spawn to port printed (NOTES: ~0.5 s). */
        readonly startupMs: number,
        private readonly output: { stdout: string; stderr: string },
        private readonly rpcTimeoutMs: number,
    ) {}

    /** The plugin's process id. */
    get pid(): number | undefined {
        return this.child.pid;
    }

    /** All stderr text captured so far (the plugin logs every failed check/diff/read/delete there). */
    stderr(): string {
        return this.output.stderr;
    }

    /** stdout captured after the port line (console.log from provider code). */
    stdout(): string {
        return this.output.stdout;
    }

    /** True once configure() was answered. The engine always configures a provider before any CRUD call. */
    get configured(): boolean {
        return this.acceptSecretsAnswer !== undefined;
    }

    /**
     * What the plugin answered to Configure. Before Configure, false: the engine's protocol record
     * starts zeroed (engine: pluginProtocol{} in provider_plugin.go), so nothing is sent secret-wrapped.
     */
    get acceptSecrets(): boolean {
        return this.acceptSecretsAnswer ?? false;
    }

    /** @internal */
    waitForReady(timeoutMs: number): Promise<void> {
        return new Promise<void>((resolve, reject) => {
            this.client.waitForReady(Date.now() + timeoutMs, (err?: Error) =>
                err
                    ? reject(new Error(`could not connect to the plugin on port ${this.port}: ${err.message}`))
                    : resolve(),
            );
        });
    }

    private call<R>(
        method: string,
        invoke: (md: grpcModule.Metadata, o: Partial<grpcModule.CallOptions>, cb: Callback<R>) => void,
    ): Promise<R> {
        return new Promise<R>((resolve, reject) => {
            invoke(new grpc.Metadata(), { deadline: Date.now() + this.rpcTimeoutMs }, (err, res) =>
                err ? reject(toPluginError(method, err)) : resolve(res),
            );
        });
    }

    /** Properties as the engine marshals them for this plugin: secrets stripped unless accepted, undefined dropped. */
    private props(props: PropertyMap): structModule.Struct {
        return toStruct(this.acceptSecrets ? props : stripSecrets(props));
    }

    async getPluginInfo(): Promise<{ version: string }> {
        const r = await this.call<plugproto.PluginInfo>("getPluginInfo", (md, o, cb) =>
            this.client.getPluginInfo(new Empty(), md, o, cb),
        );
        return { version: r.getVersion() };
    }

    /**
     * Configure, as the engine sends it (engine: provider_plugin.go Configure): `args` carries the
     * config with secrets still wrapped (the plugin unwraps them, NOTES "configure"), `variables`
     * the same values as strings under the legacy `<package>:config:<key>` keys, and the engine
     * announces acceptSecrets/acceptResources/sendsOldInputs/sendsOldInputsToDelete.
     *
     * @param config fully-qualified stack config, e.g. `{ "harness:storePath": "/tmp/x", "chatbot:token": secret("t") }`.
     * NOTES "whole config": dynamic providers see every namespace. NOTES "configure": the provider's
     * own `configure` only runs lazily, on the first CRUD call for a given `__provider` text.
     */
    async configure(config: PropertyMap): Promise<ConfigureResult> {
        for (const [k, v] of Object.entries(config)) {
            if (JSON.stringify(stripSecrets(v) ?? null).includes(UNKNOWN)) {
                // engine: with unknown config it does not call Configure at all and answers
                // Check/Diff/Read without the provider. Not reproduced here.
                throw new Error(`config ${k} is unknown: the stand-in does not model unconfigured providers`);
            }
        }
        const req = new provproto.ConfigureRequest();
        const vars = req.getVariablesMap();
        for (const [k, v] of Object.entries(dropUndefined(config))) {
            const plain = stripSecrets(v);
            vars.set(`pulumi-nodejs:config:${k}`, typeof plain === "string" ? plain : JSON.stringify(plain));
        }
        req.setArgs(toStruct(config));
        req.setAcceptsecrets(true);
        req.setAcceptresources(true);
        req.setSendsOldInputs(true);
        req.setSendsOldInputsToDelete(true);
        const resp = await this.call<provproto.ConfigureResponse>("configure", (md, o, cb) =>
            this.client.configure(req, md, o, cb),
        );
        this.acceptSecretsAnswer = resp.getAcceptsecrets();
        return {
            acceptSecrets: resp.getAcceptsecrets(),
            supportsPreview: resp.getSupportspreview(),
            acceptResources: resp.getAcceptresources(),
            acceptOutputs: resp.getAcceptoutputs(),
        };
    }

    /** Check(olds, news). The plugin re-adds `__provider` to the returned inputs itself. */
    async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
        const req = new provproto.CheckRequest();
        req.setUrn(urn);
        req.setOlds(this.props(olds));
        req.setNews(this.props(news));
        const resp = await this.call<provproto.CheckResponse>("check", (md, o, cb) =>
            this.client.check(req, md, o, cb),
        );
        return {
            inputs: fromStruct(resp.getInputs()) ?? {},
            failures: resp.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
        };
    }

    /**
     * Diff(id, olds = prior OUTPUTS, news = checked inputs, oldInputs). NOTES "diff inputs": the
     * plugin hands the provider's diff only the old outputs; oldInputs never reach it.
     */
    async diff(
        urn: string,
        id: string,
        olds: PropertyMap,
        news: PropertyMap,
        oldInputs?: PropertyMap,
    ): Promise<DiffResult> {
        const req = new provproto.DiffRequest();
        req.setUrn(urn);
        req.setId(id);
        req.setOlds(this.props(olds));
        req.setNews(this.props(news));
        if (oldInputs) req.setOldInputs(this.props(oldInputs));
        const resp = await this.call<provproto.DiffResponse>("diff", (md, o, cb) => this.client.diff(req, md, o, cb));
        const C = provproto.DiffResponse.DiffChanges;
        const raw = resp.getChanges();
        const changes: DiffChanges = raw === C.DIFF_SOME ? "some" : raw === C.DIFF_NONE ? "none" : "unknown";
        return { changes, replaces: resp.getReplacesList(), deleteBeforeReplace: resp.getDeletebeforereplace() };
    }

    /** Create(properties). The engine never calls this in a preview of a dynamic resource (supportsPreview=false). */
    async create(
        urn: string,
        properties: PropertyMap,
        opts: { preview?: boolean; timeout?: number } = {},
    ): Promise<CreateResult> {
        const req = new provproto.CreateRequest();
        req.setUrn(urn);
        req.setProperties(this.props(properties));
        req.setPreview(opts.preview ?? false);
        req.setTimeout(opts.timeout ?? 0);
        const resp = await this.call<provproto.CreateResponse>("create", (md, o, cb) =>
            this.client.create(req, md, o, cb),
        );
        return { id: resp.getId(), properties: fromStruct(resp.getProperties()) ?? {} };
    }

    /**
     * Read(id, properties, inputs). Refresh sends the prior outputs and inputs; a read resource
     * (`Resource.get`) and an import send no properties. The plugin falls back to `inputs` to find
     * `__provider` when `properties` is empty (SDK 3.268+, NOTES "read").
     */
    async read(urn: string, id: string, properties?: PropertyMap, inputs?: PropertyMap): Promise<ReadResult> {
        const r = await this.readWithReply(urn, id, properties, inputs);
        return { ...r, properties: r.properties ?? {} };
    }

    /**
     * Read as the engine sees the answer (provider_plugin.go Read): `properties` is undefined only
     * when the reply carried no properties at all, which is what the engine calls "does not exist".
     */
    async readWithReply(
        urn: string,
        id: string,
        properties?: PropertyMap,
        inputs?: PropertyMap,
    ): Promise<{ id: string; properties: PropertyMap | undefined; inputs: PropertyMap | undefined }> {
        const req = new provproto.ReadRequest();
        req.setUrn(urn);
        req.setId(id);
        if (properties) req.setProperties(this.props(properties));
        if (inputs) req.setInputs(this.props(inputs));
        const resp = await this.call<provproto.ReadResponse>("read", (md, o, cb) => this.client.read(req, md, o, cb));
        return { id: resp.getId(), properties: fromStruct(resp.getProperties()), inputs: fromStruct(resp.getInputs()) };
    }

    /** Update(id, olds = prior outputs, news = checked inputs, oldInputs). */
    async update(
        urn: string,
        id: string,
        olds: PropertyMap,
        news: PropertyMap,
        oldInputs?: PropertyMap,
        opts: { preview?: boolean; timeout?: number } = {},
    ): Promise<UpdateResult> {
        const req = new provproto.UpdateRequest();
        req.setUrn(urn);
        req.setId(id);
        req.setOlds(this.props(olds));
        req.setNews(this.props(news));
        if (oldInputs) req.setOldInputs(this.props(oldInputs));
        req.setPreview(opts.preview ?? false);
        req.setTimeout(opts.timeout ?? 0);
        const resp = await this.call<provproto.UpdateResponse>("update", (md, o, cb) =>
            this.client.update(req, md, o, cb),
        );
        return { properties: fromStruct(resp.getProperties()) ?? {} };
    }

    /** Delete(id, properties = prior outputs, oldInputs). */
    async delete(urn: string, id: string, properties: PropertyMap, oldInputs?: PropertyMap): Promise<void> {
        const req = new provproto.DeleteRequest();
        req.setUrn(urn);
        req.setId(id);
        req.setProperties(this.props(properties));
        if (oldInputs) req.setOldInputs(this.props(oldInputs));
        await this.call<emptyModule.Empty>("delete", (md, o, cb) => this.client.delete(req, md, o, cb));
    }

    /** Closes the channel and kills the plugin (SIGTERM, then SIGKILL), awaiting its exit. Idempotent. */
    async close(): Promise<void> {
        this.client.close();
        await killChild(this.child);
    }
}
