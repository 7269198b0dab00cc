/**
 * A local ChatBot API simulator: the v2 webhook connection API and the legacy webhook API, on
 * loopback, in memory. It checks bearer auth (401), validates bodies with the same schemas the
 * provider checks with (400), answers 404 for unknown ids, and speaks the documented envelopes
 * and list/single-read field sets. Tests can edit its data behind a program's back, inject
 * faults, add latency, and count requests.
 *
 * With `verifyWebhooks`, it also checks backends as ChatBot does: it sends the verification
 * request before it accepts a connection, and `callWebhook` makes a webhook call with the token in
 * the query (help center, "Verification request"; ChatBotCom/nodejs-webhook-example, index.js).
 *
 *     const sim = await ChatbotSimulator.start();
 *     process.env.CHATBOT_API_URL = sim.url; process.env.CHATBOT_TOKEN = sim.token;
 */
import * as http from "http";
import { randomBytes } from "crypto";
import type { AddressInfo, Socket } from "net";
import type { Schema } from "../client/types";
import { connectionLimits, limits } from "../limits";
import { basicAuth, headerList, headerRecord, httpUrl, publicHttpUrl, record, text } from "../schema/fields";
import { describeFailures, validate } from "../schema/validate";
import type { WebhookRequest } from "../webhook/types";
import { probeWebhook, sendVerificationRequest } from "../webhook/probe";
import type { ProbeResult } from "../webhook/probe";
import { verificationFailureMessage } from "../webhook/verification";

/** What `chatTraffic` made: how many calls, and each that ChatBot would have failed. */
export interface ChatTraffic {
    calls: number;
    refused: Array<{ status: number | undefined; problems: string[] }>;
}

export interface SimulatorOptions {
    /** The developer access token it accepts. Default: a random one. */
    token?: string;
    /** Port on 127.0.0.1. Default: any free one. */
    port?: number;
    /** Known stories, id to name. When given, a connection to another story is refused (400). */
    stories?: Record<string, string>;
    /** Delay before every answer, in ms (a real API is tens of ms away). */
    latencyMs?: number;
    /** How far the API's clock is ahead of this machine's (ms; negative: behind). It shows in
     *  `createdAt`, `updatedAt` and the `Date` header. Default 0. */
    clockOffsetMs?: number;
    /**
     * Verify v2 connections as ChatBot does: on create, and on an update that changes `url` or
     * `token`, send `GET <url>?challenge=<random>&token=<token>` and refuse the write with a 400
     * unless the answer is 200 with the challenge as the body. Off by default, so programs whose
     * urls point nowhere still run against the simulator.
     */
    verifyWebhooks?: boolean;
    /** Time allowed for each verification request and webhook call (ms). Default ChatBot's 10000. */
    webhookTimeoutMs?: number;
    /**
     * An account-wide request limit, as SaaS APIs have. ChatBot publishes none (its API
     * description, "Limits": "Rate limits: not shown"), so this is the common form of one, not
     * ChatBot's: 429 Too Many Requests with Retry-After (RFC 6585 section 4, RFC 9110 section
     * 10.2.3), in the API's error envelope (its section "Errors"; the type this simulator gives a
     * 429, `tooManyRequests`, is its own: the description lists none for 429). A token bucket
     * holding `burst` requests (default: `perSecond`), refilled at `perSecond`. A request beyond it
     * is answered 429 with `Retry-After` (whole seconds until a request would be served) and does
     * not count against the bucket. Default: no limit. May be changed at any time (`rateLimit`).
     */
    rateLimit?: RateLimit;
    /**
     * Test-only: answer one documented behaviour differently from the API description, so that a
     * fidelity test can show the acceptance tier (tests/live) notices an API that differs from its
     * record. Never set it otherwise. `listShowsToken`: the v2 list read includes each
     * connection's `token`, which the description (2.1) says it does not.
     */
    deviation?: "listShowsToken";
}

export interface RateLimit {
    perSecond: number;
    burst?: number;
}

/** A stored v2 connection: the single read's fields. */
export interface StoredConnection {
    id: string;
    story: { id: string; name: string };
    name: string;
    url: string;
    token?: string;
    headers?: Record<string, string>;
    auth?: { username: string; password: string };
    error: string | null;
    createdAt: string;
    updatedAt: string;
}

/** What a legacy webhook's create and update carry. */
export interface LegacyWebhookBody {
    name: string;
    url: string;
    token?: string;
    headers?: Array<{ name: string; value: string }>;
    auth?: { username: string; password: string };
}

/** A stored legacy webhook. */
export interface StoredLegacyWebhook extends LegacyWebhookBody {
    id: string;
    error: { date: string; message: string } | null;
}

/** A fault to answer with instead of (or after) handling a request. */
export type FaultKind =
    // e.g. 500, 503, 429 with Retry-After. `handled`: the request is carried out first (stored), then
    // this status is answered, as a gateway does when the API behind it is slow (502, 504).
    // `envelope: false`: a bare answer with no API envelope, as from a proxy.
    | { status: number; retryAfter?: string; message?: string; handled?: boolean; envelope?: boolean }
    | "reset-before" // connection destroyed before the request is handled
    | "reset-after" // request handled (stored), then the connection destroyed: no answer
    | { delayMs: number } // answer late
    | "malformed-json" // 200 with a body that is not JSON
    | "wrong-envelope" // 200 with JSON that is not the documented envelope
    // HTTP 200 with another body, as from a misconfigured proxy or a captive portal: JSON that is
    // not the envelope, the envelope of a 500, or an HTML page. `handled` (default false): the
    // request was carried out first.
    | { body: "not-an-envelope" | "envelope-500" | "html"; handled?: boolean }
    | "ignore-write" // answered as if carried out, but nothing is stored
    | "stale-read"; // a single read that shows the resource as it was before its latest write

export interface FaultRule {
    method?: string;
    /** Matched against the path, e.g. /^\/v2\/integrations\/webhook$/. */
    path?: RegExp;
    fault: FaultKind;
    /** How many matching requests get it. Default 1. */
    times?: number;
}

export interface RequestRecord {
    method: string;
    path: string;
    status: number;
}

const V2 = "/v2/integrations/webhook";
const LEGACY = "/webhooks";

export class ChatbotSimulator {
    readonly token: string;
    readonly url: string;
    /** Every request answered (or cut off), in order. */
    readonly requests: RequestRecord[] = [];
    private readonly connections = new Map<string, StoredConnection>();
    private readonly legacy = new Map<string, StoredLegacyWebhook>();
    private readonly faults: Array<FaultRule & { left: number }> = [];
    /** The single read of a path before its latest write (undefined: it did not exist), for "stale-read". */
    private readonly priorReads = new Map<string, unknown>();
    private readonly sockets = new Set<Socket>();
    latencyMs: number;
    /** See `SimulatorOptions.verifyWebhooks`; may be switched at any time. */
    verifyWebhooks: boolean;
    /** How far the API's clock is ahead of this machine's (ms). */
    clockOffsetMs: number;
    inFlight = 0;
    maxInFlight = 0;
    /** Requests answered 429 by the account limit (`SimulatorOptions.rateLimit`). */
    rateLimited = 0;
    private rateLimitValue: RateLimit | undefined;
    private bucket = { tokens: 0, at: 0 };

    private constructor(
        private readonly server: http.Server,
        url: string,
        private readonly options: SimulatorOptions & { token: string },
    ) {
        this.url = url;
        this.token = options.token;
        this.latencyMs = options.latencyMs ?? 0;
        this.clockOffsetMs = options.clockOffsetMs ?? 0;
        this.verifyWebhooks = options.verifyWebhooks ?? false;
        this.rateLimit = options.rateLimit;
    }

    /** The account-wide request limit (see `SimulatorOptions.rateLimit`); undefined: none. Setting
     *  it fills the bucket. */
    get rateLimit(): RateLimit | undefined {
        return this.rateLimitValue;
    }

    set rateLimit(limit: RateLimit | undefined) {
        if (limit && !(limit.perSecond > 0 && (limit.burst ?? limit.perSecond) >= 1)) {
            throw new RangeError("rateLimit: perSecond must be above 0 and burst at least 1");
        }
        this.rateLimitValue = limit && { ...limit };
        this.bucket = { tokens: limit ? (limit.burst ?? limit.perSecond) : 0, at: Date.now() };
    }

    /** Takes a request from the bucket; undefined if served, else the seconds to wait. */
    private overLimit(): number | undefined {
        const limit = this.rateLimitValue;
        if (!limit) return undefined;
        const now = Date.now();
        const burst = limit.burst ?? limit.perSecond;
        this.bucket.tokens = Math.min(burst, this.bucket.tokens + ((now - this.bucket.at) / 1000) * limit.perSecond);
        this.bucket.at = now;
        if (this.bucket.tokens >= 1) {
            this.bucket.tokens -= 1;
            return undefined;
        }
        return Math.max(1, Math.ceil((1 - this.bucket.tokens) / limit.perSecond));
    }

    static async start(options: SimulatorOptions = {}): Promise<ChatbotSimulator> {
        const token = options.token ?? `sim-${randomBytes(16).toString("hex")}`;
        const server = http.createServer({ keepAliveTimeout: 30_000 });
        await new Promise<void>((resolve, reject) => {
            server.once("error", reject);
            server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
        });
        const { port } = server.address() as AddressInfo;
        const sim = new ChatbotSimulator(server, `http://127.0.0.1:${port}`, { ...options, token });
        server.on("connection", (s: Socket) => {
            sim.sockets.add(s);
            s.on("close", () => sim.sockets.delete(s));
        });
        server.on("request", (req, res) => void sim.handle(req, res));
        return sim;
    }

    /** Resolves once no request is being handled: a late answer (`delayMs`) has landed. */
    async idle(): Promise<void> {
        while (this.inFlight > 0) await sleep(5);
    }

    async close(): Promise<void> {
        const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
        for (const s of this.sockets) s.destroy();
        await closed;
    }

    // -- Data, for tests: edits behind a program's back -------------------------------------------

    /** Every v2 connection, with all fields, oldest first. */
    listConnections(): StoredConnection[] {
        return [...this.connections.values()].map((c) => structuredClone(c));
    }

    getConnection(id: string): StoredConnection | undefined {
        const connection = this.connections.get(id);
        return connection && structuredClone(connection);
    }

    /** Adds a connection as a person would in the dashboard (no request is logged); returns it.
     *  Not validated: tests may seed what the API holds from elsewhere. */
    addConnection(
        c: Omit<StoredConnection, "id" | "error" | "createdAt" | "updatedAt"> & Partial<StoredConnection>,
    ): StoredConnection {
        const now = this.now();
        const stored: StoredConnection = {
            error: null,
            createdAt: now,
            updatedAt: now,
            ...structuredClone(c),
            id: c.id ?? newId(),
        };
        this.connections.set(stored.id, stored);
        return structuredClone(stored);
    }

    /** Changes a connection as a person would in the dashboard. */
    editConnection(id: string, patch: Partial<Omit<StoredConnection, "id" | "createdAt">>): void {
        const connection = this.connections.get(id);
        if (!connection) throw new Error(`no connection ${id}`);
        Object.assign(connection, structuredClone(patch), { updatedAt: this.now() });
        for (const key of ["token", "headers", "auth"] as const)
            if (connection[key] === undefined) delete connection[key];
    }

    deleteConnection(id: string): boolean {
        return this.connections.delete(id);
    }

    /** Notes a failed webhook call, as ChatBot does (`error` of the connection). */
    noteError(id: string, message: string | null): void {
        const c = this.connections.get(id);
        if (c) c.error = message;
        const w = this.legacy.get(id);
        if (w) w.error = message === null ? null : { date: this.now(), message };
    }

    /**
     * Makes the webhook call ChatBot makes when a chat reaches the connection's block: a POST of
     * `request` to its url with the token in the query (as ChatBot's example backend expects of
     * every call), its basic auth and headers. A call ChatBot would fail is noted in the
     * connection's `error`, as ChatBot does, and a good one clears it.
     */
    async callWebhook(id: string, request?: WebhookRequest): Promise<ProbeResult> {
        const c = this.connections.get(id);
        if (!c) throw new Error(`no connection ${id}`);
        const result = await probeWebhook(c.url, {
            verify: false,
            ...(c.token === undefined ? {} : { token: c.token }),
            ...(c.auth === undefined ? {} : { auth: c.auth }),
            ...(c.headers === undefined ? {} : { headers: c.headers }),
            ...(request === undefined ? {} : { request }),
            ...(this.options.webhookTimeoutMs === undefined ? {} : { timeoutMs: this.options.webhookTimeoutMs }),
        });
        const stored = this.connections.get(id);
        if (stored) stored.error = result.ok ? null : result.problems.join("; ");
        return result;
    }

    /**
     * ChatBot's traffic on its own: `callWebhook(id)` again and again, one at a time, each with
     * what the connection holds at that moment (so an update between two calls changes the next),
     * until `stop()` or a bound: `maxCalls` calls or `maxMs` of time, whichever comes first, so a
     * test that forgets to stop it still ends. For a rotation: run it during a `pulumi up` and
     * count what was refused.
     */
    chatTraffic(
        id: string,
        bounds: { intervalMs?: number; maxCalls?: number; maxMs?: number } = {},
    ): { stop(): Promise<ChatTraffic>; done: Promise<ChatTraffic> } {
        const { intervalMs = 50, maxCalls = 1000, maxMs = 120_000 } = bounds;
        const report: ChatTraffic = { calls: 0, refused: [] };
        const until = Date.now() + maxMs;
        let stopped = false;
        const done = (async () => {
            while (!stopped && report.calls < maxCalls && Date.now() < until) {
                report.calls++;
                try {
                    const result = await this.callWebhook(id);
                    // The probe's problems name statuses and properties, never a secret.
                    if (!result.ok) report.refused.push({ status: result.status, problems: result.problems });
                } catch (error) {
                    // The connection is gone (deleted): a chat reaching its block would fail too.
                    report.refused.push({ status: undefined, problems: [(error as Error).message] });
                }
                await new Promise((resolve) => setTimeout(resolve, intervalMs));
            }
            return report;
        })();
        return {
            done,
            stop: () => {
                stopped = true;
                return done;
            },
        };
    }

    listLegacyWebhooks(): StoredLegacyWebhook[] {
        return [...this.legacy.values()].map((w) => structuredClone(w));
    }

    getLegacyWebhook(id: string): StoredLegacyWebhook | undefined {
        const w = this.legacy.get(id);
        return w && structuredClone(w);
    }

    /** Adds a legacy webhook as a person would (no request is logged); returns it. */
    addLegacyWebhook(w: LegacyWebhookBody & Partial<StoredLegacyWebhook>): StoredLegacyWebhook {
        const stored: StoredLegacyWebhook = { error: null, ...structuredClone(w), id: w.id ?? newId() };
        this.legacy.set(stored.id, stored);
        return structuredClone(stored);
    }

    editLegacyWebhook(id: string, patch: Partial<Omit<StoredLegacyWebhook, "id">>): void {
        const w = this.legacy.get(id);
        if (!w) throw new Error(`no legacy webhook ${id}`);
        Object.assign(w, structuredClone(patch));
        for (const key of ["token", "headers", "auth"] as const) if (w[key] === undefined) delete w[key];
    }

    deleteLegacyWebhook(id: string): boolean {
        return this.legacy.delete(id);
    }

    /** Answers the next matching request(s) with a fault. */
    inject(rule: FaultRule): void {
        this.faults.push({ ...rule, left: rule.times ?? 1 });
    }

    clearFaults(): void {
        this.faults.length = 0;
    }

    /** Forgets the request log (and the in-flight peak and the count of requests limited). */
    resetRequests(): void {
        this.requests.length = 0;
        this.rateLimited = 0;
        this.maxInFlight = this.inFlight;
    }

    // -- HTTP -----------------------------------------------------------------------------------

    /** The API's time, ISO 8601. */
    private now(): string {
        return new Date(Date.now() + this.clockOffsetMs).toISOString();
    }

    private takeFault(method: string, path: string): FaultKind | undefined {
        const i = this.faults.findIndex(
            (f) => f.left > 0 && (!f.method || f.method === method) && (!f.path || f.path.test(path)),
        );
        if (i < 0) return undefined;
        const rule = this.faults[i];
        if (--rule.left === 0) this.faults.splice(i, 1);
        return rule.fault;
    }

    private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const method = req.method ?? "GET";
        const path = (req.url ?? "/").split("?")[0];
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const record = (status: number) => this.requests.push({ method, path, status });
        res.setHeader("date", new Date(this.now()).toUTCString());
        try {
            const raw = await readBody(req);
            if (this.latencyMs > 0) await sleep(this.latencyMs);
            const wait = this.overLimit();
            if (wait !== undefined) {
                this.rateLimited++;
                record(429);
                return send(res, 429, envelope(429, "rate limit exceeded"), { "retry-after": String(wait) });
            }
            const fault = this.takeFault(method, path);
            if (fault === "reset-before") {
                record(0);
                req.socket.destroy();
                return;
            }
            if (typeof fault === "object" && "status" in fault) {
                if (fault.handled) await this.route(req, method, path, raw);
                record(fault.status);
                const headers: Record<string, string> = fault.retryAfter ? { "retry-after": fault.retryAfter } : {};
                const body =
                    fault.envelope === false
                        ? { message: fault.message ?? "bad gateway" }
                        : envelope(fault.status, fault.message ?? "injected fault");
                return send(res, fault.status, body, headers);
            }
            if (typeof fault === "object" && "body" in fault) {
                if (fault.handled) await this.route(req, method, path, raw);
                record(200);
                if (fault.body === "html") {
                    res.writeHead(200, { "content-type": "text/html" });
                    res.end("<!doctype html><html><body><h1>Please sign in to continue</h1></body></html>");
                    return;
                }
                return send(res, 200, fault.body === "envelope-500" ? envelope(500, "internal error") : { data: "ok" });
            }
            if (fault === "stale-read" && method === "GET" && this.priorReads.has(path)) {
                const prior = this.priorReads.get(path);
                record(prior === undefined ? 404 : 200);
                return send(res, prior === undefined ? 404 : 200, prior ?? envelope(404, "not found"));
            }
            if (typeof fault === "object" && "delayMs" in fault) await sleep(fault.delayMs);
            // "ignore-write" puts the stores back as they were: meant for one request at a time.
            const stored = fault === "ignore-write" ? [new Map(this.connections), new Map(this.legacy)] : undefined;
            const prior = method === "PUT" || method === "DELETE" ? this.readOne(path) : undefined;
            const [status, body] = await this.route(req, method, path, raw);
            if (stored) {
                restore(this.connections, stored[0] as Map<string, StoredConnection>);
                restore(this.legacy, stored[1] as Map<string, StoredLegacyWebhook>);
            } else if (status < 300 && method !== "GET") {
                const id = method === "POST" ? (body as { id?: unknown }).id : undefined;
                if (typeof id === "string") this.priorReads.set(`${path.replace(/\/$/, "")}/${id}`, undefined);
                else if (method !== "POST") this.priorReads.set(path, prior);
            }
            record(fault === "reset-after" ? 0 : status);
            if (fault === "reset-after") {
                req.socket.destroy();
                return;
            }
            if (fault === "malformed-json" && status < 300) {
                res.writeHead(200, { "content-type": "application/json" });
                res.end('{"timestamp": "');
                return;
            }
            if (fault === "wrong-envelope" && status < 300) return send(res, 200, { ok: true });
            send(res, status, body);
        } catch {
            record(500);
            if (!res.headersSent) send(res, 500, envelope(500, "simulator failure"));
        } finally {
            this.inFlight--;
        }
    }

    /** The single read's answer at `path` now, or undefined if there is none. */
    private readOne(path: string): unknown {
        if (path.startsWith(`${V2}/`)) {
            const c = this.connections.get(decodeURIComponent(path.slice(V2.length + 1)));
            return c && singleRead(c);
        }
        if (path.startsWith(`${LEGACY}/`)) {
            const w = this.legacy.get(decodeURIComponent(path.slice(LEGACY.length + 1)));
            return w && structuredClone(w);
        }
        return undefined;
    }

    private async route(
        req: http.IncomingMessage,
        method: string,
        path: string,
        raw: string,
    ): Promise<[number, unknown]> {
        if (req.headers.authorization !== `Bearer ${this.token}`) {
            const why = /^Bearer /i.test(req.headers.authorization ?? "")
                ? "invalid developer access token"
                : "authorization must be a Bearer token";
            return [401, envelope(401, why)];
        }
        let body: unknown;
        if (method === "POST" || method === "PUT") {
            try {
                body = raw === "" ? undefined : JSON.parse(raw);
            } catch {
                return [400, envelope(400, "body is not valid JSON")];
            }
        }
        if (path === V2 || path === `${V2}/`) {
            if (method === "GET") {
                const withToken = this.options.deviation === "listShowsToken";
                return [
                    200,
                    [...this.connections.values()].map((c) => ({
                        ...listItem(c),
                        ...(withToken ? { token: c.token } : {}),
                    })),
                ];
            }
            if (method === "POST") return this.createConnection(body);
        } else if (path.startsWith(`${V2}/`)) {
            const id = decodeURIComponent(path.slice(V2.length + 1));
            if (id.length !== connectionLimits.idLength)
                return [400, envelope(400, `id must be exactly ${connectionLimits.idLength} characters`)];
            const c = this.connections.get(id);
            if (!c) return [404, envelope(404, `webhook connection ${id} not found`)];
            if (method === "GET") return [200, singleRead(c)];
            if (method === "PUT") return this.updateConnection(c, body);
            if (method === "DELETE") {
                this.connections.delete(id);
                return [200, envelope(200)];
            }
        } else if (path === LEGACY || path === `${LEGACY}/`) {
            if (method === "GET") {
                return [
                    200,
                    [...this.legacy.values()].map((w) => ({
                        id: w.id,
                        name: w.name,
                        url: w.url,
                        error: w.error ? w.error.message : null,
                    })),
                ];
            }
            if (method === "POST") return this.writeLegacy(undefined, body);
        } else if (path.startsWith(`${LEGACY}/`)) {
            const id = decodeURIComponent(path.slice(LEGACY.length + 1));
            const w = this.legacy.get(id);
            if (!w) return [404, envelope(404, `webhook ${id} not found`)];
            if (method === "GET") return [200, structuredClone(w)];
            if (method === "PUT") return this.writeLegacy(w, body);
            if (method === "DELETE") {
                this.legacy.delete(id);
                return [200, { ...envelope(200), id }];
            }
        } else {
            return [404, envelope(404, `no route ${method} ${path}`)];
        }
        return [405, envelope(405, `method ${method} not allowed on ${path}`)];
    }

    private async createConnection(body: unknown): Promise<[number, unknown]> {
        const v = checkBody(connectionCreateBody, body);
        if (!v.ok) return [400, envelope(400, v.message)];
        const { storyId, ...rest } = v.value;
        const known = this.options.stories;
        if (known && !(storyId in known)) return [400, envelope(400, `story ${storyId} does not exist`)];
        const refused = await this.verify(rest.url, rest.token);
        if (refused) return refused;
        const now = this.now();
        const id = newId();
        const story = { id: storyId, name: known?.[storyId] ?? `Story ${storyId.slice(-6)}` };
        this.connections.set(id, { id, story, ...structuredClone(rest), error: null, createdAt: now, updatedAt: now });
        return [201, { ...envelope(201), id }];
    }

    private async updateConnection(c: StoredConnection, body: unknown): Promise<[number, unknown]> {
        const v = checkBody(connectionUpdateBody, body);
        if (!v.ok) return [400, envelope(400, v.message)];
        // Whether ChatBot verifies again on an update is not shown anywhere. Modelled choice: only
        // when what the verification depends on changes, the url or the token.
        if (v.value.url !== c.url || v.value.token !== c.token) {
            const refused = await this.verify(v.value.url, v.value.token);
            if (refused) return refused;
        }
        // PUT replaces the whole writable state: what the body leaves out is removed.
        const next: StoredConnection = {
            id: c.id,
            story: c.story,
            ...structuredClone(v.value),
            error: c.error,
            createdAt: c.createdAt,
            updatedAt: this.now(),
        };
        this.connections.set(c.id, next);
        return [200, envelope(200)];
    }

    /**
     * ChatBot's verification request, when `verifyWebhooks` is on: `undefined` when it passed, else
     * the answer refusing the write. What the real API answers then is not shown anywhere; the
     * modelled choice is a 400 whose message starts "webhook verification failed:" and says why
     * (`verificationFailureMessage`). Legacy webhooks are not verified: their urls must be public,
     * which a simulator on loopback could not reach in tests anyway.
     */
    private async verify(url: string, token: string | undefined): Promise<[number, unknown] | undefined> {
        if (!this.verifyWebhooks) return undefined;
        const checked = await sendVerificationRequest(url, {
            ...(token === undefined ? {} : { token }),
            ...(this.options.webhookTimeoutMs === undefined ? {} : { timeoutMs: this.options.webhookTimeoutMs }),
        });
        return checked.ok ? undefined : [400, envelope(400, verificationFailureMessage(url, checked.problems))];
    }

    private writeLegacy(existing: StoredLegacyWebhook | undefined, body: unknown): [number, unknown] {
        const v = checkBody(legacyBody, body);
        if (!v.ok) return [400, envelope(400, v.message)];
        const id = existing?.id ?? newId();
        this.legacy.set(id, { id, ...structuredClone(v.value), error: existing?.error ?? null });
        return [200, { ...envelope(200), id }];
    }
}

// ---------------------------------------------------------------------------------------------
// What the API accepts (API description 2.1, 2.2, 4.1, 4.2), as ChatBot checks it. Written here,
// apart from the provider's tables of fields, so that a mistake in one is caught by the other;
// only the limits (../limits.ts) and the way a limit is worded (../schema/fields.ts) are shared.

const v2Limits = limits.connection;
/** A v2 connection's PUT: everything but the story. */
const connectionUpdateBody = record({
    name: text(v2Limits.name.min, v2Limits.name.max),
    url: httpUrl(v2Limits.url.max),
    token: text(v2Limits.token.min, v2Limits.token.max).optional(),
    headers: headerRecord(v2Limits.headers).optional(),
    auth: basicAuth(v2Limits.auth.max).optional(),
});
/** A v2 connection's POST. */
const connectionCreateBody = connectionUpdateBody.extend({ storyId: text(v2Limits.idLength, v2Limits.idLength) });

const legacyLimits = limits.legacy;
/** A legacy webhook's POST and PUT: the whole webhook; its url must be public. */
const legacyBody: Schema<LegacyWebhookBody> = record({
    name: text(legacyLimits.name.min, legacyLimits.name.max),
    url: publicHttpUrl(legacyLimits.url.max),
    token: text(legacyLimits.token.min, legacyLimits.token.max).optional(),
    headers: headerList(legacyLimits).optional(),
    auth: basicAuth(legacyLimits.auth.max).optional(),
});

function checkBody<T>(schema: Schema<T>, body: unknown): { ok: true; value: T } | { ok: false; message: string } {
    if (body === null || typeof body !== "object" || Array.isArray(body))
        return { ok: false, message: "body must be a JSON object" };
    const r = validate(schema, body);
    return r.ok ? r : { ok: false, message: describeFailures(r.failures) };
}

const STATUS_TYPES: Record<number, string> = {
    200: "success",
    201: "created",
    400: "badRequest",
    401: "unauthorized",
    404: "notFound",
    405: "methodNotAllowed",
    429: "tooManyRequests",
    500: "internalServerError",
    502: "badGateway",
    503: "serviceUnavailable",
};

/** The documented envelope; failures add a message to the status part. */
function restore<T>(map: Map<string, T>, from: Map<string, T>): void {
    map.clear();
    for (const [k, v] of from) map.set(k, v);
}

function envelope(code: number, message?: string) {
    const status: Record<string, unknown> = { code, type: STATUS_TYPES[code] ?? (code < 400 ? "success" : "error") };
    if (message !== undefined) status.message = message;
    return { timestamp: new Date().toISOString(), status };
}

function listItem(c: StoredConnection) {
    return {
        id: c.id,
        story: c.story,
        name: c.name,
        url: c.url,
        error: c.error ?? false,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
    };
}

function singleRead(c: StoredConnection) {
    return { ...structuredClone(c), error: c.error ?? null };
}

function newId(): string {
    return randomBytes(12).toString("hex");
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        ...headers,
    });
    res.end(text);
}

const MAX_BODY = 1024 * 1024;

function readBody(req: http.IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) {
                reject(new Error("body too large"));
                req.destroy();
            } else chunks.push(c);
        });
        req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        req.on("error", reject);
    });
}

function sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
}
