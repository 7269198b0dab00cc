/**
 * Reference providers, to tell what the provider costs from what the plugin, the SDK and the
 * engine stand-in cost on this machine. Each is written as an installed package in a scratch
 * project folder under `.bench/` (inside the repository, so `pulumi-chatbot` still resolves from
 * the root's node_modules): the SDK captures it as a `require()`, as it captures ours.
 *
 * - `bench-empty-provider`: does nothing (check passes the inputs through, create returns an id).
 *   The denominator of the cold-start ratio.
 * - `bench-wait-provider`: makes no request and computes nothing; it only waits as long as ours
 *   spends on the API (requests per operation × latency, from `BENCH_WAIT_MS_<OP>` in its
 *   environment) and returns outputs shaped like ours. Its up and refresh ratios are the best
 *   any provider can reach through this plugin and stand-in on this machine.
 * - `bench-requests-provider`: makes the same requests as ours (a create POSTs and reads back, a
 *   read GETs) with undici as ours does, and nothing else: no validation, envelope check, retry,
 *   timeout or secret handling. Ours minus it is what the provider's own logic costs; it minus the
 *   waiting-only provider is what the HTTP requests themselves cost (undici and the sockets).
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const EMPTY_PROVIDER = "bench-empty-provider";
export const WAIT_PROVIDER = "bench-wait-provider";
export const REQUESTS_PROVIDER = "bench-requests-provider";
export type BaselineName = typeof EMPTY_PROVIDER | typeof WAIT_PROVIDER | typeof REQUESTS_PROVIDER;

const EMPTY_SOURCE = `"use strict";
// A dynamic provider that does nothing (pulumi-chatbot benchmarks: cold-start reference).
exports.check = async (_olds, news) => ({ inputs: news, failures: [] });
exports.diff = async () => ({ changes: false, replaces: [], deleteBeforeReplace: false });
exports.create = async () => ({ id: "0", outs: {} });
exports.read = async (id, props) => ({ id, props });
exports.delete = async () => {};
`;

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

/** A scratch project folder holding the reference providers; `remove()` deletes it. */
export interface BaselineProject {
    /** The folder to start plugins in. */
    dir: string;
    /** The module object of a reference provider, for serializing. */
    load(name: BaselineName): object;
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
    write(EMPTY_PROVIDER, EMPTY_SOURCE);
    write(WAIT_PROVIDER, WAIT_SOURCE);
    write(REQUESTS_PROVIDER, REQUESTS_SOURCE);
    fs.writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "bench-project", version: "0.0.0", private: true }, null, 2),
    );
    return {
        dir,
        // By path: this file's own resolution path does not include the scratch node_modules.
        load: (name) => require(path.join(dir, "node_modules", name)) as object,
        remove: () => fs.rmSync(dir, { recursive: true, force: true }),
    };
}
