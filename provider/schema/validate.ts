/**
 * Turning zod results into Pulumi check failures, shared by every resource and by the simulator.
 *
 * Messages name the property path and the limit, never the value: a value may be a secret.
 */
import type { Schema } from "../client/types";

/** The value the engine sends for an input that is not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export interface CheckFailure {
    property: string;
    reason: string;
    /** The unknown keys an object at `property` holds, which `reason` quotes: for a reader of
     *  someone else's JSON (the probe) to say what it may of them. */
    unknownKeys?: string[];
}

/** `headers.X-Env`, `auth.password`, `responses[0].buttons[2].title` */
export function propertyPath(path: ReadonlyArray<PropertyKey>): string {
    let out = "";
    for (const key of path) {
        if (typeof key === "number") out += `[${key}]`;
        else out += out ? `.${String(key)}` : String(key);
    }
    return out;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): { unknown: boolean } {
    let value: unknown = root;
    for (const key of path) {
        if (value === UNKNOWN) return { unknown: true };
        if (value === null || typeof value !== "object") return { unknown: false };
        value = (value as Record<PropertyKey, unknown>)[key];
    }
    return { unknown: value === UNKNOWN };
}

/** True when the value holds an unknown anywhere inside it. */
export function containsUnknown(v: unknown): boolean {
    if (v === UNKNOWN) return true;
    if (Array.isArray(v)) return v.some(containsUnknown);
    if (v !== null && typeof v === "object") return Object.values(v).some(containsUnknown);
    return false;
}

/**
 * Validates `input` against `schema`. Issues that sit on, or inside, a value not known yet are
 * dropped: during preview only what is known can be judged. A count limit over an object with
 * unknown entries still counts the keys, which are known. `{ preview: false }` for what never
 * holds a preview's unknown (a webhook call's JSON): there the unknown's string is a string like
 * any other, judged as such (a 36-character button title is over its limit, whatever it says).
 */
export function validate<T>(
    schema: Schema<T>,
    input: unknown,
    { preview = true }: { preview?: boolean } = {},
): { ok: true; value: T } | { ok: false; failures: CheckFailure[] } {
    const result = schema.safeParse(input);
    if (result.success) return { ok: true, value: result.data };
    const failures: CheckFailure[] = [];
    for (const issue of result.error.issues) {
        if (preview && valueAt(input, issue.path).unknown) continue;
        const property = propertyPath(issue.path);
        // A bad record key arrives wrapped: the key's own issue says what is wrong with it.
        const inner = issue.code === "invalid_key" ? issue.issues?.[0]?.message : undefined;
        const message = inner ?? issue.message;
        const failure: CheckFailure = { property, reason: property ? `${property}: ${message}` : message };
        if (issue.code === "unrecognized_keys" && issue.keys) failure.unknownKeys = [...issue.keys];
        failures.push(failure);
    }
    return failures.length === 0 ? { ok: true, value: input as T } : { ok: false, failures };
}

/** Renders failures as one line each, for errors thrown outside `check`. */
export function describeFailures(failures: CheckFailure[]): string {
    return failures.map((f) => f.reason).join("; ");
}
