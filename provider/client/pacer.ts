/**
 * Pacing: how fast this process sends once the API has said it sends too fast.
 *
 * ChatBot publishes no rate limit (its API description: "Rate limits: not shown"), and every
 * pipeline that shares an account shares whatever the limit is. So each process finds its share
 * as TCP finds a link's: additive increase, multiplicative decrease (AIMD), which is known to
 * converge on a fair share of the capacity among processes that never talk to each other.
 * - Until the first 429 nothing is paced.
 * - A 429 (or a 503 with `Retry-After`) for a request sent at the current rate lowers the rate to
 *   `DECREASE` times what this process was really sending in the last second. Answers to requests
 *   sent before the last decrease do not lower it again: they tell of the old rate.
 * - Each success raises the rate by `INCREASE_PER_SECOND / rate`: about `INCREASE_PER_SECOND`
 *   requests a second more every second while this process sends at its rate.
 * - Requests wait their turn in order, spaced `1 / rate` apart, so requests that were all told to
 *   wait do not all wake and send at once.
 * The figures are measured in the bench (bench/run.ts, "ten pipelines on one account").
 */
import { pause } from "./retry";

/** The rate after a 429, as a share of what was sent in the second before it. */
export const DECREASE = 0.7;
/** Requests per second added per second of sending at the rate. */
export const INCREASE_PER_SECOND = 1;
/** The lowest rate: one request every two seconds. */
export const MIN_PER_SECOND = 0.5;
/** The window over which this process's own sending rate is measured. */
const WINDOW_MS = 1000;

export class Pacer {
    /** Requests per second this process allows itself; Infinity until the API first limits it. */
    rate = Infinity;
    /** Times the rate was lowered. */
    decreases = 0;
    /** When the next request may be sent. */
    private nextAt = 0;
    private lastDecreaseAt = -Infinity;
    /** When each request of the last `WINDOW_MS` was sent. */
    private readonly recent: number[] = [];

    constructor(private readonly now: () => number = Date.now) {}

    /** Waits for this request's turn; returns when it was sent, for `limited`, or undefined if
     *  the run is being cancelled (`stopWaiting`): then it must not be sent. */
    async turn(): Promise<number | undefined> {
        const now = this.now();
        const at = Math.max(now, this.nextAt);
        if (Number.isFinite(this.rate)) this.nextAt = at + 1000 / this.rate;
        if (at > now && !(await pause(at - now))) return undefined;
        const sentAt = this.now();
        this.recent.push(sentAt);
        while (this.recent.length > 0 && this.recent[0] <= sentAt - WINDOW_MS) this.recent.shift();
        return sentAt;
    }

    /** The API limited a request sent at `sentAt`. */
    limited(sentAt: number): void {
        if (sentAt < this.lastDecreaseAt) return;
        const now = this.now();
        const sending = this.recent.filter((t) => t > now - WINDOW_MS).length;
        this.rate = Math.max(MIN_PER_SECOND, DECREASE * Math.min(this.rate, Math.max(sending, 1)));
        this.lastDecreaseAt = now;
        this.decreases++;
        // Turns already given out keep their times; the next one is spaced at the new rate.
        this.nextAt = Math.max(this.nextAt, now + 1000 / this.rate);
    }

    /** How long a request asking for its turn now would wait. */
    queuedMs(): number {
        return Math.max(0, this.nextAt - this.now());
    }

    /** A request succeeded. */
    succeeded(): void {
        if (Number.isFinite(this.rate)) this.rate += INCREASE_PER_SECOND / this.rate;
    }
}
