/**
 * The retry policy: what may be sent again after which failure, and how long to wait first.
 *
 * - 429, and an API that could not be reached at all (refused, unknown host), for every method:
 *   the API did nothing;
 * - 5xx, a connection cut before the answer, a timeout and an unusable answer, for GET, PUT and
 *   DELETE only: doing them twice is the same as once.
 * A POST (create) that may have been carried out is never repeated here: the resource first looks
 * for what it may have made (`createOnce` in resources/writes.ts).
 * Waits follow `Retry-After` (seconds or an HTTP date) when the API sends one, else exponential
 * backoff with full jitter. When the API limits requests (429, or 503 with `Retry-After`: it says
 * when to come back), the client waits as told for as long as the time budget allows, however
 * many attempts that takes: a pipeline must not fail because the API asked it to wait. Other
 * failures are bounded by attempts as well as by the budget (`RetryPolicy`). Every wait ends at
 * once when the run is being cancelled (./cancel.ts).
 *
 * Why not undici's RetryAgent/RetryHandler: it honours Retry-After (seconds and dates), but its
 * backoff has no jitter, nothing bounds the total time, and one `methods` list governs both status
 * and network retries, so "POST on 429 but not after a reset" cannot be said without replacing its
 * `retry` function, which is the whole policy. It also cannot retry on a 2xx whose body is not the
 * documented one. This file is the policy, in one place.
 */
import {
    ChatbotApiError,
    ConnectionError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    appendNote,
} from "./errors";
import { pause, STOPPING } from "./cancel";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export interface RetryPolicy {
    /** Attempts in all, the first one included. */
    maxAttempts: number;
    /** The wait before retry n is random, up to min(maxDelayMs, baseDelayMs · 2^(n-1)) ("full jitter"). */
    baseDelayMs: number;
    maxDelayMs: number;
    /** The time budget: no retry starts later than this after the first attempt; a Retry-After
     *  beyond it ends the retries at once (waiting would only delay the same failure). */
    maxElapsedMs: number;
    /** Added when the budget is spent: how to give it more. */
    budgetHint?: string;
}

export const DEFAULT_RETRY: RetryPolicy = {
    maxAttempts: 5,
    baseDelayMs: 500,
    maxDelayMs: 10_000,
    // Minutes, not seconds: an account shared by many pipelines may ask each to wait often.
    maxElapsedMs: 300_000,
};

/** See the file's comment. A POST is retried only where the API certainly did nothing. */
export function safeToRetry(method: Method, e: ChatbotApiError): boolean {
    if (e instanceof RateLimitError) return true;
    if (e instanceof ConnectionError && e.reason === "unreachable") return true;
    if (method === "POST") return false;
    return e instanceof ServerError || e instanceof ConnectionError || e instanceof ResponseFormatError;
}

/** The API limits requests and says so: 429, or 503 with a `Retry-After` (an overloaded API
 *  saying when to come back). Such answers are waited out, and slow the client down (./pacer.ts). */
export function isRateLimited(e: unknown): e is ChatbotApiError {
    return (
        e instanceof RateLimitError ||
        (e instanceof ServerError && e.status === 503 && retryAfterMs(e.retryAfter) !== undefined)
    );
}

/**
 * Runs `attempt` until it succeeds or throws what `retryable` refuses, waiting between attempts
 * as `policy` says. When it gives up, the last error says so, how long it waited and why.
 */
export async function retrying<T>(
    policy: RetryPolicy,
    attempt: () => Promise<T>,
    retryable: (e: ChatbotApiError) => boolean,
    /** How long the next attempt will wait for its turn (./pacer.ts) before it is sent. */
    queuedMs: () => number = () => 0,
): Promise<T> {
    const started = Date.now();
    let limits = 0;
    let failures = 0;
    for (let n = 1; ; n++) {
        try {
            return await attempt();
        } catch (e) {
            if (!(e instanceof ChatbotApiError) || !retryable(e)) throw e;
            const limited = isRateLimited(e);
            if (limited) limits++;
            else failures++;
            const elapsed = Date.now() - started;
            const tries = `${n} attempt${n === 1 ? "" : "s"} in ${duration(elapsed)}`;
            const asked = retryAfterMs(e.retryAfter);
            const wait = asked ?? backoffMs(limited ? limits : failures, policy);
            if (!limited && failures >= policy.maxAttempts) throw appendNote(e, `Gave up after ${tries}.`);
            if (elapsed + Math.max(wait, queuedMs()) > policy.maxElapsedMs) {
                const budget = `the ${duration(policy.maxElapsedMs)} retry budget`;
                const why =
                    asked !== undefined
                        ? `the API asked to wait ${duration(asked)} more, which would pass ${budget}`
                        : `another attempt would pass ${budget}`;
                const hint = policy.budgetHint ? ` ${policy.budgetHint}` : "";
                throw appendNote(
                    e,
                    `Gave up after ${tries}${limits > 0 ? ` (${limits} limited)` : ""}: ${why}.${hint}`,
                );
            }
            if (!(await pause(wait))) throw appendNote(e, `Stopped waiting to retry: ${STOPPING}.`);
        }
    }
}

/**
 * Calls `look` until it finds something or `withinMs` has passed, pausing between looks as the
 * backoff policy says (at least 50 ms, so a zero base delay is no busy loop). For asking the API
 * whether an uncertain write took effect, when it may still be taking effect.
 */
export async function lookFor<T>(
    policy: RetryPolicy,
    look: () => Promise<T | undefined>,
    withinMs: number,
): Promise<T | undefined> {
    const deadline = Date.now() + withinMs;
    let found = await look();
    for (let n = 1; found === undefined && Date.now() < deadline; n++) {
        const wait = Math.max(50, backoffCapMs(n, policy));
        if (!(await pause(Math.max(0, Math.min(wait, deadline - Date.now()))))) return found;
        found = await look();
    }
    return found;
}

/** `Retry-After` in ms: delay-seconds, or an HTTP date (a past date is 0). Undefined if absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
    const value = header?.trim();
    if (!value) return undefined;
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const date = /[a-z]/i.test(value) ? Date.parse(value) : NaN;
    return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The exponential backoff before retry (or look) n: min(maxDelayMs, baseDelayMs · 2^(n-1)). */
function backoffCapMs(n: number, policy: RetryPolicy): number {
    return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
}

/** The backoff with full jitter: random, up to backoffCapMs. */
export function backoffMs(n: number, policy: RetryPolicy, random: () => number = Math.random): number {
    return Math.floor(random() * backoffCapMs(n, policy));
}

/** `120 ms`, `1.5 s`, `60 s` */
export function duration(ms: number): string {
    if (ms < 1000) return `${Math.round(ms)} ms`;
    return `${ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10} s`;
}
