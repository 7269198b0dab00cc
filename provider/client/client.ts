/**
 * The ChatBot HTTP client: bearer auth, JSON bodies, typed errors, retries with backoff, a request
 * timeout, a limit on requests in flight, and one keep-alive connection pool per process.
 * Resources say what to send; this file knows only how.
 *
 * Retries. `request` retries what a retry cannot make worse:
 * - 429, and an API that could not be reached at all (refused, unknown host), for every method:
 *   the API did nothing;
 * - 5xx, a connection cut before the answer, a timeout and an unusable answer, for GET, PUT and
 *   DELETE only: doing them twice is the same as once.
 * A POST (create) that may have been carried out is never repeated here: the resource first looks
 * for what it may have made (`createOnce` in resources/writes.ts).
 * Waits follow `Retry-After` (seconds or an HTTP date) when the API sends one, else exponential
 * backoff with full jitter; attempts and total time are bounded (`RetryPolicy`).
 *
 * Why not undici's RetryAgent/RetryHandler: it honours Retry-After (seconds and dates), but its
 * backoff has no jitter, nothing bounds the total time, and one `methods` list governs both status
 * and network retries, so "POST on 429 but not after a reset" cannot be said without replacing its
 * `retry` function, which is the whole policy. It also cannot retry on a 2xx whose body is not the
 * documented one. This loop is the policy, in one place.
 *
 * undici is loaded on first use, so a plugin that only checks and diffs (preview) never loads it.
 */
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { resolveSettings, settingsKey } from "../config";
import {
    ChatbotApiError,
    ConnectionError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    appendNote,
    errorForStatus,
    redact,
} from "./errors";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export interface RetryPolicy {
    /** Attempts in all, the first one included. */
    maxAttempts: number;
    /** The wait before retry n is random, up to min(maxDelayMs, baseDelayMs · 2^(n-1)) ("full jitter"). */
    baseDelayMs: number;
    maxDelayMs: number;
    /** No retry starts later than this after the first attempt; a Retry-After beyond it ends the
     *  retries at once (waiting would only delay the same failure). */
    maxElapsedMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
    maxAttempts: 5,
    baseDelayMs: 500,
    maxDelayMs: 10_000,
    maxElapsedMs: 60_000,
};
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Enough that 16 parallel engine operations (Pulumi's default) never wait for each other. */
export const DEFAULT_MAX_IN_FLIGHT = 32;

export interface ClientOptions {
    /** Base address, e.g. `https://api.chatbot.com` or a simulator's `http://127.0.0.1:PORT`. */
    apiUrl: string;
    /** The developer access token. */
    token: string;
    /** Time allowed for one attempt, from sending to the whole answer (ms). Default 30 s.
     *  (Here and below, an undefined field means the default.) */
    timeoutMs?: number;
    /** Default: `DEFAULT_RETRY`. */
    retry?: Partial<RetryPolicy>;
    /** Requests this client has on the wire at once; more wait their turn. Default 32. */
    maxInFlight?: number;
    /** A dispatcher of the caller's; default: one shared keep-alive pool. */
    dispatcher?: Dispatcher;
}

export interface RequestOptions<T> {
    /** What is being done, for error messages: `create webhook connection "orders"`. */
    operation: string;
    /** JSON body. */
    body?: unknown;
    /** Values to keep out of error messages (the client adds its own token). */
    secrets?: ReadonlyArray<string | undefined>;
    /** The documented shape of a successful answer; any other is a ResponseFormatError. */
    schema?: z.ZodType<T>;
    /** The envelope a write's success must carry (API description 2.3 and 4): `status.code` as
     *  given and equal to the HTTP status, `status.type` as given, and a `timestamp`. */
    envelope?: Envelope;
}

/** A documented success envelope: `{ code: 201, type: "created" }`. */
export interface Envelope {
    code: number;
    type: string;
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

/** undici, loaded on the first request: a plugin that only checks and diffs never loads it. */
let undici: typeof import("undici") | undefined;
let sharedDispatcher: Dispatcher | undefined;
function http(): { request: typeof import("undici").request; dispatcher: Dispatcher } {
    undici ??= require("undici") as typeof import("undici");
    sharedDispatcher ??= new undici.Agent({ keepAliveTimeout: 10_000, connections: 64 });
    return { request: undici.request, dispatcher: sharedDispatcher };
}

let cached: { key: string; client: ChatbotClient } | undefined;

/** The client for the provider's current settings (stack config, else the environment): one per
 *  process (one pool, one in-flight limit) while they stay the same. Settings are resolved (and
 *  checked) again only when what they are made of changes. */
export function apiClient(): ChatbotClient {
    const key = settingsKey();
    if (!cached || cached.key !== key) cached = { key, client: new ChatbotClient(resolveSettings()) };
    return cached.client;
}

export class ChatbotClient {
    readonly apiUrl: string;
    readonly timeoutMs: number;
    readonly retry: RetryPolicy;
    /** The API's clock minus ours (ms), from the `Date` header of the latest answer; 0 before any. */
    clockOffsetMs = 0;
    private readonly slots: Slots;

    constructor(private readonly options: ClientOptions) {
        this.apiUrl = options.apiUrl.replace(/\/+$/, "");
        this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const r = options.retry ?? {};
        this.retry = {
            maxAttempts: r.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
            baseDelayMs: r.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
            maxDelayMs: r.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
            maxElapsedMs: r.maxElapsedMs ?? DEFAULT_RETRY.maxElapsedMs,
        };
        this.slots = new Slots(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    }

    /** Sends a request, retrying what is safe to retry for its method; returns the parsed answer. */
    request<T = unknown>(method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
        return this.retrying(
            () => this.send(method, path, opts),
            (e) => safeToRetry(method, e),
        );
    }

    /**
     * Runs `attempt` until it succeeds or throws what `retryable` refuses, waiting between attempts
     * as the policy says. When it gives up, the last error says so and why.
     */
    async retrying<T>(attempt: () => Promise<T>, retryable: (e: ChatbotApiError) => boolean): Promise<T> {
        const started = Date.now();
        for (let n = 1; ; n++) {
            try {
                return await attempt();
            } catch (e) {
                if (!(e instanceof ChatbotApiError) || !retryable(e)) throw e;
                const elapsed = Date.now() - started;
                const tries = `${n} attempt${n === 1 ? "" : "s"}`;
                const asked = retryAfterMs(e.retryAfter);
                const wait = asked ?? backoffMs(n, this.retry);
                if (n >= this.retry.maxAttempts) {
                    throw appendNote(e, `Gave up after ${tries} in ${duration(elapsed)}.`);
                }
                if (elapsed + wait > this.retry.maxElapsedMs) {
                    const limit = `the ${duration(this.retry.maxElapsedMs)} retry limit`;
                    const why =
                        asked !== undefined
                            ? `the API asked to wait ${duration(asked)} before retrying, longer than ${limit} allows`
                            : `another attempt would pass ${limit}`;
                    throw appendNote(e, `Gave up after ${tries}: ${why}.`);
                }
                await sleep(wait);
            }
        }
    }

    /**
     * Calls `look` until it finds something or `withinMs` has passed, pausing between looks as
     * the backoff policy says (at least 50 ms, so a zero base delay is no busy loop). For asking
     * the API whether an uncertain write took effect, when it may still be taking effect.
     */
    async lookFor<T>(look: () => Promise<T | undefined>, withinMs: number): Promise<T | undefined> {
        const deadline = Date.now() + withinMs;
        let found = await look();
        for (let n = 1; found === undefined && Date.now() < deadline; n++) {
            const pause = Math.max(50, Math.min(this.retry.baseDelayMs * 2 ** (n - 1), this.retry.maxDelayMs));
            await sleep(Math.max(0, Math.min(pause, deadline - Date.now())));
            found = await look();
        }
        return found;
    }

    /** One attempt, no retry: returns the parsed answer; anything else throws a ChatbotApiError. */
    send<T = unknown>(method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
        return this.slots.run(() => this.attempt(method, path, opts));
    }

    private async attempt<T>(method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
        const { request, dispatcher } = http();
        const secrets = [...(opts.secrets ?? []), this.options.token];
        const write = method !== "GET";
        // One timer for the whole attempt (undici's own timers are coarse: about a second).
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
        let statusCode: number;
        let headers: Record<string, string | string[] | undefined>;
        let text: string;
        try {
            const res = await request(`${this.apiUrl}${path}`, {
                method,
                headers: {
                    authorization: `Bearer ${this.options.token}`,
                    accept: "application/json",
                    "user-agent": `pulumi-chatbot/${VERSION}`,
                    ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
                },
                body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
                dispatcher: this.options.dispatcher ?? dispatcher,
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
                    ? ` within ${duration(this.timeoutMs)}`
                    : `: ${redact(e instanceof Error ? describeNetworkError(e) : String(e), secrets)}`;
            throw new ConnectionError(
                { operation: opts.operation, reason, ambiguous: write && reason !== "unreachable" },
                `No answer from the ChatBot API at ${this.apiUrl}${detail}.`,
            );
        } finally {
            clearTimeout(timer);
        }
        this.noteServerClock(firstHeader(headers.date));
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
                apiMessage: status.message === undefined ? undefined : redact(status.message, secrets),
                requestId,
                ambiguous: write && statusCode >= 500,
                retryAfter: firstHeader(headers["retry-after"]),
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
                    apiMessage: status.message === undefined ? undefined : redact(status.message, secrets),
                    requestId,
                    ambiguous: write,
                    note: `The answer was HTTP ${statusCode}, but its envelope says ${status.code}.`,
                });
            }
            const want = opts.envelope;
            if (
                status.code !== want.code ||
                statusCode !== want.code ||
                status.type !== want.type ||
                !status.timestamp
            ) {
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

    private noteServerClock(date: string | undefined): void {
        const t = date === undefined ? NaN : Date.parse(date);
        if (Number.isFinite(t)) this.clockOffsetMs = t - Date.now();
    }
}

/** See the file's comment. A POST is retried only where the API certainly did nothing. */
export function safeToRetry(method: Method, e: ChatbotApiError): boolean {
    if (e instanceof RateLimitError) return true;
    if (e instanceof ConnectionError && e.reason === "unreachable") return true;
    if (method === "POST") return false;
    return e instanceof ServerError || e instanceof ConnectionError || e instanceof ResponseFormatError;
}

/** `Retry-After` in ms: delay-seconds, or an HTTP date (a past date is 0). Undefined if absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
    const v = header?.trim();
    if (!v) return undefined;
    if (/^\d+$/.test(v)) return Number(v) * 1000;
    const date = /[a-z]/i.test(v) ? Date.parse(v) : NaN;
    return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Exponential backoff with full jitter: random, up to min(maxDelayMs, baseDelayMs · 2^(n-1)). */
export function backoffMs(n: number, policy: RetryPolicy, random: () => number = Math.random): number {
    return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1)));
}

export function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

/** At most `limit` calls run at once; the others wait in order. */
class Slots {
    private readonly waiting: Array<() => void> = [];
    private running = 0;

    constructor(private readonly limit: number) {}

    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
        else this.running++;
        try {
            return await fn();
        } finally {
            // Hand the slot straight to the next in line, or free it.
            const next = this.waiting.shift();
            if (next) next();
            else this.running--;
        }
    }
}

/** `120 ms`, `1.5 s`, `60 s` */
export function duration(ms: number): string {
    if (ms < 1000) return `${Math.round(ms)} ms`;
    return `${ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10} s`;
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
        const s = status as Record<string, unknown>;
        if (typeof s.type === "string") out.type = s.type;
        if (Number.isInteger(s.code)) out.code = s.code as number;
        for (const key of ["message", "description", "details", "error"]) {
            if (typeof s[key] === "string") {
                out.message = s[key] as string;
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

export { ChatbotApiError };
