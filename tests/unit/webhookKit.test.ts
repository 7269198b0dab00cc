/**
 * The webhook backend kit: every response and button limit at its edge and one beyond, the
 * handler end to end on a real HTTP server, and the probe against small loopback backends that
 * fail in each of the ways ChatBot fails a call. Every server listens on 127.0.0.1 only and every
 * wait is bounded.
 */
import { strict as assert } from "assert";
import * as http from "http";
import type { AddressInfo } from "net";
import { Agent, request } from "undici";
import {
    buttons,
    cards,
    createWebhookHandler,
    goto,
    image,
    phone,
    postback,
    probeWebhook,
    ProbeRefused,
    type ProbeSend,
    quickReplies,
    randomText,
    sampleWebhookRequest,
    text,
    urlButton,
    verifyWebhookResponse,
    webhookLimits,
    webview,
} from "../../provider/webhook";
import type { WebhookHandlerOptions, WebhookProblem, WebhookRequest, WebhookResponse } from "../../provider/webhook";
import { validate } from "../../provider/schema/validate";
import { loopbackServers } from "../helpers/support";
import { contractVerdict } from "../helpers/webhookContract";
import { webhookRequestSchema, webhookResponseSchema } from "../../provider/webhook/schema";

const s = (n: number, ch = "a") => ch.repeat(n);
const NODE_UUID = "3f2b8c1e-9d4a-4e6f-8b7c-1a2d3e4f5a6b";
const okButton = { type: "postback", title: "Yes", value: "yes" };
const card = { title: "Card", subtitle: "Sub", imageUrl: "https://example.com/a.png", buttons: [okButton] };
const buttonsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ ...okButton, value: `v${i}` }));
const one = (response: Record<string, unknown>) => ({ responses: [response] });

function failuresOf(value: unknown) {
    return verifyWebhookResponse(value).failures;
}

/** The shipped JSON Schema's verdict must be the kit's on every case here (docs/webhook-kit.md,
 *  "JSON Schema"): what a backend in another language validates with is the same contract. */
function expectContract(value: unknown, ok: boolean) {
    const verdict = contractVerdict("response", value);
    assert.equal(verdict.ok, ok, `response.json says ${verdict.ok ? "valid" : verdict.errors.join("; ")}`);
}

function expectOk(value: unknown) {
    assert.deepEqual(failuresOf(value), []);
    expectContract(value, true);
}

function expectFailure(value: unknown, property: string, limit: RegExp) {
    expectContract(value, false);
    const failures = failuresOf(value);
    const f = failures.find((x) => x.property === property);
    assert.ok(f, `expected a failure on ${property}, got ${JSON.stringify(failures)}`);
    assert.match(f.reason, limit);
    assert.ok(f.reason.startsWith(property), `reason names the property: ${f.reason}`);
}

describe("webhook response schema", () => {
    // [property, response holding the value there, min, max, limit message]
    const strings: Array<[string, (v: string) => unknown, number, number, RegExp]> = [
        ["responses[0].message", (v) => one({ type: "text", message: v }), 1, 1024, /1 to 1024 characters/],
        ["responses[0].messages[0]", (v) => one({ type: "randomText", messages: [v] }), 1, 1024, /1 to 1024/],
        ["responses[0].imageUrl", (v) => one({ type: "image", imageUrl: v }), 1, 2048, /1 to 2048 characters/],
        [
            "responses[0].title",
            (v) => one({ type: "quickReplies", title: v, buttons: [okButton] }),
            1,
            640,
            /1 to 640 characters/,
        ],
        [
            "responses[0].elements[0].title",
            (v) => one({ type: "cards", elements: [{ ...card, title: v }] }),
            1,
            80,
            /1 to 80 characters/,
        ],
        [
            "responses[0].elements[0].subtitle",
            (v) => one({ type: "cards", elements: [{ ...card, subtitle: v }] }),
            1,
            80,
            /1 to 80 characters/,
        ],
        [
            "responses[0].elements[0].imageUrl",
            (v) => one({ type: "cards", elements: [{ ...card, imageUrl: v }] }),
            1,
            2048,
            /1 to 2048 characters/,
        ],
        [
            "responses[0].title",
            (v) => one({ type: "buttons", title: v, buttons: [okButton] }),
            1,
            640,
            /1 to 640 characters/,
        ],
    ];

    // Buttons are checked where all five may go: in a buttons response.
    const inButtons = (button: Record<string, unknown>) => one({ type: "buttons", title: "Pick", buttons: [button] });
    const b = "responses[0].buttons[0]";
    const buttonStrings: Array<[string, (v: string) => unknown, number, number, RegExp]> = [
        [`${b}.title`, (v) => inButtons({ type: "postback", title: v, value: "x" }), 1, 20, /1 to 20 characters/],
        [`${b}.value`, (v) => inButtons({ type: "postback", title: "t", value: v }), 1, 2000, /1 to 2000/],
        [`${b}.title`, (v) => inButtons({ type: "goto", title: v, value: NODE_UUID }), 1, 20, /1 to 20 characters/],
        [`${b}.title`, (v) => inButtons({ type: "url", title: v, value: "https://x.io" }), 0, 20, /0 to 20/],
        [`${b}.value`, (v) => inButtons({ type: "url", title: "t", value: v }), 0, 2048, /0 to 2048 characters/],
        [`${b}.title`, (v) => inButtons({ type: "webview", title: v, value: "https://x.io" }), 1, 20, /1 to 20/],
        [`${b}.value`, (v) => inButtons({ type: "webview", title: "t", value: v }), 1, 2048, /1 to 2048/],
        [`${b}.title`, (v) => inButtons({ type: "phone", title: v, value: "+4930" }), 1, 20, /1 to 20 characters/],
    ];

    for (const [property, make, min, max, limit] of [...strings, ...buttonStrings]) {
        // The response type, or for a button row the button type: the test's name says which.
        const types = [...JSON.stringify(make("")).matchAll(/"type":"(\w+)"/g)].map((m) => m[1]);
        const what = property.startsWith(b) ? types[1] : types[0];
        it(`${property} (${what}): ${min} and ${max} characters pass, one beyond fails`, () => {
            expectOk(make(s(min)));
            expectOk(make(s(max)));
            if (min > 0) expectFailure(make(s(min - 1)), property, limit);
            expectFailure(make(s(max + 1)), property, limit);
        });
    }

    // [property, response holding n items there, min, max]
    const lists: Array<[string, (n: number) => unknown, number, number]> = [
        ["responses[0].messages", (n) => one({ type: "randomText", messages: Array(n).fill("hi") }), 1, 20],
        [
            "responses[0].buttons",
            (n) => one({ type: "quickReplies", title: "Q", buttons: buttonsOf(n) }),
            ...([1, 13] as const),
        ],
        [
            "responses[0].elements[0].buttons",
            (n) => one({ type: "cards", elements: [{ ...card, buttons: buttonsOf(n) }] }),
            ...([1, 5] as const),
        ],
        ["responses[0].buttons", (n) => one({ type: "buttons", title: "B", buttons: buttonsOf(n) }), 1, 5],
    ];
    for (const [property, make, min, max] of lists) {
        it(`${property}: ${min} and ${max} items pass, ${min - 1} and ${max + 1} fail`, () => {
            expectOk(make(min));
            expectOk(make(max));
            expectFailure(make(min - 1), property, new RegExp(`must have ${min} to ${max} items`));
            expectFailure(make(max + 1), property, new RegExp(`must have ${min} to ${max} items`));
        });
    }

    it("the limits in webhookLimits are the ones enforced", () => {
        assert.equal(webhookLimits.responses.quickReplies.buttons.max, 13);
        assert.equal(webhookLimits.buttons.postback.value.max, 2000);
        assert.equal(webhookLimits.delay.default, 1000);
        assert.equal(webhookLimits.callTimeoutMs, 10_000);
        assert.equal(webhookLimits.maxRedirects, 1);
    });

    it("delay: any number from 100 to 10000 (fractions too, as 2.6 says), optional, and never filled in", () => {
        const at = (delay: unknown) => one({ type: "text", message: "hi", delay });
        expectOk(at(100));
        expectOk(at(10_000));
        expectFailure(at(99), "responses[0].delay", /must be 100 to 10000/);
        expectFailure(at(10_001), "responses[0].delay", /must be 100 to 10000/);
        expectOk(at(150.5));
        expectOk(at(9999.99));
        expectFailure(at(99.5), "responses[0].delay", /must be 100 to 10000/);
        expectFailure(at(Number.NaN), "responses[0].delay", /must be a number/);
        expectFailure(at(Number.POSITIVE_INFINITY), "responses[0].delay", /must be/);
        expectFailure(at("200"), "responses[0].delay", /must be a number/);
        const parsed = validate(webhookResponseSchema, one({ type: "text", message: "hi" }));
        assert.ok(parsed.ok);
        assert.deepEqual(parsed.value, one({ type: "text", message: "hi" }), "the default 1000 is ChatBot's to apply");
    });

    it("goto value: exactly 36 characters, a UUIDv4", () => {
        const at = (value: string) => inButtons({ type: "goto", title: "Go", value });
        expectOk(at(NODE_UUID));
        expectOk(at(NODE_UUID.toUpperCase()));
        expectFailure(at(NODE_UUID.slice(1)), `${b}.value`, /exactly 36 characters/);
        expectFailure(at(NODE_UUID + "0"), `${b}.value`, /exactly 36 characters/);
        expectFailure(at(s(36)), `${b}.value`, /UUIDv4/);
        // A version 1 UUID has the right length but not the right version.
        expectFailure(at("3f2b8c1e-9d4a-1e6f-8b7c-1a2d3e4f5a6b"), `${b}.value`, /UUIDv4/);
    });

    it("phone value: 3 to 16 characters, + followed by at least 2 digits", () => {
        const at = (value: string) => inButtons({ type: "phone", title: "Call", value });
        expectOk(at("+12"));
        expectOk(at("+" + s(15, "9")));
        expectFailure(at("+1"), `${b}.value`, /3 to 16 characters/);
        expectFailure(at("+" + s(16, "9")), `${b}.value`, /3 to 16 characters/);
        expectFailure(at("123"), `${b}.value`, /\+ followed by at least 2 digits/);
        expectFailure(at("+12 345"), `${b}.value`, /\+ followed by at least 2 digits/);
    });

    it("webview height: full, tall or compact, optional and not filled in", () => {
        const at = (height?: unknown) =>
            inButtons({ type: "webview", title: "Open", value: "https://x.io", ...(height ? { height } : {}) });
        for (const height of ["full", "tall", "compact"]) expectOk(at(height));
        expectOk(at());
        expectFailure(at("huge"), `${b}.height`, /must be one of full, tall, compact/);
        assert.deepEqual(webview("Open", "https://x.io"), { type: "webview", title: "Open", value: "https://x.io" });
    });

    it("an unknown or missing type names the allowed types", () => {
        expectFailure(
            { responses: [{ type: "txt", message: "hi" }] },
            "responses[0].type",
            /^responses\[0\]\.type: must be one of text, randomText, image, quickReplies, cards, buttons$/,
        );
        expectFailure({ responses: [{ message: "hi" }] }, "responses[0].type", /must be one of text, randomText/);
        expectFailure(
            inButtons({ type: "link", title: "t", value: "v" }),
            `${b}.type`,
            /must be one of postback, goto, url, webview, phone$/,
        );
        // Quick replies take only postback and goto buttons.
        expectFailure(
            one({ type: "quickReplies", title: "Q", buttons: [{ type: "url", title: "t", value: "https://x.io" }] }),
            "responses[0].buttons[0].type",
            /must be one of postback, goto$/,
        );
        expectFailure({ responses: ["hi"] }, "responses[0]", /must be an object/);
    });

    it("a preview's unknown value is judged as the string it is: a call's JSON holds none", () => {
        // What the engine sends for an input not known yet (schema/validate.ts drops issues on it
        // during preview); a backend could still answer it, and ChatBot would refuse it.
        const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        expectFailure({ responses: unknown }, "responses", /must be a list/);
        expectFailure(inButtons({ type: "postback", title: unknown, value: "x" }), `${b}.title`, /1 to 20/);
    });

    it("unknown keys in responses and buttons are rejected, so typos are caught", () => {
        expectFailure(one({ type: "text", mesage: "hi" }), "responses[0]", /unknown property "mesage"/);
        expectFailure(inButtons({ ...okButton, payload: "x" }), b, /unknown property "payload"/);
        expectFailure({ response: [] }, "", /unknown property "response"/);
    });

    it("responses and attributes are both optional; the doc gives no count limit for cards", () => {
        expectOk({});
        expectOk({ attributes: { plan: "gold", score: 3 } });
        expectOk({ responses: [] });
        expectOk(one({ type: "cards", elements: [] }));
        expectOk(one({ type: "cards", elements: Array(30).fill(card) }));
        expectFailure({ attributes: ["x"] }, "attributes", /must be an object/);
        expectFailure({ responses: {} }, "responses", /must be a list/);
    });

    it("builders make valid responses and add no undefined keys", () => {
        const response: WebhookResponse = {
            responses: [
                text("Hello", { delay: 500 }),
                randomText(["Hi", "Hey"]),
                image("https://example.com/a.png"),
                quickReplies("Anything else?", [postback("No", "no"), goto("Start", NODE_UUID)]),
                cards([
                    {
                        title: "T",
                        subtitle: "S",
                        imageUrl: "https://x.io/i.png",
                        buttons: [urlButton("Open", "https://x.io")],
                    },
                ]),
                buttons("Contact", [phone("Call", "+4930123456"), webview("Map", "https://x.io/map", "tall")]),
            ],
            attributes: { customer: true },
        };
        expectOk(response);
        assert.deepEqual(text("Hi"), { type: "text", message: "Hi" });
        assert.ok(!("delay" in text("Hi")));
        assert.equal(verifyWebhookResponse({ responses: [postback("t", "v")] }).ok, false);
    });
});

describe("webhook request schema", () => {
    /** The kit's verdict on a request, held to request.json's (as expectContract for responses). */
    const judge = (value: unknown) => {
        const r = validate(webhookRequestSchema, value);
        const verdict = contractVerdict("request", value);
        assert.equal(verdict.ok, r.ok, `request.json says ${verdict.ok ? "valid" : verdict.errors.join("; ")}`);
        return r;
    };

    it("accepts ChatBot's request, with or without the optional parts, keeping unknown keys", () => {
        assert.ok(judge(sampleWebhookRequest).ok);
        const minimal = { chatId: "c", messageId: "m", userId: "u", node: sampleWebhookRequest.node };
        assert.ok(judge(minimal).ok);
        assert.ok(judge({ ...minimal, externalId: null }).ok);
        assert.ok(judge({ ...minimal, node: { ...minimal.node, blockType: "x" }, userAttributes: { a: [1] } }).ok);
        const extra = judge({ ...minimal, sessionId: "s" });
        assert.ok(extra.ok && extra.value.sessionId === "s");
        for (const bad of [
            { ...minimal, externalId: 5 },
            { ...minimal, attributes: ["x"] },
            { ...minimal, node: "n" },
            "not an object",
        ]) {
            assert.equal(judge(bad).ok, false, JSON.stringify(bad));
        }
    });

    it("names what is missing or wrong", () => {
        const r = judge({ chatId: 1, node: { ...sampleWebhookRequest.node, type: "TEXT" } });
        assert.ok(!r.ok);
        const reasons = r.failures.map((f) => f.reason);
        assert.ok(reasons.includes("chatId: must be a string"), reasons.join("; "));
        assert.ok(reasons.includes("messageId: is required"), reasons.join("; "));
        assert.ok(reasons.includes('node.type: must be "WEBHOOK"'), reasons.join("; "));
    });
});

// ---------------------------------------------------------------------------------------------
// Loopback servers

const { listen, closeAll } = loopbackServers();
const timers: NodeJS.Timeout[] = [];

after(async () => {
    for (const t of timers) clearTimeout(t);
    await closeAll();
});

function answerJson(res: http.ServerResponse, status: number, body: unknown) {
    const json = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json" }).end(json);
}

/** Drains the request, then answers. */
function afterBody(req: http.IncomingMessage, then: () => void) {
    req.resume();
    req.on("end", then);
}

describe("createWebhookHandler", function () {
    this.timeout(10_000);

    const auth = { username: "chatbot", password: "pa55-w0rd-SECRET" };
    const headers = { "X-Webhook-Token": "t0ken-SECRET" };
    const good: WebhookResponse = { responses: [text("Hello")], attributes: { vip: true } };
    const errors: WebhookProblem[] = [];
    const rejects: WebhookProblem[] = [];
    const received: WebhookRequest[] = [];
    let base = "";
    const client = new Agent({ keepAliveTimeout: 100 });
    after(() => client.close());

    before(async () => {
        const options: WebhookHandlerOptions = {
            auth,
            headers,
            maxBodyBytes: 4096,
            onError: (p) => errors.push(p),
            onReject: (p) => rejects.push(p),
        };
        base = await listen(
            createWebhookHandler(async (call) => {
                received.push(call);
                switch (call.attributes?.mode) {
                    case "invalid":
                        return { responses: [buttons("Pick one", [postback(s(21), "v")])] };
                    case "throws":
                        throw new Error("database password is hunter2");
                    case "attributesOnly":
                        return { attributes: { stage: "done" } };
                    default:
                        return good;
                }
            }, options),
        );
    });
    beforeEach(() => {
        errors.length = 0;
        rejects.length = 0;
        received.length = 0;
    });

    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;
    const goodHeaders = {
        authorization: basic(auth.username, auth.password),
        "x-webhook-token": headers["X-Webhook-Token"],
    };

    async function call(opts: { method?: "GET" | "POST"; body?: string; headers?: Record<string, string> }) {
        const res = await request(`${base}/hook`, {
            method: opts.method ?? "POST",
            headers: { "content-type": "application/json", ...(opts.headers ?? goodHeaders) },
            body: opts.body,
            dispatcher: client,
            headersTimeout: 5000,
            bodyTimeout: 5000,
        });
        const raw = await res.body.text();
        return { status: res.statusCode, headers: res.headers, raw, json: JSON.parse(raw) as Record<string, unknown> };
    }
    const withMode = (mode: string) => JSON.stringify({ ...sampleWebhookRequest, attributes: { mode } });

    it("answers a valid call with 200 and the function's response as JSON", async () => {
        const r = await call({ body: JSON.stringify(sampleWebhookRequest) });
        assert.equal(r.status, 200);
        assert.match(String(r.headers["content-type"]), /^application\/json/);
        assert.deepEqual(r.json, good);
        assert.deepEqual(received, [sampleWebhookRequest]);
        assert.deepEqual(errors, []);
    });

    it("answers an attributes-only response", async () => {
        const r = await call({ body: withMode("attributesOnly") });
        assert.equal(r.status, 200);
        assert.deepEqual(r.json, { attributes: { stage: "done" } });
    });

    it("answers 400 to a body that is not JSON", async () => {
        const r = await call({ body: "{not json" });
        assert.equal(r.status, 400);
        assert.match(String(r.json.error), /not valid JSON/);
        assert.equal(received.length, 0);
    });

    it("answers 400 to a request that is not ChatBot's, naming the properties", async () => {
        const r = await call({ body: JSON.stringify({ chatId: 5 }) });
        assert.equal(r.status, 400);
        assert.ok((r.json.failures as string[]).includes("chatId: must be a string"), r.raw);
        assert.equal(received.length, 0);
    });

    it("answers 405 to anything but POST", async () => {
        const r = await call({ method: "GET" });
        assert.equal(r.status, 405);
        assert.equal(r.headers.allow, "POST");
    });

    it("answers 401 to wrong or missing credentials, and shows no secret", async () => {
        const wrong = "wr0ng-GUESS";
        const attempts: Array<Record<string, string>> = [
            { ...goodHeaders, authorization: basic(auth.username, wrong) },
            { ...goodHeaders, authorization: basic(wrong, auth.password) },
            { "x-webhook-token": headers["X-Webhook-Token"] },
            { ...goodHeaders, "x-webhook-token": wrong },
            { authorization: goodHeaders.authorization },
        ];
        for (const h of attempts) {
            const r = await call({ body: JSON.stringify(sampleWebhookRequest), headers: h });
            assert.equal(r.status, 401, r.raw);
            for (const secret of [auth.password, headers["X-Webhook-Token"], wrong, "SECRET"]) {
                assert.ok(!r.raw.includes(secret), r.raw);
            }
        }
        const logged = JSON.stringify(rejects);
        assert.ok(!/SECRET|GUESS/.test(logged), logged);
        assert.match(logged, /header x-webhook-token missing or wrong/);
        assert.equal(received.length, 0);
    });

    it("answers 413 to a body over maxBodyBytes", async () => {
        const r = await call({ body: JSON.stringify({ ...sampleWebhookRequest, attributes: { pad: s(5000) } }) });
        assert.equal(r.status, 413);
        assert.equal(received.length, 0);
    });

    it("answers 500 when the function returns an invalid response, naming the property in onError", async () => {
        const r = await call({ body: withMode("invalid") });
        assert.equal(r.status, 500);
        assert.deepEqual(r.json, { error: "internal error" });
        assert.equal(errors.length, 1);
        assert.match(errors[0].message, /responses\[0\]\.buttons\[0\]\.title: must be 1 to 20 characters/);
        assert.equal(errors[0].failures?.[0].property, "responses[0].buttons[0].title");
    });

    it("answers 500 when the function throws, without the error's text", async () => {
        const r = await call({ body: withMode("throws") });
        assert.equal(r.status, 500);
        assert.ok(!r.raw.includes("hunter2"), r.raw);
        assert.equal(errors.length, 1);
        assert.match(String((errors[0].error as Error).message), /hunter2/, "the developer's log gets the error");
    });
});

// ---------------------------------------------------------------------------------------------

describe("probeWebhook", function () {
    this.timeout(10_000);

    const auth = { username: "chatbot", password: "pr0be-SECRET" };
    const headers = { "X-Env": "v4lue-SECRET" };
    const answer: WebhookResponse = { responses: [text("Hi from the backend")], attributes: { known: true } };
    let good = "";
    let server = "";
    let sawAuthorization: Array<string | undefined> = [];
    let sawHeader: Array<string | string[] | undefined> = [];

    before(async () => {
        good = await listen(createWebhookHandler(() => answer, { auth, headers }));
        const other = await listen((req, res) => {
            sawAuthorization.push(req.headers.authorization);
            sawHeader.push(req.headers["x-env"]);
            afterBody(req, () => answerJson(res, 200, answer));
        });
        const authed = createWebhookHandler(() => answer, { auth, headers });
        server = await listen((req, res) => {
            const path = req.url ?? "/";
            if (path === "/authed") return authed(req, res);
            afterBody(req, () => {
                switch (path) {
                    case "/fail":
                        return answerJson(res, 500, { error: "boom" });
                    case "/created":
                        return answerJson(res, 201, answer);
                    case "/once":
                        // Same origin: the credentials go along.
                        return res.writeHead(307, { location: "/authed" }).end();
                    case "/found":
                        return res.writeHead(302, { location: `${good}/hook` }).end();
                    case "/elsewhere-authed":
                        return res.writeHead(307, { location: `${good}/hook` }).end();
                    case "/elsewhere":
                        return res.writeHead(307, { location: `${other}/hook` }).end();
                    case "/loop":
                        return res.writeHead(307, { location: "/loop" }).end();
                    case "/invalid":
                        return answerJson(res, 200, { responses: [{ type: "text", message: "" }] });
                    case "/older":
                        // As ChatBotCom/nodejs-webhook-example answers.
                        return answerJson(res, 200, { responses: [{ type: "text", elements: ["Ok, no problem"] }] });
                    case "/older-attributes":
                        return answerJson(res, 200, {
                            responses: [text("Hi"), { type: "text", elements: ["a", "b"] }],
                            parameters: { plan: "pro" },
                        });
                    case "/notjson":
                        return res.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>");
                    case "/slow":
                        // Bounded: answers after 2 s if the probe is still there.
                        timers.push(setTimeout(() => res.writableEnded || answerJson(res, 200, answer), 2000));
                        return;
                    default:
                        return answerJson(res, 404, {});
                }
            });
        });
    });
    beforeEach(() => {
        sawAuthorization = [];
        sawHeader = [];
    });

    const noSecrets = (problems: string[]) => {
        for (const p of problems) assert.ok(!/SECRET|pr0be|v4lue/.test(p), p);
    };

    it("passes a backend that answers as ChatBot requires", async () => {
        const r = await probeWebhook(`${good}/hook`, { auth, headers });
        assert.deepEqual(r.problems, []);
        assert.equal(r.ok, true);
        assert.equal(r.status, 200);
        assert.equal(r.redirects, 0);
        assert.deepEqual(r.response, answer);
        assert.ok(r.durationMs >= 0 && r.durationMs < 5000);
    });

    it("reports a status other than 200 (and no secret)", async () => {
        const wrongAuth = await probeWebhook(`${good}/hook`, { auth: { ...auth, password: "pr0be-wrong" }, headers });
        assert.equal(wrongAuth.ok, false);
        assert.equal(wrongAuth.status, 401);
        assert.match(wrongAuth.problems[0], /HTTP 401; ChatBot accepts only 200/);
        noSecrets(wrongAuth.problems);

        const fail = await probeWebhook(`${server}/fail`);
        assert.equal(fail.ok, false);
        assert.equal(fail.status, 500);
        assert.match(fail.problems.join("\n"), /answered HTTP 500/);

        const created = await probeWebhook(`${server}/created`);
        assert.match(created.problems.join("\n"), /answered HTTP 201/);
    });

    it("follows one redirect to a good backend", async () => {
        const r = await probeWebhook(`${server}/once`, { auth, headers });
        assert.deepEqual(r.problems, []);
        assert.equal(r.ok, true);
        assert.equal(r.redirects, 1);
        assert.equal(r.status, 200);
        assert.deepEqual(r.response, answer);
    });

    it("makes every request through the `send` given, saying which is a redirect's; a refusal names the url and why", async () => {
        const sent: Array<[string, string | undefined, boolean]> = [];
        const recording: ProbeSend = (url, init, redirected) => {
            sent.push([url.pathname, init.method, redirected]);
            if (url.pathname === "/authed") throw new ProbeRefused("it is not where ChatBot goes");
            return fetch(url, init);
        };
        const r = await probeWebhook(`${server}/once`, { auth, headers, send: recording });
        assert.deepEqual(sent, [
            ["/once", "POST", false],
            ["/authed", "POST", true],
        ]);
        assert.deepEqual(r.problems, [
            `refused to call ${server}/authed (the redirect's target): it is not where ChatBot goes`,
        ]);
    });

    it("explains a 302 that turns the POST into a GET", async () => {
        const r = await probeWebhook(`${server}/found`, { auth, headers });
        assert.equal(r.ok, false);
        assert.equal(r.status, 405);
        assert.match(r.problems.join("\n"), /307 or 308/);
    });

    it("does not send the basic credentials or the connection's headers to another origin", async () => {
        const r = await probeWebhook(`${server}/elsewhere`, { auth, headers });
        assert.equal(r.ok, true, r.problems.join("\n"));
        assert.deepEqual(sawAuthorization, [undefined]);
        assert.deepEqual(sawHeader, [undefined], "a secret header value is not sent to another origin");
        const refused = await probeWebhook(`${server}/elsewhere-authed`, { auth, headers });
        assert.equal(refused.status, 401);
        assert.match(refused.problems.join("\n"), /not sent on after the redirect to another origin/);
        noSecrets(refused.problems);
    });

    it("reports a redirect loop", async () => {
        const r = await probeWebhook(`${server}/loop`, { auth, headers });
        assert.equal(r.ok, false);
        assert.equal(r.redirects, 2);
        assert.match(r.problems.join("\n"), /more than one redirect/);
        noSecrets(r.problems);
    });

    it("reports an invalid body, naming the property", async () => {
        const r = await probeWebhook(`${server}/invalid`);
        assert.equal(r.ok, false);
        assert.equal(r.status, 200);
        assert.equal(r.response, undefined);
        assert.deepEqual(r.problems, ["invalid body: responses[0].message: must be 1 to 1024 characters"]);

        const html = await probeWebhook(`${server}/notjson`);
        assert.deepEqual(html.problems, ["invalid body: the answer is not JSON"]);
    });

    it("names the older format of ChatBot's example backends (elements, parameters) and what to write instead", async () => {
        const r = await probeWebhook(`${server}/older`);
        assert.equal(r.ok, false);
        assert.deepEqual(r.problems, [
            'invalid body: responses[0]: {"type": "text", "elements": [...]} is the older format of ChatBot\'s example ' +
                'backends (the BotEngine documentation); the current format is {"type": "text", "message": "..."} for one ' +
                'text, or {"type": "randomText", "messages": [...]} for one of several at random',
        ]);
        const php = await probeWebhook(`${server}/older-attributes`);
        assert.equal(php.problems.length, 2, php.problems.join("\n"));
        assert.match(php.problems[0], /^invalid body: responses\[1\]: \{"type": "text", "elements"/);
        assert.match(
            php.problems[1],
            /^invalid body: parameters: is what the older format .* calls attributes; .*"attributes"/,
        );
        // The same words from the validator a backend's own tests use, and nothing about "message".
        const failures = verifyWebhookResponse({ type: "text", elements: ["x"] }).failures;
        assert.equal(failures.length, 1);
        assert.match(
            failures[0].reason,
            /one bot response in the older format .*"responses": \{"responses": \[\.\.\.\]\}/,
        );
        // A cards response's `elements` is the current format's own: not taken for the older one.
        assert.deepEqual(verifyWebhookResponse(one({ type: "cards", elements: [card] })).failures, []);
    });

    it("reports a backend slower than the time limit", async () => {
        const r = await probeWebhook(`${server}/slow`, { timeoutMs: 300 });
        assert.equal(r.ok, false);
        assert.match(r.problems.join("\n"), /time limit of 300 ms/);
        assert.ok(r.durationMs >= 250 && r.durationMs < 1500, `took ${r.durationMs} ms`);
    });

    it("reports a URL nothing answers at, or that is not http(s)", async () => {
        // A port that was free a moment ago: nothing listens there now.
        const probe = http.createServer();
        await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
        const { port } = probe.address() as AddressInfo;
        await new Promise<void>((resolve) => probe.close(() => resolve()));

        const r = await probeWebhook(`http://127.0.0.1:${port}/hook`, { auth, headers, timeoutMs: 3000 });
        assert.equal(r.ok, false);
        assert.equal(r.status, undefined);
        assert.match(r.problems.join("\n"), /could not connect to http:\/\/127\.0\.0\.1:\d+\/hook: connection refused/);
        noSecrets(r.problems);

        const ftp = await probeWebhook("ftp://127.0.0.1/hook");
        assert.deepEqual(ftp.problems, ["the URL must be an absolute http:// or https:// URL"]);
    });

    it("shows no secret of a failing probe: URL user info, query values, token, headers, basic auth", async () => {
        // A URL with user info cannot even be requested (fetch refuses it, quoting the whole URL),
        // and a backend that answers 401 is quoted too: neither may show what is secret.
        const token = "t0ken-SECRET";
        const withUserInfo = `${server}/fail`.replace("://", "://name:pa55-SECRET@") + "?key=qu3ry-SECRET";
        const refused = await probeWebhook(withUserInfo, { token, auth, headers, verify: true });
        assert.equal(refused.ok, false);
        assert.ok(refused.problems.length >= 2, "the verification request and the call each fail");
        assert.match(refused.problems.join("\n"), /name:\*\*\*@127\.0\.0\.1/, "user info shown as name:***");
        const wrong = await probeWebhook(`${good}/hook?key=qu3ry-SECRET`, {
            token,
            auth: { ...auth, password: "pr0be-wrong" },
            headers,
        });
        assert.equal(wrong.status, 401);
        for (const r of [refused, wrong]) {
            const shown = JSON.stringify(r);
            assert.ok(!/SECRET|pr0be|v4lue|pa55|qu3ry|t0ken/.test(shown), shown);
        }
    });
});
