/**
 * What every resource's provider does the same way: how the provider object is handed to Pulumi,
 * how secret inputs are marked, how inputs are compared, how a half-done create is reported.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "path";
import { UNKNOWN } from "../schema/validate";

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
 * next run reads it instead of making another.
 */
export function partialFailure(cause: unknown, id: string, properties: Plain): Error {
    const message = cause instanceof Error ? cause.message : String(cause);
    const err = new Error(
        `${message} The connection exists (id ${id}) and is recorded in state; the next \`pulumi up\` or \`pulumi refresh\` reads it back.`,
    ) as Error & { id: string; properties: Plain; reasons: string[] };
    err.id = id;
    err.properties = properties;
    err.reasons = [message];
    return err;
}
