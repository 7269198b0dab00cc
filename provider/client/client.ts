/**
 * The ChatBot HTTP client: bearer auth, JSON bodies, typed errors, one keep-alive connection pool
 * per process. Resources say what to send; this file knows only how.
 *
 * undici is loaded on first use, so a plugin that only checks and diffs (preview) never loads it.
 */
import type { Dispatcher } from "undici";
import { ChatbotApiError, ConnectionError, ResponseFormatError, errorForStatus, redact } from "./errors";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export interface ClientOptions {
    /** Base address, e.g. `https://api.chatbot.com` or a simulator's `http://127.0.0.1:PORT`. */
    apiUrl: string;
    /** The developer access token. */
    token: string;
    /** Time allowed for the response headers, and again for the body (ms). Default 30 s. */
    timeoutMs?: number;
    /** A dispatcher of the caller's; default: one shared keep-alive pool. */
    dispatcher?: Dispatcher;
}

export interface RequestOptions {
    /** What is being done, for error messages: `create webhook connection "orders"`. */
    operation: string;
    /** JSON body. */
    body?: unknown;
    /** Values to keep out of error messages (the client adds its own token). */
    secrets?: ReadonlyArray<string | undefined>;
}

const VERSION: string = (require("../../package.json") as { version: string }).version;

let sharedDispatcher: Dispatcher | undefined;
function defaultDispatcher(): Dispatcher {
    if (!sharedDispatcher) {
        const { Agent } = require("undici") as typeof import("undici");
        sharedDispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
    }
    return sharedDispatcher;
}

export class ChatbotClient {
    private readonly base: string;

    constructor(private readonly options: ClientOptions) {
        this.base = options.apiUrl.replace(/\/+$/, "");
    }

    get apiUrl(): string {
        return this.base;
    }

    /** Sends one request and returns its parsed JSON body; a non-2xx answer throws. */
    async request(method: Method, path: string, opts: RequestOptions): Promise<unknown> {
        const { request } = require("undici") as typeof import("undici");
        const secrets = [...(opts.secrets ?? []), this.options.token];
        const timeout = this.options.timeoutMs ?? 30_000;
        let statusCode: number;
        let headers: Record<string, string | string[] | undefined>;
        let text: string;
        try {
            const res = await request(`${this.base}${path}`, {
                method,
                headers: {
                    authorization: `Bearer ${this.options.token}`,
                    accept: "application/json",
                    "user-agent": `pulumi-chatbot/${VERSION}`,
                    ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
                },
                body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
                dispatcher: this.options.dispatcher ?? defaultDispatcher(),
                headersTimeout: timeout,
                bodyTimeout: timeout,
            });
            statusCode = res.statusCode;
            headers = res.headers;
            text = await res.body.text();
        } catch (e) {
            // The request may have reached the API before the failure: for a create, it may exist.
            const reason = redact(e instanceof Error ? describeNetworkError(e) : String(e), secrets);
            throw new ConnectionError(
                { operation: opts.operation, ambiguous: method !== "GET" },
                `No answer from the ChatBot API at ${this.base}: ${reason}`,
            );
        }
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
            });
        }
        if (!parsed) {
            throw new ResponseFormatError(
                { operation: opts.operation, status: statusCode, requestId, ambiguous: method !== "GET" },
                "The answer was not JSON.",
            );
        }
        return json;
    }
}

function firstHeader(v: string | string[] | undefined): string | undefined {
    return Array.isArray(v) ? v[0] : v;
}

/** The envelope's status part: `{code, type}` and, where the API adds it, a message. */
function envelopeStatus(json: unknown): { type?: string; message?: string } {
    if (json === null || typeof json !== "object") return {};
    const status = (json as { status?: unknown }).status;
    const out: { type?: string; message?: string } = {};
    if (status !== null && typeof status === "object") {
        const s = status as Record<string, unknown>;
        if (typeof s.type === "string") out.type = s.type;
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

function describeNetworkError(e: Error): string {
    const code = (e as { code?: unknown }).code;
    const cause = (e as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? ` (${cause.message})` : "";
    return `${typeof code === "string" ? `${code}: ` : ""}${e.message}${causeText}`;
}

export { ChatbotApiError };
