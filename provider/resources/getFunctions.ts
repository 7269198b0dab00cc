/**
 * The lookup functions as a program calls them (`getWebhookConnection`, ...): the reads of
 * ./lookup.ts, each in a plain form (a Promise) and an Output form. The dynamic delivery's run in
 * the program's own process, with the stack's settings; `pulumi-chatbot/native` has the same forms
 * over the plugin's invoke functions (`lookupForms` takes how a form reaches its lookup), which
 * also take an explicit `Provider`'s account. A get function's result holds no secret unless
 * asked for (`includeSecrets: true`); then its secret fields are secret Outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { ChatbotClient } from "../client/client";
import { configKeys, readSettings, resolveSettings } from "../config";
import { includesSecrets, lookupFunctions, runLookup, type LookupFunction } from "./lookup";
import { keysWhere, type AnySpec, type Found, type Looked, type LookupInputs, type Plain } from "./spec";

/** Here, not in ../config.ts, which the native plugin loads: it needs no @pulumi/pulumi. */
const programClients = new Map<string, ChatbotClient>();

/** The client for a program's own settings (the get functions), read as the provider reads them:
 *  the stack's `chatbot:token` and `chatbot:apiUrl`, else CHATBOT_TOKEN and CHATBOT_API_URL. */
export function programClient(): ChatbotClient {
    const config = new pulumi.Config(configKeys.token.split(":")[0]);
    const settings = resolveSettings(
        process.env,
        readSettings((name) => config.get(name)),
    );
    const key = JSON.stringify(settings);
    let client = programClients.get(key);
    if (!client) programClients.set(key, (client = new ChatbotClient(settings)));
    return client;
}

/**
 * A found item as a get function's plain form returns it: with `includeSecrets`, each of the
 * spec's secret fields a secret Output (an absent one an Output of undefined: it has nothing to
 * hide, and marking it would make a whole Output form secret); without, as the lookup found it.
 */
export function sealed(spec: Pick<AnySpec, "fields">, found: Plain, withSecrets: boolean): Plain {
    if (!withSecrets) return found;
    const out: Plain = { ...found };
    for (const k of keysWhere(spec, "secret"))
        out[k] = found[k] === undefined ? pulumi.output(undefined) : pulumi.secret(found[k]);
    return out;
}

/**
 * A function's `...Output` form, as Pulumi's invoke functions have one: Inputs in, an Output out,
 * secret as a whole when the result holds a secret (the secret Outputs inside are lifted).
 */
function outputForm<A extends object, R>(get: (args: A) => Promise<unknown>, args: LookupInputs<A>): pulumi.Output<R> {
    return pulumi
        .output(args)
        .apply((a) => get(a as A))
        .apply((r) => pulumi.output(r) as pulumi.Output<R>);
}

/** The options of a function's forms: the native functions take invoke options (an explicit
 *  `provider` reads its own account); the dynamic ones read the stack's settings. */
type Options<Opts> = [opts?: Opts];

/** A resource's four lookup functions, typed: `get` and `list`, each with its `...Output` form. */
export interface LookupForms<Args, O, S extends keyof O, ListArgs, Item, PlainOpts = never, OutputOpts = never> {
    /** Finds one, by `id` or by `name`: no secret in the result unless `includeSecrets: true`. */
    get: {
        (args: Args & { includeSecrets: true }, ...opts: Options<PlainOpts>): Promise<Looked<O, S>>;
        (args: Args, ...opts: Options<PlainOpts>): Promise<Found<O, S>>;
    };
    /** `get` taking Inputs. With `includeSecrets: true` the result is secret as a whole, as an
     *  invoke's result holding a secret is; without, nothing in it is. */
    getOutput: {
        (
            args: LookupInputs<Args> & { includeSecrets: true },
            ...opts: Options<OutputOpts>
        ): pulumi.Output<O & { id: string }>;
        (args: LookupInputs<Args>, ...opts: Options<OutputOpts>): pulumi.Output<Found<O, S>>;
    };
    /** Lists them, each with what the list read holds: nothing secret. */
    list(args?: ListArgs, ...opts: Options<PlainOpts>): Promise<{ items: Item[] }>;
    listOutput(args?: LookupInputs<ListArgs>, ...opts: Options<OutputOpts>): pulumi.Output<{ items: Item[] }>;
}

/** How a form reaches a lookup: through the plugin's Invoke, each form its own call (the engine
 *  marks an Output form's secrets); without `output`, in the program's process, the Output forms
 *  made over the plain ones, which seal the secrets. */
export interface LookupRunner<PlainOpts, OutputOpts> {
    plain(fn: LookupFunction, args: Plain, opts?: PlainOpts): Promise<Plain>;
    output?(fn: LookupFunction, args: LookupInputs<Plain>, opts?: OutputOpts): pulumi.Output<Plain>;
}

/** The dynamic delivery's way: the lookup itself, with the program's settings. */
const inProgram: LookupRunner<never, never> = { plain: (fn, args) => runLookup(programClient(), fn, args) };

/** The four lookup functions of `spec`, through `runner`. */
export function lookupForms<Args, O, S extends keyof O, ListArgs, Item, PlainOpts = never, OutputOpts = never>(
    spec: AnySpec,
    runner: LookupRunner<PlainOpts, OutputOpts> = inProgram as LookupRunner<PlainOpts, OutputOpts>,
): LookupForms<Args, O, S, ListArgs, Item, PlainOpts, OutputOpts> {
    const [one, many] = [false, true].map(
        (m) => lookupFunctions.find((f) => f.spec.type === spec.type && f.many === m) as LookupFunction,
    );
    const plain = async (fn: LookupFunction, args: Plain, opts?: PlainOpts) =>
        sealed(spec, await runner.plain(fn, args, opts), !fn.many && includesSecrets(fn.name, args));
    const output = (fn: LookupFunction, args: LookupInputs<Plain>, opts?: OutputOpts) =>
        runner.output ? runner.output(fn, args, opts) : outputForm((a: Plain) => plain(fn, a), args);
    return {
        get: (args: Args, opts?: PlainOpts) => plain(one, args as Plain, opts),
        getOutput: (args: LookupInputs<Args>, opts?: OutputOpts) => output(one, args as LookupInputs<Plain>, opts),
        list: (args: ListArgs = {} as ListArgs, opts?: PlainOpts) => plain(many, args as Plain, opts),
        listOutput: (args: LookupInputs<ListArgs> = {}, opts?: OutputOpts) => output(many, args, opts),
    } as unknown as LookupForms<Args, O, S, ListArgs, Item, PlainOpts, OutputOpts>;
}
