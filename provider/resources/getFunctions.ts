/**
 * The dynamic delivery's get functions (`getWebhookConnection`, ...) as a program calls them: the
 * reads of ./lookup.ts in the program's own process, with the stack's settings, the secret inputs
 * returned as secret Outputs. The native plugin serves the same reads as invoke functions
 * (`pulumi-chatbot/native`), which also take an explicit `Provider`'s account.
 */
import * as pulumi from "@pulumi/pulumi";
import { ChatbotClient } from "../client/client";
import { configKeys, resolveSettings } from "../config";
import { findOne, lookupFunctions, runLookup, type FindArgs, type ReadableSpec } from "./lookup";
import { keysWhere, type AnySpec, type Looked, type Plain } from "./spec";

/** Here, not in ../config.ts, which the native plugin loads: it needs no @pulumi/pulumi. */
const programClients = new Map<string, ChatbotClient>();

/** The client for a program's own settings (the get functions), read as the provider reads them:
 *  the stack's `chatbot:token` and `chatbot:apiUrl`, else CHATBOT_TOKEN and CHATBOT_API_URL. */
export function programClient(): ChatbotClient {
    const config = new pulumi.Config(configKeys.token.split(":")[0]);
    const read = (k: string) => config.get(k.split(":")[1]);
    const settings = resolveSettings(process.env, {
        token: read(configKeys.token),
        apiUrl: read(configKeys.apiUrl),
        retryMaxElapsedMs: read(configKeys.retryMaxElapsedMs),
    });
    const key = JSON.stringify(settings);
    let client = programClients.get(key);
    if (!client) programClients.set(key, (client = new ChatbotClient(settings)));
    return client;
}

/** A found item as a get function returns it: its outputs and `id`, the secret inputs (as the
 *  spec's fields mark them) as secret Outputs. */
export function withSecrets<O extends Plain, S extends keyof O & string>(
    spec: Pick<AnySpec, "fields">,
    found: { id: string; outputs: O },
): Looked<O, S> {
    const { id, outputs } = found;
    const out: Plain = { ...outputs, id };
    // An absent value has nothing to hide: marking it would make a whole Output form secret.
    for (const k of keysWhere(spec, "secret"))
        out[k] = outputs[k] === undefined ? pulumi.output(undefined) : pulumi.secret(outputs[k]);
    return out as Looked<O, S>;
}

/**
 * A get function's `...Output` form, as Pulumi's invoke functions have one: Inputs in, an Output
 * out, secret as a whole when the result holds a secret (the secret Outputs inside are lifted).
 */
export function outputForm<A extends object, O>(
    get: (args: A) => Promise<unknown>,
    args: { [K in keyof A]?: pulumi.Input<A[K]> },
): pulumi.Output<O & { id: string }> {
    return pulumi
        .output(args)
        .apply((a) => get(a as A))
        .apply((r) => pulumi.output(r) as pulumi.Output<O & { id: string }>);
}

/** What a get function does: find the one item (see `findOne`) with the program's settings, and
 *  return it with its secret inputs as secret Outputs. */
export async function lookUp<O extends Plain, S extends keyof O & string, L extends { id: string; name: string }>(
    spec: ReadableSpec<O, unknown, L> & Pick<AnySpec, "fields">,
    args: FindArgs<L>,
): Promise<Looked<O, S>> {
    return withSecrets<O, S>(spec, await findOne(programClient(), spec, args));
}

/** What a list function (`getWebhookConnections`, ...) does in a program: the plugin's list read
 *  with the program's settings. A list item holds no secret. */
export async function listUp<Args extends object, Result>(name: string, args: Args): Promise<Result> {
    const fn = lookupFunctions.find((f) => f.name === name);
    if (!fn) throw new Error(`no lookup function ${name}`);
    return (await runLookup(programClient(), fn, args as Plain)) as Result;
}
