/**
 * The webhook contract as JSON Schema (`pulumi-chatbot/webhook/schema/request.json`,
 * `response.json`): written by zod from the kit's schemas, never by hand; found at its export
 * paths beside the package's other subpaths; carrying every documented limit and enum; failing
 * where the kit fails, in the option of a union that was meant. That its verdicts are the kit's is held case by case where the kit's
 * cases are: webhookKit.test.ts (each limit at its edge and one beyond) and properties.test.ts
 * (random replies), each asking ajv about the shipped files (tests/helpers/webhookContract.ts).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { webhookJsonSchemas } from "../../provider/webhook/jsonSchema";
import { verifyWebhookResponse, webhookLimits } from "../../provider/webhook";
import { installedRequire, root } from "../helpers/support";
import { CONTRACT_PATHS, contractSchema, contractVerdict } from "../helpers/webhookContract";

type Json = Record<string, unknown>;
const defs = () => contractSchema("response").$defs as Record<string, Json>;
const property = (def: string, name: string) => (defs()[def].properties as Record<string, Json>)[name];

describe("the webhook contract as JSON Schema", () => {
    it("the shipped files are what zod writes of the kit's schemas now (generated, never edited)", () => {
        const now = webhookJsonSchemas();
        for (const part of ["request", "response"] as const) {
            assert.deepEqual(contractSchema(part), now[part], `${CONTRACT_PATHS[part]} is stale: npm run build`);
            assert.equal(contractSchema(part).$schema, "https://json-schema.org/draft/2020-12/schema");
            assert.match(String(contractSchema(part).description), /Generated from the zod schemas/);
        }
    });

    it("resolve at their export paths, and every earlier subpath still resolves as before", () => {
        const installed = path.join(root, "node_modules", "pulumi-chatbot");
        const resolved = (spec: string) => path.relative(installed, installedRequire.resolve(spec));
        assert.equal(resolved(CONTRACT_PATHS.request), path.join("dist", "webhook", "schema", "request.json"));
        assert.equal(resolved(CONTRACT_PATHS.response), path.join("dist", "webhook", "schema", "response.json"));
        for (const [spec, file] of [
            ["pulumi-chatbot", "index.js"],
            ["pulumi-chatbot/webhook", "webhook/index.js"],
            ["pulumi-chatbot/testing", "testing/index.js"],
            ["pulumi-chatbot/native", "native/index.js"],
            ["pulumi-chatbot/policy", "policy/index.js"],
            ["pulumi-chatbot/providers/webhookConnection", "resources/webhookConnection.js"],
        ]) {
            assert.equal(resolved(spec), path.join("dist", file), spec);
        }
        // Pulumi's template resolves as TypeScript's "node" does (no exports): typesVersions maps it.
        const manifest = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as {
            typesVersions: Record<string, Record<string, string[]>>;
        };
        assert.deepEqual(manifest.typesVersions["*"]["webhook/schema/*"], ["dist/webhook/schema/*"]);
    });

    it("every documented limit and enum of a response is in response.json", () => {
        const range = (p: Json, kind: "Length" | "Items") => [p[`min${kind}`], p[`max${kind}`]];
        const r = webhookLimits.responses;
        const pairs: Array<[string, string, "Length" | "Items", { min: number; max: number }]> = [
            ["textResponse", "message", "Length", r.text.message],
            ["randomTextResponse", "messages", "Items", r.randomText.messages],
            ["imageResponse", "imageUrl", "Length", r.image.imageUrl],
            ["quickRepliesResponse", "title", "Length", r.quickReplies.title],
            ["quickRepliesResponse", "buttons", "Items", r.quickReplies.buttons],
            ["card", "title", "Length", r.cards.title],
            ["card", "subtitle", "Length", r.cards.subtitle],
            ["card", "imageUrl", "Length", r.cards.imageUrl],
            ["card", "buttons", "Items", r.cards.buttons],
            ["buttonsResponse", "title", "Length", r.buttons.title],
            ["buttonsResponse", "buttons", "Items", r.buttons.buttons],
        ];
        for (const [type, b] of Object.entries(webhookLimits.buttons)) {
            pairs.push([`${type}Button`, "title", "Length", b.title], [`${type}Button`, "value", "Length", b.value]);
        }
        for (const [def, name, kind, limit] of pairs) {
            assert.deepEqual(range(property(def, name), kind), [limit.min, limit.max], `${def}.${name}`);
        }
        const messages = property("randomTextResponse", "messages").items as Json;
        assert.deepEqual(range(messages, "Length"), [r.randomText.message.min, r.randomText.message.max]);
        assert.deepEqual(property("webviewButton", "height").enum, webhookLimits.buttons.webview.heights);
        for (const def of Object.keys(defs()).filter((d) => d.endsWith("Response") && d !== "botResponse")) {
            const delay = property(def, "delay");
            assert.deepEqual([delay.minimum, delay.maximum], [webhookLimits.delay.min, webhookLimits.delay.max], def);
        }
        const types = (def: string) => ((defs()[def].properties as Record<string, Json>).type as Json).enum;
        assert.deepEqual(types("botResponse"), ["text", "randomText", "image", "quickReplies", "cards", "buttons"]);
        assert.deepEqual(types("button"), ["postback", "goto", "url", "webview", "phone"]);
        assert.deepEqual(types("quickReplyButton"), ["postback", "goto"]);
    });

    it("a union by type fails on the property of the type meant, not on every other type", () => {
        const { errors } = contractVerdict("response", { responses: [{ type: "text", message: "" }] });
        assert.ok(errors.includes("/responses/0/message must NOT have fewer than 1 characters"), errors.join("; "));
        assert.ok(!errors.some((e) => /messages|imageUrl|elements/.test(e)), errors.join("; "));
        const unknownType = contractVerdict("response", { responses: [{ type: "carousel" }] }).errors;
        assert.deepEqual(unknownType, ["/responses/0/type must be equal to one of the allowed values"]);
    });

    it("lengths count characters (code points) in both, an emoji beyond U+FFFF as one", () => {
        const message = (text: string) => ({ responses: [{ type: "text", message: text }] });
        for (const [value, ok] of [
            [message("\u{1F600}".repeat(1024)), true], // 2048 UTF-16 code units
            [message("\u{1F600}".repeat(1025)), false],
            [message("é".repeat(1025)), false],
        ] as const) {
            assert.equal(verifyWebhookResponse(value).ok, ok);
            assert.equal(contractVerdict("response", value).ok, ok);
        }
        assert.match(String(contractSchema("response").description), /count characters \(Unicode code points\)/);
    });
});
