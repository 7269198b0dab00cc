/**
 * The native plugin's lookup functions (`chatbot:index:getWebhookConnection`, ...), called as the
 * engine calls the plugin's Invoke, in this process, against the simulator: what each returns,
 * which parts come back secret, what a search that finds none or several says, and that they only
 * read. tests/cli/lookups.test.ts runs them through the real CLI in every language.
 */
import { strict as assert } from "assert";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { CONNECTION_KEYS_WITHOUT_SECRETS, installedTesting, root } from "../helpers/support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/* eslint-disable @typescript-eslint/no-explicit-any -- the gRPC stubs are JavaScript */
const sdk = path.join(root, "node_modules", "@pulumi", "pulumi");
const proto = require(path.join(sdk, "proto", "provider_pb")) as any;
const structProto = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdk] })) as any;
const { service } = require(path.join(root, "node_modules", "pulumi-chatbot", "dist", "native", "server.js")) as {
    service: Record<string, (call: { request: unknown }, cb: (e: any, v?: any) => void) => void>;
};

/** One call of the plugin's service, as the engine makes it. */
function call(method: string, request: unknown): Promise<any> {
    return new Promise((resolve, reject) =>
        service[method]({ request }, (e, v) => (e ? reject(new Error(e.message)) : resolve(v))),
    );
}

/** Invokes `fn` with `args`: its result as plain JavaScript, secrets still wrapped. */
async function invoke(fn: string, args: Record<string, unknown>): Promise<any> {
    const request = new proto.InvokeRequest()
        .setTok(`chatbot:index:${fn}`)
        .setArgs(structProto.Struct.fromJavaScript(args));
    return (await call("invoke", request)).getReturn().toJavaScript();
}

/** What the plugin's `List` streamed for `request`: each result, a continuation token, whether
 *  it answered "computed"; its error (with the gRPC code) rejected. */
function list(
    token: string,
    query: Record<string, unknown>,
    page: { limit?: number; pageSize?: number; continuation?: string } = {},
): Promise<{ results: Array<{ id: string; name: string }>; continuation?: string; computed: boolean }> {
    const request = new proto.ListRequest()
        .setToken(`chatbot:index:${token}`)
        .setQuery(structProto.Struct.fromJavaScript(query))
        .setLimit(page.limit ?? 0)
        .setPageSize(page.pageSize ?? 0)
        .setContinuationToken(page.continuation ?? "");
    return new Promise((resolve, reject) => {
        const out: { results: Array<{ id: string; name: string }>; continuation?: string; computed: boolean } = {
            results: [],
            computed: false,
        };
        const stream = {
            request,
            write(message: any) {
                if (message.hasResult()) {
                    out.results.push({ id: message.getResult().getId(), name: message.getResult().getName() });
                }
                if (message.hasContinuation()) out.continuation = message.getContinuation().getContinuationToken();
                if (message.hasComputed()) out.computed = true;
            },
            end: () => resolve(out),
            emit: (_event: string, e: { message: string; code: number }) =>
                reject(Object.assign(new Error(e.message), { code: e.code })),
        };
        (service.list as unknown as (call: typeof stream) => void)(stream);
    });
}

const secret = (value: unknown) => ({ [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", value });

describe("the native plugin's lookup functions (Invoke)", function () {
    this.timeout(30_000);
    let sim: ChatbotSimulator;
    const ids: Record<string, string> = {};

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({
            stories: { [STORY]: "Shop", [OTHER_STORY]: "Support" },
        });
        const shop = { id: STORY, name: "Shop" };
        ids.orders = sim.addConnection({
            story: shop,
            name: "Orders",
            url: "https://orders.example.com/hook",
            token: "lk-token-1",
            headers: { "X-Key": "lk-header-1" },
            auth: { username: "bot", password: "lk-pass-1" },
        }).id;
        ids.ordersOther = sim.addConnection({
            story: { id: OTHER_STORY, name: "Support" },
            name: "Orders",
            url: "https://other.example.com/hook",
        }).id;
        ids.twin1 = sim.addConnection({ story: shop, name: "Twin", url: "https://t1.example.com/" }).id;
        ids.twin2 = sim.addConnection({ story: shop, name: "Twin", url: "https://t2.example.com/" }).id;
        ids.legacy = sim.addLegacyWebhook({
            name: "Old",
            url: "https://old.example.org/hook",
            token: "lk-legacy-token",
            headers: [{ name: "X-Old", value: "lk-legacy-header" }],
        }).id;
        const configure = new proto.ConfigureRequest();
        configure.getVariablesMap().set("chatbot:config:token", sim.token);
        configure.getVariablesMap().set("chatbot:config:apiUrl", sim.url);
        await call("configure", configure);
        sim.resetRequests();
    });
    after(async () => {
        // The plugin's settings are this process's: the files that run after this one in the same
        // worker read theirs from the environment again.
        await call("configure", new proto.ConfigureRequest());
        assert.ok(
            sim.requests.every((r) => r.method === "GET"),
            "lookups only read",
        );
        await sim?.close();
    });

    /** "Orders" as a lookup returns it without its secret fields (its times as `found` has them). */
    const ordersFields = (found: { createdAt: string; updatedAt: string }) => ({
        id: ids.orders,
        storyId: STORY,
        story: { id: STORY, name: "Shop" },
        name: "Orders",
        url: "https://orders.example.com/hook",
        lastError: null,
        createdAt: found.createdAt,
        updatedAt: found.updatedAt,
    });

    it("getWebhookConnection by name and story: every field but the secret ones, nothing secret", async () => {
        const found = await invoke("getWebhookConnection", { name: "Orders", storyId: STORY });
        assert.deepEqual(found, ordersFields(found));
        assert.match(found.createdAt, /^\d{4}-\d\d-\d\dT/);
        assert.ok(!JSON.stringify(found).includes(SECRET_SIG), "nothing in it is marked secret");
        assert.deepEqual(await invoke("getWebhookConnection", { id: ids.orders, includeSecrets: false }), found);
    });

    it("getWebhookConnection with includeSecrets: token, header values and password too, each secret", async () => {
        const found = await invoke("getWebhookConnection", { id: ids.orders, includeSecrets: true });
        assert.deepEqual(found, {
            ...ordersFields(found),
            token: secret("lk-token-1"),
            headers: { "X-Key": secret("lk-header-1") },
            auth: { username: "bot", password: secret("lk-pass-1") },
        });
        // A connection with no secret field: asked for, none is made up.
        const plainOne = await invoke("getWebhookConnection", { id: ids.ordersOther, includeSecrets: true });
        assert.ok(!("token" in plainOne) && !JSON.stringify(plainOne).includes(SECRET_SIG), JSON.stringify(plainOne));
    });

    it("getLegacyWebhook by id: no token or headers; with includeSecrets, its token and header values secret", async () => {
        const found = await invoke("getLegacyWebhook", { id: ids.legacy });
        assert.equal(found.id, ids.legacy);
        assert.equal(found.url, "https://old.example.org/hook");
        assert.ok(!("token" in found) && !("headers" in found), JSON.stringify(found));
        const sealed = await invoke("getLegacyWebhook", { id: ids.legacy, includeSecrets: true });
        assert.deepEqual(sealed.token, secret("lk-legacy-token"));
        assert.deepEqual(sealed.headers, [{ name: "X-Old", value: secret("lk-legacy-header") }]);
    });

    it("includeSecrets that is not true or false: refused before any read, naming the function and the argument", async () => {
        sim.resetRequests();
        for (const bad of ["yes", 1, { a: 1 }]) {
            await assert.rejects(
                invoke("getWebhookConnection", { id: ids.orders, includeSecrets: bad }),
                /getWebhookConnection: `includeSecrets` must be true or false, not a (string|number|object)\./,
            );
        }
        await assert.rejects(
            invoke("getLegacyWebhook", { name: "Old", includeSecrets: "true" }),
            /getLegacyWebhook: `includeSecrets` must be true or false, not a string\./,
        );
        assert.deepEqual(sim.requests, [], "nothing was read");
    });

    it("no match, several (named by id), an unknown id, or both id and name: an error saying what was looked for", async () => {
        await assert.rejects(
            invoke("getWebhookConnection", { name: "Nope", storyId: STORY }),
            new RegExp(`no webhook connection is named "Nope" on story ${STORY}`),
        );
        await assert.rejects(invoke("getWebhookConnection", { name: "Twin" }), (e: Error) => {
            assert.match(e.message, /2 webhook connections are named "Twin"/);
            assert.ok(e.message.includes(ids.twin1) && e.message.includes(ids.twin2), e.message);
            return true;
        });
        await assert.rejects(invoke("getLegacyWebhook", { id: "nope-404" }), /no legacy webhook has id nope-404/);
        await assert.rejects(invoke("getWebhookConnection", { id: ids.orders, name: "Orders" }), /not both/);
        await assert.rejects(invoke("getWebhookConnection", { name: 7 }), /`name` must be a string/);
        await assert.rejects(invoke("getNothing", {}), /unknown function chatbot:index:getNothing/);
    });

    it("getWebhookConnections: the list read's fields, no secret, narrowed by story and name prefix", async () => {
        const all = (await invoke("getWebhookConnections", {})).items as Array<Record<string, unknown>>;
        assert.deepEqual(
            all.map((c) => c.id),
            [ids.orders, ids.ordersOther, ids.twin1, ids.twin2],
        );
        for (const item of all) {
            assert.deepEqual(Object.keys(item).sort(), CONNECTION_KEYS_WITHOUT_SECRETS);
        }
        const shopTwins = (await invoke("getWebhookConnections", { storyId: STORY, namePrefix: "Tw" })).items;
        assert.deepEqual(
            shopTwins.map((c: { id: string }) => c.id),
            [ids.twin1, ids.twin2],
        );
        const other = (await invoke("getWebhookConnections", { storyId: OTHER_STORY })).items;
        assert.deepEqual(other, [all[1]]);
    });

    it("List (`pulumi do <Type> list`): one list read streamed, id and name only, narrowed as the list functions are", async () => {
        sim.resetRequests();
        const all = await list("WebhookConnection", {});
        assert.deepEqual(
            all.results.map((r) => r.id),
            [ids.orders, ids.ordersOther, ids.twin1, ids.twin2],
        );
        assert.deepEqual(all.results[0], { id: ids.orders, name: "Orders" });
        assert.equal(all.continuation, undefined, "no limit: everything, no continuation");
        assert.ok(!JSON.stringify(all).includes("lk-"), "nothing secret");
        const shopTwins = await list("WebhookConnection", { storyId: STORY, namePrefix: "Tw" });
        assert.deepEqual(
            shopTwins.results.map((r) => r.id),
            [ids.twin1, ids.twin2],
        );
        const legacy = await list("LegacyWebhook", { namePrefix: "O" });
        assert.deepEqual(legacy.results, [{ id: ids.legacy, name: "Old" }]);
        assert.deepEqual(
            sim.requests.map((r) => `${r.method} ${r.path}`),
            ["GET /v2/integrations/webhook", "GET /v2/integrations/webhook", "GET /webhooks"],
            "one list read each",
        );
    });

    it("List in pages where a limit or page size is asked: a continuation token while more are left, each page after the last item sent", async () => {
        const first = await list("WebhookConnection", {}, { limit: 3 });
        assert.deepEqual(
            first.results.map((r) => r.id),
            [ids.orders, ids.ordersOther, ids.twin1],
        );
        assert.ok(first.continuation, "more are left");
        const second = await list("WebhookConnection", {}, { limit: 3, continuation: first.continuation });
        assert.deepEqual(
            second.results.map((r) => r.id),
            [ids.twin2],
        );
        assert.equal(second.continuation, undefined, "the last page");
        const paged = await list("WebhookConnection", { namePrefix: "Twin" }, { pageSize: 1 });
        assert.deepEqual(
            paged.results.map((r) => r.id),
            [ids.twin1],
        );
        const next = await list(
            "WebhookConnection",
            { namePrefix: "Twin" },
            { pageSize: 1, continuation: paged.continuation },
        );
        assert.deepEqual(
            next.results.map((r) => r.id),
            [ids.twin2],
        );
        await assert.rejects(list("WebhookConnection", {}, { continuation: "not-ours" }), /continuation token/);
    });

    it("List refuses a storyId that breaks its check, an argument it does not take, or an unknown type, naming it, before any request; an unknown query is computed", async () => {
        sim.resetRequests();
        const INVALID_ARGUMENT = 3;
        await assert.rejects(list("WebhookConnection", { storyId: "short" }), (e: Error & { code: number }) => {
            assert.match(e.message, /storyId: must be exactly 24 characters/);
            assert.equal(e.code, INVALID_ARGUMENT);
            return true;
        });
        await assert.rejects(
            list("LegacyWebhook", { storyId: STORY }),
            /storyId is not a list argument \(namePrefix are\)/,
        );
        await assert.rejects(list("WebhookConnection", { namePrefix: 7 }), /namePrefix must be a string/);
        await assert.rejects(list("Nothing", {}), /unknown resource type chatbot:index:Nothing/);
        const unknown = await list("WebhookConnection", { storyId: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" });
        assert.deepEqual(unknown, { results: [], computed: true });
        assert.deepEqual(sim.requests, [], "nothing was read");
    });

    it("getLegacyWebhooks: id, name and url of each", async () => {
        const { items } = await invoke("getLegacyWebhooks", { namePrefix: "O" });
        assert.deepEqual(items, [{ id: ids.legacy, name: "Old", url: "https://old.example.org/hook" }]);
    });
});
