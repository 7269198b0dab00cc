// A program whose resources come from stack config, so that a test declares what it needs with
// `pulumi config set-all` and runs `pulumi up` as a user does. Config `resources` is a JSON list of
// { kind: "WebhookConnection" | "LegacyWebhook", name, args, options?, get? }; `get` is an id to
// read with `.get()` instead of declaring. An argument written { "secretConfig": "<key>" } is that
// key's value, read with `config.requireSecret` (`requireSecretObject` with "json": true), as users
// keep secrets in stack config.
"use strict";
const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot");

const config = new pulumi.Config();

function resolve(value) {
    if (Array.isArray(value)) return value.map(resolve);
    if (value !== null && typeof value === "object") {
        if (typeof value.secretConfig === "string") {
            return value.json
                ? config.requireSecretObject(value.secretConfig)
                : config.requireSecret(value.secretConfig);
        }
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    }
    return value;
}

for (const r of config.requireObject("resources")) {
    const Kind = chatbot[r.kind];
    const resource = r.get ? Kind.get(r.name, r.get) : new Kind(r.name, resolve(r.args), r.options);
    exports[r.name] = { id: resource.id, name: resource.name, url: resource.url };
}
