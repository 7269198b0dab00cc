/**
 * Reading what an account holds, from a resource's spec: list every item, read one in full, find
 * one by id or by name, list the items a search names. Read only, and without @pulumi/pulumi: the
 * native plugin serves these as its invoke functions (`chatbot:index:getWebhookConnection`, ...,
 * `lookupFunctions` below), the dynamic delivery's get functions (./getFunctions.ts) run them in a
 * program's process, and `pulumi-chatbot discover` and `recover` read through them. The provider
 * has its own reads, with its write-safety around them.
 */
import type { ChatbotClient } from "../client/client";
import { NotFoundError } from "../client/errors";
import { resources } from "./registry";
import { validate } from "../schema/validate";
import { keysWhere, omit, pick, type AnySpec, type Field, type Plain, type ResourceSpec } from "./spec";

/** A spec as these reads need it, whatever its type parameters. */
export type ReadableSpec<O extends Plain, R, L> = Pick<
    ResourceSpec<Plain, O, R, L>,
    "noun" | "path" | "schemas" | "outputs" | "narrowBy"
>;

/** Every item of the list read. */
export function listAll<O extends Plain, R, L>(client: ChatbotClient, spec: ReadableSpec<O, R, L>): Promise<L[]> {
    return client.request("GET", spec.path, {
        operation: `list ${spec.noun}s`,
        schema: spec.schemas.list,
    });
}

/** Every item of every resource of the account, with its spec: the list reads, at once. */
export async function listAccount(client: ChatbotClient): Promise<Array<{ spec: AnySpec; id: string; name: string }>> {
    const listed = await Promise.all(resources.map((spec) => listAll(client, spec)));
    return resources.flatMap((spec, i) =>
        (listed[i] as Array<{ id: string; name: string }>).map((item) => ({ spec, id: item.id, name: item.name })),
    );
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

/** `also` for a search by name narrowed by the spec's argument (a v2 connection's `storyId`). */
export function narrowed<L>(spec: { narrowBy?: ResourceSpec<Plain, Plain, unknown, L>["narrowBy"] }, value: unknown) {
    const by = spec.narrowBy;
    if (!by || typeof value !== "string" || value === "") return undefined;
    return { test: (item: L) => by.test(item, value), says: by.says(value) };
}

/** A list item as the list functions return it: `id` and the outputs the list read holds. */
export function listedItem<O extends Plain, R, L extends { id: string }>(
    spec: ReadableSpec<O, R, L> & { listed: ReadonlyArray<string> },
    item: L,
): Plain {
    // A list item is a single read without its secret fields (the spec's `outputs` says so).
    return { id: item.id, ...pick(spec.outputs(item as unknown as R), spec.listed) };
}

/** The invoke functions of the native plugin, two a resource: `get<Type>` finds one (by id, or by
 *  name), `get<Type>s` lists them. Their schema (../native/schema.ts) and what the plugin serves
 *  (../native/server.ts) are made from this table. */
export interface LookupFunction {
    /** `getWebhookConnection`: the function's name in the package (token `chatbot:index:<name>`). */
    name: string;
    spec: AnySpec;
    /** Whether it lists every match (`get<Type>s`) rather than finding one. */
    many: boolean;
}

export const lookupFunctions: ReadonlyArray<LookupFunction> = resources.flatMap((spec) => [
    { name: `get${spec.type}`, spec, many: false },
    { name: `get${spec.type}s`, spec, many: true },
]);

/** The arguments a list function narrows by, besides the spec's own (`storyId`). */
export const NAME_PREFIX = "namePrefix";

/** The argument that asks a get function for the secret fields too. Without it a lookup holds no
 *  secret, so what a program looks up most (an id, a url) is a plain value in every SDK's forms:
 *  one secret field makes a whole Output form secret, and Go's plain form refuses a secret result. */
export const INCLUDE_SECRETS = "includeSecrets";

/** Whether a get function's arguments ask for its secret fields: `includeSecrets`, a boolean,
 *  false when not given. Anything else is refused, naming the function and the argument. */
export function includesSecrets(fn: string, args: Plain): boolean {
    const v = args[INCLUDE_SECRETS];
    if (v === undefined || v === null) return false;
    // Its type, not its value: a value given by mistake might be a secret.
    if (typeof v !== "boolean")
        throw new Error(`${fn}: \`${INCLUDE_SECRETS}\` must be true or false, not a ${typeof v}.`);
    return v;
}

/** A found item as a get function returns it: `id` and its outputs, the secret fields (the spec's
 *  fields say which) only when asked for. */
export function foundItem<O extends Plain>(
    spec: Pick<AnySpec, "fields">,
    found: { id: string; outputs: O },
    withSecrets: boolean,
): Plain {
    const outputs = withSecrets ? found.outputs : omit(found.outputs, keysWhere(spec, "secret"));
    return { ...outputs, id: found.id };
}

/** What a lookup function answers for `args`: the one item found, with `id` and its outputs (the
 *  secret ones with `includeSecrets`), or `{ items }`, each a list item, for the list functions.
 *  Errors say what was looked for. */
export async function runLookup(client: ChatbotClient, fn: LookupFunction, args: Plain): Promise<Plain> {
    const { spec } = fn;
    const text = (key: string): string | undefined => {
        const v = args[key];
        if (v === undefined || v === null) return undefined;
        if (typeof v !== "string") throw new Error(`${fn.name}: \`${key}\` must be a string.`);
        return v;
    };
    if (!fn.many) {
        // What the resource narrows a search by (a v2 connection's `storyId`).
        const also = spec.narrowBy ? narrowed(spec, text(spec.narrowBy.arg)) : undefined;
        const withSecrets = includesSecrets(fn.name, args);
        return foundItem(spec, await findOne(client, spec, { id: text("id"), name: text("name"), also }), withSecrets);
    }
    const items = (await listAll(client, spec)).filter(listFilter(spec, args, fn.name));
    return { items: items.map((item: { id: string }) => listedItem(spec, item)) };
}

/** What a list narrows by, from its arguments: `namePrefix`, and the spec's own (a v2
 *  connection's `storyId`), as the list functions and the plugin's `List` take them. A value that
 *  is not a string is refused, naming `what` and the argument. */
export function listFilter(spec: AnySpec, args: Plain, what: string): (item: { name: string }) => boolean {
    const text = (key: string): string | undefined => {
        const v = args[key];
        if (v === undefined || v === null) return undefined;
        if (typeof v !== "string") throw new Error(`${what}: \`${key}\` must be a string.`);
        return v;
    };
    const also = spec.narrowBy ? narrowed(spec, text(spec.narrowBy.arg)) : undefined;
    const prefix = text(NAME_PREFIX) ?? "";
    return (item) => item.name.startsWith(prefix) && (also?.test(item as never) ?? true);
}

/** What is wrong with a list's arguments, before anything is read: each failure names the argument
 *  and the rule, as a resource's check does (a `storyId` is held to the field's own check, so one
 *  that could never match is refused rather than listed as nothing). Unknown arguments are refused
 *  too: a misspelt filter would otherwise list everything. */
export function listArgFailures(spec: AnySpec, args: Plain): Array<{ property: string; reason: string }> {
    const known = [...(spec.narrowBy ? [spec.narrowBy.arg] : []), NAME_PREFIX];
    const failures: Array<{ property: string; reason: string }> = [];
    for (const [key, value] of Object.entries(args)) {
        if (value === undefined || value === null) continue;
        if (!known.includes(key)) {
            failures.push({ property: key, reason: `${key} is not a list argument (${known.join(", ")} are)` });
        } else if (typeof value !== "string") {
            failures.push({ property: key, reason: `${key} must be a string` });
        } else if (key !== NAME_PREFIX) {
            const field = (spec.fields as Record<string, Field<unknown> | undefined>)[key];
            const result = field ? validate(field.check, value, { preview: false }) : { ok: true as const };
            if (!result.ok) {
                for (const f of result.failures) {
                    failures.push({ property: key, reason: f.property ? f.reason : `${key}: ${f.reason}` });
                }
            }
        }
    }
    return failures;
}
