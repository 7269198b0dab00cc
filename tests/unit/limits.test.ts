/**
 * Every limit is written once, in `limits` (provider/limits.ts). The schemas read it; the README
 * states it for people, so these tests hold the README's tables to the table, and the package's
 * public `limits` export to what check enforces.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { installedPackage, installedRequire, root } from "../helpers/support";

const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const { limits } = installedPackage();

/** The README's row for an input of the WebhookConnection table. */
function row(input: string): string {
    const line = readme.split("\n").find((l) => l.startsWith(`| \`${input}\` |`));
    assert.ok(line, `the README's WebhookConnection table has a row for ${input}`);
    return line;
}

describe("limits: one table, and the README says what it says", () => {
    it("WebhookConnection's table states every v2 limit", () => {
        const c = limits.connection;
        assert.ok(row("storyId").includes(`exactly ${c.idLength} characters`));
        assert.ok(row("adoptId").includes(`exactly ${c.idLength} characters`));
        assert.ok(row("name").includes(`${c.name.min} to ${c.name.max} characters`));
        assert.ok(row("url").includes(`${c.url.min} to ${c.url.max} characters`));
        assert.ok(row("token").includes(`${c.token.min} to ${c.token.max} characters`));
        assert.ok(row("headers").includes(`${c.headers.min} to ${c.headers.max} headers`));
        assert.ok(row("auth").includes(`${c.auth.min} to ${c.auth.max} characters each`));
    });

    it("LegacyWebhook's paragraph states every legacy limit", () => {
        const l = limits.legacy;
        const para = readme.slice(readme.indexOf("### `LegacyWebhook`"), readme.indexOf("### The backend kit"));
        for (const phrase of [
            `\`name\` (${l.name.min} to ${l.name.max}`,
            `\`token\` (${l.token.min} to ${l.token.max}`,
            `\`headers\` (${l.headers.min} to ${l.headers.max} \`{ name, value }\``,
            `name ${l.headerName.min}\nto ${l.headerName.max}`,
            `value ${l.headerValue.min} to ${l.headerValue.max}`,
        ]) {
            assert.ok(para.replace(/\n/g, " ").includes(phrase.replace(/\n/g, " ")), `the README says ${phrase}`);
        }
    });

    it("check enforces the exported limits at their edges", async () => {
        const wc = installedPackage();
        const { check } = installedRequire("pulumi-chatbot/providers/webhookConnection") as {
            check(olds: object, news: object): Promise<{ failures: { property: string; reason: string }[] }>;
        };
        assert.ok(wc.connectionLimits === limits.connection, "the older export names the same table");
        const c = limits.connection;
        const base = { storyId: "s".repeat(c.idLength), url: "https://example.com/hook" };
        const at = async (name: string) => (await check({}, { ...base, name })).failures.map((f) => f.property);
        assert.deepEqual(await at("n".repeat(c.name.max)), []);
        assert.deepEqual(await at("n".repeat(c.name.max + 1)), ["name"]);
    });
});
