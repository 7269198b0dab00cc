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

/** One attempt, no retry: returns the parsed answer; anything else throws a ChatbotApiError. */
export async function sendOnce<T>(target: Target, method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
    const { request, dispatcher } = http();
    const secrets = [...(opts.secrets ?? []), target.token];
    const write = method !== "GET";
    // One timer for the whole attempt (undici's own timers are coarse: about a second).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), target.timeoutMs);
    let statusCode: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
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
        statusCode = res.statusCode;
        headers = res.headers;
        text = await res.body.text();
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
    target.onServerDate(firstHeader(headers.date));
    const requestId = firstHeader(headers["x-request-id"]);
    let json: unknown;
    let parsed = true;
    try {
        json = text === "" ? undefined : JSON.parse(text);
    } catch {
        parsed = false;
    }
    if (statusCode < 200 || statusCode >= 300) {
        const status = envelopeStatus(json);
        throw errorForStatus({
            operation: opts.operation,
            status: statusCode,
            statusType: status.type,
            apiMessage: status.message === undefined ? undefined : scrub(status.message, secrets),
            requestId,
            ambiguous: write && statusCode >= 500,
            retryAfter: firstHeader(headers["retry-after"]),
            note: statusCode === 401 ? target.authHint : undefined,
        });
    }
    const unusable = (summary: string) =>
        new ResponseFormatError(
            { operation: opts.operation, status: statusCode, requestId, ambiguous: write },
            summary,
        );
    if (!parsed) throw unusable("The answer was not JSON.");
    if (opts.envelope) {
        const status = envelopeStatus(json);
        if (status.code !== undefined && status.code >= 500) {
            // The API's own word, behind a proxy that answered 200: it failed, or may have.
            throw errorForStatus({
                operation: opts.operation,
                status: status.code,
                statusType: status.type,
                apiMessage: status.message === undefined ? undefined : scrub(status.message, secrets),
                requestId,
                ambiguous: write,
                note: `The answer was HTTP ${statusCode}, but its envelope says ${status.code}.`,
            });
        }
        const want = opts.envelope;
        if (status.code !== want.code || statusCode !== want.code || status.type !== want.type || !status.timestamp) {
            const got = `HTTP ${statusCode} with ${status.code === undefined ? "no envelope" : `an envelope of ${status.code} (${status.type ?? "no type"})`}`;
            throw unusable(`The answer was ${got}, not the documented ${want.code} (${want.type}).`);
        }
    }
    if (!opts.schema) return json as T;
    const checked = opts.schema.safeParse(json);
    if (!checked.success) {
        // Field names only: a value may be a secret.
        const fields = [...new Set(checked.error.issues.map((i) => i.path.join(".") || "(the whole answer)"))];
        throw unusable(`The answer does not have the documented fields (${fields.slice(0, 5).join(", ")}).`);
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
