/**
 * The policy pack's rules, called as CrossGuard calls them, through the installed
 * `pulumi-chatbot/policy` entry a team's own pack imports. The real CLI runs them in
 * tests/cli/policy.test.ts.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as Policy from "pulumi-chatbot/policy";
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { installedRequire, root } from "../helpers/support";

const policy: typeof Policy = installedRequire("pulumi-chatbot/policy");
const { UnknownValueError, unknownCheckingProxy } = installedRequire(
    "@pulumi/policy",
) as typeof import("@pulumi/policy");

const DYNAMIC = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
const NATIVE = "chatbot:index:WebhookConnection";
const LEGACY = "chatbot:index:LegacyWebhook";
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";

interface Res {
    type: string;
    name: string;
    props: Record<string, unknown>;
}

/** The messages `rule` reports for `resource`, with `config` as --policy-pack-config gives it. */
function check(rule: ResourceValidationPolicy, resource: Res, config: Record<string, unknown> = {}): string[] {
    const messages: string[] = [];
    const args = {
        ...resource,
        urn: `urn:pulumi:dev::p::${resource.type}::${resource.name}`,
        getConfig: () => config,
    };
    // The rules are single functions (not lists of them): called as the SDK calls each.
    const validate = rule.validateResource as (a: typeof args, r: (m: string) => void) => void;
    validate(args, (m) => messages.push(m));
    return messages;
}

function checkStack(rule: StackValidationPolicy, resources: Res[]): string[] {
    const messages: string[] = [];
    const withUrns = resources.map((r) => ({ ...r, urn: `urn:pulumi:dev::p::${r.type}::${r.name}` }));
    const validate = rule.validateStack as (a: unknown, r: (m: string) => void) => void;
    validate({ resources: withUrns, getConfig: () => ({}) }, (m) => messages.push(m));
    return messages;
}

const connection = (props: Record<string, unknown>, type = DYNAMIC, name = "orders"): Res => ({ type, name, props });

describe("policy rules (pulumi-chatbot/policy)", () => {
    it("recognises both deliveries by type token, and no other resource", () => {
        assert.equal(policy.chatbotType({ type: DYNAMIC }), "WebhookConnection");
        assert.equal(policy.chatbotType({ type: NATIVE }), "WebhookConnection");
        assert.equal(policy.chatbotType({ type: "pulumi-nodejs:dynamic/chatbot:LegacyWebhook" }), "LegacyWebhook");
        assert.equal(policy.chatbotType({ type: LEGACY }), "LegacyWebhook");
        // Someone else's dynamic resources: none names the module chatbot.
        assert.equal(policy.chatbotType({ type: "pulumi-nodejs:dynamic:Resource" }), undefined);
        assert.equal(policy.chatbotType({ type: "pulumi-nodejs:dynamic/other:WebhookConnection" }), undefined);
        assert.equal(policy.chatbotType({ type: "aws:lambda/function:Function" }), undefined);
    });

    it("https-only: http fails with the resource, the property and the fix; allowHttpHosts lets a host use http", () => {
        for (const type of [DYNAMIC, NATIVE, LEGACY]) {
            const [message, ...more] = check(
                policy.httpsOnly,
                connection({ url: "http://api.example.com/hook" }, type),
            );
            assert.equal(more.length, 0);
            assert.match(
                message,
                /"orders": url uses http, not https \(host api\.example\.com\)\. Fix: use an https:\/\/ url/,
            );
        }
        assert.deepEqual(check(policy.httpsOnly, connection({ url: "https://api.example.com/hook" })), []);
        assert.deepEqual(
            check(policy.httpsOnly, connection({ url: "http://localhost:8080/hook" }), {
                allowHttpHosts: ["localhost"],
            }),
            [],
        );
        assert.equal(check(policy.httpsOnly, connection({ url: "not a url" })).length, 1);
        assert.equal(policy.httpsOnly.enforcementLevel, "mandatory");
    });

    it("caller-verified: a connection needs a token or auth, a legacy webhook a token", () => {
        assert.match(
            check(policy.callerVerified, connection({ url: "https://a.example.com" }))[0],
            /neither token nor auth is set\. Fix: set token/,
        );
        assert.deepEqual(check(policy.callerVerified, connection({ token: "t" })), []);
        assert.deepEqual(check(policy.callerVerified, connection({ auth: { username: "u", password: "p" } })), []);
        assert.match(
            check(policy.callerVerified, connection({ auth: { username: "u", password: "p" } }, LEGACY))[0],
            /token is not set/,
        );
        assert.equal(policy.callerVerified.enforcementLevel, "advisory");
    });

    it("allowed-hosts: checks nothing until hosts are given; then a url must match one of them", () => {
        const url = (u: string) => connection({ url: u });
        assert.deepEqual(check(policy.allowedHosts, url("https://evil.example.net/x")), []);
        const hosts = { hosts: ["*.example.com", "api.example.org"] };
        assert.deepEqual(check(policy.allowedHosts, url("https://a.b.example.com/x"), hosts), []);
        assert.deepEqual(check(policy.allowedHosts, url("https://API.example.org/x"), hosts), []);
        assert.match(
            check(policy.allowedHosts, url("https://example.com/x"), hosts)[0],
            /url's host example\.com is not one of the allowed hosts \(\*\.example\.com, api\.example\.org\)\. Fix:/,
        );
        assert.equal(check(policy.allowedHosts, url("https://www.example.org/x"), hosts).length, 1);
        assert.equal(check(policy.allowedHosts, url("https://example.com.evil.net/x"), hosts).length, 1);
    });

    it("legacy-webhook: reports a LegacyWebhook with the WebhookConnection that replaces it", () => {
        assert.match(
            check(policy.legacyWebhook, connection({ url: "https://a" }, LEGACY))[0],
            /legacy webhook API\. Fix: declare a WebhookConnection/,
        );
        assert.deepEqual(check(policy.legacyWebhook, connection({ url: "https://a" }, NATIVE)), []);
    });

    it("unique-target: two connections for one story and url are reported once, naming both", () => {
        const a = connection({ storyId: STORY, url: "https://api.example.com/hook" }, DYNAMIC, "a");
        const b = connection({ storyId: STORY, url: "https://api.example.com/hook" }, NATIVE, "b");
        const other = connection(
            { storyId: "6a1b2c3d4e5f6a7b8c9d0e1f", url: "https://api.example.com/hook" },
            DYNAMIC,
            "c",
        );
        const [message, ...more] = checkStack(policy.uniqueTarget, [a, b, other]);
        assert.equal(more.length, 0);
        assert.match(message, /"b" has the same storyId and url as "a"/);
    });

    it("a value unknown at preview is CrossGuard's UnknownValueError (an advisory), never a violation", () => {
        // What the SDK hands a rule at preview: props behind its unknown-checking proxy.
        const props = unknownCheckingProxy({ storyId: STORY, url: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" });
        for (const rule of [policy.httpsOnly, policy.allowedHosts]) {
            assert.throws(() => check(rule, connection(props), { hosts: ["*.example.com"] }), UnknownValueError);
        }
        // The stack rule skips the unknown one and checks the rest.
        assert.deepEqual(
            checkStack(policy.uniqueTarget, [connection(props, DYNAMIC, "a"), connection(props, DYNAMIC, "b")]),
            [],
        );
    });

    it("no message shows a secret value: token, auth.password, header values", () => {
        const secrets = {
            token: "tok-SECRET-1",
            auth: { username: "u", password: "pw-SECRET-2" },
            headers: { "X-Key": "hdr-SECRET-3" },
        };
        const props = { ...secrets, storyId: STORY, url: "http://user:url-SECRET-4@api.example.com/x?key=q-SECRET-5" };
        const all = [
            ...policy.chatbotPolicies.flatMap((rule) =>
                "validateResource" in rule
                    ? [NATIVE, LEGACY].flatMap((t) => check(rule, connection(props, t), { hosts: ["a.example.org"] }))
                    : [],
            ),
            ...checkStack(policy.uniqueTarget, [connection(props, NATIVE, "a"), connection(props, NATIVE, "b")]),
        ];
        assert.ok(all.length >= 4, `the rules reported: ${all.join("\n")}`);
        for (const message of all) assert.doesNotMatch(message, /SECRET/);
    });

    it("the shipped pack's package.json has the package's version (CrossGuard reports the pack by it)", () => {
        const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8")).version;
        assert.equal(read("policy-pack/package.json"), read("package.json"));
    });
});
