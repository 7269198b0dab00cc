/**
 * LegacyWebhook: a webhook of ChatBot's older, unversioned API (`/webhooks`). New programs should
 * use WebhookConnection; this resource manages webhooks made before it, and accounts that still
 * use the older interface.
 *
 * As with WebhookConnection, this module's own exports are the dynamic provider, serialized as
 * `require("pulumi-chatbot/providers/legacyWebhook")`. Every property updates in place: the
 * legacy API's PUT takes the whole webhook.
 */
import * as pulumi from "@pulumi/pulumi";
import type { LegacyWebhook as ApiWebhook } from "../schema/legacy";
import type { CheckFailure } from "../schema/validate";
import type { BasicAuth } from "./webhookConnection";
import {
    api,
    checkInputs,
    createOnce,
    deleteAt,
    diffInputs,
    getOne,
    inputsDiffer,
    label,
    partialFailure,
    omit,
    pick,
    putThenRead,
    providerModule,
    secretIfSet,
    unlessNotFound,
    type Candidate,
    type Plain,
} from "./common";

const PATH = "/webhooks";

export interface LegacyHeader {
    /** 1 to 128 characters, a valid HTTP header name. */
    name: string;
    /** 1 to 1024 characters. */
    value: string;
}

export interface LegacyWebhookArgs {
    /** 1 to 1024 characters. Default: the resource's name. */
    name?: pulumi.Input<string>;
    /** A public http(s) URL, up to 1024 characters. */
    url: pulumi.Input<string>;
    /** 1 to 1024 characters; used to verify incoming webhooks. Secret. */
    token?: pulumi.Input<string>;
    /** 1 to 99 extra request headers, in order. Secret. */
    headers?: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; value: pulumi.Input<string> }>[]>;
    /** Basic authorization, 1 to 1024 characters each. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> }>;
}

export interface LegacyWebhookInputs {
    name: string;
    url: string;
    token?: string;
    headers?: LegacyHeader[];
    auth?: BasicAuth;
}

export interface LegacyWebhookOutputs extends LegacyWebhookInputs {
    /** The last error ChatBot noted calling the webhook, or null. */
    lastError: string | null;
    /** When that error was noted (ISO 8601), or null. */
    lastErrorAt: string | null;
}

const INPUT_KEYS = ["name", "url", "token", "headers", "auth"] as const;
const SECRET_KEYS = ["token", "headers", "auth"] as const;

// ---------------------------------------------------------------------------------------------
// The resource class

export class LegacyWebhook extends pulumi.dynamic.Resource {
    declare readonly name: pulumi.Output<string>;
    declare readonly url: pulumi.Output<string>;
    declare readonly token: pulumi.Output<string | undefined>;
    declare readonly headers: pulumi.Output<LegacyHeader[] | undefined>;
    declare readonly auth: pulumi.Output<BasicAuth | undefined>;
    declare readonly lastError: pulumi.Output<string | null>;
    declare readonly lastErrorAt: pulumi.Output<string | null>;

    /** Brings an existing legacy webhook, by id, into the program (read only). */
    static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): LegacyWebhook {
        return new LegacyWebhook(name, {} as LegacyWebhookArgs, { ...opts, id });
    }

    constructor(name: string, args: LegacyWebhookArgs, opts?: pulumi.CustomResourceOptions) {
        const outputsOnly = { lastError: undefined, lastErrorAt: undefined };
        const props: Record<string, unknown> = opts?.id
            ? { ...Object.fromEntries(INPUT_KEYS.map((k) => [k, undefined])), ...outputsOnly }
            : {
                  name: args.name ?? name,
                  url: args.url,
                  token: secretIfSet(args.token),
                  headers: secretIfSet(args.headers),
                  auth: secretIfSet(args.auth),
                  ...outputsOnly,
              };
        super(
            providerModule(module),
            name,
            props,
            { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...SECRET_KEYS] },
            "chatbot",
            "LegacyWebhook",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The dynamic provider: this module's exports, called by the plugin.

export { configure } from "./common";

export async function check(_olds: Plain, news: Plain): Promise<{ inputs: Plain; failures: CheckFailure[] }> {
    const { legacyWebhookInputSchema } = require("../schema/legacy") as typeof import("../schema/legacy");
    return checkInputs(legacyWebhookInputSchema, INPUT_KEYS, news);
}

/** Everything updates in place. */
export async function diff(_id: string, olds: Plain, news: Plain) {
    return diffInputs(INPUT_KEYS, [], olds, news);
}

/** POST, then read back. As for WebhookConnection, an uncertain POST is never simply repeated:
 *  what it may have made is looked for and adopted (`createOnce`). */
export async function create(inputs: Plain): Promise<{ id: string; outs: Plain }> {
    const desired = inputs as unknown as LegacyWebhookInputs;
    const operation = `create legacy webhook "${desired.name}"`;
    const secrets = secretsOf(desired);
    const id = await createOnce(
        operation,
        `legacy webhook named "${desired.name}" with url ${desired.url}`,
        { path: PATH, body: body(desired), secrets },
        () => findMatching(desired, secrets),
        true, // no createdAt in the legacy API: set aside matches that existed before
    );
    try {
        return { id, outs: await readOutputs(id, `read back legacy webhook ${label(inputs, id)}`, secrets) };
    } catch (e) {
        throw partialFailure(e, id, { ...body(desired), lastError: null, lastErrorAt: null }, inputs);
    }
}

export async function read(id: string, props: Plain): Promise<{ id: string; props: Plain; inputs?: Plain }> {
    const outs = await unlessNotFound(() =>
        readOutputs(id, `read legacy webhook ${label(props, id)}`, secretsOf(props)),
    );
    if (!outs) return { id: "", props: {} };
    return { id, props: outs, inputs: pick(outs, INPUT_KEYS) };
}

export async function update(id: string, olds: Plain, news: Plain): Promise<{ outs: Plain }> {
    const desired = news as unknown as LegacyWebhookInputs;
    const secrets = [...secretsOf(desired), ...secretsOf(olds)];
    const operation = `update legacy webhook ${label(news, id)}`;
    const outs = await putThenRead(
        id,
        `${PATH}/${encodeURIComponent(id)}`,
        { operation, body: body(desired), secrets },
        (once) => readOutputs(id, `read back legacy webhook ${label(news, id)}`, secrets, once),
        { ...omit(olds, INPUT_KEYS), ...body(desired) },
        news,
    );
    return { outs };
}

async function deleteWebhook(id: string, props: Plain): Promise<void> {
    const operation = `delete legacy webhook ${label(props, id)}`;
    await deleteAt(`${PATH}/${encodeURIComponent(id)}`, operation, secretsOf(props));
}
export { deleteWebhook as delete };

// ---------------------------------------------------------------------------------------------
// Mapping

function body(d: LegacyWebhookInputs): Plain {
    const b: Plain = { name: d.name, url: d.url };
    if (d.token !== undefined) b.token = d.token;
    if (d.headers !== undefined) b.headers = d.headers.map((h) => ({ name: h.name, value: h.value }));
    if (d.auth !== undefined) b.auth = { username: d.auth.username, password: d.auth.password };
    return b;
}

/** GET the webhook, as outputs. `once`: a single attempt, no retries. */
async function readOutputs(id: string, operation: string, secrets: string[], once = false): Promise<Plain> {
    const { legacyWebhookSchema } = require("../schema/legacy") as typeof import("../schema/legacy");
    return toOutputs(await getOne(`${PATH}/${encodeURIComponent(id)}`, legacyWebhookSchema, operation, secrets, once));
}

/**
 * Legacy webhooks the list shows with this name and url, whose token, headers and auth (read one
 * by one) are the desired ones too: what a create may have made. The legacy API gives no creation
 * time, so all of the webhook is compared to tell ours from one made by hand.
 */
async function findMatching(d: LegacyWebhookInputs, secrets: string[]): Promise<Candidate[]> {
    const { z } = require("zod") as typeof import("zod");
    const { legacyWebhookSchema } = require("../schema/legacy") as typeof import("../schema/legacy");
    const list = await api().request("GET", PATH, {
        operation: `list legacy webhooks to look for "${d.name}"`,
        schema: z.array(legacyWebhookSchema.pick({ id: true, name: true, url: true })),
    });
    const wanted = body(d);
    const found: Candidate[] = [];
    for (const w of list.filter((w) => w.name === d.name && w.url === d.url)) {
        const outs = await unlessNotFound(() => readOutputs(w.id, `read legacy webhook ${label(w, w.id)}`, secrets));
        if (outs && !INPUT_KEYS.some((k) => inputsDiffer(outs[k], wanted[k]))) found.push({ id: w.id });
    }
    return found;
}

function toOutputs(w: ApiWebhook): Plain {
    const err = w.error;
    const out: LegacyWebhookOutputs = {
        name: w.name,
        url: w.url,
        lastError: typeof err === "string" ? err : err ? err.message : null,
        lastErrorAt: err && typeof err === "object" ? err.date : null,
    };
    // An API may say "none" with an empty value: absent, as the program says it.
    if (w.token != null && w.token !== "") out.token = w.token;
    if (w.headers != null && w.headers.length > 0)
        out.headers = w.headers.map((h) => ({ name: h.name, value: h.value }));
    if (w.auth != null) out.auth = { username: w.auth.username, password: w.auth.password };
    return out as unknown as Plain;
}

function secretsOf(v: Partial<LegacyWebhookInputs> | Plain): string[] {
    const p = v as Partial<LegacyWebhookInputs>;
    const headers = Array.isArray(p.headers) ? p.headers.map((h) => h?.value) : [];
    return [p.token, p.auth?.username, p.auth?.password, ...headers].filter((s): s is string => typeof s === "string");
}
