// A program whose resources come from stack config, so that a test declares what it needs with
// `pulumi config set-all` and runs `pulumi up` as a user does. Config `resources` is a JSON list of
// { kind: "WebhookConnection" | "LegacyWebhook", name, args, options?, get? }; `get` is an id to
// read with `.get()` instead of declaring. An argument written { "secretConfig": "<key>" } is that
// key's value, read with `config.requireSecret` (`requireSecretObject` with "json": true), as users
// keep secrets in stack config. With `pulumi-chatbot/native`, kind "Provider" declares an explicit
// provider, and `options.provider` names one declared before.
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

const declared = {};
for (const r of config.requireObject("resources")) {
    const Kind = chatbot[r.kind];
    const options =
        typeof r.options?.provider === "string" ? { ...r.options, provider: declared[r.options.provider] } : r.options;
    const resource = r.get ? Kind.get(r.name, r.get) : new Kind(r.name, resolve(r.args), options);
    declared[r.name] = resource;
    if (r.kind !== "Provider") exports[r.name] = { id: resource.id, name: resource.name, url: resource.url };
}
