/**
 * What a resource is, declared: its API path, a table of its inputs (each field's facts once),
 * its answers' schemas, how the API's answers become outputs, and how a create is recognised in
 * the list. ./dynamicProvider.ts builds the plugin's provider from one, ./registration.ts what a
 * program registers, ./lookup.ts the get functions' reads, and ../cli discover's program; a
 * resource file holds its spec, its types and its class, nothing else (./registry.ts lists them).
 *
 * No zod in this file's types: the public declarations of a resource file reach them, and must
 * type-check in any user's project (zod's own declarations need options Pulumi's template lacks).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Envelope, Schema } from "../client/types";
import { UNKNOWN } from "../schema/validate";

/** Property bags as they cross the plugin: plain JSON. */
export type Plain = Record<string, unknown>;

/**
 * What a field holds, which says how it compares, how its secrets sit inside it, and how a
 * generated program writes it:
 * - `text`: a string;
 * - `headerRecord`: header names to values (names compare without regard to case);
 * - `headerList`: `{ name, value }` in order (names compare without regard to case);
 * - `basicAuth`: `{ username, password }`.
 */
export type FieldKind = "text" | "headerRecord" | "headerList" | "basicAuth";

/** An output's type: a string (`null` where it may be none), or an object of named string
 *  properties (its type's name). */
export type OutputType = "string" | "string or null" | { object: string; properties: ReadonlyArray<string> };

/** One input's facts. */
export interface Field<T> {
    /** Its name in the API's request bodies, where not its Pulumi name. */
    api?: string;
    /** The program must give it (a `name` defaults to the resource's name). */
    required: boolean;
    /** Kept secret in state, outputs and messages. */
    secret: boolean;
    /** The API cannot change it in place: a change replaces the resource, and the update body
     *  leaves it out. */
    replaces: boolean;
    kind: FieldKind;
    /** What `check` accepts: the API's limits (../limits.ts), each failure naming its limit. */
    check: Schema<T>;
}

/**
 * One entry of a table of fields, on one line: what it holds, what `check` accepts, and the facts
 * that are not the usual (an input is optional, plain and updated in place unless it says so).
 */
export function field<T, Required extends boolean = false, Secret extends boolean = false>(
    kind: FieldKind,
    check: Schema<T>,
    facts: { required?: Required; secret?: Secret; replaces?: boolean; api?: string } = {},
): Field<T> & { required: Required; secret: Secret } {
    return {
        kind,
        check,
        api: facts.api,
        required: (facts.required ?? false) as Required,
        secret: (facts.secret ?? false) as Secret,
        replaces: facts.replaces ?? false,
    };
}

/**
 * A resource's table of inputs: one entry for each, none left out (a missing or unknown input
 * fails to compile), each `check` producing the input's declared type and `required` saying
 * what the type says.
 */
export type Fields<I> = {
    readonly [K in keyof Required<I>]-?: Field<Exclude<I[K], undefined>> & {
        required: undefined extends I[K] ? false : true;
    };
};

export interface ResourceSpec<Inputs extends Plain, Outputs extends Plain, Read, Listed, Type extends string = string> {
    /** The Pulumi type's name: `chatbot:<type>` is registered. Kept literal in the registry, so
     *  the package's type names (../policy, the tests' programs) are a union made from it. */
    type: Type;
    /** What messages call one: `webhook connection`. */
    noun: string;
    /** The API's collection; one resource is at `${path}/${id}`. */
    path: string;
    /** The inputs the API stores, in the order the API documents them. */
    fields: Fields<Inputs>;
    /** Checks `adoptId`, the input every resource has besides its fields: the id of an existing
     *  one to adopt on create. */
    adoptId: Schema<string>;
    /** The outputs that are not inputs, and their types (for the package schema of the native
     *  provider). */
    outputTypes: Record<Exclude<keyof Outputs, keyof Inputs> & string, OutputType>;
    schemas: {
        /** The single read's answer. */
        read: Schema<Read>;
        /** The list read's answer. */
        list: Schema<Listed[]>;
    };
    /** The single read's answer as outputs. An empty value the API may send for "none" is absent.
     *  A list item is a single read without some of its fields, so it goes through here too. */
    outputs(r: Read): Outputs;
    /** The outputs a list item holds (besides `id`): what the list functions return of each. */
    listed: ReadonlyArray<keyof Outputs & string>;
    /** What a search may be narrowed by, where an item belongs to something (a v2 connection's
     *  story): the lookup functions' argument, and whether an item of the list matches it. */
    narrowBy?: {
        arg: string;
        description: string;
        test(item: Listed, value: string): boolean;
        says(value: string): string;
    };
    /** The outputs that are not inputs, before the API has said anything about them. */
    blankOutputs(d: Inputs): Plain;
    /** How a create is recognised in the list, after an answer that leaves it uncertain. */
    created: {
        /** For messages: `connection named "orders" on story ... with url ...`. */
        describe(d: Inputs): string;
        /** The list item could be what a create of `d` made. */
        matches(item: Listed, d: Inputs): boolean;
        /** When the item was made, where the list tells. Without it, the matches that existed
         *  before the POST are set aside, and each match is read in full and compared. */
        createdAt?(item: Listed): string;
    };
    /** The documented success envelope of each write (API description, section 4). */
    envelopes: { create: Envelope; update: Envelope; delete: Envelope };
    /** What an existing one belongs to, named in the program discover writes: a v2 connection's story. */
    container?(outputs: Outputs): { kind: string; id: string; name: string };
    /** Why the existing resource `current` (id `id`) cannot be adopted as `d`; undefined if it can. */
    cannotAdopt?(current: Outputs, d: Inputs, id: string): string | undefined;
}

/** The inputs a table of fields (kept with its literal types) marks secret. */
export type SecretKeys<Table> = { [K in keyof Table]: Table[K] extends { secret: true } ? K : never }[keyof Table];

/** The result of a get function: the outputs with `id`, but not the secret keys `S`: nothing in
 *  it is secret. */
export type Found<O, S extends keyof O> = Omit<O, S> & { id: string };

/** The result of a get function asked for its secrets: the secret keys too, as secret Outputs. */
export type Looked<O, S extends keyof O> = Found<O, S> & {
    [K in S]-?: pulumi.Output<O[K] | undefined>;
};

/** How a get function finds one: by `id`, or by `name`; `includeSecrets` for the secret fields. */
export interface LookupArgs {
    id?: string;
    name?: string;
    /** Return the secret fields too (`token`, `headers`, `auth`), marked secret. Default false:
     *  the result holds no secret, so what was looked up is a plain value. */
    includeSecrets?: boolean;
}

/** A get function's arguments, each an Input, for its `...Output` form. */
export type LookupInputs<Args> = { [K in keyof Args]?: pulumi.Input<Args[K]> };

/** A spec whatever its type parameters: what the registry lists and the cli reads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySpec = Omit<ResourceSpec<any, any, any, any>, "fields"> & { fields: object };

/** The fields of any spec, as the helpers below read them. */
type WithFields = { fields: object };
const fieldsOf = (spec: WithFields) => spec.fields as Record<string, Field<unknown>>;

/** The input every resource has besides its fields: an existing resource to adopt on create. */
export const ADOPT_KEY = "adoptId";

/**
 * The module every resource class gives `pulumi.dynamic.Resource` (./registration.ts): the SDK
 * makes the resource's type token `pulumi-nodejs:dynamic/chatbot:<Type>` from it (what a policy
 * pack and a stack export see: ../policy/resources.ts). Here, where no @pulumi/pulumi is loaded.
 */
export const DYNAMIC_MODULE = "chatbot";

/** The input names of `spec`, in table order. */
export function inputKeys(spec: WithFields): string[] {
    return Object.keys(spec.fields);
}

/** The inputs whose field says `fact`. */
export function keysWhere(spec: WithFields, fact: "secret" | "replaces" | "required"): string[] {
    return Object.entries(fieldsOf(spec))
        .filter(([, field]) => field[fact])
        .map(([key]) => key);
}

/** The inputs an answer of the API holds, read under their API names. An optional one the API
 *  sends empty (null, "", no headers) is absent, as when the program leaves it out. */
export function inputsIn(spec: WithFields, answer: object): Plain {
    const out: Plain = {};
    for (const [key, field] of Object.entries(fieldsOf(spec))) {
        const value = (answer as Plain)[field.api ?? key];
        if (value === undefined || (!field.required && isEmpty(value))) continue;
        // The answer was parsed just now into new objects: nothing else holds them.
        out[key] = value;
    }
    return out;
}

function isEmpty(v: unknown): boolean {
    return v === null || v === "" || (Array.isArray(v) ? v.length === 0 : isPlain(v) && Object.keys(v).length === 0);
}

/** Every input and output of `spec`, none given: what a resource class registers for the engine
 *  to fill (all of them on `.get()`; the outputs that are not inputs otherwise). */
export function unsetProperties(spec: WithFields & { outputTypes: object }, which: "all" | "outputs"): Plain {
    const keys = [...(which === "all" ? inputKeys(spec) : []), ...Object.keys(spec.outputTypes)];
    return Object.fromEntries(keys.map((k) => [k, undefined]));
}

/** A write's body: every input the program gives, under its API name; an update's body leaves
 *  out what cannot change in place. What the program leaves out is absent, so the API removes it. */
export function apiBody(spec: WithFields, d: Plain, write: "create" | "update"): Plain {
    const body: Plain = {};
    for (const [key, field] of Object.entries(fieldsOf(spec))) {
        if (write === "update" && field.replaces) continue;
        if (d[key] !== undefined) body[field.api ?? key] = d[key];
    }
    return body;
}

/**
 * The inputs whose value in `have` (outputs in state, or what the API shows) is not the one in
 * `want`: what diff reports, what an adoption or a write's read-back checks. One rule for all.
 */
export function differingKeys(spec: WithFields, keys: ReadonlyArray<string>, have: Plain, want: Plain): string[] {
    const fields = fieldsOf(spec);
    return keys.filter((k) => {
        const as = COMPARE_AS[fields[k]?.kind ?? "text"];
        return inputsDiffer(as(have[k]), as(want[k]));
    });
}

/** How a value of each kind compares: header names without regard to case (RFC 9110, 5.1). */
const COMPARE_AS: Record<FieldKind, (v: unknown) => unknown> = {
    text: (v) => v,
    basicAuth: (v) => v,
    headerRecord: (v) =>
        isPlain(v) ? Object.fromEntries(Object.entries(v).map(([name, value]) => [name.toLowerCase(), value])) : v,
    headerList: (v) =>
        Array.isArray(v)
            ? v.map((h) => (isPlain(h) && typeof h.name === "string" ? { ...h, name: h.name.toLowerCase() } : h))
            : v,
};

/** Desired (new) against stored (old) value of one input. Absent and null are the same; an
 *  unknown (preview) counts as a change; object key order does not matter. */
export function inputsDiffer(old: unknown, desired: unknown): boolean {
    return !sameValue(old ?? undefined, desired ?? undefined);
}

function sameValue(a: unknown, b: unknown): boolean {
    if (b === UNKNOWN) return false;
    if (a === b) return true;
    if (Array.isArray(a) || Array.isArray(b)) {
        return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
    }
    if (!isPlain(a) || !isPlain(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && kb.every((k) => sameValue(a[k], b[k]));
}

export function isPlain(v: unknown): v is Plain {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Copies the listed keys that are set. */
export function pick(o: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = {};
    for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
    return out;
}

/** Copies all but the listed keys. */
export function omit(o: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = { ...o };
    for (const k of keys) delete out[k];
    return out;
}
