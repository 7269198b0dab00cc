// A program whose resources come from stack config, so that a test declares what it needs with
// `pulumi config set-all` and runs `pulumi up` as a user does. Config `resources` is a JSON list of
// { kind: "WebhookConnection" | "LegacyWebhook", name, args, options?, get? }; `get` is an id to
// read with `.get()` instead of declaring. An argument written { "secretConfig": "<key>" } is that
// key's value, read with `config.requireSecret` (`requireSecretObject` with "json": true), as users
// keep secrets in stack config. With `pulumi-chatbot/native`, kind "Provider" declares an explicit
// provider, and `options.provider` names one declared before. `options.dependsOn` names resources
// declared before. Kind "Backend" stands for a webhook backend's deployment, as a function with
// its environment would be: its create and update write `accepts` (the credentials it accepts) to
// the file `deployTo`, which a test's loopback backend answers by.
"use strict";
const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot");

const backendProvider = {
    async create(inputs) {
        deploy(inputs);
        return { id: "backend", outs: inputs };
    },
    async diff(_id, olds, news) {
        const changes = JSON.stringify([olds.deployTo, olds.accepts]) !== JSON.stringify([news.deployTo, news.accepts]);
        return { changes };
    },
    async update(_id, _olds, news) {
        deploy(news);
        return { outs: news };
    },
};

/** Written whole, then renamed: a backend reading it mid-write would refuse a call. */
function deploy(inputs) {
    const fs = require("fs");
    fs.writeFileSync(`${inputs.deployTo}.next`, JSON.stringify(inputs.accepts));
    fs.renameSync(`${inputs.deployTo}.next`, inputs.deployTo);
}

class Backend extends pulumi.dynamic.Resource {
    constructor(name, args, opts) {
        super(backendProvider, name, args, { ...opts, additionalSecretOutputs: ["accepts"] });
    }
}

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
    const Kind = r.kind === "Backend" ? Backend : chatbot[r.kind];
    let options =
        typeof r.options?.provider === "string" ? { ...r.options, provider: declared[r.options.provider] } : r.options;
    if (Array.isArray(options?.dependsOn))
        options = { ...options, dependsOn: options.dependsOn.map((n) => declared[n]) };
    const resource = r.get ? Kind.get(r.name, r.get) : new Kind(r.name, resolve(r.args), options);
    declared[r.name] = resource;
    if (r.kind !== "Provider" && r.kind !== "Backend")
        exports[r.name] = { id: resource.id, name: resource.name, url: resource.url };
}
