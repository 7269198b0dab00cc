/**
 * The ChatBot API client: requests over one keep-alive pool (./transport.ts), retried as the
 * policy says (./retry.ts), paced once the API limits them (./pacer.ts), with a limit on requests
 * in flight. Resources say what to send; the
 * client knows only how. It imports nothing from the rest of the package: `config.ts` builds one
 * from the provider's settings.
 */
import type { Dispatcher } from "undici";
import { ChatbotApiError } from "./errors";
import { Pacer } from "./pacer";
import { STOPPING } from "./cancel";
import { DEFAULT_RETRY, isRateLimited, lookFor, retrying, safeToRetry, type Method, type RetryPolicy } from "./retry";
import { sendOnce, type RequestOptions, type Target } from "./transport";

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
    /** Added to a 401's message: how to set a valid token. */
    authHint?: string;
}

export class ChatbotClient {
    readonly apiUrl: string;
    readonly timeoutMs: number;
    readonly retry: RetryPolicy;
    /** Requests on the wire at once, at most; commands that call backends too keep within it. */
    readonly maxInFlight: number;
    /** The API's clock minus ours (ms), from the `Date` header of the latest answer; 0 before any. */
    clockOffsetMs = 0;
    /** How fast this client sends once the API has limited it; shared by all its requests. */
    readonly pacer = new Pacer();
    private readonly slots: Slots;
    private readonly target: Target;

    constructor(options: ClientOptions) {
        this.apiUrl = options.apiUrl.replace(/\/+$/, "");
        this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const retry = options.retry ?? {};
        this.retry = {
            maxAttempts: retry.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
            baseDelayMs: retry.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
            maxDelayMs: retry.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
            maxElapsedMs: retry.maxElapsedMs ?? DEFAULT_RETRY.maxElapsedMs,
            budgetHint: retry.budgetHint,
        };
        this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
        this.slots = new Slots(this.maxInFlight);
        this.target = {
            apiUrl: this.apiUrl,
            token: options.token,
            timeoutMs: this.timeoutMs,
            authHint: options.authHint,
            dispatcher: options.dispatcher,
            onServerDate: (date: string | undefined) => {
                const time = date === undefined ? NaN : Date.parse(date);
                if (Number.isFinite(time)) this.clockOffsetMs = time - Date.now();
            },
        };
    }

    /** Sends a request, retrying what is safe to retry for its method; returns the parsed answer. */
    request<T = unknown>(method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
        return this.retrying(
            () => this.send(method, path, opts),
            (e) => safeToRetry(method, e),
        );
    }

    /** One attempt, no retry, in its turn (the pacer) and within the in-flight limit. */
    async send<T = unknown>(method: Method, path: string, opts: RequestOptions<T>): Promise<T> {
        const sentAt = await this.pacer.turn();
        if (sentAt === undefined) {
            throw new ChatbotApiError({ operation: opts.operation }, `Not sent: ${STOPPING}.`);
        }
        try {
            const answer = await this.slots.run(() => sendOnce(this.target, method, path, opts));
            this.pacer.succeeded();
            return answer;
        } catch (e) {
            if (isRateLimited(e)) this.pacer.limited(sentAt);
            throw e;
        }
    }

    /** Runs `attempt` under this client's retry policy (see ./retry.ts). */
    retrying<T>(attempt: () => Promise<T>, retryable: (e: ChatbotApiError) => boolean): Promise<T> {
        return retrying(this.retry, attempt, retryable, () => this.pacer.queuedMs());
    }

    /** Looks until found or `withinMs` has passed, pausing as this client's policy says. */
    lookFor<T>(look: () => Promise<T | undefined>, withinMs: number): Promise<T | undefined> {
        return lookFor(this.retry, look, withinMs);
    }
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
