/**
 * Property-based tests over random inputs (fast-check), with a fixed seed so a failure can be
 * replayed: fast-check prints the seed and path of a failing run; FC_SEED=<seed> runs that seed.
 *
 * For WebhookConnection and LegacyWebhook inputs, and for webhook replies:
 * - checking never throws, whatever it is given;
 * - an input made invalid in one property gets a failure naming that property;
 * - a valid input is accepted by the API: the provider creates it in the simulator exactly as
 *   given (inputs), or the webhook handler answers it with 200 (replies);
 * - for replies, the shipped JSON Schema (response.json) gives the kit's verdict on each.
 */
import { strict as assert } from "assert";
import * as http from "http";
import type { AddressInfo } from "net";
import fc from "fast-check";
import { installedRequire, installedTesting } from "../helpers/support";
import { contractVerdict } from "../helpers/webhookContract";
import type * as Webhook from "pulumi-chatbot/webhook";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";

const SEED = Number(process.env.FC_SEED ?? 20260521);
const RUNS = { seed: SEED, numRuns: 200 };

type Plain = Record<string, unknown>;
interface Provider {
    check(olds: Plain, news: Plain): Promise<{ inputs: Plain; failures: Array<{ property: string; reason: string }> }>;
    create(inputs: Plain): Promise<{ id: string; outs: Plain }>;
    delete(id: string, props: Plain): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Generators

/** As values arrive from the engine or over HTTP: plain JSON (fast-check makes null-prototype objects). */
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v));

const chars = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });
// "__proto__" is a valid token but zod drops it from records: check refuses it (a breaker below).
const headerName = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,40}$/).filter((n) => n !== "__proto__");
const headerValue = (min: number) => fc.stringMatching(new RegExp(`^[\\t\\x20-\\x7e]{${min},80}$`));
const auth = fc.record({ username: chars(1, 64), password: chars(1, 64) });
/** A public address: what both APIs accept (the legacy one refuses private hosts). */
const publicUrl = fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}\.(com|org|io)$/), fc.webPath(), fc.constantFrom("http", "https"))
    .map(([host, path, scheme]) => `${scheme}://${host}${path}`)
    .filter((u) => u.length <= 1024 && URL.canParse(u));

const connectionInputs = fc
    .record(
        {
            storyId: fc.stringMatching(/^[0-9a-f]{24}$/),
            name: chars(1, 128),
            url: fc.oneof(
                publicUrl,
                fc.webUrl().filter((u) => u.length <= 1024),
            ),
            token: chars(1, 1024),
            headers: fc.dictionary(headerName, headerValue(0), { minKeys: 1, maxKeys: 10 }),
            auth,
        },
        { requiredKeys: ["storyId", "name", "url"] },
    )
    .map(json);

const legacyInputs = fc
    .record(
        {
            name: chars(1, 1024),
            url: publicUrl,
            token: chars(1, 1024),
            headers: fc.array(fc.record({ name: headerName, value: headerValue(1) }), { minLength: 1, maxLength: 99 }),
            auth,
        },
        { requiredKeys: ["name", "url"] },
    )
    .map(json);

/** Values that break each property, whatever the rest of the input is. */
const tooLong = (n: number) => fc.string({ minLength: n + 1, maxLength: n + 20 });
const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.object());
const notAnObject = fc.oneof(fc.integer(), fc.string(), fc.boolean());
const badAuth = fc.oneof(
    notAnObject,
    fc.record({ username: chars(1, 5) }),
    fc.record({ username: fc.constant(""), password: chars(1, 5) }),
    fc.record({ username: chars(1, 5), password: tooLong(1024) }),
    fc.record({ username: chars(1, 5), password: chars(1, 5), extra: chars(0, 5) }),
);

const connectionBreakers: Record<string, fc.Arbitrary<unknown>> = {
    storyId: fc.oneof(
        fc.string().filter((s) => s.length !== 24),
        notAString,
    ),
    name: fc.oneof(fc.constant(""), tooLong(128), notAString),
    url: fc.oneof(
        fc.string({ maxLength: 30 }).filter((s) => !/^https?:\/\/[^/]/.test(s)),
        fc.constantFrom("ftp://example.com/x", "mailto:x@example.com", "//example.com"),
        tooLong(1024).map((s) => `https://example.com/${s}`),
        notAString,
    ),
    token: fc.oneof(fc.constant(""), tooLong(1024), notAString),
    headers: fc.oneof(
        fc.constant({}),
        fc.dictionary(headerName, headerValue(0), { minKeys: 11, maxKeys: 14 }),
        fc.record({ "bad name": fc.constant("v") }),
        fc.record({ "X-Ok": fc.constantFrom("line\nbreak", "cr\rhere", "nul\u0000") }),
        fc.constant(JSON.parse('{"X-Ok": "v", "__proto__": "v"}')),
        notAnObject,
    ),
    auth: badAuth,
};

const legacyBreakers: Record<string, fc.Arbitrary<unknown>> = {
    name: fc.oneof(fc.constant(""), tooLong(1024), notAString),
    url: fc.oneof(
        fc.constantFrom("http://localhost/x", "https://10.1.2.3/x", "http://192.168.0.7/", "https://app.internal/"),
        fc.string({ maxLength: 30 }).filter((s) => !/^https?:\/\/[^/]/.test(s)),
        notAString,
    ),
    token: fc.oneof(fc.constant(""), tooLong(1024), notAString),
    headers: fc.oneof(
        fc.constant([]),
        fc.constant([{ name: "X-A", value: "" }]),
        fc.constant([{ name: "X".repeat(129), value: "v" }]),
        fc.constant([{ name: "bad:name", value: "v" }]),
        fc.constant([{ name: "X-A" }]),
        notAnObject,
    ),
    auth: badAuth,
};

/** One valid input with one property made invalid: [input, the broken property]. */
function withOneBroken(valid: fc.Arbitrary<Plain>, breakers: Record<string, fc.Arbitrary<unknown>>) {
    return fc
        .tuple(valid, fc.constantFrom(...Object.keys(breakers)))
        .chain(([input, key]) => breakers[key].map((bad) => [{ ...input, [key]: bad }, key] as const));
}

/** Anything at all under the resource's keys (and some others). */
function junk(keys: string[]) {
    return fc.dictionary(fc.constantFrom(...keys, "extra", "__provider"), fc.anything(), { maxKeys: keys.length + 2 });
}

const names = (failures: Array<{ property: string }>) => failures.map((f) => f.property);
const namesProperty = (failures: Array<{ property: string }>, key: string) =>
    failures.some((f) => f.property === key || f.property.startsWith(`${key}.`) || f.property.startsWith(`${key}[`));

// ---------------------------------------------------------------------------------------------

describe("properties: resource inputs", function () {
    let sim: ChatbotSimulator;
    const saved = { token: process.env.CHATBOT_TOKEN, url: process.env.CHATBOT_API_URL };
    const v2: Provider = installedRequire("pulumi-chatbot/providers/webhookConnection");
    const legacy: Provider = installedRequire("pulumi-chatbot/providers/legacyWebhook");

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        // The provider, called in this process, reads its settings from the environment.
        process.env.CHATBOT_TOKEN = sim.token;
        process.env.CHATBOT_API_URL = sim.url;
    });
    after(async () => {
        for (const [k, v] of [
            ["CHATBOT_TOKEN", saved.token],
            ["CHATBOT_API_URL", saved.url],
        ] as const) {
            if (v === undefined) delete process.env[k];
            else process.env[k] = v;
        }
        await sim.close();
    });

    for (const [title, provider, valid, breakers, keys] of [
        ["WebhookConnection", v2, connectionInputs, connectionBreakers, Object.keys(connectionBreakers)],
        ["LegacyWebhook", legacy, legacyInputs, legacyBreakers, Object.keys(legacyBreakers)],
    ] as const) {
        describe(title, () => {
            it("check never throws, whatever it is given", async () => {
                await fc.assert(
                    fc.asyncProperty(junk([...keys]), async (news) => {
                        const r = await provider.check({}, news);
                        assert.ok(Array.isArray(r.failures));
                        for (const f of r.failures) assert.ok(f.reason.length > 0);
                    }),
                    RUNS,
                );
            });

            it("an input broken in one property gets a failure naming it", async () => {
                await fc.assert(
                    fc.asyncProperty(withOneBroken(valid, breakers), async ([news, key]) => {
                        const { failures } = await provider.check({}, news);
                        assert.ok(
                            namesProperty(failures, key),
                            `expected a failure for ${key}, got ${names(failures)}`,
                        );
                    }),
                    RUNS,
                );
            });

            if (title === "LegacyWebhook") {
                // Found with FC_SEED=16: the IPv6 prefixes fc/fd were applied to any host name.
                it("accepts public hosts whose names start with fc or fd, refuses such IPv6 literals", async () => {
                    for (const url of ["https://fdic.gov/", "https://fd.io/x", "https://fe80.example/"]) {
                        assert.deepEqual((await provider.check({}, { name: "n", url })).failures, [], url);
                    }
                    for (const url of ["https://[fd12::1]/", "https://[fc00::5]/", "https://[fe80::1]/"]) {
                        assert.equal((await provider.check({}, { name: "n", url })).failures.length, 1, url);
                    }
                });
            }

            it("a valid input passes check and is created exactly as given", async () => {
                await fc.assert(
                    fc.asyncProperty(valid, async (news) => {
                        const { inputs, failures } = await provider.check({}, news);
                        assert.deepEqual(failures, []);
                        const { id, outs } = await provider.create(inputs);
                        for (const key of Object.keys(news))
                            assert.deepEqual(outs[key], news[key as keyof typeof news], key);
                        await provider.delete(id, outs);
                    }),
                    RUNS,
                );
            });
        });
    }
});

// ---------------------------------------------------------------------------------------------
// Webhook replies

const title = (max: number) => chars(1, max);
const postback = fc.record({ type: fc.constant("postback"), title: title(20), value: chars(1, 2000) });
const goto = fc.record({ type: fc.constant("goto"), title: title(20), value: fc.uuid({ version: 4 }) });
const urlButton = fc.record({ type: fc.constant("url"), title: chars(0, 20), value: chars(0, 2048) });
const webview = fc.record(
    {
        type: fc.constant("webview"),
        title: title(20),
        value: chars(1, 2048),
        height: fc.constantFrom("full", "tall", "compact"),
    },
    { requiredKeys: ["type", "title", "value"] },
);
const phone = fc.record({ type: fc.constant("phone"), title: title(20), value: fc.stringMatching(/^\+[0-9]{2,15}$/) });
const anyButton = fc.oneof(postback, goto, urlButton, webview, phone);
/** A bot response of this shape, with or without a delay. */
const response = (shape: Record<string, fc.Arbitrary<unknown>>) =>
    fc
        .tuple(
            fc.record(shape),
            fc.option(
                fc.oneof(fc.integer({ min: 100, max: 10_000 }), fc.double({ min: 100, max: 10_000, noNaN: true })),
                {
                    nil: undefined,
                },
            ),
        )
        .map(([r, delay]) => (delay === undefined ? r : { ...r, delay }));

const botResponse = fc.oneof(
    response({ type: fc.constant("text"), message: chars(1, 1024) }),
    response({ type: fc.constant("randomText"), messages: fc.array(chars(1, 1024), { minLength: 1, maxLength: 20 }) }),
    response({ type: fc.constant("image"), imageUrl: chars(1, 2048) }),
    response({
        type: fc.constant("quickReplies"),
        title: title(640),
        buttons: fc.array(fc.oneof(postback, goto), { minLength: 1, maxLength: 13 }),
    }),
    response({
        type: fc.constant("cards"),
        elements: fc.array(
            fc.record({
                title: title(80),
                subtitle: title(80),
                imageUrl: chars(1, 2048),
                buttons: fc.array(anyButton, { minLength: 1, maxLength: 5 }),
            }),
            { maxLength: 3 },
        ),
    }),
    response({
        type: fc.constant("buttons"),
        title: title(640),
        buttons: fc.array(anyButton, { minLength: 1, maxLength: 5 }),
    }),
);

const reply = fc.record(
    {
        responses: fc.array(botResponse, { maxLength: 4 }),
        // Not "__proto__": zod drops that key, so the handler would answer without it (reported).
        attributes: fc.dictionary(
            fc.string({ maxLength: 20 }).filter((k) => k !== "__proto__"),
            fc.jsonValue({ maxDepth: 2 }),
            { maxKeys: 5 },
        ),
    },
    { requiredKeys: [] },
);

/** A reply with one response, and one field of it (or of its first button) made invalid: [reply, property path]. */
const brokenReply = fc
    .tuple(
        fc.array(botResponse, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.constantFrom("type", "delay", "field", "unknown key", "button"),
    )
    .map(([responses, pick, how]) => {
        const i = pick % responses.length;
        const r = { ...(responses[i] as Plain) };
        let path = `responses[${i}]`;
        if (how === "type") {
            r.type = "carousel";
            path += ".type";
        } else if (how === "delay") {
            r.delay = [99, 10_001, 99.5][pick % 3]; // fractions within 100..10000 are valid (2.6)
            path += ".delay";
        } else if (how === "unknown key") {
            r.mesage = "typo";
        } else if (how === "button" && Array.isArray(r.buttons)) {
            r.buttons = [{ ...(r.buttons[0] as Plain), title: "t".repeat(21) }, ...r.buttons.slice(1)];
            path += ".buttons[0].title";
        } else {
            // The response's own required field: empty or too long.
            const field =
                { text: "message", randomText: "messages", image: "imageUrl", cards: "elements" }[r.type as string] ??
                "title";
            r[field] = field === "messages" ? [] : field === "elements" ? "not a list" : "";
            path += `.${field}`;
        }
        return [{ responses: responses.map((x, j) => (j === i ? r : x)) }, path] as const;
    });

describe("properties: webhook replies", function () {
    let webhook: typeof Webhook;
    let server: http.Server;
    let url: string;
    let answer: unknown;
    const problems: string[] = [];

    before(async () => {
        webhook = installedRequire("pulumi-chatbot/webhook");
        server = http.createServer(
            webhook.createWebhookHandler(() => answer as Webhook.WebhookResponse, {
                onError: (p) => problems.push(p.message),
            }),
        );
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    // Each also asks the shipped JSON Schema (response.json, through ajv) for its verdict, which
    // must be the kit's: the contract a backend in another language validates with.
    it("verifyWebhookResponse never throws, whatever it is given, and response.json agrees", () => {
        fc.assert(
            fc.property(fc.oneof(fc.anything(), fc.record({ responses: fc.array(fc.anything()) })), (v) => {
                const r = webhook.verifyWebhookResponse(v);
                assert.equal(r.ok, r.failures.length === 0);
                // As a call's body carries it: JSON, which has no undefined, NaN or Date.
                const text = JSON.stringify(v);
                if (text === undefined) return;
                const sent = JSON.parse(text) as unknown;
                assert.equal(contractVerdict("response", sent).ok, webhook.verifyWebhookResponse(sent).ok, text);
            }),
            RUNS,
        );
    });

    it("a reply broken in one field gets a failure naming it, and response.json refuses it", () => {
        fc.assert(
            fc.property(brokenReply, ([v, path]) => {
                const { failures } = webhook.verifyWebhookResponse(v);
                assert.ok(namesProperty(failures, path), `expected a failure for ${path}, got ${names(failures)}`);
                assert.equal(contractVerdict("response", json(v)).ok, false, path);
            }),
            RUNS,
        );
    });

    it("a valid reply passes (response.json too), and the webhook handler answers it with 200 as it is", async () => {
        await fc.assert(
            fc.asyncProperty(reply, async (v) => {
                assert.deepEqual(webhook.verifyWebhookResponse(v).failures, []);
                assert.deepEqual(contractVerdict("response", json(v)).errors, []);
                answer = v;
                const res = await fetch(url, {
                    method: "POST",
                    headers: { "content-type": "application/json" },
                    body: JSON.stringify(webhook.sampleWebhookRequest),
                });
                assert.equal(res.status, 200, problems.join("; "));
                assert.deepEqual(await res.json(), json(v));
            }),
            RUNS,
        );
    });
});
