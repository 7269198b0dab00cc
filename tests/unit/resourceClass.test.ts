/**
 * What the resource classes hand the Pulumi SDK: the registration a program's
 * `new WebhookConnection(...)` and `LegacyWebhook(...)` produce, captured from the SDK's own
 * wire format under runtime mocks (the provider is not called here; tests/cli/webhookConnection.test.ts
 * drives it through the plugin).
 */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import { installedPackage, installedRequire } from "../helpers/support";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const isSecret = (v: unknown) =>
    v !== null && typeof v === "object" && (v as Record<string, unknown>)[SIG] === SECRET_SIG;

interface Captured {
    type: string;
    name: string;
    /** The registration's properties as serialized on the wire: secrets still wrapped. */
    raw: Record<string, unknown>;
    additionalSecretOutputs: string[];
    id?: string;
}

async function capture(program: () => void): Promise<Captured[]> {
    const captured: Captured[] = [];
    const mocks: { MockMonitor: { prototype: Record<string, (...a: unknown[]) => unknown> } } =
        installedRequire("@pulumi/pulumi/runtime/mocks");
    const proto = mocks.MockMonitor.prototype;
    const register = proto.registerResource;
    const read = proto.readResource;
    type Req = {
        getType(): string;
        getName(): string;
        getObject?(): { toJavaScript(): Record<string, unknown> };
        getProperties?(): { toJavaScript(): Record<string, unknown> };
        getAdditionalsecretoutputsList(): string[];
        getId?(): string;
    };
    proto.registerResource = function (this: unknown, req: unknown, cb: unknown) {
        const r = req as Req;
        captured.push({
            type: r.getType(),
            name: r.getName(),
            raw: r.getObject!().toJavaScript(),
            additionalSecretOutputs: r.getAdditionalsecretoutputsList(),
        });
        return register.call(this, req, cb);
    };
    proto.readResource = function (this: unknown, req: unknown, cb: unknown) {
        const r = req as Req;
        captured.push({
            type: r.getType(),
            name: r.getName(),
            raw: r.getProperties!().toJavaScript(),
            additionalSecretOutputs: r.getAdditionalsecretoutputsList(),
            id: r.getId!(),
        });
        return read.call(this, req, cb);
    };
    try {
        await pulumi.runtime.setMocks(
            {
                newResource: (args) => ({ id: args.id || `${args.name}-id`, state: args.inputs }),
                call: () => ({}),
            },
            "classes",
            "dev",
            false,
        );
        program();
        // Registrations are asynchronous: wait until the SDK has sent them.
        for (let i = 0; i < 200 && captured.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 100));
    } finally {
        proto.registerResource = register;
        proto.readResource = read;
    }
    return captured;
}

describe("resource classes as the SDK registers them", () => {
    it("WebhookConnection: its type, name defaulting to the resource name, secrets wrapped, a require() provider", async () => {
        const { WebhookConnection } = installedPackage();
        const [c] = await capture(() => {
            new WebhookConnection("orders", {
                storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
                url: "https://backend.example.com/hook",
                token: "plain-token-value",
                headers: { "X-Env": "prod" },
                auth: { username: "bot", password: "plain-password" },
            });
        });
        assert.equal(c.type, "pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        assert.equal(c.name, "orders");
        assert.equal(c.raw.name, "orders", "name defaults to the resource name");
        for (const key of ["token", "headers", "auth"]) {
            assert.ok(isSecret(c.raw[key]), `${key} is sent as a secret even when the program gave a plain value`);
        }
        assert.deepEqual([...c.additionalSecretOutputs].sort(), ["auth", "headers", "token"]);
        const provider = c.raw.__provider as string;
        assert.match(provider, /require\("pulumi-chatbot\/providers\/webhookConnection"\)/);
        assert.ok(!provider.includes("plain-token-value") && !provider.includes("plain-password"));
        assert.equal(c.raw.storyId, "5f3c0d1e2a4b6c8d9e0f1a2b");
    });

    it("WebhookConnection: an explicit name wins; absent secrets are not sent", async () => {
        const { WebhookConnection } = installedPackage();
        const [c] = await capture(() => {
            new WebhookConnection("orders", {
                storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
                name: "Orders API",
                url: "https://b.example/",
            });
        });
        assert.equal(c.raw.name, "Orders API");
        assert.ok(!("token" in c.raw) && !("headers" in c.raw) && !("auth" in c.raw));
    });

    it("WebhookConnection.get reads by id, sending only the provider", async () => {
        const { WebhookConnection } = installedPackage();
        const [c] = await capture(() => {
            WebhookConnection.get("existing", "0123456789abcdef01234567");
        });
        assert.equal(c.id, "0123456789abcdef01234567");
        assert.deepEqual(Object.keys(c.raw), ["__provider"]);
        assert.deepEqual([...c.additionalSecretOutputs].sort(), ["auth", "headers", "token"]);
    });

    it("LegacyWebhook: its type, secrets wrapped, its own provider entry", async () => {
        const { LegacyWebhook } = installedPackage();
        const [c] = await capture(() => {
            new LegacyWebhook("old", {
                url: "https://public.example/hook",
                token: "t",
                headers: [{ name: "X-A", value: "v" }],
            });
        });
        assert.equal(c.type, "pulumi-nodejs:dynamic/chatbot:LegacyWebhook");
        assert.equal(c.raw.name, "old");
        assert.ok(isSecret(c.raw.token) && isSecret(c.raw.headers));
        assert.match(c.raw.__provider as string, /require\("pulumi-chatbot\/providers\/legacyWebhook"\)/);
    });
});
