/**
 * Field builders shared by every schema. Each one writes its limit into its message, so a failure
 * always says what the limit is: "must be 1 to 128 characters".
 */
import { z } from "zod";

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
                const u = new URL(v);
                return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
            } catch {
                return false;
            }
        },
        { error: "must be an absolute http:// or https:// URL" },
    );
}

/** RFC 9110 field-name: a token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
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

/** Basic authorization, as both API generations take it. */
export function basicAuth(max: number) {
    return record({ username: text(1, max), password: text(1, max) });
}
