/**
 * WebhookConnection check: every documented v2 limit at its edge and one beyond, plus what the
 * API needs to work (an absolute http(s) URL, valid header names). Failures name the property
 * and the limit, never the value.
 */
import { strict as assert } from "assert";
import { check } from "../../provider/resources/webhookConnection";
import { UNKNOWN } from "../../provider/schema/validate";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const valid = { storyId: STORY, name: "orders", url: "https://backend.example.com/hook" };
const s = (n: number, ch = "a") => ch.repeat(n);

async function failuresOf(inputs: Record<string, unknown>) {
    return (await check({}, inputs)).failures;
}

async function expectOk(inputs: Record<string, unknown>) {
    assert.deepEqual(await failuresOf(inputs), []);
}

async function expectFailure(inputs: Record<string, unknown>, property: string, limit: RegExp) {
    const failures = await failuresOf(inputs);
    const f = failures.find((x) => x.property === property);
    assert.ok(f, `expected a failure on ${property}, got ${JSON.stringify(failures)}`);
    assert.match(f.reason, limit);
    assert.ok(f.reason.startsWith(property), `reason names the property: ${f.reason}`);
}

describe("WebhookConnection check", () => {
    it("accepts a minimal and a full connection", async () => {
        await expectOk(valid);
        await expectOk({
            ...valid,
            token: "t",
            headers: { "X-Env": "prod" },
            auth: { username: "bot", password: "pw" },
        });
    });

    const edges: Array<[string, (v: string) => Record<string, unknown>, number, number, RegExp]> = [
        ["name", (v) => ({ ...valid, name: v }), 1, 128, /1 to 128 characters/],
        ["token", (v) => ({ ...valid, token: v }), 1, 1024, /1 to 1024 characters/],
        ["auth.username", (v) => ({ ...valid, auth: { username: v, password: "p" } }), 1, 1024, /1 to 1024/],
        ["auth.password", (v) => ({ ...valid, auth: { username: "u", password: v } }), 1, 1024, /1 to 1024/],
    ];
    for (const [property, make, min, max, limit] of edges) {
        it(`${property}: ${min} and ${max} characters pass, ${min - 1} and ${max + 1} fail`, async () => {
            await expectOk(make(s(min)));
            await expectOk(make(s(max)));
            await expectFailure(make(s(min - 1)), property, limit);
            await expectFailure(make(s(max + 1)), property, limit);
        });
    }

    it("url: up to 1024 characters, absolute http or https", async () => {
        const base = "https://example.com/";
        await expectOk({ ...valid, url: base + s(1024 - base.length) });
        await expectOk({ ...valid, url: "http://127.0.0.1:8080/hook" });
        await expectFailure({ ...valid, url: base + s(1025 - base.length) }, "url", /1 to 1024 characters/);
        await expectFailure({ ...valid, url: "" }, "url", /1 to 1024 characters/);
        for (const bad of ["/relative/hook", "ftp://example.com/x", "example.com/hook", "javascript:alert(1)"]) {
            await expectFailure({ ...valid, url: bad }, "url", /absolute http:\/\/ or https:\/\/ URL/);
        }
    });

    it("storyId: exactly 24 characters", async () => {
        await expectFailure({ ...valid, storyId: STORY.slice(1) }, "storyId", /exactly 24 characters/);
        await expectFailure({ ...valid, storyId: STORY + "0" }, "storyId", /exactly 24 characters/);
    });

    it("headers: 1 to 10, names must be HTTP header names, values without line breaks", async () => {
        const n = (k: number) => Object.fromEntries(Array.from({ length: k }, (_, i) => [`X-H${i}`, "v"]));
        await expectOk({ ...valid, headers: n(1) });
        await expectOk({ ...valid, headers: n(10) });
        await expectFailure({ ...valid, headers: n(0) }, "headers", /1 to 10 headers/);
        await expectFailure({ ...valid, headers: n(11) }, "headers", /1 to 10 headers/);
        await expectFailure(
            { ...valid, headers: { "Bad Header": "v" } },
            "headers.Bad Header",
            /valid HTTP header name/,
        );
        await expectFailure(
            { ...valid, headers: { "X-A": "a\r\nInjected: 1" } },
            "headers.X-A",
            /valid HTTP header value/,
        );
    });

    it("required properties and types are named", async () => {
        await expectFailure({ name: "n", url: valid.url }, "storyId", /is required/);
        await expectFailure({ storyId: STORY, name: "n" }, "url", /is required/);
        await expectFailure({ ...valid, name: 42 }, "name", /must be a string/);
        await expectFailure({ ...valid, auth: { username: "u" } }, "auth.password", /is required/);
        await expectFailure(
            { ...valid, auth: { username: "u", password: "p", extra: 1 } },
            "auth",
            /unknown property "extra"/,
        );
    });

    it("never puts a value in a failure (values may be secrets)", async () => {
        const secret = "sUp3r-s3cret-" + s(1024);
        const failures = await failuresOf({
            ...valid,
            token: secret,
            auth: { username: "u", password: secret },
            headers: { "X-K": secret + "\n" },
        });
        assert.equal(failures.length, 3);
        for (const f of failures) assert.ok(!f.reason.includes("sUp3r"), f.reason);
    });

    it("lets unknown values (preview) through and still judges the known ones", async () => {
        await expectOk({ ...valid, url: UNKNOWN, token: UNKNOWN, headers: UNKNOWN, auth: UNKNOWN });
        await expectOk({ ...valid, headers: { "X-A": UNKNOWN }, auth: { username: "u", password: UNKNOWN } });
        await expectOk({ storyId: UNKNOWN, name: UNKNOWN, url: UNKNOWN });
        await expectFailure({ ...valid, url: UNKNOWN, name: s(129) }, "name", /1 to 128/);
        const r = await check({}, { ...valid, url: UNKNOWN });
        assert.equal(r.inputs.url, UNKNOWN, "unknowns are passed through unchanged");
    });

    it("drops null and absent optional inputs and the plugin's own keys", async () => {
        const r = await check({}, { ...valid, token: null, headers: undefined, __provider: "x" });
        assert.deepEqual(r.inputs, valid);
        assert.deepEqual(r.failures, []);
    });
});
