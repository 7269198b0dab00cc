/**
 * What a resource is, declared: its API path, its inputs and which of them are secret or force a
 * replacement, its schemas, how inputs become request bodies and the API's answers become
 * outputs, and how a create is recognised in the list. `./provider.ts` builds the dynamic
 * provider and the class's registration from one of these; a resource file holds its spec, its
 * types and its class, nothing else.
 */
import type { z } from "zod";
import type { Envelope } from "../client/transport";
import { UNKNOWN } from "../schema/validate";

/** Property bags as they cross the plugin: plain JSON. */
export type Plain = Record<string, unknown>;

export interface ResourceSpec<Inputs extends Plain, Outputs extends Plain, Read, Listed> {
    /** The Pulumi type's name: `chatbot:<type>` is registered. */
    type: string;
    /** What messages call one: `webhook connection`. */
    noun: string;
    /** The API's collection; one resource is at `${path}/${id}`. */
    path: string;
    /** The inputs the API stores: what diff compares and read returns as inputs. */
    inputKeys: ReadonlyArray<keyof Inputs & string>;
    /** Inputs kept secret in state and outputs. */
    secretKeys: ReadonlyArray<keyof Inputs & string>;
    /** Inputs the API cannot change in place: a change replaces the resource. */
    replaceKeys: ReadonlyArray<keyof Inputs & string>;
    /** Outputs that are not inputs. */
    outputKeys: ReadonlyArray<string>;
    schemas: {
        /** The inputs check accepts: the create body, and `adoptId`. */
        inputs: z.ZodType<Inputs & { adoptId?: string }>;
        /** The single read's answer. */
        read: z.ZodType<Read>;
        /** An item of the list read. */
        listItem: z.ZodType<Listed>;
    };
    /** The POST body: the whole desired state. */
    createBody(d: Inputs): Plain;
    /** The PUT body: the whole desired state, so what the program left out is removed remotely. */
    updateBody(d: Inputs): Plain;
    /** The single read's answer as outputs. An empty value the API may send for "none" is absent. */
    outputs(r: Read): Outputs;
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
    /** How an input compares, where not as it is: header names without regard to case. */
    compareAs?: { [K in keyof Inputs]?: (v: unknown) => unknown };
    /** Why the existing resource `current` (id `id`) cannot be adopted as `d`; undefined if it can. */
    cannotAdopt?(current: Outputs, d: Inputs, id: string): string | undefined;
}

/**
 * The inputs whose value in `have` (outputs in state, or what the API shows) is not the one in
 * `want`: what diff reports, what an adoption or a write's read-back checks. One rule for all.
 */
export function differingKeys<I extends Plain>(
    spec: Pick<ResourceSpec<I, Plain, unknown, unknown>, "compareAs">,
    keys: ReadonlyArray<keyof I & string>,
    have: Plain,
    want: Plain,
): string[] {
    return keys.filter((k) => {
        const as = spec.compareAs?.[k];
        return as ? inputsDiffer(as(have[k]), as(want[k])) : inputsDiffer(have[k], want[k]);
    });
}

/** Header names compare without regard to case (RFC 9110, 5.1): a record's keys... */
export function headerRecordNames(v: unknown): unknown {
    return isPlain(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toLowerCase(), x])) : v;
}

/** ...and a list's `name`s. */
export function headerListNames(v: unknown): unknown {
    return Array.isArray(v)
        ? v.map((h) => (isPlain(h) && typeof h.name === "string" ? { ...h, name: h.name.toLowerCase() } : h))
        : v;
}

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
