/**
 * Reading what an account holds, from a resource's spec: list every item, read one in full, find
 * one by id or by name. Read only. Used by the get functions (`getWebhookConnection`, ...) in a
 * program's process and by `pulumi-chatbot discover`; the provider has its own reads, with its
 * write-safety around them.
 */
import * as pulumi from "@pulumi/pulumi";
import { ChatbotClient } from "../client/client";
import { NotFoundError } from "../client/errors";
import { configKeys, resolveSettings } from "../config";
import { keysWhere, type AnySpec, type Looked, type Plain, type ResourceSpec } from "./spec";

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

/** A spec as these reads need it, whatever its type parameters. */
export type ReadableSpec<O extends Plain, R, L> = Pick<
    ResourceSpec<Plain, O, R, L>,
    "noun" | "path" | "schemas" | "outputs"
>;

/** Every item of the list read. */
export function listAll<O extends Plain, R, L>(client: ChatbotClient, spec: ReadableSpec<O, R, L>): Promise<L[]> {
    return client.request("GET", spec.path, {
        operation: `list ${spec.noun}s`,
        schema: spec.schemas.list,
    });
}

/** One item's single read, as the resource's outputs; undefined when there is none (404). */
export async function readOne<O extends Plain, R, L>(
    client: ChatbotClient,
    spec: ReadableSpec<O, R, L>,
    id: string,
    label = id,
): Promise<O | undefined> {
    try {
        const read = await client.request("GET", `${spec.path}/${encodeURIComponent(id)}`, {
            operation: `read ${spec.noun} ${label}`,
            schema: spec.schemas.read,
        });
        return spec.outputs(read);
    } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
    }
}

export interface FindArgs<L> {
    id?: string;
    name?: string;
    /** Narrows a search by name, e.g. to one story. */
    also?: { test(item: L): boolean; says: string };
}

/** The one item with this id, or the one item with this name (and `also`): no match, or more than
 *  one, is an error that says which. */
export async function findOne<O extends Plain, R, L extends { id: string; name: string }>(
    client: ChatbotClient,
    spec: ReadableSpec<O, R, L>,
    args: FindArgs<L>,
): Promise<{ id: string; outputs: O }> {
    const what = `get ${spec.noun}`;
    const byId = args.id !== undefined && args.id !== "";
    const byName = args.name !== undefined && args.name !== "";
    if (byId === byName) throw new Error(`${what}: give either \`id\` or \`name\`, not ${byId ? "both" : "neither"}.`);
    if (byId) {
        const id = args.id as string;
        const outputs = await readOne(client, spec, id);
        if (!outputs) throw new Error(`${what}: no ${spec.noun} has id ${id}.`);
        return { id, outputs };
    }
    const name = args.name as string;
    const where = `named ${JSON.stringify(name)}${args.also ? ` ${args.also.says}` : ""}`;
    const matches = (await listAll(client, spec)).filter(
        (item) => item.name === name && (args.also?.test(item) ?? true),
    );
    if (matches.length === 0) throw new Error(`${what}: no ${spec.noun} is ${where}.`);
    if (matches.length > 1) {
        const ids = matches.map((m) => m.id).join(", ");
        throw new Error(
            `${what}: ${matches.length} ${spec.noun}s are ${where} (ids ${ids}); look one up by \`id\`${args.also ? "" : " or narrow the search"}.`,
        );
    }
    const outputs = await readOne(client, spec, matches[0].id, `${JSON.stringify(name)} (${matches[0].id})`);
    // Deleted between the list and the read.
    if (!outputs) throw new Error(`${what}: no ${spec.noun} is ${where}.`);
    return { id: matches[0].id, outputs };
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
