/**
 * Pacing: how fast this process sends once the API has said it sends too fast.
 *
 * ChatBot publishes no rate limit (its API description: "Rate limits: not shown"), and every
 * pipeline that shares an account shares whatever the limit is. So each process finds its share
 * as TCP finds a link's: additive increase, multiplicative decrease (AIMD), which is known to
 * converge on a fair share of the capacity among processes that never talk to each other.
 * - Until the first 429 nothing is paced.
 * - A 429 (or a 503 with `Retry-After`) for a request sent at the current rate lowers the rate to
 *   `DECREASE` times what the API served this process in the last second: its share just now,
 *   which many processes starting at once learn from their first 429 instead of halving their
 *   way down to it. Answers to requests sent before the last decrease do not lower it again: they
 *   tell of the old rate.
 * - Each success raises the rate by `INCREASE_PER_SECOND / rate`: about `INCREASE_PER_SECOND`
 *   requests a second more every second while this process sends at its rate.
 * - Requests wait their turn in order, spaced `1 / rate` apart (the rate read at each turn), so
 *   requests that were all told to wait do not all wake and send at once.
 * The two figures were chosen on ten clients of eight requests at once sharing 20 requests a
 * second (1,200 requests): 0.75 and 0.5 gave 1.10 × the floor with 0.16 429s per request served;
 * 0.7 and 1 gave 1.05 × with 0.21; no pacing (waiting only as told) 1.00 × with 3.2. Measured
 * through the real CLI in the bench (bench/pipelines.ts).
 */
import { pause, waitsStopped } from "./cancel";

/** The rate after a 429, as a share of what the API served this process in the second before it. */
export const DECREASE = 0.75;
/** Requests per second added per second of sending at the rate. */
export const INCREASE_PER_SECOND = 0.5;
/** The lowest rate: one request every two seconds. */
export const MIN_PER_SECOND = 0.5;
/** The window over which what the API served this process is counted. */
const WINDOW_MS = 1000;

export class Pacer {
    /** Requests per second this process allows itself; Infinity until the API first limits it. */
    rate = Infinity;
    /** Times the rate was lowered. */
    decreases = 0;
    /** Requests waiting for their turn, first in line first: each is told whether to go. */
    private readonly waiting: Array<(go: boolean) => void> = [];
    private releasing = false;
    private lastTurnAt = -Infinity;
    private lastDecreaseAt = -Infinity;
    /** When each request served in the last `WINDOW_MS` was answered. */
    private readonly served: number[] = [];

    constructor(private readonly now: () => number = Date.now) {}

    /** Waits for this request's turn; returns when it went, for `limited`, or undefined if the run
     *  is being cancelled (`stopWaiting`): then it must not be sent. */
    async turn(): Promise<number | undefined> {
        if (waitsStopped()) return undefined;
        if (this.waiting.length === 0 && this.gapLeft() <= 0) {
            this.lastTurnAt = this.now();
            return this.lastTurnAt;
        }
        const go = await new Promise<boolean>((resolve) => {
            this.waiting.push(resolve);
            void this.release();
        });
        return go ? this.now() : undefined;
    }

    /** Lets the waiting requests go one by one, each `1 / rate` after the one before, the rate
     *  read at each turn so that a change applies to those already waiting. */
    private async release(): Promise<void> {
        if (this.releasing) return;
        this.releasing = true;
        try {
            while (this.waiting.length > 0) {
                for (let left = this.gapLeft(); left > 0; left = this.gapLeft()) {
                    if (!(await pause(left))) {
                        for (const tell of this.waiting.splice(0)) tell(false);
                        return;
                    }
                }
                this.lastTurnAt = this.now();
                this.waiting.shift()!(true);
            }
        } finally {
            this.releasing = false;
        }
    }

    /** Time until the next turn may be given (ms; 0 or less: now). */
    private gapLeft(): number {
        return Number.isFinite(this.rate) ? this.lastTurnAt + 1000 / this.rate - this.now() : 0;
    }

    /** The API limited a request sent at `sentAt`. */
    limited(sentAt: number): void {
        if (sentAt < this.lastDecreaseAt) return;
        const now = this.now();
        this.forget(now);
        this.rate = Math.max(MIN_PER_SECOND, DECREASE * Math.min(this.rate, this.served.length));
        this.lastDecreaseAt = now;
        this.decreases++;
        // The next turn is one new gap away: those told to wait do not all go at once.
        this.lastTurnAt = Math.max(this.lastTurnAt, now);
    }

    /** How long a request asking for its turn now would wait. */
    queuedMs(): number {
        const gap = Number.isFinite(this.rate) ? 1000 / this.rate : 0;
        return Math.max(0, this.gapLeft()) + this.waiting.length * gap;
    }

    /** A request succeeded. */
    succeeded(): void {
        const now = this.now();
        this.served.push(now);
        this.forget(now);
        if (Number.isFinite(this.rate)) this.rate += INCREASE_PER_SECOND / this.rate;
    }

    private forget(now: number): void {
        while (this.served.length > 0 && this.served[0] <= now - WINDOW_MS) this.served.shift();
    }
}
