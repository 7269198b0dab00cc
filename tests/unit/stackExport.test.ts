/**
 * Which ids a `pulumi stack export` manages, for `discover`: the forms the CLI writes, with and
 * without --show-secrets, older SDKs' untyped dynamic resources, and files that are not exports.
 */
import { strict as assert } from "assert";
import { managedResources, StackExportError } from "../../provider/cli/stackExport";
import { generateProgram, hclString, resourceNameFrom, shellQuote } from "../../provider/cli/generate";
import { literal } from "../../provider/cli/literals";

const SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

function exportOf(resources: object[] | undefined, version = 3): string {
    return JSON.stringify({ version, deployment: { manifest: { time: "", magic: "", version: "" }, resources } });
}

const ids = (text: string) => managedResources(text, "x.json").map((r) => r.id);

describe("stack export reading (discover)", () => {
    it("takes the ids of this package's resources, and only of managed ones", () => {
        const text = exportOf([
            { urn: "s", custom: false, type: "pulumi:pulumi:Stack" },
            { urn: "a", custom: true, id: "a1", type: "pulumi-nodejs:dynamic/chatbot:WebhookConnection" },
            { urn: "b", custom: true, id: "b1", type: "pulumi-nodejs:dynamic/chatbot:LegacyWebhook" },
            { urn: "c", custom: true, id: "c1", type: "chatbot:index:WebhookConnection" },
            // Read with .get(): not managed.
            {
                urn: "d",
                custom: true,
                id: "d1",
                type: "pulumi-nodejs:dynamic/chatbot:WebhookConnection",
                external: true,
            },
            // Another package's resource with the same id shape.
            { urn: "e", custom: true, id: "e1", type: "aws:s3/bucket:Bucket" },
            // Older SDKs: untyped dynamic resources, recognised by their serialized provider,
            // plain or as a --show-secrets secret; an encrypted one cannot be told apart.
            {
                urn: "f",
                custom: true,
                id: "f1",
                type: "pulumi-nodejs:dynamic:Resource",
                outputs: { __provider: 'require("pulumi-chatbot/providers/webhookConnection")' },
            },
            {
                urn: "g",
                custom: true,
                id: "g1",
                type: "pulumi-nodejs:dynamic:Resource",
                inputs: { __provider: { ...SIG, plaintext: '"require(\\"pulumi-chatbot\\")"' } },
            },
            {
                urn: "h",
                custom: true,
                id: "h1",
                type: "pulumi-nodejs:dynamic:Resource",
                outputs: { __provider: { ...SIG, ciphertext: "xyz" } },
            },
            {
                urn: "i",
                custom: true,
                id: "i1",
                type: "pulumi-nodejs:dynamic:Resource",
                outputs: { __provider: "exports.x = 1" },
            },
        ]);
        assert.deepEqual(ids(text), ["a1", "b1", "c1", "f1", "g1"]);
    });

    it("reads an empty stack, older versions and a file backend's checkpoint", () => {
        assert.deepEqual(ids(exportOf(undefined)), []);
        const r = [{ urn: "a", custom: true, id: "a1", type: "pulumi-nodejs:dynamic/chatbot:WebhookConnection" }];
        assert.deepEqual(ids(exportOf(r, 1)), ["a1"]);
        assert.deepEqual(ids(JSON.stringify({ version: 3, checkpoint: { stack: "dev", latest: { resources: r } } })), [
            "a1",
        ]);
    });

    it("refuses what is not an export, without quoting it", () => {
        const fails = (text: string, why: RegExp) =>
            assert.throws(
                () => managedResources(text, "x.json"),
                (e: Error) => e instanceof StackExportError && why.test(e.message) && !e.message.includes("hunter2"),
            );
        fails('{"hunter2": ', /x\.json is not valid JSON/);
        fails("[]", /not the output of `pulumi stack export`: it is not a JSON object/);
        fails('{"hunter2": 1}', /it has no "deployment"/);
        fails(exportOf([], 4), /version 4 is not one this command reads/);
        fails(JSON.stringify({ version: 3, deployment: { resources: {} } }), /"deployment.resources" is not a list/);
    });
});

describe("program generation (discover)", () => {
    it("makes resource names valid and unique, and literals safe in code and comments", () => {
        assert.equal(resourceNameFrom("Ünïcode / it's odd"), "unicode-it-s-odd");
        assert.equal(resourceNameFrom("!!!"), "");
        assert.equal(resourceNameFrom("x".repeat(200)).length, 60);
        assert.equal(literal("typescript", "a\u2028b"), '"a\\u2028b"');
        assert.equal(shellQuote("it's"), `'it'\\''s'`);
        const outputs = { name: "!!!", url: "https://a.example.com", lastError: null, lastErrorAt: null, token: "tok" };
        const g = generateProgram(
            [
                { kind: "LegacyWebhook", id: "1", outputs },
                { kind: "LegacyWebhook", id: "2", outputs },
            ],
            "typescript",
            "https://api.chatbot.com",
        );
        assert.deepEqual(
            g.declared.map((d) => d.resourceName),
            ["legacy-webhook", "legacy-webhook-2"],
        );
        assert.deepEqual(
            g.secrets.map((s) => s.key),
            ["legacyWebhookToken", "legacyWebhook2Token"],
        );
        assert.ok(!g.program.includes('"tok"'));
    });

    it("writes PCL for `pulumi convert`: a secret config block per secret value, the logical name, protect", () => {
        assert.equal(hclString("a${b}%{c}\b\\b"), '"a$${b}%%{c}\\u0008\\\\b"');
        const outputs = {
            name: "Orders (prod)",
            url: "https://a.example.com",
            lastError: null,
            lastErrorAt: null,
            token: "tok-1",
            headers: [{ name: "X-Sig", value: "sig-1" }],
        };
        const g = generateProgram([{ kind: "LegacyWebhook", id: "7", outputs }], "pcl", "https://api.chatbot.com");
        assert.match(g.program, /^config "ordersProdToken" "string" \{\n {4}secret = true\n\}$/m);
        // Every account string is a stand-in, which convert.ts replaces by the language's own literal.
        const standIn = (value: string) => [...g.standIns].find(([, v]) => v === value)?.[0] as string;
        assert.deepEqual([...g.standIns.values()], ["7", "Orders (prod)", "https://a.example.com", "X-Sig"]);
        for (const key of g.standIns.keys()) assert.match(key, /^chatbotvalue[0-9a-f]{8}n\d+$/);
        assert.match(
            g.program,
            new RegExp(
                `^resource ordersProd "chatbot:index:LegacyWebhook" \\{\\n {4}__logicalName = "orders-prod"\\n {4}adoptId = "${standIn("7")}"$`,
                "m",
            ),
        );
        assert.match(g.program, new RegExp(`\\{ "name" = "${standIn("X-Sig")}", "value" = ordersProdHeaderXSig \\}`));
        assert.ok(!g.program.includes('Orders (prod)"'), "no account text in the program, comments included");
        assert.match(g.program, /options \{\n {8}protect = true\n {4}\}/);
        assert.ok(!g.program.includes("tok-1") && !g.program.includes("sig-1"));
    });

    it("writes Pulumi YAML: secret config, `${` escaped where Pulumi YAML would interpolate, protect", () => {
        const outputs = {
            name: "a ${b}",
            url: "https://a.example.com",
            lastError: null,
            lastErrorAt: null,
            headers: [{ name: "X-Sig", value: "sig-1" }],
        };
        const g = generateProgram([{ kind: "LegacyWebhook", id: "7", outputs }], "yaml", "https://api.chatbot.com");
        assert.match(g.program, /^config:\n {2}aBHeaderXSig:\n {4}type: string\n {4}secret: true$/m);
        assert.match(g.program, /^ {6}name: "a \$\$\{b\}"$/m);
        // Every `$` doubled: `$${b}` is not read as a live `${b}` (pulumi-yaml reads `$$` as `$`).
        const g2 = generateProgram(
            [{ kind: "LegacyWebhook", id: "7", outputs: { ...outputs, name: "$${b}$\u0085x" } }],
            "yaml",
            "https://api.chatbot.com",
        );
        assert.match(g2.program, /^ {6}name: "\$\$\$\$\{b\}\$\$\\u0085x"$/m);
        assert.ok(!g2.program.includes("\u0085"), "no raw NEL, which YAML reads as a line break, comments included");
        assert.match(g.program, /^ {8}- "name": "X-Sig"\n {10}"value": "\$\{aBHeaderXSig\}"$/m);
        assert.match(g.program, /^ {4}options:\n {6}protect: true$/m);
        assert.ok(!g.program.includes("sig-1"));
    });
});
