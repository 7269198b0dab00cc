/**
 * A Node request listener that answers ChatBot's webhook calls correctly: it checks the caller,
 * validates the request, calls your function and validates its answer before sending it, so a
 * response ChatBot would reject is caught in your logs, named by property and limit, instead of
 * failing silently in the chat.
 *
 *     http.createServer(createWebhookHandler(async (call) => ({ responses: [text(`Hi ${call.userId}`)] })));
 *
 * Secrets (the expected and the received credentials) never reach a response body or a log line.
 */
import { createHash, timingSafeEqual } from "crypto";
import type { IncomingMessage, ServerResponse } from "http";
import { webhookRequestSchema, webhookResponseSchema } from "../schema/webhook";
import type { WebhookRequest, WebhookResponse } from "../schema/webhook";
import { describeFailures, validate } from "../schema/validate";
import type { CheckFailure } from "../schema/validate";

/** What your function gets beside the request: the raw Node request (headers, URL). */
export interface WebhookContext {
    req: IncomingMessage;
}

/** Your backend: given ChatBot's request, what to say and which attributes to store. */
export type WebhookFunction = (
    request: WebhookRequest,
    context: WebhookContext,
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

export interface WebhookHandlerOptions {
    /** Basic authorization the caller must present, as set on the connection's `auth`. */
    auth?: { username: string; password: string };
    /** Header values the caller must present, as set on the connection's `headers`. */
    headers?: Record<string, string>;
    /** Largest request body accepted, in bytes; a larger one is answered 413. Default 1 MiB. */
    maxBodyBytes?: number;
    /**
     * Called when the fault is on your side (500): your function threw, or returned a response
     * ChatBot would reject. Default: `console.error`.
     */
    onError?: (problem: WebhookProblem) => void;
    /**
     * Called when a call is refused (400, 401, 405, 413): the caller gets the reason in the body.
     * Default: nothing, so stray requests do not fill your logs.
     */
    onReject?: (problem: WebhookProblem) => void;
}

export type WebhookVerification = { ok: true; failures: [] } | { ok: false; failures: CheckFailure[] };

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Checks a response against what ChatBot accepts, as the handler does before answering. For unit
 * tests of your function: `assert.deepEqual(verifyWebhookResponse(await answer(call)).failures, [])`.
 */
export function verifyWebhookResponse(value: unknown): WebhookVerification {
    const result = validate(webhookResponseSchema, value);
    return result.ok ? { ok: true, failures: [] } : { ok: false, failures: result.failures };
}

/** Returns a `(req, res)` listener for `http.createServer`, Express, or anything alike. */
export function createWebhookHandler(
    fn: WebhookFunction,
    options: WebhookHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const onError = options.onError ?? defaultOnError;
    const onReject = options.onReject ?? (() => undefined);
    const requiredHeaders = Object.entries(options.headers ?? {}).map(([name, value]) => ({
        name: name.toLowerCase(),
        value,
    }));

    const reject = (res: ServerResponse, problem: WebhookProblem, extra: Record<string, string> = {}) => {
        onReject(problem);
        const body = problem.failures
            ? { error: problem.message, failures: problem.failures.map((f) => f.reason) }
            : { error: problem.message };
        send(res, problem.status, body, extra);
    };
    const fail = (res: ServerResponse, problem: WebhookProblem) => {
        onError(problem);
        // The caller learns only that it failed: the details are for your logs.
        send(res, 500, { error: "internal error" });
    };

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        if (req.method !== "POST") {
            return reject(res, { status: 405, message: "method not allowed: use POST" }, { allow: "POST" });
        }
        if (options.auth && !basicAuthMatches(req, options.auth)) {
            return reject(
                res,
                { status: 401, message: "unauthorized: basic authorization missing or wrong" },
                { "www-authenticate": 'Basic realm="webhook", charset="UTF-8"' },
            );
        }
        const badHeader = requiredHeaders.find((h) => !sameSecret(headerValue(req, h.name), h.value));
        if (badHeader) {
            // The header's name helps whoever configures the connection; its value stays out.
            return reject(res, { status: 401, message: `unauthorized: header ${badHeader.name} missing or wrong` });
        }

        const body = await readBody(req, maxBodyBytes);
        if (body.kind === "aborted") return;
        if (body.kind === "tooLarge") {
            return reject(
                res,
                { status: 413, message: `request body larger than ${maxBodyBytes} bytes` },
                { connection: "close" },
            );
        }
        if (body.kind === "notJson") {
            return reject(res, { status: 400, message: "request body is not valid JSON" });
        }

        const request = validate(webhookRequestSchema, body.value);
        if (!request.ok) {
            return reject(res, { status: 400, message: "invalid webhook request", failures: request.failures });
        }

        let answer: unknown;
        try {
            answer = await fn(request.value, { req });
        } catch (error) {
            return fail(res, { status: 500, message: "the webhook function threw", error });
        }
        const response = validate(webhookResponseSchema, answer);
        if (!response.ok) {
            return fail(res, {
                status: 500,
                message: `the webhook function returned a response ChatBot would reject: ${describeFailures(response.failures)}`,
                failures: response.failures,
            });
        }
        let json: string;
        try {
            json = JSON.stringify(response.value);
        } catch (error) {
            // e.g. a BigInt or a cycle inside `attributes`
            return fail(res, { status: 500, message: "the webhook response could not be written as JSON", error });
        }
        sendJson(res, 200, json);
    }

    return (req, res) => {
        handle(req, res).catch((error: unknown) => {
            // Only a fault of this file gets here; keep the server alive and the caller answered.
            onError({ status: 500, message: "the webhook handler failed", error });
            if (!res.headersSent) send(res, 500, { error: "internal error" });
            else res.destroy();
        });
    };
}

function defaultOnError(problem: WebhookProblem): void {
    const line = `pulumi-chatbot webhook: answered ${problem.status}: ${problem.message}`;
    if (problem.error === undefined) console.error(line);
    else console.error(line, problem.error);
}

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
    sendJson(res, status, JSON.stringify(body), extra);
}

function sendJson(res: ServerResponse, status: number, json: string, extra: Record<string, string> = {}): void {
    res.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": String(Buffer.byteLength(json)),
        "cache-control": "no-store",
        ...extra,
    });
    res.end(json);
}

// Credentials ---------------------------------------------------------------------------------

/**
 * Compares in constant time. Both sides are hashed first, so neither the content nor the length
 * of the expected value shows in the time taken.
 */
function sameSecret(received: string | undefined, expected: string): boolean {
    const a = createHash("sha256")
        .update(received ?? "")
        .digest();
    const b = createHash("sha256").update(expected).digest();
    return timingSafeEqual(a, b) && received !== undefined;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
}

function basicAuthMatches(req: IncomingMessage, expected: { username: string; password: string }): boolean {
    const match = /^basic\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const decoded = match ? Buffer.from(match[1], "base64").toString("utf8") : "";
    const colon = decoded.indexOf(":");
    const username = colon < 0 ? undefined : decoded.slice(0, colon);
    const password = colon < 0 ? undefined : decoded.slice(colon + 1);
    // Both compared every time: which one failed must not show in the time taken.
    const userOk = sameSecret(username, expected.username);
    const passwordOk = sameSecret(password, expected.password);
    return userOk && passwordOk;
}

// Body ----------------------------------------------------------------------------------------

type Body = { kind: "json"; value: unknown } | { kind: "notJson" } | { kind: "tooLarge" } | { kind: "aborted" };

function parseJson(text: string): Body {
    try {
        return { kind: "json", value: JSON.parse(text) as unknown };
    } catch {
        return { kind: "notJson" };
    }
}

/**
 * Reads the JSON body, up to `limit` bytes. A body a framework has already read (Express's
 * `express.json()`, `express.text()`) is taken from `req.body`, since the stream is spent.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Body> {
    const preRead = (req as IncomingMessage & { body?: unknown }).body;
    if (req.readableEnded && preRead !== undefined) {
        if (typeof preRead === "string") return Promise.resolve(parseJson(preRead));
        if (Buffer.isBuffer(preRead)) return Promise.resolve(parseJson(preRead.toString("utf8")));
        return Promise.resolve({ kind: "json", value: preRead });
    }
    // Read already, by middleware that kept nothing: no event will come, so do not wait for one.
    if (req.readableEnded) return Promise.resolve({ kind: "notJson" });
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: "tooLarge" });

    return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (body: Body) => {
            req.off("data", onData);
            req.off("end", onEnd);
            req.off("error", onAbort);
            req.off("close", onAbort);
            resolve(body);
        };
        const onData = (chunk: Buffer) => {
            size += chunk.length;
            if (size > limit) {
                // Stop reading; the 413 goes out with `connection: close`, which ends the upload.
                req.pause();
                return done({ kind: "tooLarge" });
            }
            chunks.push(chunk);
        };
        const onEnd = () => done(parseJson(Buffer.concat(chunks).toString("utf8")));
        const onAbort = () => done({ kind: "aborted" });
        req.on("data", onData);
        req.on("end", onEnd);
        req.on("error", onAbort);
        req.on("close", onAbort); // closed before its end: the caller went away
    });
}
