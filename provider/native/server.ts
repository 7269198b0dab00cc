/**
 * `pulumi-resource-chatbot`: the native provider plugin. It serves Pulumi's resource provider
 * gRPC protocol on the generated stubs of the SDK (`@pulumi/pulumi/proto/provider_grpc_pb`), for
 * the types `chatbot:index:<Type>` of the registry, with the same specs, checks, client and
 * write-safety as the dynamic provider: each call goes to that resource's `dynamicProvider`.
 *
 * What it adds over the dynamic provider, which is why it is written on the stubs and not on the
 * SDK's `@pulumi/pulumi/provider` server (that one drops the properties of an import's Read and
 * never passes Configure's variables on):
 * - Read with an id alone (`pulumi import`) reads the resource and returns its inputs;
 * - Configure takes every setting (`chatbot:token`, ...) from the provider's own configuration;
 * - secrets are marked by the provider (it accepts secrets: every secret field comes back
 *   wrapped), and Diff names each property and says whether it updates or replaces.
 *
 * Started by the engine (through ./start.ts): it prints the port it listens on (loopback) and
 * serves until killed.
 */
import * as path from "path";
import { stopWaiting } from "../client/cancel";
import { apiClient, configureFromStack, refreshBeforeUpdate } from "../config";
import { exitWhenEngineGone } from "../engineWatch";
import {
    listAll,
    listArgFailures,
    listFilter,
    lookupFunctions,
    runLookup,
    type LookupFunction,
} from "../resources/lookup";
import { resources } from "../resources/registry";
import { dynamicProvider, type DynamicProvider } from "../resources/dynamicProvider";
import { asSecret, isSecretValue, markSecret, revealed } from "../resources/secretWrapper";
import { containsUnknown, UNKNOWN } from "../schema/validate";
import { isPlain, keysWhere, type AnySpec, type Field, type Plain } from "../resources/spec";
import { PACKAGE, packageSchema, SETTINGS, token } from "./schema";

const VERSION: string = (require("../../package.json") as { version: string }).version;

/** gRPC and protobuf as the program's @pulumi/pulumi (a peer dependency) has them. */
function fromPulumi<T>(request: string): T {
    const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    return require(require.resolve(request, { paths: [sdk] })) as T;
}
/* eslint-disable @typescript-eslint/no-explicit-any -- the stubs are JavaScript; calls are checked by the tests */
const grpc = fromPulumi<any>("@grpc/grpc-js");
const providerRpc = fromPulumi<any>("@pulumi/pulumi/proto/provider_grpc_pb");
const proto = fromPulumi<any>("@pulumi/pulumi/proto/provider_pb");
const pluginProto = fromPulumi<any>("@pulumi/pulumi/proto/plugin_pb");
const statusProto = fromPulumi<any>("@pulumi/pulumi/proto/status_pb");
const structProto = fromPulumi<any>("google-protobuf/google/protobuf/struct_pb");
const emptyProto = fromPulumi<any>("google-protobuf/google/protobuf/empty_pb");
const anyProto = fromPulumi<any>("google-protobuf/google/protobuf/any_pb");

/** One resource type: its spec and its provider. */
interface Served {
    spec: AnySpec;
    provider: DynamicProvider;
    replaceKeys: string[];
}

const served = new Map<string, Served>(
    resources.map((spec) => [
        token(spec.type),
        {
            spec,
            provider: dynamicProvider(spec as Parameters<typeof dynamicProvider>[0]),
            replaceKeys: keysWhere(spec, "replaces"),
        },
    ]),
);

/** The lookup functions, by token, each with the resource it reads. */
const functions = new Map<string, { fn: LookupFunction; served: Served }>(
    lookupFunctions.map((fn) => [token(fn.name), { fn, served: served.get(token(fn.spec.type)) as Served }]),
);

/** The resource type a request is for: its `type`, else the URN's last type. */
function typeOf(req: { getUrn(): string; getType?(): string }): Served {
    const type = req.getType?.() || (req.getUrn().split("::")[2] ?? "").split("$").pop() || "";
    const found = served.get(type);
    if (!found) throw new Error(`unknown resource type ${type}: this provider has ${[...served.keys()].join(", ")}`);
    return found;
}

/** The resource's name, from its URN: `name` defaults to it. */
const nameOf = (urn: string) => urn.split("::").slice(3).join("::");

/** A Struct as plain JavaScript, secrets unwrapped; the keys that came secret are returned too. */
function unwrap(struct: any): { value: Plain; secret: Set<string> } {
    const value: Plain = struct ? struct.toJavaScript() : {};
    const secret = new Set(Object.keys(value).filter((key) => isSecretValue(value[key])));
    return { value: revealed(value) as Plain, secret };
}

/** Plain JavaScript as a Struct: the secret parts of the spec's secret fields wrapped, and the
 *  keys in `secret` (given secret by the program) whole; absent values left out. */
function struct(value: Plain, served: Served | undefined, secret: Iterable<string> = []): any {
    const marked = markSecret(served ? markSecretParts(value, served.spec) : value, [...secret]);
    return structProto.Struct.fromJavaScript(JSON.parse(JSON.stringify(marked)));
}

/**
 * Only what is secret in a secret field is wrapped, as the schema says: a token whole, each
 * header value, the basic-auth password. So state keeps the rest readable, and the program
 * `pulumi import` prints has each secret value, and only those, in `pulumi.secret(...)`.
 */
function markSecretParts(value: Plain, spec: AnySpec): Plain {
    const out: Plain = { ...value };
    for (const [key, field] of Object.entries(spec.fields as Record<string, Field<unknown>>)) {
        const v = out[key];
        if (!field.secret || v === undefined || v === null || v === UNKNOWN) continue;
        if (field.kind === "text") out[key] = asSecret(v);
        if (field.kind === "headerRecord" && isPlain(v)) {
            out[key] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, asSecret(x)]));
        }
        if (field.kind === "headerList" && Array.isArray(v)) {
            out[key] = v.map((h) => (isPlain(h) ? { ...h, value: asSecret(h.value) } : h));
        }
        if (field.kind === "basicAuth" && isPlain(v)) out[key] = { ...v, password: asSecret(v.password) };
    }
    return out;
}

/** An error as the engine reads it: a resource that exists but failed later carries its id and
 *  properties (ErrorResourceInitFailed), so it is recorded and the next run reads it. */
function failure(e: unknown, served: Served | undefined): any {
    const error = e instanceof Error ? e : new Error(String(e));
    const { id, properties, reasons } = error as Error & { id?: string; properties?: Plain; reasons?: string[] };
    const metadata = new grpc.Metadata();
    if (id) {
        const detail = new proto.ErrorResourceInitFailed();
        detail.setId(id);
        detail.setProperties(struct(properties ?? {}, served));
        detail.setReasonsList(reasons ?? [error.message]);
        const packed = new anyProto.Any();
        packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
        const status = new statusProto.Status();
        status.setCode(grpc.status.UNKNOWN);
        status.setMessage(error.message);
        status.addDetails(packed);
        metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
    }
    return { code: grpc.status.UNKNOWN, details: error.message, message: error.message, metadata };
}

type Callback = (error: unknown, value?: unknown, metadata?: unknown) => void;

/** Runs one call: its answer, or the error the engine is told. */
function serve(
    handle: (req: any) => Promise<unknown>,
    servedOf: (req: any) => Served | undefined = () => undefined,
): (call: { request: any }, callback: Callback) => void {
    return (call, callback) => {
        handle(call.request).then(
            (answer) => callback(null, answer),
            (e) => {
                const error = failure(e, servedOf(call.request));
                callback(error, null, error.metadata);
            },
        );
    };
}

const servedFor = (req: any) => {
    try {
        return typeOf(req);
    } catch {
        return undefined;
    }
};

/** What the engine said of itself in its Handshake. Refresh before update is flagged only to an
 *  engine that said it keeps the flag (`supports_refresh_before_update`; an engine that does not
 *  handshake predates the flag). */
const engine = { supportsRefreshBeforeUpdate: false };

/**
 * `Handshake`: the first call of an engine that starts the plugin (NewProvider in
 * sdk/go/common/resource/plugin/provider_plugin.go, pulumi/pulumi v3.274.1), before Configure. The
 * engine then takes the plugin's protocol from this answer, not from Configure's: secrets accepted
 * (marked down to their parts, as before), no resource references or output values, autonaming
 * taken, no byte strings. It also counts the plugin as supporting preview, so Create and Update
 * answer a preview themselves (below) instead of the engine answering for them. Nothing is loaded
 * here: the plugin starts as fast as before.
 */
async function handshake(req: any): Promise<unknown> {
    engine.supportsRefreshBeforeUpdate = req.getSupportsRefreshBeforeUpdate();
    return new proto.ProviderHandshakeResponse()
        .setAcceptSecrets(true)
        .setAcceptResources(false)
        .setAcceptOutputs(false)
        .setSupportsAutonamingConfiguration(true)
        .setAcceptsByteString(false);
}

/** Whether Create, Read and Update answers carry `refresh_before_update`: the provider setting
 *  (off unless asked for: ../config.ts), and an engine that keeps it. The engine then reads every
 *  flagged resource before each `up` and preview (deployment_executor.go, pkg/resource/deploy). */
const flagRefresh = () => engine.supportsRefreshBeforeUpdate && refreshBeforeUpdate();

/** `GetPluginInfo`: the package's version. */
async function getPluginInfo(): Promise<unknown> {
    return new pluginProto.PluginInfo().setVersion(VERSION);
}

/** `GetSchema`: the package schema, made from the specs. */
async function getSchema(req: any): Promise<unknown> {
    if (req.getVersion() !== 0) throw new Error(`schema version ${req.getVersion()} is not served (0 is)`);
    return new proto.GetSchemaResponse().setSchema(JSON.stringify(packageSchema()));
}

/** `CheckConfig`: the provider's own configuration, with nothing to check beyond what a use of it
 *  checks. */
async function checkConfig(req: any): Promise<unknown> {
    return new proto.CheckResponse().setInputs(req.getNews());
}

/** The provider's settings, as the schema declares them (`config.variables`, an explicit
 *  provider's inputs): what `DiffConfig` compares, so a setting added there is compared too. */
export const SETTING_NAMES = Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>;

/** `DiffConfig`: the settings that differ, each by name (an update of the provider). */
async function diffConfig(req: any): Promise<unknown> {
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews()).value;
    const changed = SETTING_NAMES.filter((k) => olds[k] !== news[k]);
    return new proto.DiffResponse()
        .setChanges(
            changed.length > 0 ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE,
        )
        .setDiffsList(changed);
}

/** `Configure`: every setting (`chatbot:token`, ...) from the provider's configuration (the
 *  default provider's is the stack's `chatbot` config), else the environment, as the dynamic
 *  provider. */
async function configure(req: any): Promise<unknown> {
    const args = unwrap(req.getArgs()).value;
    const variables: Map<string, string> = new Map(req.getVariablesMap().entries());
    const setting = (key: string) => {
        const name = key.split(":")[1];
        const given = args[name] ?? variables.get(key) ?? variables.get(`${PACKAGE}:config:${name}`);
        if (typeof given === "number" || typeof given === "boolean") return String(given);
        return typeof given === "string" ? given : undefined;
    };
    configureFromStack({ get: setting });
    // What an engine that did not handshake reads instead (the same as Handshake's answer, but
    // preview: such an engine answers a preview's Create and Update itself).
    return new proto.ConfigureResponse()
        .setAcceptsecrets(true)
        .setSupportspreview(false)
        .setSupportsAutonamingConfiguration(true);
}

/** The engine's autonaming modes (CheckRequest.AutonamingOptions.Mode). */
const AUTONAMING = { PROPOSE: 0, ENFORCE: 1, DISABLE: 2 } as const;

/**
 * The `name` of a resource whose program gives none, or a failure. The engine sends autonaming
 * only where the stack sets `pulumi:autonaming` (pkg/resource/autonaming/strategy.go, pulumi/pulumi
 * v3.274.1: the default strategy sends none), so without it `name` is the resource's name, as
 * before. With it, a new resource takes the engine's proposed name (propose and enforce alike); one
 * that has a name in state keeps it, as the engine draws a new random seed each run
 * (resource/deploy/step_generator.go) and a pattern with random parts would rename it every run;
 * and `disabled` means a name must be given.
 */
function defaultName(req: any, olds: Plain): { name?: string; failure?: string } {
    const autonaming = req.getAutonaming?.();
    if (!autonaming) return { name: nameOf(req.getUrn()) };
    if (autonaming.getMode() === AUTONAMING.DISABLE) {
        return { failure: "name is required: the stack's pulumi:autonaming is disabled, so the program must name it" };
    }
    if (typeof olds.name === "string" && olds.name !== "") return { name: olds.name };
    return { name: autonaming.getProposedName() || nameOf(req.getUrn()) };
}

/** `Check`: validates the inputs (every limit, by property); `name` defaults to the resource's
 *  name, or to the stack's autonaming (above). An explicit `name` always wins. */
async function check(req: any): Promise<unknown> {
    const served = typeOf(req);
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews());
    const named = news.value.name !== undefined && news.value.name !== null;
    const fallback = named ? {} : defaultName(req, olds);
    if (fallback.name !== undefined) news.value.name = fallback.name;
    const result = await served.provider.check(olds, news.value);
    if (fallback.failure) result.failures.unshift({ property: "name", reason: fallback.failure });
    const failures = result.failures.map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason));
    return new proto.CheckResponse().setInputs(struct(result.inputs, served, news.secret)).setFailuresList(failures);
}

/** How one differing property changes: added, deleted or updated, each in place or replacing. */
function propertyDiffKind(old: unknown, desired: unknown, replaces: boolean): number {
    const Kind = proto.PropertyDiff.Kind;
    if (old === undefined) return replaces ? Kind.ADD_REPLACE : Kind.ADD;
    if (desired === undefined) return replaces ? Kind.DELETE_REPLACE : Kind.DELETE;
    return replaces ? Kind.UPDATE_REPLACE : Kind.UPDATE;
}

/** `Diff`: which properties differ, each as an update or a replacement. */
async function diff(req: any): Promise<unknown> {
    const { provider, replaceKeys } = typeOf(req);
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews()).value;
    const result = await provider.diff(req.getId(), olds, news);
    const response = new proto.DiffResponse()
        .setChanges(
            result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE,
        )
        .setReplacesList(result.replaces)
        .setDiffsList(result.diffs)
        .setHasdetaileddiff(true)
        .setDeletebeforereplace(false);
    const detailed = response.getDetaileddiffMap();
    for (const key of result.diffs) {
        const kind = propertyDiffKind(olds[key], news[key], replaceKeys.includes(key));
        detailed.set(key, new proto.PropertyDiff().setKind(kind).setInputdiff(true));
    }
    return response;
}

/** `Create`: makes the resource; its outputs' secrets marked. A preview makes nothing and calls
 *  no API: its outputs are the inputs, as the engine answered for a plugin that did not preview. */
async function create(req: any): Promise<unknown> {
    const served = typeOf(req);
    const inputs = unwrap(req.getProperties());
    if (req.getPreview()) return new proto.CreateResponse().setProperties(struct(inputs.value, served, inputs.secret));
    // Before the write: a setting that fails must fail before anything is made.
    const flag = flagRefresh();
    const made = await served.provider.create(inputs.value);
    return new proto.CreateResponse()
        .setId(made.id)
        .setProperties(struct(made.outs, served, inputs.secret))
        .setRefreshBeforeUpdate(flag);
}

/** `Read`: refresh, `.get()` and `pulumi import`. With an id alone, the inputs come from what the
 *  API holds, so the import adopts it as it is. */
async function read(req: any): Promise<unknown> {
    const served = typeOf(req);
    const props = unwrap(req.getProperties()).value;
    const flag = flagRefresh();
    const found = await served.provider.read(req.getId(), props);
    const response = new proto.ReadResponse().setId(found.id);
    if (found.id === "") return response;
    return response
        .setProperties(struct(revealed(found.props) as Plain, served))
        .setInputs(struct(revealed(found.inputs ?? {}) as Plain, served))
        .setRefreshBeforeUpdate(flag);
}

/** `Update`: sends the whole desired state, then its outputs. A preview sends nothing: its
 *  outputs are the new inputs, as the engine answered for a plugin that did not preview. */
async function update(req: any): Promise<unknown> {
    const served = typeOf(req);
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews());
    if (req.getPreview()) return new proto.UpdateResponse().setProperties(struct(news.value, served, news.secret));
    const flag = flagRefresh();
    const { outs } = await served.provider.update(req.getId(), olds, news.value);
    return new proto.UpdateResponse().setProperties(struct(outs, served, news.secret)).setRefreshBeforeUpdate(flag);
}

/** `Delete`: deletes the resource and sees it gone. */
async function remove(req: any): Promise<unknown> {
    const { provider } = typeOf(req);
    await provider.delete(req.getId(), unwrap(req.getProperties()).value);
    return new emptyProto.Empty();
}

/** A `List` continuation: the id of the last item sent, so the next page starts after it even when
 *  the account changed in between (the API's list read has no pages of its own: each page reads it
 *  whole). Opaque to the engine. */
const afterToken = (id: string) => Buffer.from(JSON.stringify({ after: id })).toString("base64url");
function afterOf(token: string): string | undefined {
    if (token === "") return undefined;
    try {
        const after = (JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { after?: unknown }).after;
        if (typeof after === "string") return after;
    } catch {
        // Refused below.
    }
    throw new Error("List: the continuation token is not one this plugin gave");
}

/** A gRPC error that is the caller's: arguments the plugin refuses before any request. */
class InvalidArgument extends Error {}

/**
 * `List` (`pulumi do chatbot:index:WebhookConnection list`: the schema's `listInputs` offer it):
 * one read of the API's list, narrowed by `storyId` and `namePrefix` as the list functions are,
 * streamed one item a message, each its id and name, nothing secret. With a limit or a page size
 * (`pulumi do ... list --count N`), at most that many, and a continuation token when more are
 * left; with neither, all. A `storyId` that breaks the field's own check is refused, naming it,
 * before any request; a query not known yet (a preview) is answered as computed.
 */
function list(call: any): void {
    const req = call.request;
    const run = async () => {
        const found = served.get(req.getToken());
        if (!found) {
            throw new InvalidArgument(
                `List: unknown resource type ${req.getToken()}: this provider has ${[...served.keys()].join(", ")}`,
            );
        }
        const query = unwrap(req.getQuery()).value;
        if (containsUnknown(query)) {
            call.write(new proto.ListResponse().setComputed(new proto.ListResponse.Computed()));
            return;
        }
        const failures = listArgFailures(found.spec, query);
        if (failures.length > 0) {
            throw new InvalidArgument(`List ${req.getToken()}: ${failures.map((f) => f.reason).join("; ")}`);
        }
        const after = afterOf(req.getContinuationToken());
        const items = (await listAll(apiClient(), found.spec)).filter(
            listFilter(found.spec, query, `List ${req.getToken()}`),
        ) as Array<{ id: string; name: string }>;
        let start = 0;
        if (after !== undefined) {
            start = items.findIndex((item) => item.id === after) + 1;
            if (start === 0) throw new Error(`List: ${after}, where the last page ended, is gone: list again`);
        }
        const bounds = [req.getLimit(), req.getPageSize()].filter((n: number) => n > 0);
        const end = bounds.length > 0 ? Math.min(items.length, start + Math.min(...bounds)) : items.length;
        for (const item of items.slice(start, end)) {
            const result = new proto.ListResponse.Result().setId(item.id).setName(item.name);
            call.write(new proto.ListResponse().setResult(result));
        }
        if (end < items.length && end > start) {
            const next = new proto.ListResponse.Continuation().setContinuationToken(afterToken(items[end - 1].id));
            call.write(new proto.ListResponse().setContinuation(next));
        }
    };
    run().then(
        () => call.end(),
        (e) => {
            const error = failure(e, undefined);
            if (e instanceof InvalidArgument) error.code = grpc.status.INVALID_ARGUMENT;
            call.emit("error", error);
        },
    );
}

/** `Cancel`: the engine is cancelling the run (a first Ctrl-C, a cancelled pipeline): requests
 *  waiting out a rate limit or their turn give up now instead of holding the run for minutes. */
async function cancel(): Promise<unknown> {
    stopWaiting();
    return new emptyProto.Empty();
}

/** The gRPC service: each method of the protocol, served by its function above. */
export const service = {
    handshake: serve(handshake),
    getPluginInfo: serve(getPluginInfo),
    getSchema: serve(getSchema),
    checkConfig: serve(checkConfig),
    diffConfig: serve(diffConfig),
    configure: serve(configure),
    check: serve(check),
    diff: serve(diff),
    create: serve(create, servedFor),
    read: serve(read, servedFor),
    update: serve(update, servedFor),
    delete: serve(remove),

    /**
     * The lookup functions (`chatbot:index:getWebhookConnection`, ...): read only, at preview too,
     * with this provider's settings, so an explicit provider reads its own account. Secret fields
     * come back secret, as the resource's do; a list item has none.
     */
    invoke: serve(async (req) => {
        const found = functions.get(req.getTok());
        if (!found) {
            throw new Error(`unknown function ${req.getTok()}: this provider has ${[...functions.keys()].join(", ")}`);
        }
        const result = await runLookup(apiClient(), found.fn, unwrap(req.getArgs()).value);
        return new proto.InvokeResponse().setReturn(struct(result, found.fn.many ? undefined : found.served));
    }),

    list,
    cancel: serve(cancel),
};

/** Serves on a loopback port and prints it, as the engine expects of a plugin. */
export async function main(): Promise<void> {
    exitWhenEngineGone(); // a write must not outlive the engine that asked for it
    const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
    server.addService(providerRpc.ResourceProviderService, service);
    const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e: Error | null, p: number) =>
            e ? reject(e) : resolve(p),
        ),
    );
    process.stdout.write(`${port}\n`);
}
