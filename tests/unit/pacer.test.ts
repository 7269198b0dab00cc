/**
 * The pacer's behaviour after a 429 (provider/client/pacer.ts), held as behaviour rather than as
 * its constants: a process slows down below what the API served it, and ten processes sharing one
 * account's limit, none knowing of the others, meet few 429s. With no slowing down (`DECREASE`
 * set to 1) both cases fail.
 *
 * The ten clients run on a fake clock: the pacer's own waits (`pause`, a setTimeout) and the
 * model's are timers of the clock, run in time order, so a minute of traffic takes milliseconds.
 */
import { strict as assert } from "assert";
import { Pacer } from "../../provider/client/pacer";

interface Timer {
    at: number;
    seq: number;
    fn: () => void;
}

/** Virtual time: setTimeout and clearTimeout replaced while `run` runs, timers fired in order. */
class FakeClock {
    now = 0;
    private timers: Timer[] = [];
    private seq = 0;

    readonly setTimeout = (fn: () => void, ms = 0): Timer => {
        const timer = { at: this.now + Math.max(0, ms), seq: this.seq++, fn };
        this.timers.push(timer);
        return timer;
    };
    readonly clearTimeout = (timer: Timer): void => {
        this.timers = this.timers.filter((t) => t !== timer);
    };

    sleep(ms: number): Promise<void> {
        return new Promise((resolve) => this.setTimeout(resolve, ms));
    }

    /** Runs `work` to its end, firing timers in time order; fails past `limitMs` of virtual time. */
    async run<T>(work: () => Promise<T>, limitMs: number): Promise<T> {
        const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
        Object.assign(globalThis, { setTimeout: this.setTimeout, clearTimeout: this.clearTimeout });
        let done = false;
        let result: { value: T } | { error: unknown } | undefined;
        try {
            void work().then(
                (value) => ((done = true), (result = { value })),
                (error: unknown) => ((done = true), (result = { error })),
            );
            for (;;) {
                // Every promise continuation due now runs before time moves on.
                await new Promise((resolve) => setImmediate(resolve));
                if (done) break;
                this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
                const next = this.timers.shift();
                assert.ok(next, "the model stalled: nothing waiting and nothing to wake");
                this.now = Math.max(this.now, next.at);
                assert.ok(this.now <= limitMs, `the model ran past ${limitMs} ms of virtual time`);
                next.fn();
            }
        } finally {
            Object.assign(globalThis, real);
        }
        if (result && "error" in result) throw result.error;
        return (result as { value: T }).value;
    }
}

/** One account's limit as the simulator keeps it (provider/testing/simulator.ts `rateLimit`): a
 *  bucket of `perSecond` requests refilled at `perSecond`; beyond it, 429 with a Retry-After of
 *  the whole seconds until a request would be served. */
class Account {
    served = 0;
    limited = 0;
    private tokens: number;
    private refilledAt = 0;

    constructor(
        private readonly clock: FakeClock,
        private readonly perSecond: number,
    ) {
        this.tokens = perSecond;
    }

    /** `undefined` when served, else the Retry-After in seconds. */
    request(): number | undefined {
        const now = this.clock.now;
        this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
        this.refilledAt = now;
        if (this.tokens >= 1) {
            this.tokens -= 1;
            this.served++;
            return undefined;
        }
        this.limited++;
        return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
    }
}

describe("client: the pacer's behaviour after a 429", () => {
    it("a 429 lowers the rate below what the API served this process in the last second", () => {
        let now = 10_000;
        const pacer = new Pacer(() => now);
        const servedInTheLastSecond = 12;
        for (let i = 0; i < servedInTheLastSecond; i++) {
            now += 50;
            pacer.succeeded();
        }
        pacer.limited(now);
        assert.ok(
            pacer.rate < servedInTheLastSecond,
            `after a 429 the rate (${pacer.rate}/s) must fall below the ${servedInTheLastSecond}/s the API served`,
        );
        // And again from there: a second 429 for a request sent at the new rate lowers it further.
        const lowered = pacer.rate;
        for (let i = 0; i < Math.floor(lowered); i++) {
            now += 1000 / lowered;
            pacer.succeeded();
        }
        const servedSince = Math.floor(lowered);
        pacer.limited(now);
        assert.ok(
            pacer.rate < Math.max(servedSince, 1),
            `a second 429 must lower the rate (${pacer.rate}/s) below the ${servedSince}/s served at the first one's rate`,
        );
    });

    it("ten clients sharing one account's limit, none knowing of the others: at most 0.2 answers of 429 per request served", async () => {
        // As the pacer's figures were chosen (provider/client/pacer.ts): ten clients of eight
        // requests at once, 1,200 requests, an account limited to 20 a second.
        const clock = new FakeClock();
        const account = new Account(clock, 20);
        const LATENCY_MS = 50;
        const CLIENTS = 10;
        const AT_ONCE = 8;
        const EACH = 15; // requests per worker: 10 × 8 × 15 = 1,200

        /** One process's client: its own pacer, requests sent as the client does (its turn, the
         *  answer, a 429 waited out as its Retry-After says, then sent again). */
        const client = async () => {
            const pacer = new Pacer(() => clock.now);
            const worker = async () => {
                for (let i = 0; i < EACH; i++) {
                    for (;;) {
                        const sentAt = await pacer.turn();
                        assert.ok(sentAt !== undefined, "no wait is cancelled here");
                        await clock.sleep(LATENCY_MS / 2);
                        const retryAfter = account.request();
                        await clock.sleep(LATENCY_MS / 2);
                        if (retryAfter === undefined) {
                            pacer.succeeded();
                            break;
                        }
                        pacer.limited(sentAt);
                        await clock.sleep(retryAfter * 1000);
                    }
                }
            };
            await Promise.all(Array.from({ length: AT_ONCE }, worker));
        };
        await clock.run(() => Promise.all(Array.from({ length: CLIENTS }, client)), 3_600_000);

        assert.equal(account.served, CLIENTS * AT_ONCE * EACH, "every request served once");
        const perServed = account.limited / account.served;
        assert.ok(
            perServed <= 0.2,
            `${account.limited} answers of 429 for ${account.served} served (${perServed.toFixed(2)} per request): more than 0.2`,
        );
        // The floor the limit sets: the clients are paced, not starved.
        const floorMs = ((account.served - 20) / 20) * 1000;
        assert.ok(clock.now < 3 * floorMs, `${clock.now} ms of virtual time, over 3 × the floor (${floorMs} ms)`);
    });
});
