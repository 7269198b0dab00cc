/**
 * Field builders shared by every schema. Each one writes its limit into its message, so a failure
 * always says what the limit is: "must be 1 to 128 characters".
 */
import * as z from "./zod";
import type { Schema } from "../client/types";

/** True when A and B are each assignable to the other: a written-out type and its schema's. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only when every check in the list is true. */
export type AllTrue<Checks extends true[]> = Checks;

/** A missing property is "required"; a value of the wrong type names the type wanted. */
export const typeError = (type: string) => ({
    error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${type}`),
});

/** A string whose length is `min` to `max` characters. */
export function text(min: number, max: number) {
    const limit = min === max ? `exactly ${min} characters` : `${min} to ${max} characters`;
    return z
        .string(typeError("a string"))
        .min(min, { error: `must be ${limit}` })
        .max(max, { error: `must be ${limit}` });
}

/** An absolute http or https URL of at most `max` characters: what ChatBot can call. */
export function httpUrl(max: number) {
    return text(1, max).refine(
        (v) => {
            try {
                const parsed = new URL(v);
                return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
            } catch {
                return false;
            }
        },
        { error: "must be an absolute http:// or https:// URL" },
    );
}

/** RFC 9110 field-name: a token. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 field-value: visible characters, spaces and tabs; no CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;

export function headerName(max = 1024) {
    return text(1, max).regex(HEADER_NAME, {
        error: "must be a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)",
    });
}

/** A header value; `max` where the API documents one (legacy: 1 to 1024; v2 documents none). */
export function headerValue(min: number, max = Number.MAX_SAFE_INTEGER) {
    return text(min, max).regex(HEADER_VALUE, {
        error: "must be a valid HTTP header value (no line breaks or control characters)",
    });
}

/** A whole number from `min` to `max`. */
export function integer(min: number, max: number) {
    return z
        .number(typeError("a number"))
        .int({ error: "must be a whole number" })
        .min(min, { error: `must be ${min} to ${max}` })
        .max(max, { error: `must be ${min} to ${max}` });
}

/** An array of `min` to `max` items. */
export function list<T extends z.ZodType>(item: T, min: number, max: number) {
    return z
        .array(item, typeError("a list"))
        .min(min, { error: `must have ${min} to ${max} items` })
        .max(max, { error: `must have ${min} to ${max} items` });
}

/** An object of known keys only; an unknown key is named in the failure. */
export function record<S extends z.core.$ZodLooseShape>(shape: S) {
    return z.strictObject(shape, {
        error: (issue) =>
            issue.code === "unrecognized_keys"
                ? `unknown propert${issue.keys.length === 1 ? "y" : "ies"} ${issue.keys.map((k) => `"${k}"`).join(", ")}`
                : "must be an object",
    });
}

/** Header names to string values, `count` of them; `valueMax` where the API documents one. */
export function headerRecord(count: { min: number; max: number }, valueMax?: number) {
    return z
        .record(headerName(), headerValue(0, valueMax), {
            error: (issue) =>
                issue.code === "invalid_type" ? "must be an object of header names to string values" : undefined,
        })
        .refine((h) => Object.keys(h).length >= count.min && Object.keys(h).length <= count.max, {
            error: `must have ${count.min} to ${count.max} headers`,
        });
}

/** `{ name, value }` headers in order, `count` of them, each part within its limits. */
export function headerList(limit: {
    headers: { min: number; max: number };
    headerName: { max: number };
    headerValue: { min: number; max: number };
}) {
    const header = record({
        name: headerName(limit.headerName.max),
        value: headerValue(limit.headerValue.min, limit.headerValue.max),
    });
    return list(header, limit.headers.min, limit.headers.max);
}

/** Basic authorization, as both API generations take it. */
export function basicAuth(max: number) {
    return record({ username: text(1, max), password: text(1, max) });
}

/** Host names that are not public: what a legacy webhook's url must not be (API description 2.2). */
function isPublicHost(hostname: string): boolean {
    const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal"))
        return false;
    // IPv6 literals: loopback, unspecified, unique local (fc00::/7) and link-local (fe80::/10).
    if (host.includes(":") && (host === "::1" || host === "::" || /^f[cd]/.test(host) || /^fe[89ab]/.test(host)))
        return false;
    const octets = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
    if (!octets) return host.includes(".") || host.includes(":");
    const [a, b] = [Number(octets[1]), Number(octets[2])];
    return !(
        a === 0 ||
        a === 10 ||
        a === 127 ||
        (a === 169 && b === 254) ||
        (a === 172 && b >= 16 && b <= 31) ||
        (a === 192 && b === 168) ||
        (a === 100 && b >= 64 && b <= 127)
    );
}

/** An http(s) URL on a public host (not localhost or a private network address). */
export function publicHttpUrl(max: number) {
    return httpUrl(max).refine((u) => URL.canParse(u) && isPublicHost(new URL(u).hostname), {
        when: (payload) => typeof payload.value === "string" && URL.canParse(payload.value),
        error: "must be a public URL (not localhost or a private network address)",
    });
}

/**
 * The strict object a resource's inputs are checked with, from its table of fields (each field's
 * check, optional where the field is) and `adoptId`. Typed loosely: the table's own type holds
 * each check to its input's declared type.
 */
export function inputsSchema(
    fields: Record<string, { required: boolean; check: Schema<unknown> }>,
    adoptId: Schema<string>,
): Schema<Record<string, unknown>> {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(fields)) {
        const check = field.check as z.ZodType;
        shape[key] = field.required ? check : check.optional();
    }
    shape.adoptId = (adoptId as z.ZodType).optional();
    return record(shape);
}
