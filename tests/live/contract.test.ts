/**
 * The API contract, through the package's client (provider/client: paced and retried as the
 * provider's), against the account of ./account.ts: each case is one documented behaviour
 * (./fidelity.ts), sends what it documents straight to the API (no check of the provider's
 * first), notes what came back in the fidelity record and then holds it to the documentation.
 * Every name starts with the run's prefix; what a case makes it deletes, and the root after-all
 * hook sweeps whatever is left.
 */
import { strict as assert } from "node:assert";
import { ChatbotApiError } from "../../provider/client/errors";
import type { Method } from "../../provider/client/retry";
import { account, clientWithToken, type Account } from "./account";
import { DOCUMENTED, observe, seenOf, shape, type Behaviour, type Seen } from "./fidelity";

const V2 = "/v2/integrations/webhook";
const LEGACY = "/webhooks";

/** A case's title: its behaviour, then what the documentation says. */
const title = (b: Behaviour) => `${b}: ${DOCUMENTED[b]}`;

describe("the API contract, through the package's client", function () {
    let a: Account;
    before(() => {
        a = account();
    });

    /** One request; the answer as the API sent it, whatever the client made of it. */
    async function send(method: Method, path: string, body?: unknown, client = a.client) {
        try {
            await client.request(method, path, { operation: `${method} ${path}`, body });
        } catch (e) {
            if (!(e instanceof ChatbotApiError)) throw e;
        }
        const { status, body: text } = a.observer.last;
        let json: unknown;
        try {
            json = text === "" ? undefined : JSON.parse(text);
        } catch {
            json = undefined;
        }
        const envelope = json as { id?: unknown; status?: { type?: unknown } } | undefined;
        return {
            status,
            json,
            id: typeof envelope?.id === "string" ? envelope.id : undefined,
            seen: seenOf(status, json),
        };
    }

    const note = (b: Behaviour, seen: Seen) => observe(b, seen, a.live);
    /** `prefix` padded to `length` characters. */
    const sized = (prefix: string, length: number) => prefix + "x".repeat(length - prefix.length);

    /** A body past a documented limit: the API should refuse it (400). One it takes is deleted at
     *  once, and the case fails saying so. */
    async function refused(b: Behaviour, path: string, body: unknown): Promise<void> {
        const r = await send("POST", path, body);
        if (r.status !== undefined && r.status < 300 && r.id !== undefined) await send("DELETE", `${path}/${r.id}`);
        note(b, r.seen);
        assert.equal(r.status, 400, `the API answered ${r.status} to a body past the limit`);
    }

    describe("v2 webhook connections", () => {
        let id = "";
        const body = () => ({
            storyId: a.storyId,
            name: `${a.prefix}contract`,
            url: a.webhook.url,
            token: a.webhook.token,
            headers: { "X-Pcb": "1" },
            auth: { username: "pcb", password: `${a.prefix}password` },
        });

        it(title("v2 create"), async () => {
            const r = await send("POST", V2, body());
            id = r.id ?? "";
            note("v2 create", r.seen);
            assert.equal(r.status, 201);
            assert.equal(r.seen.type, "created");
            assert.deepEqual(r.seen.keys, ["id", "status.code", "status.type", "timestamp"]);
            assert.equal(id.length, 24);
        });

        it(title("v2 single read"), async () => {
            const r = await send("GET", `${V2}/${id}`);
            note("v2 single read", r.seen);
            assert.equal(r.status, 200);
            for (const key of ["id", "story.id", "story.name", "name", "url", "token", "headers.X-Pcb"])
                assert.ok(r.seen.keys.includes(key), `${key} is in the single read`);
            for (const key of ["auth.username", "auth.password", "error=null", "createdAt", "updatedAt"])
                assert.ok(r.seen.keys.includes(key), `${key} is in the single read`);
        });

        it(title("v2 list read"), async () => {
            const r = await send("GET", V2);
            assert.ok(Array.isArray(r.json), "the list read is an array");
            // Only this run's item is looked at: the account's others are none of the tier's business.
            const mine = (r.json as Array<{ id?: string }>).find((item) => item.id === id);
            assert.ok(mine, "the connection made is listed");
            note("v2 list read", { status: r.status, keys: shape(mine) });
            assert.equal(r.status, 200);
            for (const key of ["id", "story.id", "story.name", "name", "url", "error=false", "createdAt", "updatedAt"])
                assert.ok(shape(mine).includes(key), `${key} is in the list read`);
            for (const secret of ["token", "headers", "auth"])
                assert.ok(!Object.keys(mine).includes(secret), `the list read has no ${secret}`);
        });

        it(title("v2 update"), async () => {
            const { storyId: _, headers: __, ...rest } = body();
            const r = await send("PUT", `${V2}/${id}`, { ...rest, name: `${a.prefix}contract-updated` });
            note("v2 update", r.seen);
            assert.equal(r.status, 200);
            assert.equal(r.seen.type, "success");
            assert.deepEqual(r.seen.keys, ["status.code", "status.type", "timestamp"]);
            const read = (await send("GET", `${V2}/${id}`)).json as { name?: string; headers?: unknown };
            assert.equal(read.name, `${a.prefix}contract-updated`, "a read shows the new name");
            assert.equal(read.headers ?? undefined, undefined, "headers left out of the PUT are removed");
        });

        it(title("v2 delete"), async () => {
            const r = await send("DELETE", `${V2}/${id}`);
            note("v2 delete", r.seen);
            assert.equal(r.status, 200);
            assert.equal(r.seen.type, "success");
            assert.deepEqual(r.seen.keys, ["status.code", "status.type", "timestamp"]);
        });

        it(title("v2 missing id"), async () => {
            // The connection just deleted: an id that existed, so no one else's.
            const r = await send("GET", `${V2}/${id}`);
            note("v2 missing id", r.seen);
            assert.equal(r.status, 404);
        });

        it(title("wrong token"), async () => {
            const r = await send("GET", V2, undefined, clientWithToken(`${a.prefix}not-a-token`));
            note("wrong token", r.seen);
            assert.equal(r.status, 401);
        });

        const limits: Array<[Behaviour, (b: ReturnType<typeof body>) => object]> = [
            ["v2 limit: name over 128", (b) => ({ ...b, name: sized(a.prefix, 129) })],
            ["v2 limit: url over 1024", (b) => ({ ...b, url: sized(`${b.url}?pad=`, 1025) })],
            ["v2 limit: token over 1024", (b) => ({ ...b, token: sized(a.prefix, 1025) })],
            ["v2 limit: token empty", (b) => ({ ...b, token: "" })],
            [
                "v2 limit: headers over 10",
                (b) => ({
                    ...b,
                    headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-Pcb-${i}`, "1"])),
                }),
            ],
            ["v2 limit: headers empty", (b) => ({ ...b, headers: {} })],
            ["v2 limit: auth.username over 1024", (b) => ({ ...b, auth: { ...b.auth, username: sized("u", 1025) } })],
            ["v2 limit: auth without password", (b) => ({ ...b, auth: { username: "pcb" } })],
            ["v2 limit: storyId not 24", (b) => ({ ...b, storyId: b.storyId.slice(0, 23) })],
        ];
        for (const [b, past] of limits) it(title(b), () => refused(b, V2, past(body())));
    });

    describe("legacy webhooks", () => {
        let id = "";
        const body = () => ({
            name: `${a.prefix}legacy`,
            url: a.legacyUrl,
            token: `${a.prefix}legacy-token`,
            headers: [{ name: "X-Pcb", value: "1" }],
            auth: { username: "pcb", password: `${a.prefix}password` },
        });

        it(title("legacy create"), async () => {
            const r = await send("POST", LEGACY, body());
            id = r.id ?? "";
            note("legacy create", r.seen);
            assert.equal(r.status, 200);
            assert.equal(r.seen.type, "success");
            assert.deepEqual(r.seen.keys, ["id", "status.code", "status.type", "timestamp"]);
        });

        it(title("legacy single read"), async () => {
            const r = await send("GET", `${LEGACY}/${id}`);
            note("legacy single read", r.seen);
            assert.equal(r.status, 200);
            for (const key of ["id", "name", "url", "token", "headers[].name", "headers[].value"])
                assert.ok(r.seen.keys.includes(key), `${key} is in the single read`);
            assert.ok(r.seen.keys.includes("auth.username") && r.seen.keys.includes("auth.password"));
        });

        it(title("legacy list read"), async () => {
            const r = await send("GET", LEGACY);
            assert.ok(Array.isArray(r.json), "the list read is an array");
            const mine = (r.json as Array<{ id?: string }>).find((item) => item.id === id);
            assert.ok(mine, "the webhook made is listed");
            note("legacy list read", { status: r.status, keys: shape(mine) });
            assert.equal(r.status, 200);
            assert.deepEqual(
                Object.keys(mine).sort(),
                ["error", "id", "name", "url"],
                "the list read has id, name, url and error",
            );
        });

        it(title("legacy update"), async () => {
            const r = await send("PUT", `${LEGACY}/${id}`, { ...body(), name: `${a.prefix}legacy-updated` });
            note("legacy update", r.seen);
            assert.equal(r.status, 200);
            assert.equal(r.seen.type, "success");
            assert.deepEqual(r.seen.keys, ["id", "status.code", "status.type", "timestamp"]);
            const read = (await send("GET", `${LEGACY}/${id}`)).json as { name?: string };
            assert.equal(read.name, `${a.prefix}legacy-updated`, "a read shows the new name");
        });

        it(title("legacy delete"), async () => {
            const r = await send("DELETE", `${LEGACY}/${id}`);
            note("legacy delete", r.seen);
            assert.equal(r.status, 200);
            assert.deepEqual(r.seen.keys, ["id", "status.code", "status.type", "timestamp"]);
        });

        it(title("legacy missing id"), async () => {
            const r = await send("GET", `${LEGACY}/${id}`);
            note("legacy missing id", r.seen);
            assert.equal(r.status, 404);
        });

        const header = (name: string, value: string) => ({ name, value });
        const limits: Array<[Behaviour, (b: ReturnType<typeof body>) => object]> = [
            ["legacy limit: name over 1024", (b) => ({ ...b, name: sized(a.prefix, 1025) })],
            ["legacy limit: token over 1024", (b) => ({ ...b, token: sized(a.prefix, 1025) })],
            [
                "legacy limit: headers over 99",
                (b) => ({ ...b, headers: Array.from({ length: 100 }, (_, i) => header(`X-Pcb-${i}`, "1")) }),
            ],
            ["legacy limit: header name over 128", (b) => ({ ...b, headers: [header(sized("X-", 129), "1")] })],
            ["legacy limit: header value over 1024", (b) => ({ ...b, headers: [header("X-Pcb", sized("v", 1025))] })],
            ["legacy limit: url not public", (b) => ({ ...b, url: `http://127.0.0.1/${a.prefix}legacy` })],
        ];
        for (const [b, past] of limits) it(title(b), () => refused(b, LEGACY, past(body())));
    });

    describe("the verification request, as far as a backend on loopback can answer it", () => {
        beforeEach(function () {
            if (a.live) {
                console.log(
                    "    skipped in a live run: the real API cannot reach a backend on this machine's loopback",
                );
                this.skip();
            }
        });
        const create = (token: string) =>
            send("POST", V2, {
                storyId: a.storyId,
                name: `${a.prefix}verified`,
                url: a.webhook.url,
                token,
            });

        it(title("verification request"), async () => {
            const before = a.verifications!.length;
            const r = await create(a.webhook.token);
            if (r.id) await send("DELETE", `${V2}/${r.id}`);
            const queries = a.verifications!.slice(before);
            note("verification request", { ...r.seen, keys: [...r.seen.keys, ...queries.flat().map((k) => `?${k}`)] });
            assert.deepEqual(queries, [["challenge", "token"]], "one verification request, with challenge and token");
            assert.equal(r.status, 201, "the backend answered it: the connection is made");
        });

        it(title("verification refused"), async () => {
            const r = await create(`${a.prefix}not-the-backends-token`);
            if (r.id) await send("DELETE", `${V2}/${r.id}`);
            note("verification refused", r.seen);
            assert.equal(r.id, undefined, "no connection is made");
            assert.ok(r.status !== undefined && r.status >= 400 && r.status < 500, `a 4xx, not ${r.status}`);
        });
    });
});
