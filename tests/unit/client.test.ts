/**
 * The client's retry policy, timeout and in-flight limit, against the simulator. Waits are
 * milliseconds: Retry-After handling is checked by what it decides, not by sleeping.
 */
import { strict as assert } from "assert";
import { ChatbotClient } from "../../provider/client/client";
import { execFile } from "child_process";
import * as path from "path";
import { Pacer, DECREASE } from "../../provider/client/pacer";
import { DEFAULT_RETRY, backoffMs, retryAfterMs, safeToRetry } from "../../provider/client/retry";
import {
    BadRequestError,
    ConnectionError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    type ChatbotApiError,
} from "../../provider/client/errors";
import { ChatbotSimulator } from "../../provider/testing/simulator";

const V2 = "/v2/integrations/webhook";
const op = { operation: "list webhook connections" };
const fast = { baseDelayMs: 1 };

describe("client: Retry-After and backoff", () => {
    it("reads Retry-After as seconds or as an HTTP date; a past date is 0; anything else is ignored", () => {
        const now = Date.parse("2026-01-01T00:00:00Z");
        assert.equal(retryAfterMs("0", now), 0);
        assert.equal(retryAfterMs(" 2 ", now), 2000);
        assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now), 30_000);
        assert.equal(retryAfterMs("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
        for (const junk of [undefined, "", "soon", "1.5", "-3", "12:00"])
            assert.equal(retryAfterMs(junk, now), undefined);
    });

    it("backs off exponentially with full jitter, capped", () => {
        const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
        assert.equal(
            backoffMs(1, p, () => 0),
            0,
        );
        assert.equal(
            backoffMs(1, p, () => 0.999),
            99,
        );
        assert.equal(
            backoffMs(3, p, () => 0.999),
            399,
        );
        assert.equal(
            backoffMs(10, p, () => 0.999),
            999,
            "capped at maxDelayMs",
        );
        assert.equal(
            backoffMs(3, p, () => 0.5),
            200,
        );
    });

    it("retries what cannot do harm: 429 and an unreachable API always; 5xx, resets, timeouts and bad answers only for GET, PUT, DELETE", () => {
        const e = {
            429: new RateLimitError({ operation: "x", status: 429 }),
            unreachable: new ConnectionError({ operation: "x", reason: "unreachable" }),
            500: new ServerError({ operation: "x", status: 500 }),
            reset: new ConnectionError({ operation: "x", reason: "reset" }),
            timeout: new ConnectionError({ operation: "x", reason: "timeout" }),
            format: new ResponseFormatError({ operation: "x" }),
            400: new BadRequestError({ operation: "x", status: 400 }),
        };
        const retried = (m: "GET" | "PUT" | "DELETE" | "POST") =>
            Object.entries(e)
                .filter(([, err]) => safeToRetry(m, err as ChatbotApiError))
                .map(([k]) => k);
        for (const m of ["GET", "PUT", "DELETE"] as const) {
            assert.deepEqual(retried(m).sort(), ["429", "500", "format", "reset", "timeout", "unreachable"].sort(), m);
        }
        assert.deepEqual(retried("POST").sort(), ["429", "unreachable"]);
    });
});

describe("client: retries against the simulator", () => {
    let sim: ChatbotSimulator;
    beforeEach(async () => {
        sim = await ChatbotSimulator.start();
    });
    afterEach(async () => {
        await sim.idle();
        await sim.close();
    });
    const client = (over: Partial<ConstructorParameters<typeof ChatbotClient>[0]> = {}) =>
        new ChatbotClient({ apiUrl: sim.url, token: sim.token, retry: fast, ...over });

    it("a GET survives a 500, a 503, a 429, a reset, a malformed and a late answer", async () => {
        sim.inject({ method: "GET", fault: { status: 500 } });
        sim.inject({ method: "GET", fault: { status: 503 } });
        sim.inject({ method: "GET", fault: { status: 429, retryAfter: "0" } });
        sim.inject({ method: "GET", fault: "reset-before" });
        sim.inject({ method: "GET", fault: "malformed-json" });
        // Margins wide enough for a loaded machine (the suite runs files side by side): an answer
        // is either on time by far or late by far.
        sim.inject({ method: "GET", fault: { delayMs: 2000 } });
        const c = client({ timeoutMs: 800, retry: { ...fast, maxAttempts: 7 } });
        assert.deepEqual(await c.request("GET", V2, op), []);
        await sim.idle(); // the late one is logged when it lands
        assert.equal(sim.requests.length, 7);
    });

    it("gives up after maxAttempts, saying how many and how long", async () => {
        sim.inject({ method: "GET", fault: { status: 500 }, times: 10 });
        await assert.rejects(client({ retry: { ...fast, maxAttempts: 4 } }).request("GET", V2, op), (e: Error) => {
            assert.ok(e instanceof ServerError);
            assert.match(
                e.message,
                /HTTP 500 \(internalServerError\): injected fault\. Gave up after 4 attempts in \d+ ms\./,
            );
            return true;
        });
        assert.equal(sim.requests.length, 4);
    });

    it("a Retry-After longer than the time budget ends the retries at once, in seconds or as a date", async () => {
        const later = new Date(Date.now() + 90_000).toUTCString();
        for (const retryAfter of ["120", later]) {
            sim.resetRequests();
            sim.inject({ method: "GET", fault: { status: 429, retryAfter }, times: 5 });
            const t0 = Date.now();
            const c = client({ retry: { ...fast, maxElapsedMs: 60_000, budgetHint: "Raise it with X." } });
            await assert.rejects(c.request("GET", V2, op), (e: Error) => {
                assert.ok(e instanceof RateLimitError);
                assert.match(
                    e.message,
                    /HTTP 429 \(tooManyRequests\): injected fault\. Gave up after 1 attempt in \d+ ms \(1 limited\): the API asked to wait (120|8\d|90) s more, which would pass the 60 s retry budget\. Raise it with X\./,
                );
                return true;
            });
            assert.ok(Date.now() - t0 < 10_000, "did not wait");
            assert.equal(sim.requests.length, 1);
            sim.clearFaults();
        }
    });

    it("the total time is bounded: no retry starts past maxElapsedMs", async () => {
        sim.inject({ method: "GET", fault: { status: 503 }, times: 3 });
        sim.inject({ method: "GET", fault: { delayMs: 1000 }, times: 10 });
        const c = client({ timeoutMs: 250, retry: { maxAttempts: 100, baseDelayMs: 1, maxElapsedMs: 1200 } });
        const t0 = Date.now();
        await assert.rejects(c.request("GET", V2, op), /another attempt would pass the 1200 ms retry budget|Gave up/);
        // The budget and one attempt's timeout, with room for a loaded machine; without the bound the
        // retries would go on for 100 attempts (25 s).
        assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    });

    it("waits out 429s and 503s with Retry-After as told, however many: attempts bound only other failures", async () => {
        sim.inject({ method: "GET", fault: { status: 429, retryAfter: "0" }, times: 3 });
        sim.inject({ method: "GET", fault: { status: 503, retryAfter: "0" }, times: 2 });
        sim.inject({ method: "GET", fault: { status: 500 } });
        const c = client({ retry: { ...fast, maxAttempts: 2 } });
        assert.deepEqual(await c.request("GET", V2, op), []);
        assert.equal(sim.requests.length, 7, "5 limited, 1 failed, then served");
        sim.resetRequests();
        sim.inject({ method: "GET", fault: { status: 500 }, times: 2 });
        await assert.rejects(c.request("GET", V2, op), /Gave up after 2 attempts/);
    });

    it("an account limit: 64 requests from 8 callers at once all succeed, paced once limited", async () => {
        sim.rateLimit = { perSecond: 40, burst: 5 };
        try {
            const c = client();
            const all = Array.from({ length: 8 }, async () => {
                for (let i = 0; i < 8; i++) await c.request("GET", V2, op);
            });
            await Promise.all(all);
            const served = sim.requests.filter((r) => r.status === 200).length;
            assert.equal(served, 64);
            assert.ok(c.pacer.decreases >= 1 && Number.isFinite(c.pacer.rate), "the client paced itself");
            assert.equal(sim.rateLimited, sim.requests.length - served);
        } finally {
            sim.rateLimit = undefined;
        }
    });

    it("a POST is repeated after a 429 but not after a 5xx, a reset or a timeout (it may have been made)", async () => {
        const body = { storyId: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "n", url: "https://b.example/x" };
        sim.inject({ method: "POST", fault: { status: 429, retryAfter: "0" } });
        await client().request("POST", V2, { operation: "create", body });
        assert.equal(sim.requests.filter((r) => r.method === "POST").length, 2);
        for (const fault of [{ status: 500 }, "reset-after", { delayMs: 1000 }] as const) {
            sim.resetRequests();
            sim.inject({ method: "POST", fault });
            await assert.rejects(
                client({ timeoutMs: 250 }).request("POST", V2, { operation: "create", body }),
                (e: Error) => {
                    assert.ok((e as ChatbotApiError).ambiguous, "the error says it may have been made");
                    return true;
                },
            );
            await sim.idle();
            assert.equal(sim.requests.length, 1, `no second POST after ${JSON.stringify(fault)}`);
        }
    });

    it("the timeout covers the whole attempt and is precise", async () => {
        sim.inject({ method: "GET", fault: { delayMs: 2500 } });
        const t0 = Date.now();
        await assert.rejects(
            client({ timeoutMs: 250, retry: { maxAttempts: 1 } }).request("GET", V2, op),
            (e: Error) => {
                assert.ok(e instanceof ConnectionError);
                assert.equal(e.reason, "timeout");
                assert.match(e.message, /No answer from the ChatBot API at http:\/\/127\.0\.0\.1:\d+ within 250 ms\./);
                return true;
            },
        );
        assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
    });

    it("an API that cannot be reached is retried, and says so", async () => {
        const gone = await ChatbotSimulator.start();
        const url = gone.url;
        await gone.close();
        const c = new ChatbotClient({ apiUrl: url, token: "t", retry: { ...fast, maxAttempts: 2 } });
        await assert.rejects(c.request("POST", V2, { operation: "create", body: {} }), (e: Error) => {
            assert.ok(e instanceof ConnectionError);
            assert.equal(e.reason, "unreachable");
            assert.equal(e.ambiguous, false, "nothing can have been made");
            assert.match(e.message, /ECONNREFUSED.*Gave up after 2 attempts/);
            return true;
        });
    });

    it("keeps at most maxInFlight requests on the wire", async () => {
        sim.latencyMs = 20;
        const c = client({ maxInFlight: 4 });
        await Promise.all(Array.from({ length: 12 }, () => c.request("GET", V2, op)));
        assert.equal(sim.maxInFlight, 4);
        assert.equal(sim.requests.length, 12);
    });

    it("learns the API's clock from the Date header", async () => {
        sim.clockOffsetMs = -5 * 60_000;
        const c = client();
        await c.request("GET", V2, op);
        assert.ok(Math.abs(c.clockOffsetMs + 5 * 60_000) < 2000, `offset ${c.clockOffsetMs}`);
    });
});

describe("client: pacing once the API limits requests", () => {
    it("a 429 sets the rate to a share of what was served in the last second; older answers do not lower it again", () => {
        let now = 10_000;
        const pacer = new Pacer(() => now);
        assert.equal(pacer.rate, Infinity, "nothing is paced before the first 429");
        for (let i = 0; i < 10; i++) pacer.succeeded();
        const sentBefore = now - 50;
        now += 100;
        pacer.limited(now - 10);
        assert.equal(pacer.rate, DECREASE * 10);
        pacer.limited(sentBefore);
        assert.equal(pacer.rate, DECREASE * 10, "a request sent before the decrease tells of the old rate");
        assert.equal(pacer.decreases, 1);
        now += 2_000; // nothing served in the last second: the share is the least rate
        pacer.limited(now);
        assert.equal(pacer.decreases, 2);
        assert.ok(pacer.rate < 1, `${pacer.rate}`);
    });

    it("requests told to wait take their turns in order, spaced 1 / rate apart, not all at once", async () => {
        const pacer = new Pacer();
        for (let i = 0; i < 20; i++) pacer.succeeded();
        pacer.limited(Date.now()); // 15 a second: 67 ms apart
        const order: number[] = [];
        const times = await Promise.all(
            [0, 1, 2, 3, 4].map(async (i) => {
                const at = await pacer.turn();
                order.push(i);
                return at!;
            }),
        );
        assert.deepEqual(order, [0, 1, 2, 3, 4]);
        const gap = 1000 / pacer.rate;
        for (let i = 1; i < times.length; i++)
            assert.ok(times[i] - times[i - 1] >= gap * 0.8, `turn ${i}: ${times[i] - times[i - 1]} ms`);
    });

    it("stopWaiting (the native plugin's Cancel) ends a wait for Retry-After at once, and nothing more is sent", async () => {
        // In a process of its own: once stopped, a process never waits again.
        const dist = path.join(__dirname, "..", "..", "dist");
        const script = `
            const { ChatbotSimulator } = require(${JSON.stringify(path.join(dist, "testing", "simulator.js"))});
            const { ChatbotClient } = require(${JSON.stringify(path.join(dist, "client", "client.js"))});
            const { stopWaiting } = require(${JSON.stringify(path.join(dist, "client", "cancel.js"))});
            (async () => {
                const sim = await ChatbotSimulator.start();
                sim.inject({ method: "GET", fault: { status: 429, retryAfter: "60" }, times: 10 });
                const c = new ChatbotClient({ apiUrl: sim.url, token: sim.token });
                const t0 = Date.now();
                setTimeout(stopWaiting, 300);
                const first = await c.request("GET", "/v2/integrations/webhook", { operation: "list" }).catch((e) => e.message);
                const later = await c.request("GET", "/v2/integrations/webhook", { operation: "list again" }).catch((e) => e.message);
                console.log(JSON.stringify({ ms: Date.now() - t0, first, later, requests: sim.requests.length }));
                await sim.close();
            })();`;
        const out = await new Promise<string>((resolve, reject) =>
            execFile(process.execPath, ["-e", script], { timeout: 30_000 }, (e, stdout, stderr) =>
                e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout),
            ),
        );
        const r = JSON.parse(out) as { ms: number; first: string; later: string; requests: number };
        assert.ok(r.ms < 5_000, `ended after ${r.ms} ms, not the 60 s asked`);
        assert.match(r.first, /HTTP 429 .*Stopped waiting to retry: the run is being cancelled\./);
        assert.match(r.later, /list again failed: Not sent: the run is being cancelled\./);
        assert.equal(r.requests, 1, "nothing was sent after the stop");
    });
});
