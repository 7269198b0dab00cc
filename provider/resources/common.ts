/**
 * What every resource's provider does the same way: how the provider object is handed to Pulumi,
 * how secret inputs are marked, how inputs are compared, how a half-done create is reported.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "path";
import type { z } from "zod";
import type { ChatbotApiError } from "../client/errors";
import { UNKNOWN, type CheckFailure } from "../schema/validate";

/** Property bags as they cross the plugin: plain JSON. */
export type Plain = Record<string, unknown>;

/**
 * The provider object for a resource module: the module's own exports. Installed under
 * node_modules (as npm, yarn and pnpm install it), the SDK serializes it as a `require()` of the
 * package's `providers/<name>` entry. Anywhere else (a linked checkout) the SDK would copy the
 * module's code by value, so a small object that requires the same entry by name stands in.
 */
export function providerModule(mod: NodeModule): pulumi.dynamic.ResourceProvider {
    if (mod.filename.split(path.sep).includes("node_modules")) {
        return mod.exports as pulumi.dynamic.ResourceProvider;
    }
    return delegatingProvider(`pulumi-chatbot/providers/${path.basename(mod.filename).replace(/\.[jt]s$/, "")}`);
}

function delegatingProvider(entry: string): pulumi.dynamic.ResourceProvider {
    type P = Required<pulumi.dynamic.ResourceProvider>;
    const impl = (): P => require(entry);
    return {
        configure: (req) => impl().configure(req),
        check: (olds, news) => impl().check(olds, news),
        diff: (id, olds, news) => impl().diff(id, olds, news),
        create: (inputs) => impl().create(inputs),
        read: (id, props) => impl().read(id, props),
        update: (id, olds, news) => impl().update(id, olds, news),
        delete: (id, props) => impl().delete(id, props),
    };
}

/** Marks an input secret, so state and outputs keep it encrypted; absent stays absent. */
export function secretIfSet<T>(v: pulumi.Input<T> | undefined): pulumi.Output<pulumi.Unwrap<T>> | undefined {
    return v === undefined ? undefined : pulumi.secret(v);
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
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    const ka = Object.keys(a).filter((k) => (a as Plain)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Plain)[k] !== undefined);
    return ka.length === kb.length && kb.every((k) => sameValue((a as Plain)[k], (b as Plain)[k]));
}

/**
 * The error for "it exists, but a later step failed". The plugin turns an error carrying `id` into
 * the engine's partial-failure result, so the resource is recorded with these properties and the
 * next run reads it instead of making another. `inputs` are the call's own (they carry `__provider`).
 */
export function partialFailure(cause: unknown, id: string, properties: Plain, inputs: Plain): Error {
    const message = cause instanceof Error ? cause.message : String(cause);
    const err = new Error(
        `${message} The connection exists (id ${id}) and is recorded in state; the next \`pulumi up\` or \`pulumi refresh\` reads it back.`,
    ) as Error & { id: string; properties: Plain; reasons: string[] };
    err.id = id;
    // The plugin records these properties as they are: without `__provider`, a later delete or
    // refresh of the half-made resource could not find its provider.
    err.properties = { ...properties, __provider: inputs.__provider };
    err.reasons = [message];
    return err;
}

/** check: keeps the resource's own inputs (not the plugin's `__provider`, not null or absent
 *  ones) and validates them; unknowns pass. */
export function checkInputs(
    schema: z.ZodType,
    keys: ReadonlyArray<string>,
    news: Plain,
): { inputs: Plain; failures: CheckFailure[] } {
    const { validate } = require("../schema/validate") as typeof import("../schema/validate");
    const inputs: Plain = {};
    for (const key of keys) if (news[key] !== undefined && news[key] !== null) inputs[key] = news[key];
    const result = validate(schema, inputs);
    return { inputs, failures: result.ok ? [] : result.failures };
}

/** diff: desired inputs against the outputs in state (the plugin passes no old inputs), so a
 *  change made by hand and found by refresh shows as a difference from the program. */
export function diffInputs(
    keys: ReadonlyArray<string>,
    replaceKeys: ReadonlyArray<string>,
    olds: Plain,
    news: Plain,
): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
    const replaces = replaceKeys.filter((k) => inputsDiffer(olds[k], news[k]));
    const changes = replaces.length > 0 || keys.some((k) => inputsDiffer(olds[k], news[k]));
    return { changes, replaces, deleteBeforeReplace: false };
}

/** Runs a read; a 404 means the resource is gone (undefined). */
export async function unlessNotFound<T>(op: () => Promise<T>): Promise<T | undefined> {
    const { NotFoundError } = require("../client/errors") as typeof import("../client/errors");
    try {
        return await op();
    } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
    }
}

/** The id in a create (or legacy write) envelope; without one, nobody can tell what was made. */
export function envelopeId(envelope: unknown, operation: string, what: string): string {
    const id = envelope !== null && typeof envelope === "object" ? (envelope as { id?: unknown }).id : undefined;
    if (typeof id !== "string" || id === "") {
        throw formatError(
            operation,
            `Its answer carries no ${what} id; check the ChatBot dashboard for a new ${what} before retrying.`,
        );
    }
    return id;
}

export function formatError(operation: string, summary: string): ChatbotApiError {
    const { ResponseFormatError } = require("../client/errors") as typeof import("../client/errors");
    return new ResponseFormatError({ operation }, summary);
}

/** `"orders" (5f3c…)` where the name is known, else the id. */
export function label(props: Plain, id: string): string {
    return typeof props.name === "string" ? `"${props.name}" (${id})` : id;
}

/** The API client for the provider's settings. */
export function api() {
    return (require("../config") as typeof import("../config")).apiClient();
}

/** Copies the listed keys that are set. */
export function pick(o: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = {};
    for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
    return out;
}

/** The provider's `configure`: records stack config (`chatbot:token`, `chatbot:apiUrl`). */
export function configure(req: { config: import("../config").ProviderConfig }): Promise<void> {
    (require("../config") as typeof import("../config")).configureFromStack(req.config);
    return Promise.resolve();
}
