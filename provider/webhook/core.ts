/**
 * What every handler of the kit does with a call, whatever the runtime: answer ChatBot's
 * verification request, check the caller, validate the request, call your function, validate its
 * answer, and log what went wrong. The Node listener (`handler.ts`) and the web-standard handler
 * (`fetch.ts`) only translate their runtime's request and response to and from this.
 *
 * Web-standard APIs only (URL, TextEncoder, TextDecoder, atob, crypto.subtle): this module runs
 * on Node, Cloudflare Workers, Deno, Bun and edge runtimes alike.
 *
 * Secrets (the expected and the received token, password and header values) never reach a
 * response body or a log line.
 */
import { webhookLimits } from "../limits";
import { JSON_VALUE, validateWebhookResponse, webhookRequestSchema } from "./schema";
import type { WebhookRequest, WebhookResponse } from "./types";
import { describeFailures, validate } from "../schema/validate";
import type { CheckFailure } from "../schema/validate";

/**
 * Your backend: given ChatBot's request, what to say and which attributes to store. `Context` is
 * what the runtime adds: the Node request, or the web-standard `Request`.
 */
export type WebhookFunctionOf<Context> = (
    request: WebhookRequest,
    context: Context,
) => WebhookResponse | Promise<WebhookResponse>;

/** A call that could not be answered as intended, for logs; it never carries a secret. */
export interface WebhookProblem {
    /** The HTTP status answered. */
    status: number;
    /** One line for a person: what went wrong, naming properties and limits, never values. */
    message: string;
    /** The failing properties, when a request or response did not match its schema. */
    failures?: CheckFailure[];
    /** What your function threw, when it threw. */
    error?: unknown;
}

/** Where the handler's default reports go. `console` fits; so does a pino or winston logger. */
export interface WebhookLogger {
    warn(message: string): void;
    error(message: string, error?: unknown): void;
}

/** One accepted value, or several during a rotation: `[next, current]`. */
export type Accepted<T> = T | readonly T[];

/** A basic-auth pair, as set on the connection's `auth`. */
export interface BasicAuth {
    username: string;
    password: string;
}

export interface WebhookHandlerOptions {
    /**
     * The connection's `token`. With it, the verification request must carry it (else 401) and so
     * must every call, in its `token` query parameter, as ChatBot's example backend checks
     * (ChatBotCom/nodejs-webhook-example, index.js: "check token in every request"). Several
     * (`[next, current]`) while a token is rotated: a call presenting any of them is accepted.
     */
    token?: Accepted<string>;
    /** Basic authorization the caller must present, as set on the connection's `auth`; several
     *  pairs while the password is rotated. */
    auth?: Accepted<BasicAuth>;
    /** Header values the caller must present, as set on the connection's `headers`; several values
     *  for one header while it is rotated. */
    headers?: Record<string, Accepted<string>>;
    /** Largest request body accepted, in bytes; a larger one is answered 413. Default 1 MiB. */
    maxBodyBytes?: number;
    /** Where the default reports below are written. Default: `console`. */
    logger?: WebhookLogger;
    /**
     * Called when the fault is on your side (500): your function threw, or returned a response
     * ChatBot would reject. Default: `logger.error`.
     */
    onError?: (problem: WebhookProblem) => void;
    /**
     * Called when a call is refused (400, 401, 405, 413): the caller gets the reason in the body.
     * Default: `logger.warn`, one line without any secret, so a misconfigured connection shows.
     */
    onReject?: (problem: WebhookProblem) => void;
    /**
     * Called when answering took longer than ChatBot waits (`webhookLimits.callTimeoutMs`): ChatBot
     * has failed the call although it was answered. Default: `logger.warn`.
     */
    onSlow?: (durationMs: number) => void;
}

export type WebhookVerification = { ok: true; failures: [] } | { ok: false; failures: CheckFailure[] };

/** The largest body the kit reads: a call's, by default, in the handlers; a backend's answer, in the probe. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * A stream's text, read up to `limit` bytes: undefined once it is over, the stream cancelled there,
 * so a body of any size takes at most `limit` and a chunk of memory. A stream that fails throws.
 */
export async function readTextUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<string | undefined> {
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
            await reader.cancel().catch(() => undefined);
            return undefined;
        }
        chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
        bytes.set(c, at);
        at += c.byteLength;
    }
    return new TextDecoder().decode(bytes);
}

/**
 * Checks a response against what ChatBot accepts, as the handler does before answering. For unit
 * tests of your function: `assert.deepEqual(verifyWebhookResponse(await answer(call)).failures, [])`.
 */
export function verifyWebhookResponse(value: unknown): WebhookVerification {
    const result = validateWebhookResponse(value);
    return result.ok ? { ok: true, failures: [] } : { ok: false, failures: result.failures };
}

/** The request body as a runtime delivered it. */
export type Body = { kind: "json"; value: unknown } | { kind: "notJson" } | { kind: "tooLarge" } | { kind: "aborted" };

/** A call, as the runtime adapters hand it over. */
export interface IncomingCall {
    method: string;
    /** Only the path and the query matter. */
    url: URL;
    /** A header's value by lower-case name; repeated headers joined with ", ". */
    header(name: string): string | undefined;
    readBody(limit: number): Promise<Body>;
}

/** What to answer; `undefined` when the caller went away. */
export interface Answer {
    status: number;
    headers: Record<string, string>;
    body: string;
}

export const LOG_PREFIX = "pulumi-chatbot webhook:";

const JSON_TYPE = "application/json; charset=utf-8";

/** Parses a body that was read whole. */
export function parseJson(text: string): Body {
    try {
        return { kind: "json", value: JSON.parse(text) as unknown };
    } catch {
        return { kind: "notJson" };
    }
}

/** The options, with their defaults, as each step of a call reads them. */
interface Handling {
    options: WebhookHandlerOptions;
    maxBodyBytes: number;
    /** The tokens the query may carry, as given when the handler was made. */
    tokens: readonly string[] | undefined;
    auths: readonly BasicAuth[] | undefined;
    onSlow: (durationMs: number) => void;
    requiredHeaders: Array<{ name: string; values: readonly string[] }>;
    /** Refuses the call (4xx), telling the caller why. */
    reject(problem: WebhookProblem, extra?: Record<string, string>): Answer;
    /** Answers 500: the fault is on your side. */
    fail(problem: WebhookProblem): Answer;
}

function handlingOf(options: WebhookHandlerOptions): Handling {
    const logger = options.logger ?? console;
    const onError =
        options.onError ??
        ((p: WebhookProblem) => logger.error(`${LOG_PREFIX} answered ${p.status}: ${p.message}`, p.error));
    const onReject =
        options.onReject ??
        ((p: WebhookProblem) => logger.warn(`${LOG_PREFIX} refused a call (${p.status}): ${p.message}`));
    const onSlow =
        options.onSlow ??
        ((ms: number) =>
            logger.warn(
                `${LOG_PREFIX} answered after ${ms} ms, over ChatBot's limit of ${webhookLimits.callTimeoutMs} ms: ` +
                    "ChatBot has already failed this call, so the answer was not used",
            ));
    return {
        options,
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        tokens: acceptedList("token", options.token),
        auths: acceptedList("auth", options.auth),
        onSlow,
        requiredHeaders: Object.entries(options.headers ?? {}).map(([name, value]) => ({
            name: name.toLowerCase(),
            // A header named with no value (an unset variable) is refused like a missing list entry.
            values: acceptedList(`headers.${name}`, value, true)!,
        })),
        reject(problem, extra = {}) {
            onReject(problem);
            const body = problem.failures
                ? { error: problem.message, failures: problem.failures.map((f) => f.reason) }
                : { error: problem.message };
            return json(problem.status, body, extra);
        },
        fail(problem) {
            onError(problem);
            // The caller learns only that it failed: the details are for your logs.
            return json(500, { error: "internal error" });
        },
    };
}

/**
 * ChatBot's verification request: GET <url>?challenge=<random>&token=<token>, answered 200 with
 * the challenge as the body, and 401 when the token is wrong (help center, "Verification
 * request"; ChatBotCom/nodejs-webhook-example, index.js). Only the token is checked: neither
 * source says the request carries the connection's auth or headers.
 */
async function answerVerification(h: Handling, query: URLSearchParams): Promise<Answer> {
    const { tokens } = h;
    if (tokens !== undefined && !(await anySecret(query.get("token") ?? undefined, tokens))) {
        return h.reject({ status: 401, message: "unauthorized: verification request with a missing or wrong token" });
    }
    return {
        status: 200,
        headers: {
            "content-type": "text/plain; charset=utf-8",
            "x-content-type-options": "nosniff",
            "cache-control": "no-store",
        },
        body: query.get("challenge") ?? "",
    };
}

/** The refusal of a call whose token, basic authorization or required headers are missing or
 *  wrong; undefined when all are as configured. */
async function refusedCredentials(h: Handling, call: IncomingCall): Promise<Answer | undefined> {
    const { tokens, auths } = h;
    if (tokens !== undefined && !(await anySecret(call.url.searchParams.get("token") ?? undefined, tokens))) {
        return h.reject({ status: 401, message: "unauthorized: token query parameter missing or wrong" });
    }
    if (auths !== undefined && !(await basicAuthMatches(call.header("authorization"), auths))) {
        return h.reject(
            { status: 401, message: "unauthorized: basic authorization missing or wrong" },
            { "www-authenticate": 'Basic realm="webhook", charset="UTF-8"' },
        );
    }
    for (const header of h.requiredHeaders) {
        if (!(await anySecret(call.header(header.name), header.values))) {
            // The header's name helps whoever configures the connection; its value stays out.
            return h.reject({ status: 401, message: `unauthorized: header ${header.name} missing or wrong` });
        }
    }
    return undefined;
}

/** The call's body as a valid webhook request, or the answer that refuses it (undefined: the
 *  caller went away). */
async function readRequest(
    h: Handling,
    call: IncomingCall,
): Promise<{ request: WebhookRequest } | { answer: Answer | undefined }> {
    const body = await call.readBody(h.maxBodyBytes);
    if (body.kind === "aborted") return { answer: undefined };
    if (body.kind === "tooLarge") {
        return { answer: h.reject({ status: 413, message: `request body larger than ${h.maxBodyBytes} bytes` }) };
    }
    if (body.kind === "notJson")
        return { answer: h.reject({ status: 400, message: "request body is not valid JSON" }) };
    const request = validate(webhookRequestSchema, body.value, JSON_VALUE);
    if (!request.ok) {
        return { answer: h.reject({ status: 400, message: "invalid webhook request", failures: request.failures }) };
    }
    return { request: request.value };
}

/** Your function's answer, checked against what ChatBot accepts and written as JSON. */
async function runFunction<Context>(
    h: Handling,
    fn: WebhookFunctionOf<Context>,
    request: WebhookRequest,
    context: Context,
): Promise<Answer> {
    let result: unknown;
    try {
        result = await fn(request, context);
    } catch (error) {
        return h.fail({ status: 500, message: "the webhook function threw", error });
    }
    const response = validateWebhookResponse(result);
    if (!response.ok) {
        return h.fail({
            status: 500,
            message: `the webhook function returned a response ChatBot would reject: ${describeFailures(response.failures)}`,
            failures: response.failures,
        });
    }
    try {
        return { status: 200, headers: { ...JSON_HEADERS }, body: JSON.stringify(response.value) };
    } catch (error) {
        // e.g. a BigInt or a cycle inside `attributes`
        return h.fail({ status: 500, message: "the webhook response could not be written as JSON", error });
    }
}

/** One call, step by step: a verification request, the method, the credentials, the body, your function. */
async function answer<Context>(
    h: Handling,
    fn: WebhookFunctionOf<Context>,
    call: IncomingCall,
    context: Context,
): Promise<Answer | undefined> {
    if (call.method === "GET" && call.url.searchParams.has("challenge")) {
        return answerVerification(h, call.url.searchParams);
    }
    if (call.method !== "POST") {
        return h.reject({ status: 405, message: "method not allowed: use POST" }, { allow: "POST" });
    }
    const refused = await refusedCredentials(h, call);
    if (refused) return refused;
    const read = await readRequest(h, call);
    if ("answer" in read) return read.answer;
    return runFunction(h, fn, read.request, context);
}

/** The shared flow; the adapters pass their runtime's context through to your function. */
export function createCallHandler<Context>(
    fn: WebhookFunctionOf<Context>,
    options: WebhookHandlerOptions,
): (call: IncomingCall, context: Context) => Promise<Answer | undefined> {
    const h = handlingOf(options);
    return async (call, context) => {
        const started = Date.now();
        const result = await answer(h, fn, call, context);
        const took = Date.now() - started;
        if (took > webhookLimits.callTimeoutMs) h.onSlow(took);
        return result;
    };
}

const JSON_HEADERS = { "content-type": JSON_TYPE, "cache-control": "no-store" };

function json(status: number, body: unknown, extra: Record<string, string> = {}): Answer {
    return { status, headers: { ...JSON_HEADERS, ...extra }, body: JSON.stringify(body) };
}

// Credentials ---------------------------------------------------------------------------------

const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
}

/**
 * Compares in constant time. Both sides are hashed first, so neither the content nor the length
 * of the expected value shows in the time taken; the digests are then compared over every byte.
 */
export async function sameSecret(received: string | undefined, expected: string): Promise<boolean> {
    const [a, b] = await Promise.all([digest(received ?? ""), digest(expected)]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0 && received !== undefined;
}

/** Decodes base64 into UTF-8 text without Node's Buffer; `undefined` when it is not base64. */
function fromBase64(value: string): string | undefined {
    try {
        const binary = atob(value);
        const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
        return undefined;
    }
}

async function basicAuthMatches(header: string | undefined, accepted: readonly BasicAuth[]): Promise<boolean> {
    const match = /^basic\s+(\S+)\s*$/i.exec(header ?? "");
    const decoded = (match && fromBase64(match[1])) ?? "";
    const colon = decoded.indexOf(":");
    const username = colon < 0 ? undefined : decoded.slice(0, colon);
    const password = colon < 0 ? undefined : decoded.slice(colon + 1);
    // Both compared, with every pair, every time: which one failed, or which pair matched, must
    // not show in the time taken.
    const verdicts = await Promise.all(
        accepted.map(async (pair) => {
            const [userOk, passwordOk] = await Promise.all([
                sameSecret(username, pair.username),
                sameSecret(password, pair.password),
            ]);
            return userOk && passwordOk;
        }),
    );
    return verdicts.some(Boolean);
}

/**
 * The one rule for a set of accepted values (a rotation's old and new): the received value is
 * compared with every one of them, in constant time each and none skipped, and accepted when it
 * is any of them.
 */
export async function anySecret(received: string | undefined, accepted: readonly string[]): Promise<boolean> {
    const verdicts = await Promise.all(accepted.map((value) => sameSecret(received, value)));
    return verdicts.some(Boolean);
}

/**
 * An option's accepted values as a list; `undefined` when not set. An empty list or an entry
 * that is no value (an unset variable in `[process.env.NEXT, current]`) is refused when the
 * handler is made: it would accept no call, or an empty secret. The message names the option,
 * never a value.
 */
function acceptedList<T>(option: string, value: Accepted<T> | undefined, required = false): readonly T[] | undefined {
    if (value === undefined && !required) return undefined;
    const list: readonly T[] = Array.isArray(value) ? (value as readonly T[]) : [value as T];
    if (list.length === 0 || list.some((v) => v === undefined || v === null)) {
        throw new TypeError(
            `pulumi-chatbot webhook: ${option} must be a value or a non-empty list of values ` +
                `(leave it out to check nothing); one was ${list.length === 0 ? "an empty list" : "missing"}`,
        );
    }
    return list;
}
