/**
 * One request to the ChatBot API, one attempt: bearer auth, JSON bodies, a timeout, and the
 * answer checked against what the API documents (its status, its envelope, its fields). Anything
 * else becomes a typed error (./errors.ts) with secrets redacted. No retries here (./retry.ts).
 *
 * undici is loaded on the first request, so a plugin that only checks and diffs (preview) never
 * loads it. One keep-alive pool serves the whole process.
 */
import type { Dispatcher } from "undici";
import { ConnectionError, ResponseFormatError, errorForStatus } from "./errors";
import { scrub } from "./redact";
import { duration, type Method } from "./retry";
import type { Envelope, Schema } from "./types";

export interface RequestOptions<T> {
    /** What is being done, for error messages: `create webhook connection "orders"`. */
    operation: string;
    /** JSON body. */
    body?: unknown;
    /** Values to keep out of error messages (the client adds its own token). */
    secrets?: ReadonlyArray<string | undefined>;
    /** The documented shape of a successful answer; any other is a ResponseFormatError. */
    schema?: Schema<T>;
    /** The envelope a write's success must carry (API description 2.3 and 4): `status.code` as
     *  given and equal to the HTTP status, `status.type` as given, and a `timestamp`. */
    envelope?: Envelope;
}

/** Where and how one attempt is sent. */
export interface Target {
    apiUrl: string;
    token: string;
    timeoutMs: number;
    /** Added to a 401's message: how to set a valid token, where the caller knows. */
    authHint?: string;
    dispatcher?: Dispatcher;
    /** Told the `Date` header of every answer, error answers included. */
    onServerDate(date: string | undefined): void;
}

const VERSION: string = (require("../../package.json") as { version: string }).version;

/** Connection failures that happen before anything is sent. */
const UNREACHABLE = new Set([
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "EHOSTDOWN",
    "ENETDOWN",
    "UND_ERR_CONNECT_TIMEOUT",
]);

let undici: typeof import("undici") | undefined;
let sharedDispatcher: Dispatcher | undefined;
function http(): { request: typeof import("undici").request; dispatcher: Dispatcher } {
    undici ??= require("undici") as typeof import("undici");
    sharedDispatcher ??= new undici.Agent({ keepAliveTimeout: 10_000, connections: 64 });
    return { request: undici.request, dispatcher: sharedDispatcher };
}

/** An answer as it came: its status, headers and body text. */
interface RawAnswer {
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
}

/** What an answer is checked for, and how it is named in errors. */
interface Checking<T> {
    opts: RequestOptions<T>;
    secrets: ReadonlyArray<string | undefined>;
    write: boolean;
    requestId: string | undefined;
}

/** One attempt, no retry: returns the parsed answer; anything else throws a ChatbotApiError. */
export async function sendOnce<T>(target: Target, method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
    const secrets = [...(opts.secrets ?? []), target.token];
    const write = method !== "GET";
    const raw = await exchange(target, method, path, opts, secrets, write);
    target.onServerDate(firstHeader(raw.headers.date));
    const c: Checking<T> = { opts, secrets, write, requestId: firstHeader(raw.headers["x-request-id"]) };
    let json: unknown;
    let parsed = true;
    try {
        json = raw.text === "" ? undefined : JSON.parse(raw.text);
    } catch {
        parsed = false;
    }
    if (raw.statusCode < 200 || raw.statusCode >= 300) throw statusError(c, raw, json, target.authHint);
    if (!parsed) throw unusable(c, raw.statusCode, "The answer was not JSON.");
    if (opts.envelope) checkEnvelope(c, raw.statusCode, json, opts.envelope);
    return opts.schema ? withDocumentedFields(c, raw.statusCode, json, opts.schema) : (json as T);
}

/** Sends the request and reads the whole answer, within the attempt's timeout; no answer is a
 *  ConnectionError that says whether a write may have been carried out. */
async function exchange<T>(
    target: Target,
    method: Method,
    path: string,
    opts: RequestOptions<T>,
    secrets: ReadonlyArray<string | undefined>,
    write: boolean,
): Promise<RawAnswer> {
    const { request, dispatcher } = http();
    // One timer for the whole attempt (undici's own timers are coarse: about a second).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), target.timeoutMs);
    try {
        const res = await request(`${target.apiUrl}${path}`, {
            method,
            headers: {
                authorization: `Bearer ${target.token}`,
                accept: "application/json",
                "user-agent": `pulumi-chatbot/${VERSION}`,
                ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
            },
            body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
            dispatcher: target.dispatcher ?? dispatcher,
            signal: timeout.signal,
        });
        return { statusCode: res.statusCode, headers: res.headers, text: await res.body.text() };
    } catch (e) {
        const reason = timeout.signal.aborted
            ? "timeout"
            : UNREACHABLE.has(errorCode(e) ?? "")
              ? "unreachable"
              : "reset";
        const detail =
            reason === "timeout"
                ? ` within ${duration(target.timeoutMs)}`
                : `: ${scrub(e instanceof Error ? describeNetworkError(e) : String(e), secrets)}`;
        throw new ConnectionError(
            { operation: opts.operation, reason, ambiguous: write && reason !== "unreachable" },
            `No answer from the ChatBot API at ${target.apiUrl}${detail}.`,
        );
    } finally {
        clearTimeout(timer);
    }
}

/** The error of an answer whose HTTP status is not a success. */
function statusError<T>(c: Checking<T>, raw: RawAnswer, json: unknown, authHint: string | undefined): Error {
    return apiError(c, raw.statusCode, envelopeStatus(json), {
        ambiguous: c.write && raw.statusCode >= 500,
        retryAfter: firstHeader(raw.headers["retry-after"]),
        note: raw.statusCode === 401 ? authHint : undefined,
    });
}

/** The error the API's answer stands for: `code` and the envelope's type, its message scrubbed. */
function apiError<T>(
    c: Checking<T>,
    code: number,
    status: ReturnType<typeof envelopeStatus>,
    more: { ambiguous: boolean; retryAfter?: string; note?: string },
): Error {
    return errorForStatus({
        operation: c.opts.operation,
        status: code,
        statusType: status.type,
        apiMessage: status.message === undefined ? undefined : scrub(status.message, c.secrets),
        requestId: c.requestId,
        ...more,
    });
}

/** An answer that cannot be used: a write's outcome is then uncertain. */
function unusable<T>(c: Checking<T>, statusCode: number, summary: string): ResponseFormatError {
    return new ResponseFormatError(
        { operation: c.opts.operation, status: statusCode, requestId: c.requestId, ambiguous: c.write },
        summary,
    );
}

/** A write's answer carries the documented envelope, or this throws. */
function checkEnvelope<T>(c: Checking<T>, statusCode: number, json: unknown, want: Envelope): void {
    const status = envelopeStatus(json);
    if (status.code !== undefined && status.code >= 500) {
        // The API's own word, behind a proxy that answered 200: it failed, or may have.
        throw apiError(c, status.code, status, {
            ambiguous: c.write,
            note: `The answer was HTTP ${statusCode}, but its envelope says ${status.code}.`,
        });
    }
    if (status.code !== want.code || statusCode !== want.code || status.type !== want.type || !status.timestamp) {
        const got = `HTTP ${statusCode} with ${status.code === undefined ? "no envelope" : `an envelope of ${status.code} (${status.type ?? "no type"})`}`;
        throw unusable(c, statusCode, `The answer was ${got}, not the documented ${want.code} (${want.type}).`);
    }
}

/** The answer parsed by its documented schema, or an error naming the fields that differ. */
function withDocumentedFields<T>(c: Checking<T>, statusCode: number, json: unknown, schema: Schema<T>): T {
    const checked = schema.safeParse(json);
    if (!checked.success) {
        // Field names only: a value may be a secret.
        const fields = [...new Set(checked.error.issues.map((i) => i.path.join(".") || "(the whole answer)"))];
        throw unusable(
            c,
            statusCode,
            `The answer does not have the documented fields (${fields.slice(0, 5).join(", ")}).`,
        );
    }
    return checked.data;
}

/** The first value of a response header that may repeat. */
export function firstHeader(v: string | string[] | undefined): string | undefined {
    return Array.isArray(v) ? v[0] : v;
}

/** The envelope's status part: `{code, type}` and, where the API adds it, a message; and
 *  whether it has its `timestamp`. */
function envelopeStatus(json: unknown): { code?: number; type?: string; message?: string; timestamp?: boolean } {
    if (json === null || typeof json !== "object") return {};
    const status = (json as { status?: unknown }).status;
    const out: { code?: number; type?: string; message?: string; timestamp?: boolean } = {
        timestamp: typeof (json as { timestamp?: unknown }).timestamp === "string",
    };
    if (status !== null && typeof status === "object") {
        const fields = status as Record<string, unknown>;
        if (typeof fields.type === "string") out.type = fields.type;
        if (Number.isInteger(fields.code)) out.code = fields.code as number;
        for (const key of ["message", "description", "details", "error"]) {
            if (typeof fields[key] === "string") {
                out.message = fields[key] as string;
                break;
            }
        }
    }
    const top = (json as Record<string, unknown>).message;
    if (out.message === undefined && typeof top === "string") out.message = top;
    return out;
}

/** The system code of a network error (ECONNREFUSED, ...): undici may wrap the socket's error,
 *  so the causes are searched too. */
export function errorCode(error: unknown): string | undefined {
    for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === "string" && code !== "UND_ERR") return code;
        e = (e as { cause?: unknown }).cause;
    }
    return undefined;
}

function describeNetworkError(e: Error): string {
    const code = (e as { code?: unknown }).code;
    const cause = (e as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? ` (${cause.message})` : "";
    return `${typeof code === "string" ? `${code}: ` : ""}${e.message}${causeText}`;
}
