/**
 * ChatBot's verification request and the webhook token, end to end: the fetch handler (called
 * with `Request` objects, as Workers, Deno and Bun call it), the Node listener and the Lambda
 * function-URL adapter answer it; the probe makes it; the simulator sends it before it accepts a
 * connection and puts the token in its webhook calls. Servers listen on 127.0.0.1 only.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import {
    VERIFICATION_FAILED_PREFIX,
    createFetchHandler,
    createWebhookHandler,
    forLambdaFunctionUrl,
    isVerificationFailure,
    probeWebhook,
    sampleWebhookRequest,
    text,
} from "../../provider/webhook";
import type { WebhookHandlerOptions, WebhookProblem, WebhookResponse } from "../../provider/webhook";
import { ChatbotSimulator } from "../../provider/testing";
import { loopbackServers } from "../helpers/support";

const TOKEN = "t0ken-SECRET-value";
const WRONG = "wr0ng-GUESS";
const auth = { username: "chatbot", password: "pa55-SECRET" };
const answer: WebhookResponse = { responses: [text("Hello")], attributes: { vip: true } };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;

/** A logger that keeps what it is given, to check what would be logged and that no secret is. */
function capture() {
    const lines: string[] = [];
    return {
        lines,
        logger: { warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) },
        noSecrets() {
            for (const l of lines) assert.ok(!/SECRET|GUESS/.test(l), l);
        },
    };
}

const { listen, closeAll } = loopbackServers();
after(closeAll);

describe("createFetchHandler (web-standard Request → Response)", () => {
    const log = capture();
    const seen: Request[] = [];
    const options: WebhookHandlerOptions = { token: TOKEN, auth, logger: log.logger, maxBodyBytes: 4096 };
    const handler = createFetchHandler((_call, { request }) => {
        seen.push(request);
        return answer;
    }, options);
    const at = (query: string) => `https://backend.example/hook${query}`;
    const post = (query: string, init: RequestInit = {}) =>
        new Request(at(query), {
            method: "POST",
            headers: { "content-type": "application/json", authorization: basic(auth.username, auth.password) },
            body: JSON.stringify(sampleWebhookRequest),
            ...init,
        });
    beforeEach(() => {
        log.lines.length = 0;
        seen.length = 0;
    });

    it("answers the verification request with 200 and the challenge as the whole body", async () => {
        const res = await handler(new Request(at(`?challenge=ch4llenge-42&token=${TOKEN}`)));
        assert.equal(res.status, 200);
        assert.equal(await res.text(), "ch4llenge-42");
        assert.match(String(res.headers.get("content-type")), /^text\/plain/);
        assert.equal(seen.length, 0, "verification never reaches your function");
    });

    it("answers 401 to a verification request with a wrong or missing token, without echoing anything", async () => {
        for (const query of [`?challenge=ch4llenge-42&token=${WRONG}`, "?challenge=ch4llenge-42"]) {
            const res = await handler(new Request(at(query)));
            assert.equal(res.status, 401);
            const body = await res.text();
            assert.ok(!/ch4llenge|SECRET|GUESS/.test(body), body);
        }
        assert.equal(log.lines.length, 2, "each refusal is logged by default");
        assert.match(log.lines[0], /refused a call \(401\).*token/);
        log.noSecrets();
    });

    it("refuses a POST whose token query parameter is missing or wrong, and answers a right one", async () => {
        assert.equal((await handler(post(""))).status, 401);
        assert.equal((await handler(post(`?token=${WRONG}`))).status, 401);
        assert.equal(seen.length, 0);
        const ok = await handler(post(`?token=${encodeURIComponent(TOKEN)}`));
        assert.equal(ok.status, 200);
        assert.deepEqual(await ok.json(), answer);
        assert.equal(seen.length, 1, "your function gets the Request in its context");
        assert.equal(seen[0].method, "POST");
        assert.match(log.lines.join("\n"), /token query parameter missing or wrong/);
        log.noSecrets();
    });

    it("still checks basic auth and headers beside the token", async () => {
        const wrongAuth = post(`?token=${TOKEN}`, {
            headers: { "content-type": "application/json", authorization: basic(auth.username, WRONG) },
        });
        const res = await handler(wrongAuth);
        assert.equal(res.status, 401);
        assert.match(String(res.headers.get("www-authenticate")), /^Basic/);
        const withHeader = createFetchHandler(() => answer, {
            headers: { "X-Env": "v4lue-SECRET" },
            logger: log.logger,
        });
        const bad = await withHeader(post("", { headers: { "x-env": WRONG } }));
        assert.equal(bad.status, 401);
        assert.match(((await bad.json()) as { error: string }).error, /header x-env missing or wrong/);
        const good = await withHeader(post("", { headers: { "x-env": "v4lue-SECRET" } }));
        assert.equal(good.status, 200);
        log.noSecrets();
    });

    it("answers 405, 400, 413 and 500 as the Node listener does", async () => {
        const q = `?token=${TOKEN}`;
        const put = await handler(new Request(at(q), { method: "PUT", body: "{}" }));
        assert.equal(put.status, 405);
        assert.equal(put.headers.get("allow"), "POST");
        assert.equal((await handler(post(q, { body: "{not json" }))).status, 400);
        // A streamed body, no content-length: the limit holds while reading.
        const stream = new ReadableStream<Uint8Array>({
            start(c) {
                for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("x".repeat(1000)));
                c.close();
            },
        });
        const big = await handler(post(q, { body: stream, duplex: "half" } as RequestInit));
        assert.equal(big.status, 413);
        const errors: WebhookProblem[] = [];
        const throwing = createFetchHandler(
            () => {
                throw new Error("database password is hunter2");
            },
            { onError: (p) => errors.push(p) },
        );
        const res = await throwing(post(""));
        assert.equal(res.status, 500);
        assert.ok(!(await res.text()).includes("hunter2"));
        assert.equal(errors.length, 1);
    });

    it("answers a verification request when no token is set, since ChatBot verifies every new webhook", async () => {
        const open = createFetchHandler(() => answer, { logger: log.logger });
        const res = await open(new Request(at("?challenge=abc")));
        assert.equal(res.status, 200);
        assert.equal(await res.text(), "abc");
        assert.equal((await open(new Request(at("")))).status, 405, "a GET without a challenge is no verification");
    });

    it("logs a function slower than ChatBot's 10 s limit as such", async () => {
        const realNow = Date.now;
        const slow = createFetchHandler(
            () => {
                const later = realNow() + 12_000;
                Date.now = () => later; // the clock moves on while the function "works"
                return answer;
            },
            { logger: log.logger },
        );
        try {
            const res = await slow(post(""));
            assert.equal(res.status, 200, "the answer still goes out");
        } finally {
            Date.now = realNow;
        }
        assert.equal(log.lines.length, 1);
        assert.match(log.lines[0], /answered after 1\d{4} ms, over ChatBot's limit of 10000 ms/);
    });
});

describe("forLambdaFunctionUrl", () => {
    const handler = forLambdaFunctionUrl(createFetchHandler(() => answer, { token: TOKEN, logger: capture().logger }));
    const event = (method: string, rawQueryString: string, body?: string) => ({
        version: "2.0",
        rawPath: "/",
        rawQueryString,
        headers: { "content-type": "application/json", host: "abc.lambda-url.eu-west-1.on.aws" },
        requestContext: { domainName: "abc.lambda-url.eu-west-1.on.aws", http: { method } },
        ...(body === undefined ? {} : { body: Buffer.from(body).toString("base64"), isBase64Encoded: true }),
    });

    it("answers the verification request and a base64-encoded call from a function URL event", async () => {
        const v = await handler(event("GET", `challenge=xyz&token=${TOKEN}`));
        assert.equal(v.statusCode, 200);
        assert.equal(v.body, "xyz");
        const call = await handler(event("POST", `token=${TOKEN}`, JSON.stringify(sampleWebhookRequest)));
        assert.equal(call.statusCode, 200);
        assert.deepEqual(JSON.parse(call.body), answer);
        assert.match(call.headers["content-type"], /^application\/json/);
        const wrong = await handler(event("POST", `token=${WRONG}`, JSON.stringify(sampleWebhookRequest)));
        assert.equal(wrong.statusCode, 401);
    });
});

describe("a rotation: several accepted tokens, basic-auth pairs and header values", function () {
    this.timeout(20_000);
    const OLD = { token: "old-t0ken-SECRET", password: "old-pa55-SECRET", header: "old-h3ader-SECRET" };
    const NEW = { token: "new-t0ken-SECRET", password: "new-pa55-SECRET", header: "new-h3ader-SECRET" };
    const log = capture();
    // The order a rotation writes them in: the next first, the current still accepted.
    const options: WebhookHandlerOptions = {
        token: [NEW.token, OLD.token],
        auth: [
            { username: "chatbot", password: NEW.password },
            { username: "chatbot", password: OLD.password },
        ],
        headers: { "X-Env": [NEW.header, OLD.header], "X-Fixed": "f1xed-SECRET" },
        logger: log.logger,
    };
    type Sent = { status: number; body: string; authenticate?: string | null };
    /** One call through each runtime the kit has: the web-standard handler, the Lambda adapter, the Node listener. */
    const fetchHandler = createFetchHandler(() => answer, options);
    const lambda = forLambdaFunctionUrl(createFetchHandler(() => answer, options));
    let node = "";
    before(async () => {
        node = await listen(createWebhookHandler(() => answer, options));
    });
    beforeEach(() => (log.lines.length = 0));

    const runtimes: Record<string, (method: string, query: string, headers: Record<string, string>) => Promise<Sent>> =
        {
            fetch: async (method, query, headers) => {
                const body = method === "POST" ? JSON.stringify(sampleWebhookRequest) : undefined;
                const res = await fetchHandler(
                    new Request(`https://b.example/hook?${query}`, { method, headers, body }),
                );
                return {
                    status: res.status,
                    body: await res.text(),
                    authenticate: res.headers.get("www-authenticate"),
                };
            },
            lambda: async (method, query, headers) => {
                const res = await lambda({
                    rawPath: "/hook",
                    rawQueryString: query,
                    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
                    requestContext: { http: { method } },
                    ...(method === "POST" ? { body: JSON.stringify(sampleWebhookRequest) } : {}),
                });
                return { status: res.statusCode, body: res.body, authenticate: res.headers["www-authenticate"] };
            },
            node: async (method, query, headers) => {
                const body = method === "POST" ? JSON.stringify(sampleWebhookRequest) : undefined;
                const res = await fetch(`${node}/hook?${query}`, { method, headers, body });
                return {
                    status: res.status,
                    body: await res.text(),
                    authenticate: res.headers.get("www-authenticate"),
                };
            },
        };
    const credentials = (c: { token: string; password: string; header: string }) => ({
        query: `token=${encodeURIComponent(c.token)}`,
        headers: {
            "content-type": "application/json",
            authorization: basic("chatbot", c.password),
            "X-Env": c.header,
            "X-Fixed": "f1xed-SECRET",
        },
    });

    for (const [runtime, send] of Object.entries(runtimes)) {
        it(`${runtime}: accepts the old and the new of each, in any mix; refuses anything else as before, naming what, showing no value`, async () => {
            for (const c of [OLD, NEW, { ...OLD, password: NEW.password }, { ...NEW, header: OLD.header }]) {
                const { query, headers } = credentials(c);
                const verified = await send("GET", `challenge=ch-9&${query}`, {});
                assert.equal(verified.status, 200);
                assert.equal(verified.body, "ch-9");
                const called = await send("POST", query, headers);
                assert.equal(called.status, 200, called.body);
                assert.deepEqual(JSON.parse(called.body), answer);
            }
            const refusals: Array<[string, (c: ReturnType<typeof credentials>) => void, RegExp]> = [
                ["token", (c) => (c.query = `token=${WRONG}`), /token query parameter missing or wrong/],
                ["no token", (c) => (c.query = ""), /token query parameter missing or wrong/],
                ["password", (c) => (c.headers.authorization = basic("chatbot", WRONG)), /basic authorization/],
                // The old user name with the new password is no accepted pair.
                ["user", (c) => (c.headers.authorization = basic(WRONG, NEW.password)), /basic authorization/],
                ["header", (c) => (c.headers["X-Env"] = WRONG), /header x-env missing or wrong/],
            ];
            for (const [what, spoil, reason] of refusals) {
                const c = credentials(NEW);
                spoil(c);
                const r = await send("POST", c.query, c.headers);
                assert.equal(r.status, 401, what);
                assert.match(r.body, reason);
                assert.ok(!/SECRET|GUESS/.test(r.body), r.body);
                if (what === "password") assert.match(String(r.authenticate), /^Basic/);
            }
            assert.equal((await send("GET", `challenge=ch-9&token=${WRONG}`, {})).status, 401);
            assert.equal(log.lines.length, refusals.length + 1, log.lines.join("\n"));
            log.noSecrets();
        });
    }

    it("a single value still works, and an empty list or a missing entry is refused when the handler is made, naming the option only", () => {
        assert.doesNotThrow(() => createFetchHandler(() => answer, { token: TOKEN, auth, headers: { "X-Env": "v" } }));
        const made = (o: WebhookHandlerOptions) => () => createWebhookHandler(() => answer, o);
        assert.throws(made({ token: [] }), /token must be a value or a non-empty list .*an empty list/);
        // As `[process.env.NEXT_TOKEN, current]` is when the variable is unset: no `?token=` accepted.
        const unset = process.env.PULUMI_CHATBOT_UNSET_FOR_TEST as string;
        assert.throws(made({ token: [unset, TOKEN] }), (e: Error) => {
            assert.match(e.message, /token must be a value or a non-empty list/);
            assert.ok(!e.message.includes(TOKEN));
            return true;
        });
        assert.throws(made({ auth: [] }), /auth must be/);
        assert.throws(made({ headers: { "X-Env": [] } }), /headers\.X-Env must be/);
        assert.throws(made({ headers: { "X-Env": unset } }), /headers\.X-Env must be .*missing/);
    });
});

describe("the Node listener, the probe and the simulator with a token", function () {
    this.timeout(20_000);
    const log = capture();
    let kit = ""; // a kit backend with the right token
    let wrongKit = ""; // a kit backend that checks another token
    let noGet = ""; // a hand-written backend that answers POST only
    const calls: string[] = [];

    before(async () => {
        const options = { token: TOKEN, auth, logger: log.logger };
        const listener = createWebhookHandler(() => answer, options);
        kit = await listen((req, res) => {
            calls.push(`${req.method} ${req.url}`);
            listener(req, res);
        });
        wrongKit = await listen(createWebhookHandler(() => answer, { ...options, token: "another-token" }));
        noGet = await listen((req, res) => {
            req.resume();
            req.on("end", () => {
                if (req.method !== "POST") return res.writeHead(405).end();
                res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
            });
        });
    });
    beforeEach(() => {
        calls.length = 0;
        log.lines.length = 0;
    });

    it("the Node listener answers the verification request and checks the token on POST", async () => {
        const v = await fetch(`${kit}/hook?challenge=c-1&token=${TOKEN}`);
        assert.equal(v.status, 200);
        assert.equal(await v.text(), "c-1");
        const bad = await fetch(`${kit}/hook?challenge=c-1&token=${WRONG}`);
        assert.equal(bad.status, 401);
        assert.ok(!(await bad.text()).includes("c-1"));
        const post = (q: string) =>
            fetch(`${kit}/hook${q}`, {
                method: "POST",
                headers: { "content-type": "application/json", authorization: basic(auth.username, auth.password) },
                body: JSON.stringify(sampleWebhookRequest),
            });
        assert.equal((await post("")).status, 401);
        assert.equal((await post(`?token=${TOKEN}`)).status, 200);
        assert.match(log.lines.join("\n"), /verification request with a missing or wrong token/);
        log.noSecrets();
    });

    it("a kit backend passes the probe: verification first, then the call with the token", async () => {
        const r = await probeWebhook(`${kit}/hook`, { token: TOKEN, auth });
        assert.deepEqual(r.problems, []);
        assert.equal(r.ok, true);
        assert.equal(r.verification?.ok, true);
        assert.equal(r.verification?.status, 200);
        assert.deepEqual(r.response, answer);
        assert.equal(calls.length, 2);
        assert.match(calls[0], /^GET \/hook\?challenge=[0-9a-f]{32}&token=t0ken-SECRET-value$/);
        assert.equal(calls[1], `POST /hook?token=${TOKEN}`);
    });

    it("a wrong token fails the probe's verification and its call, with a message that says so", async () => {
        const r = await probeWebhook(`${wrongKit}/hook`, { token: TOKEN, auth });
        assert.equal(r.ok, false);
        assert.equal(r.verification?.ok, false);
        assert.equal(r.verification?.status, 401);
        assert.equal(r.status, 401);
        assert.match(r.problems[0], /^verification request: .*answered HTTP 401/);
        assert.ok(r.problems.some((p) => /refused the token/.test(p)));
        for (const p of r.problems) assert.ok(!/SECRET|pa55/.test(p), p);
    });

    it("the probe names a backend that does not answer the verification request", async () => {
        const r = await probeWebhook(`${noGet}/hook`, { verify: true });
        assert.equal(r.ok, false);
        assert.equal(r.status, 200, "the call itself is fine");
        assert.ok(
            r.problems.some((p) => /^verification request: the backend does not answer the verification/.test(p)),
        );
    });

    describe("ChatbotSimulator with verifyWebhooks", () => {
        let sim: ChatbotSimulator;
        const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
        before(async () => {
            sim = await ChatbotSimulator.start({ verifyWebhooks: true, webhookTimeoutMs: 3000 });
        });
        after(() => sim.close());
        const api = async (method: string, p: string, body?: unknown) => {
            const res = await fetch(`${sim.url}${p}`, {
                method,
                headers: { authorization: `Bearer ${sim.token}`, "content-type": "application/json" },
                body: body === undefined ? undefined : JSON.stringify(body),
            });
            return { status: res.status, json: (await res.json()) as { id?: string; status: { message?: string } } };
        };
        const create = (url: string, token?: string) =>
            api("POST", "/v2/integrations/webhook", {
                storyId: STORY,
                name: "orders",
                url,
                auth,
                ...(token === undefined ? {} : { token }),
            });

        it("accepts a connection whose backend passes verification, after asking it", async () => {
            const r = await create(`${kit}/hook`, TOKEN);
            assert.equal(r.status, 201);
            assert.equal(calls.length, 1);
            assert.match(calls[0], /^GET \/hook\?challenge=[0-9a-f]+&token=t0ken-SECRET-value$/);
            assert.ok(sim.getConnection(r.json.id!));
        });

        it("refuses a wrong token with a 400 that says verification failed and why, and stores nothing", async () => {
            const before = sim.listConnections().length;
            const r = await create(`${wrongKit}/hook`, TOKEN);
            assert.equal(r.status, 400);
            const message = String(r.json.status.message);
            assert.ok(message.startsWith(VERIFICATION_FAILED_PREFIX), message);
            assert.ok(isVerificationFailure(message));
            assert.match(message, /refused the token/);
            assert.match(message, /needs HTTP 200 with the challenge as the whole body/);
            assert.ok(!/SECRET/.test(message), message);
            assert.equal(sim.listConnections().length, before);
        });

        it("verifies an update only when url or token change", async () => {
            const { json } = await create(`${kit}/hook`, TOKEN);
            const id = json.id!;
            calls.length = 0;
            const put = (body: Record<string, unknown>) =>
                api("PUT", `/v2/integrations/webhook/${id}`, { name: "orders", auth, ...body });
            assert.equal((await put({ url: `${kit}/hook`, token: TOKEN, name: "renamed" })).status, 200);
            assert.equal(calls.length, 0, "a rename is not verified again");
            const refused = await put({ url: `${wrongKit}/hook`, token: TOKEN });
            assert.equal(refused.status, 400);
            assert.ok(isVerificationFailure(refused.json.status.message));
            assert.equal(sim.getConnection(id)?.url, `${kit}/hook`, "a refused update changes nothing");
            const otherToken = await put({ url: `${kit}/hook`, token: "not-the-backend-token" });
            assert.equal(otherToken.status, 400);
            assert.equal(sim.getConnection(id)?.token, TOKEN);
        });

        it("its webhook calls carry the token; a failing call is noted in error", async () => {
            const { json } = await create(`${kit}/hook`, TOKEN);
            calls.length = 0;
            const r = await sim.callWebhook(json.id!);
            assert.equal(r.ok, true, r.problems.join("\n"));
            assert.deepEqual(calls, [`POST /hook?token=${TOKEN}`]);
            assert.equal(sim.getConnection(json.id!)?.error, null);
            sim.editConnection(json.id!, { token: "changed-by-hand" });
            const failed = await sim.callWebhook(json.id!);
            assert.equal(failed.status, 401);
            assert.match(String(sim.getConnection(json.id!)?.error), /answered HTTP 401/);
        });

        it("chatTraffic calls on its own with what the connection holds at each call, and stops by itself at its bounds", async () => {
            const { json } = await create(`${kit}/hook`, TOKEN);
            const id = json.id!;
            calls.length = 0;
            const byCount = await sim.chatTraffic(id, { intervalMs: 1, maxCalls: 4 }).done;
            assert.deepEqual(byCount, { calls: 4, refused: [] });
            assert.equal(calls.length, 4);
            // A change between calls reaches the next one: a token the backend does not take is refused.
            sim.editConnection(id, { token: "changed-by-hand" });
            const started = Date.now();
            const byTime = await sim.chatTraffic(id, { intervalMs: 20, maxCalls: 10_000, maxMs: 300 }).done;
            assert.ok(Date.now() - started < 5_000 && byTime.calls < 10_000, `${byTime.calls} calls`);
            assert.equal(byTime.refused.length, byTime.calls);
            assert.equal(byTime.refused[0].status, 401);
            assert.ok(!JSON.stringify(byTime).includes("changed-by-hand"), "no secret in the report");
            const stopped = sim.chatTraffic(id, { intervalMs: 10 });
            assert.ok((await stopped.stop()).calls <= 1);
        });

        it("off by default: a url that points nowhere is accepted", async () => {
            const plain = await ChatbotSimulator.start();
            try {
                const res = await fetch(`${plain.url}/v2/integrations/webhook`, {
                    method: "POST",
                    headers: { authorization: `Bearer ${plain.token}`, "content-type": "application/json" },
                    body: JSON.stringify({ storyId: STORY, name: "x", url: "http://127.0.0.1:9/nowhere" }),
                });
                assert.equal(res.status, 201);
            } finally {
                await plain.close();
            }
        });
    });
});

describe("pulumi-chatbot/webhook runs without Node", () => {
    it("the installed entry and everything it loads require nothing but its own files (zod is bundled)", () => {
        const dist = path.dirname(require.resolve("pulumi-chatbot/webhook"));
        const root = path.dirname(dist);
        const seen = new Set<string>();
        const outside = new Set<string>();
        const visit = (file: string) => {
            if (seen.has(file)) return;
            seen.add(file);
            const source = fs.readFileSync(file, "utf8");
            for (const [, spec] of source.matchAll(/require\("([^"]+)"\)/g)) {
                if (spec.startsWith(".")) visit(require.resolve(path.resolve(path.dirname(file), spec)));
                else outside.add(spec);
            }
        };
        visit(require.resolve("pulumi-chatbot/webhook"));
        assert.ok(seen.has(path.join(root, "webhook", "fetch.js")));
        assert.deepEqual([...outside].sort(), [], `modules outside the package: ${[...outside].join(", ")}`);
    });
});
