/**
 * The bench's Pulumi project and its reference providers, to tell what the provider costs from
 * what the CLI, the plugin and the SDK cost on this machine. All are written to a scratch project
 * folder under `.bench/` (inside the repository, so `pulumi-chatbot` and `@pulumi/pulumi` resolve
 * from the root's node_modules); each reference provider is an installed package there, which the
 * SDK captures as a `require()`, as it captures ours.
 *
 * - The program declares `count` connections, from stack config: `WebhookConnection`s for
 *   `subject: ours`, else dynamic resources of a reference provider with the same inputs, the
 *   same secrets marked and the same secret outputs.
 * - `bench-wait-provider`: makes no request and computes nothing; it only waits as long as ours
 *   spends on the API (requests per operation × latency, from `BENCH_WAIT_MS_<OP>` in its
 *   environment) and returns outputs shaped like ours. Its up and refresh ratios are the best
 *   any provider can reach through this CLI and plugin on this machine.
 * - `bench-requests-provider`: makes the same requests as ours (a create POSTs and reads back, a
 *   read GETs) with undici as ours does, and nothing else: no validation, envelope check, retry,
 *   timeout or secret handling. Ours minus it is what the provider's own logic costs; it minus the
 *   waiting-only provider is what the HTTP requests themselves cost (undici and the sockets).
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const WAIT_PROVIDER = "bench-wait-provider";
export const REQUESTS_PROVIDER = "bench-requests-provider";

/** What the waiting-only and requests-only providers share: their inputs, check and diff. */
const INPUTS_CHECK_DIFF = `const KEYS = ["storyId", "name", "url", "token", "headers", "auth"];
function own(props) {
    const out = {};
    for (const k of KEYS) if (props[k] !== undefined) out[k] = props[k];
    return out;
}
exports.check = async (_olds, news) => ({ inputs: own(news), failures: [] });
exports.diff = async (_id, olds, news) => ({
    changes: KEYS.some((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k])),
    replaces: [],
    deleteBeforeReplace: false,
});
`;

const WAIT_SOURCE = `"use strict";
// A dynamic provider that only waits as long as the real one spends on the API
// (pulumi-chatbot benchmarks: reference for up and refresh).
${INPUTS_CHECK_DIFF}
const wait = (op) => new Promise((r) => setTimeout(r, Number(process.env["BENCH_WAIT_MS_" + op] || 0)));
let seq = 0;
function outputs(inputs) {
    const now = new Date().toISOString();
    return { ...own(inputs), story: { id: inputs.storyId, name: "Story" }, lastError: null, createdAt: now, updatedAt: now };
}
exports.create = async (inputs) => {
    await wait("CREATE");
    return { id: (++seq).toString(16).padStart(24, "0"), outs: outputs(inputs) };
};
exports.read = async (id, props) => {
    await wait("READ");
    const { __provider, ...outs } = props;
    return { id, props: outs, inputs: own(outs) };
};
exports.update = async (_id, _olds, news) => {
    await wait("UPDATE");
    return { outs: outputs(news) };
};
exports.delete = async () => {
    await wait("DELETE");
};
`;

const REQUESTS_SOURCE = `"use strict";
// A dynamic provider that only makes the requests ours makes (pulumi-chatbot benchmarks: what
// the HTTP requests cost).
${INPUTS_CHECK_DIFF}
const undici = require("undici");
const PATH = "/v2/integrations/webhook";
const agent = new undici.Agent({ keepAliveTimeout: 10000, connections: 64 });
async function call(method, path, body) {
    const res = await undici.request(process.env.CHATBOT_API_URL + path, {
        method,
        headers: {
            authorization: "Bearer " + process.env.CHATBOT_TOKEN,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
    });
    const json = JSON.parse(await res.body.text());
    if (res.statusCode >= 300) throw new Error(method + " " + path + ": " + res.statusCode);
    return json;
}
function outputs(c) {
    return {
        storyId: c.story.id, name: c.name, url: c.url, token: c.token, headers: c.headers, auth: c.auth,
        story: c.story, lastError: c.error ?? null, createdAt: c.createdAt, updatedAt: c.updatedAt,
    };
}
exports.create = async (inputs) => {
    const { id } = await call("POST", PATH, own(inputs));
    return { id, outs: outputs(await call("GET", PATH + "/" + id)) };
};
exports.read = async (id) => {
    const props = outputs(await call("GET", PATH + "/" + id));
    return { id, props, inputs: own(props) };
};
exports.delete = async (id) => {
    await call("DELETE", PATH + "/" + id);
};
`;

const PROGRAM = `"use strict";
// The bench program (pulumi-chatbot benchmarks): \`count\` connections of one subject.
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const subject = config.require("subject");
const count = config.requireNumber("count");
const prefix = config.require("prefix");
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const args = (name) => ({
    storyId: STORY,
    name,
    url: "https://backend.example.com/hooks/" + name,
    token: "token-" + name + "-0123456789abcdef",
    headers: { "X-Env": "prod", "X-Key": "key-" + name },
    auth: { username: "bot", password: "pw-" + name },
});
const PROVIDERS = { "waiting-only": "${WAIT_PROVIDER}", "requests-only": "${REQUESTS_PROVIDER}" };
let declare;
if (subject === "native") {
    const chatbot = require("pulumi-chatbot/native");
    declare = (name) => new chatbot.WebhookConnection(name, args(name));
} else if (subject === "ours") {
    const chatbot = require("pulumi-chatbot");
    declare = (name) => new chatbot.WebhookConnection(name, args(name));
    if (config.getBoolean("legacy")) new chatbot.LegacyWebhook("legacy", { url: "https://backend.example.com/legacy", token: "token-size-0" });
} else {
    // As WebhookConnection registers itself: secret inputs marked, outputs to fill, secret outputs.
    const provider = require(PROVIDERS[subject]);
    declare = (name) => {
        const a = args(name);
        const props = {
            ...a,
            token: pulumi.secret(a.token),
            headers: pulumi.secret(a.headers),
            auth: pulumi.secret(a.auth),
            story: undefined,
            lastError: undefined,
            createdAt: undefined,
            updatedAt: undefined,
        };
        return new pulumi.dynamic.Resource(provider, name, props, { additionalSecretOutputs: ["token", "headers", "auth"] }, "chatbot", "Reference");
    };
}
for (let i = 0; i < count; i++) declare(prefix + "-" + i);
`;

/** The scratch project folder; `remove()` deletes it. */
export interface BaselineProject {
    /** The folder holding Pulumi.yaml. */
    dir: string;
    remove(): void;
}

export function writeBaselineProject(root: string): BaselineProject {
    const dir = path.join(root, ".bench", `run-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    const write = (name: string, source: string) => {
        const pkg = path.join(dir, "node_modules", name);
        fs.mkdirSync(pkg, { recursive: true });
        fs.writeFileSync(
            path.join(pkg, "package.json"),
            JSON.stringify({ name, version: "0.0.0", private: true, main: "index.js" }, null, 2),
        );
        fs.writeFileSync(path.join(pkg, "index.js"), source);
    };
    write(WAIT_PROVIDER, WAIT_SOURCE);
    write(REQUESTS_PROVIDER, REQUESTS_SOURCE);
    fs.writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "bench-project", version: "0.0.0", private: true }, null, 2),
    );
    fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        "name: bench\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n" +
            // The native subject's plugin, from the installed package.
            `plugins:\n  providers:\n    - name: chatbot\n      path: ${path.join(root, "node_modules", "pulumi-chatbot", "plugin")}\n`,
    );
    fs.writeFileSync(path.join(dir, "index.js"), PROGRAM);
    return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
