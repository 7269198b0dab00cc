/**
 * Whole programs through the real pulumi CLI (run hermetically: tests/helpers/pulumi.ts), against
 * the account of ./account.ts with the provider's own settings (its pacing and retries): up, a
 * change made by hand found by the drift check and put back, `pulumi import` through the native
 * plugin, and destroy. One stack, its steps in order: read the first failure first.
 */
import { strict as assert } from "node:assert";
import { readOne } from "../../provider/resources/lookup";
import { resourceOfType } from "../../provider/resources/registry";
import {
    CHANGES_EXIT_CODE,
    CONNECTION_TYPE,
    declareStack,
    LEGACY_TYPE,
    NATIVE_CONNECTION_TYPE,
    ok,
} from "../helpers/pulumi";
import { account, type Account } from "./account";

const connections = resourceOfType("WebhookConnection");
const legacyWebhooks = resourceOfType("LegacyWebhook");

describe("whole programs through the pulumi CLI", function () {
    let a: Account;
    let program: Awaited<ReturnType<typeof declareStack>> | undefined;
    let imports: Awaited<ReturnType<typeof declareStack>> | undefined;
    const ids = { connection: "", legacy: "" };
    /** The provider's own pacing and retries, not the test suite's shorter waits. */
    const env = { CHATBOT_RETRY_BASE_MS: undefined };

    before(async () => {
        a = account();
        program = await declareStack(
            { url: a.apiUrl, token: a.token },
            { project: "acceptance", config: { hookToken: { secret: a.webhook.token } }, env },
        );
        await program.declare([
            {
                kind: "WebhookConnection",
                name: "connection",
                args: {
                    storyId: a.storyId,
                    name: `${a.prefix}program`,
                    url: a.webhook.url,
                    token: { secretConfig: "hookToken" },
                    headers: { "X-Pcb": "1" },
                },
            },
            { kind: "LegacyWebhook", name: "legacy", args: { name: `${a.prefix}program-legacy`, url: a.legacyUrl } },
        ]);
    });
    after(() => {
        program?.dispose();
        imports?.dispose();
    });

    it("up creates the connection and the legacy webhook the program declares", async () => {
        ok(await program!.stack.run("up"));
        ids.connection = (await program!.stack.resources(CONNECTION_TYPE))[0]?.id ?? "";
        ids.legacy = (await program!.stack.resources(LEGACY_TYPE))[0]?.id ?? "";
        assert.equal((await readOne(a.client, connections, ids.connection))?.name, `${a.prefix}program`);
        assert.equal((await readOne(a.client, legacyWebhooks, ids.legacy))?.name, `${a.prefix}program-legacy`);
    });

    it("a change made by hand is found by `preview --refresh --expect-no-changes` (exit 7)", async () => {
        // By hand, through the API: another name (the url and token stay, so no verification).
        await a.client.request("PUT", `${connections.path}/${ids.connection}`, {
            operation: "change the program's connection by hand",
            body: {
                name: `${a.prefix}program-by-hand`,
                url: a.webhook.url,
                token: a.webhook.token,
                headers: { "X-Pcb": "1" },
            },
        });
        const drift = await program!.stack.run("preview", { refresh: true, expectNoChanges: true });
        assert.equal(drift.code, CHANGES_EXIT_CODE, drift.stdout + drift.stderr);
    });

    it("`up --refresh` puts it back, and a preview then shows no change", async () => {
        ok(await program!.stack.run("up", { refresh: true }));
        assert.equal((await readOne(a.client, connections, ids.connection))?.name, `${a.prefix}program`);
        ok(await program!.stack.run("preview", { expectNoChanges: true }));
    });

    it("`pulumi import` adopts an existing connection through the native plugin, and its destroy deletes it", async () => {
        const made = await a.client.request<{ id: string }>("POST", connections.path, {
            operation: "make a connection to import",
            body: { storyId: a.storyId, name: `${a.prefix}imported`, url: a.webhook.url, token: a.webhook.token },
        });
        imports = await declareStack(
            { url: a.apiUrl, token: a.token },
            { project: "acceptanceimport", native: true, config: { resources: "[]" }, env },
        );
        const imported = await imports.stack.pulumi([
            "import",
            NATIVE_CONNECTION_TYPE,
            "imported",
            made.id,
            "--yes",
            "--protect=false",
        ]);
        assert.equal(imported.code, 0, imported.stderr + imported.stdout);
        const [held] = await imports.stack.resources(NATIVE_CONNECTION_TYPE);
        assert.equal(held?.id, made.id);
        assert.equal(held?.outputs?.name, `${a.prefix}imported`);
        ok(await imports.stack.run("destroy"));
        assert.equal(await readOne(a.client, connections, made.id), undefined, "gone after destroy");
    });

    it("destroy deletes what the program made", async () => {
        ok(await program!.stack.run("destroy"));
        assert.equal(await readOne(a.client, connections, ids.connection), undefined);
        assert.equal(await readOne(a.client, legacyWebhooks, ids.legacy), undefined);
    });
});
