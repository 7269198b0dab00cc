/**
 * Errors of the ChatBot API client: one class per status family, each naming the operation, the
 * HTTP status and what the API said. None carries a secret: messages are redacted before they are
 * built (./redact.ts). This file imports nothing: what the package's users are told to do about
 * an error (set a token, deploy a backend) is added where the client is used.
 */

export interface ApiErrorDetails {
    /** What was being done, e.g. `create webhook connection "orders"`. */
    operation: string;
    /** HTTP status; undefined when no response arrived. */
    status?: number;
    /** The envelope's `status.type`, e.g. `badRequest`. */
    statusType?: string;
    /** The API's own words, from the envelope's status part. */
    apiMessage?: string;
    /** The `x-request-id` header, when the API sent one. */
    requestId?: string;
    /** True when a write may have been carried out although it failed: it was sent and then the
     *  connection was cut, no answer came in time, the API answered 5xx, or its 2xx was unusable.
     *  After a POST, the connection may exist. */
    ambiguous?: boolean;
    /** The `Retry-After` header, as sent: seconds or an HTTP date. */
    retryAfter?: string;
    /** A sentence to add, e.g. how the status was learnt. */
    note?: string;
}

export class ChatbotApiError extends Error {
    readonly operation: string;
    readonly status?: number;
    readonly statusType?: string;
    readonly apiMessage?: string;
    readonly requestId?: string;
    readonly ambiguous: boolean;
    readonly retryAfter?: string;

    constructor(details: ApiErrorDetails, summary?: string) {
        super(ChatbotApiError.compose(details, summary));
        this.name = new.target.name;
        this.operation = details.operation;
        this.status = details.status;
        this.statusType = details.statusType;
        this.apiMessage = details.apiMessage;
        this.requestId = details.requestId;
        this.ambiguous = details.ambiguous ?? false;
        this.retryAfter = details.retryAfter;
    }

    private static compose(d: ApiErrorDetails, summary?: string): string {
        const parts = [`${d.operation} failed`];
        if (d.status !== undefined) {
            parts.push(`: ChatBot API answered HTTP ${d.status}${d.statusType ? ` (${d.statusType})` : ""}`);
            if (d.apiMessage) parts.push(`: ${d.apiMessage}`);
        }
        for (const sentence of [summary, d.note])
            if (sentence) parts.push(`${d.status === undefined && parts.length === 1 ? ": " : ". "}${sentence}`);
        if (d.requestId) parts.push(` [request id ${d.requestId}]`);
        return parts.join("");
    }
}

/** 400: the request did not match the documented format. */
export class BadRequestError extends ChatbotApiError {}

/** 401: the developer access token was rejected. `details.note` says how to set a valid one. */
export class AuthenticationError extends ChatbotApiError {
    constructor(details: ApiErrorDetails) {
        super(details, "The developer access token was rejected.");
    }
}

/** 404: the resource does not exist. */
export class NotFoundError extends ChatbotApiError {}

/** 429: too many requests. */
export class RateLimitError extends ChatbotApiError {}

/** 5xx: a fault of the service. */
export class ServerError extends ChatbotApiError {}

/** Any other 4xx. */
export class ClientError extends ChatbotApiError {}

/**
 * No answer arrived. `reason` says how far the request got:
 * - `unreachable`: no connection could be made (refused, unknown host): the API never saw it;
 * - `reset`: the connection was closed before an answer: the API may have acted on it;
 * - `timeout`: no answer in time: the API may have acted on it, or may still be acting on it.
 */
export class ConnectionError extends ChatbotApiError {
    readonly reason: "unreachable" | "reset" | "timeout";

    constructor(details: ApiErrorDetails & { reason: ConnectionError["reason"] }, summary?: string) {
        super(details, summary);
        this.reason = details.reason;
    }
}

/** The answer was not what the API documents (not JSON, or a wrong envelope). */
export class ResponseFormatError extends ChatbotApiError {}

/**
 * A write the API answered, but whose effect a read does not show: an update whose read-back
 * does not hold what was sent (`fields` names what differs, never the values), or a resource
 * still there after its delete.
 */
export class WriteNotAppliedError extends ChatbotApiError {
    readonly fields: string[];

    constructor(details: ApiErrorDetails, fields: string[], summary: string) {
        super(details, summary);
        this.fields = fields;
    }
}

export function errorForStatus(details: ApiErrorDetails & { status: number }): ChatbotApiError {
    const status = details.status;
    if (status === 400) return new BadRequestError(details);
    if (status === 401) return new AuthenticationError(details);
    if (status === 404) return new NotFoundError(details);
    if (status === 429) return new RateLimitError(details);
    if (status >= 500) return new ServerError(details);
    return new ClientError(details);
}

/** Adds a sentence to an error's message (after a full stop), and returns the error. */
export function appendNote<E extends Error>(e: E, note: string): E {
    e.message = `${e.message}${/[.\]]$/.test(e.message) ? "" : "."} ${note}`;
    return e;
}
