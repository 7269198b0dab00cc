/**
 * The local ChatBot API simulator answers as the API reference documents, and the client turns
 * its answers into errors a person can act on.
 */
import { strict as assert } from "assert";
import { ChatbotClient } from "../../provider/client/client";
import { resolveSettings } from "../../provider/config";
import {
    AuthenticationError,
    BadRequestError,
    ConnectionError,
    NotFoundError,
    ResponseFormatError,
    ServerError,
} from "../../provider/client/errors";
import { ChatbotSimulator } from "../../provider/testing/simulator";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const V2 = "/v2/integrations/webhook";

describe("ChatBot API simulator and client", () => {
    let sim: ChatbotSimulator;
    let client: ChatbotClient;
    const op = { operation: "test" };

    before(async () => {
        sim = await ChatbotSimulator.start();
        // One attempt per request: these tests look at single answers (retries: tests/unit/client.test.ts).
        client = new ChatbotClient({ apiUrl: sim.url, token: sim.token, retry: { maxAttempts: 1 } });
    });
    after(() => sim.close());

    it("creates with 201 and the documented envelope, then reads every field", async () => {
        const body = {
            storyId: STORY,
            name: "orders",
            url: "https://b.example/hook",
            token: "tok",
            headers: { "X-Env": "prod" },
            auth: { username: "u", password: "p" },
        };
        const created = (await client.request("POST", V2, { ...op, body })) as Record<string, unknown>;
        assert.equal(typeof created.id, "string");
        assert.equal((created.id as string).length, 24);
        assert.deepEqual(created.status, { code: 201, type: "created" });
        assert.ok(!Number.isNaN(Date.parse(created.timestamp as string)));

        const one = (await client.request("GET", `${V2}/${created.id}`, op)) as Record<string, unknown>;
        assert.deepEqual(
            { ...one, createdAt: undefined, updatedAt: undefined },
            {
                id: created.id,
                story: { id: STORY, name: `Story ${STORY.slice(-6)}` },
                name: "orders",
                url: body.url,
                token: "tok",
                headers: body.headers,
                auth: body.auth,
                error: null,
                createdAt: undefined,
                updatedAt: undefined,
            },
        );
        const list = (await client.request("GET", V2, op)) as Array<Record<string, unknown>>;
        const item = list.find((x) => x.id === created.id);
        assert.ok(item);
        assert.deepEqual(Object.keys(item).sort(), ["createdAt", "error", "id", "name", "story", "updatedAt", "url"]);
        assert.equal(item.error, false, "the list shows false where there is no error");
    });

    it("PUT replaces the writable state and keeps the story; DELETE removes", async () => {
        const { id } = (await client.request("POST", V2, {
            ...op,
            body: { storyId: STORY, name: "a", url: "https://b.example/", token: "t" },
        })) as { id: string };
        const put = (await client.request("PUT", `${V2}/${id}`, {
            ...op,
            body: { name: "b", url: "https://c.example/" },
        })) as Record<string, unknown>;
        assert.deepEqual(put.status, { code: 200, type: "success" });
        const after = sim.getConnection(id);
        assert.equal(after?.name, "b");
        assert.equal(after?.token, undefined, "a token left out of the PUT is removed");
        assert.equal(after?.story.id, STORY);
        await client.request("DELETE", `${V2}/${id}`, op);
        assert.equal(sim.getConnection(id), undefined);
        await assert.rejects(client.request("DELETE", `${V2}/${id}`, { operation: "delete it" }), (e: unknown) => {
            assert.ok(e instanceof NotFoundError);
            assert.equal(e.status, 404);
            assert.match(
                e.message,
                /^delete it failed: ChatBot API answered HTTP 404 \(notFound\): webhook connection \w+ not found/,
            );
            return true;
        });
    });

    it("400 names the property and the limit", async () => {
        await assert.rejects(
            client.request("POST", V2, {
                operation: 'create webhook connection "x"',
                body: { storyId: STORY, name: "x".repeat(129), url: "https://b.example/" },
            }),
            (e: unknown) => {
                assert.ok(e instanceof BadRequestError);
                assert.match(
                    e.message,
                    /create webhook connection "x" failed: ChatBot API answered HTTP 400 \(badRequest\): name: must be 1 to 128 characters/,
                );
                return true;
            },
        );
        await assert.rejects(client.request("PUT", `${V2}/${"0".repeat(23)}`, { ...op, body: {} }), BadRequestError);
    });

    it("401 says the developer access token was rejected, how to set one, and never shows it", async () => {
        // The provider's client, as its settings build it: the hint names stack config and env.
        const settings = resolveSettings({ CHATBOT_TOKEN: "wrong-token-value", CHATBOT_API_URL: sim.url }, {});
        const bad = new ChatbotClient({ ...settings, retry: { maxAttempts: 1 } });
        await assert.rejects(bad.request("GET", V2, { operation: "list webhook connections" }), (e: unknown) => {
            assert.ok(e instanceof AuthenticationError);
            assert.match(e.message, /HTTP 401 \(unauthorized\)/);
            assert.match(e.message, /developer access token was rejected/);
            assert.match(e.message, /chatbot:token/);
            assert.match(e.message, /CHATBOT_TOKEN/);
            assert.ok(!e.message.includes("wrong-token-value"));
            return true;
        });
    });

    it("500 becomes a ServerError; secrets the API echoes are redacted", async () => {
        sim.inject({ method: "PUT", fault: { status: 500, message: "could not store token hunter2 for user" } });
        await assert.rejects(
            client.request("PUT", `${V2}/${"a".repeat(24)}`, { operation: "update", body: {}, secrets: ["hunter2"] }),
            (e: unknown) => {
                assert.ok(e instanceof ServerError);
                assert.match(e.message, /HTTP 500 \(internalServerError\): could not store token \[secret\] for user/);
                return true;
            },
        );
    });

    it("an answer that is not JSON is a ResponseFormatError", async () => {
        sim.inject({ method: "GET", fault: "malformed-json" });
        await assert.rejects(client.request("GET", V2, op), ResponseFormatError);
    });

    it("no answer at all is a ConnectionError naming the address", async () => {
        const closed = await ChatbotSimulator.start();
        const url = closed.url;
        await closed.close();
        const c = new ChatbotClient({ apiUrl: url, token: "t", retry: { maxAttempts: 1 } });
        await assert.rejects(c.request("GET", V2, op), (e: unknown) => {
            assert.ok(e instanceof ConnectionError);
            assert.ok(e.message.includes(url), e.message);
            return true;
        });
    });

    it("answers 404 for unknown routes and ids, on legacy paths too", async () => {
        await assert.rejects(client.request("GET", `${V2}/${"f".repeat(24)}`, op), NotFoundError);
        await assert.rejects(client.request("GET", "/webhooks/nope", op), NotFoundError);
        await assert.rejects(client.request("GET", "/nothing-here", op), NotFoundError);
    });

    it("legacy webhooks: create, single read with all fields, list with a string error", async () => {
        const created = (await client.request("POST", "/webhooks", {
            ...op,
            body: { name: "w", url: "https://public.example/x", token: "t", headers: [{ name: "X-A", value: "1" }] },
        })) as Record<string, unknown>;
        assert.deepEqual(created.status, { code: 200, type: "success" });
        const id = created.id as string;
        sim.noteError(id, "timeout");
        const one = (await client.request("GET", `/webhooks/${id}`, op)) as Record<string, unknown>;
        assert.equal((one.error as { message: string }).message, "timeout");
        assert.deepEqual(one.headers, [{ name: "X-A", value: "1" }]);
        const list = (await client.request("GET", "/webhooks", op)) as Array<Record<string, unknown>>;
        assert.deepEqual(
            list.find((w) => w.id === id),
            { id, name: "w", url: "https://public.example/x", error: "timeout" },
        );
        await assert.rejects(
            client.request("POST", "/webhooks", { ...op, body: { name: "w", url: "http://localhost/x" } }),
            /url: must be a public URL/,
        );
    });
});
