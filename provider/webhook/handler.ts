/**
 * A Node request listener that answers ChatBot's webhook calls correctly: it answers the
 * verification request, checks the caller, validates the request, calls your function and
 * validates its answer before sending it, so a response ChatBot would reject is caught in your
 * logs, named by property and limit, instead of failing silently in the chat.
 *
 *     http.createServer(createWebhookHandler(async (call) => ({ responses: [text(`Hi ${call.userId}`)] }), { token }));
 *
 * What it does with a call is in `core.ts`, shared with the web-standard `createFetchHandler`;
 * this file only reads Node's request and writes Node's response.
 */
import type { IncomingMessage, ServerResponse } from "http";
import { LOG_PREFIX, createCallHandler, parseJson } from "./core";
import type { Answer, Body, IncomingCall, WebhookFunctionOf, WebhookHandlerOptions } from "./core";

/** What your function gets beside the request: the raw Node request (headers, URL). */
export interface WebhookContext {
    req: IncomingMessage;
}

/** Your backend, as the Node listener calls it. */
export type WebhookFunction = WebhookFunctionOf<WebhookContext>;

/** Returns a `(req, res)` listener for `http.createServer`, Express, or anything alike. */
export function createWebhookHandler(
    fn: WebhookFunction,
    options: WebhookHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
    const handle = createCallHandler(fn, options);
    const logger = options.logger ?? console;
    return (req, res) => {
        const call: IncomingCall = {
            method: req.method ?? "GET",
            // The host does not matter (and may be absent): only the path and query are read.
            url: new URL(req.url ?? "/", "http://webhook.invalid"),
            header: (name) => {
                const value = req.headers[name];
                return Array.isArray(value) ? value.join(", ") : value;
            },
            readBody: (limit) => readBody(req, limit),
        };
        handle(call, { req })
            .then((answer) => answer && send(res, answer))
            .catch((error: unknown) => {
                // Only a fault of the kit gets here; keep the server alive and the caller answered.
                (options.onError ?? ((p) => logger.error(`${LOG_PREFIX} answered 500: ${p.message}`, p.error)))({
                    status: 500,
                    message: "the webhook handler failed",
                    error,
                });
                if (!res.headersSent) send(res, { status: 500, headers: {}, body: '{"error":"internal error"}' });
                else res.destroy();
            });
    };
}

function send(res: ServerResponse, answer: Answer): void {
    res.writeHead(answer.status, {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-store",
        ...answer.headers,
        "content-length": String(Buffer.byteLength(answer.body)),
        // A 413 is sent before the upload ends: closing is what stops it.
        ...(answer.status === 413 ? { connection: "close" } : {}),
    });
    res.end(answer.body);
}

// Body ----------------------------------------------------------------------------------------

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
