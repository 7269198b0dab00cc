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
import { apiClient, configureFromStack } from "../config";
import { exitWhenEngineGone } from "../engineWatch";
import { lookupFunctions, runLookup, type LookupFunction } from "../resources/lookup";
import { resources } from "../resources/registry";
import { dynamicProvider, type DynamicProvider } from "../resources/dynamicProvider";
import { asSecret, isSecretValue, markSecret, revealed } from "../resources/secretWrapper";
import { UNKNOWN } from "../schema/validate";
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
        if (typeof given === "number") return String(given);
        return typeof given === "string" ? given : undefined;
    };
    configureFromStack({ get: setting });
    return new proto.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(false);
}

/** `Check`: validates the inputs (every limit, by property); `name` defaults to the resource's
 *  name. */
async function check(req: any): Promise<unknown> {
    const served = typeOf(req);
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews());
    if (news.value.name === undefined || news.value.name === null) news.value.name = nameOf(req.getUrn());
    const result = await served.provider.check(olds, news.value);
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

/** `Create`: makes the resource; its outputs' secrets marked. */
async function create(req: any): Promise<unknown> {
    const served = typeOf(req);
    const inputs = unwrap(req.getProperties());
    const made = await served.provider.create(inputs.value);
    return new proto.CreateResponse().setId(made.id).setProperties(struct(made.outs, served, inputs.secret));
}

/** `Read`: refresh, `.get()` and `pulumi import`. With an id alone, the inputs come from what the
 *  API holds, so the import adopts it as it is. */
async function read(req: any): Promise<unknown> {
    const served = typeOf(req);
    const props = unwrap(req.getProperties()).value;
    const found = await served.provider.read(req.getId(), props);
    const response = new proto.ReadResponse().setId(found.id);
    if (found.id === "") return response;
    return response
        .setProperties(struct(revealed(found.props) as Plain, served))
        .setInputs(struct(revealed(found.inputs ?? {}) as Plain, served));
}

/** `Update`: sends the whole desired state, then its outputs. */
async function update(req: any): Promise<unknown> {
    const served = typeOf(req);
    const olds = unwrap(req.getOlds()).value;
    const news = unwrap(req.getNews());
    const { outs } = await served.provider.update(req.getId(), olds, news.value);
    return new proto.UpdateResponse().setProperties(struct(outs, served, news.secret));
}

/** `Delete`: deletes the resource and sees it gone. */
async function remove(req: any): Promise<unknown> {
    const { provider } = typeOf(req);
    await provider.delete(req.getId(), unwrap(req.getProperties()).value);
    return new emptyProto.Empty();
}

/** `Cancel`: the engine is cancelling the run (a first Ctrl-C, a cancelled pipeline): requests
 *  waiting out a rate limit or their turn give up now instead of holding the run for minutes. */
async function cancel(): Promise<unknown> {
    stopWaiting();
    return new emptyProto.Empty();
}

/** The gRPC service: each method of the protocol, served by its function above. */
export const service = {
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
