/**
 * LegacyWebhook: a webhook of ChatBot's older, unversioned API (`/webhooks`). New programs should
 * use WebhookConnection; this resource manages webhooks made before it, and accounts that still
 * use the older interface.
 *
 * As with WebhookConnection, this file holds the types, the class and the spec; this module's
 * exports are the dynamic provider, serialized as
 * `require("pulumi-chatbot/providers/legacyWebhook")`. Every property updates in place: the legacy
 * API's PUT takes the whole webhook.
 */
import * as pulumi from "@pulumi/pulumi";
import {
    legacyInputsSchema,
    legacyListItemSchema,
    legacyWebhookSchema,
    type LegacyWebhook as ApiWebhook,
} from "../schema/legacy";
import { programClient } from "../config";
import { findOne, outputForm, withSecrets, type Looked } from "./lookup";
import { dynamicProvider, registration } from "./provider";
import { headerListNames, type ResourceSpec } from "./spec";
import type { BasicAuth } from "./webhookConnection";

// ---------------------------------------------------------------------------------------------
// Types. Limits: `limits.legacy`, checked at preview.

export type LegacyHeader = {
    /** A valid HTTP header name. */
    name: string;
    value: string;
};

export interface LegacyWebhookArgs {
    /** Default: the resource's name. */
    name?: pulumi.Input<string>;
    /** A public http(s) URL (not localhost or a private network address). */
    url: pulumi.Input<string>;
    /** Used to verify incoming webhooks. Secret. */
    token?: pulumi.Input<string>;
    /** Extra request headers, in order. Secret. */
    headers?: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; value: pulumi.Input<string> }>[]>;
    /** Basic authorization. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> }>;
    /** The id of a legacy webhook that already exists: the first `pulumi up` adopts it (reads it
     *  and, where it differs, updates it) instead of creating one. The `import` option does the same. */
    adoptId?: pulumi.Input<string>;
}

export type LegacyWebhookInputs = {
    name: string;
    url: string;
    token?: string;
    headers?: LegacyHeader[];
    auth?: BasicAuth;
};

export type LegacyWebhookOutputs = LegacyWebhookInputs & {
    /** The last error ChatBot noted calling the webhook, or null. */
    lastError: string | null;
    /** When that error was noted (ISO 8601), or null. */
    lastErrorAt: string | null;
};

// ---------------------------------------------------------------------------------------------
// The spec

/** Kept out of plain state, messages and the get functions' plain fields. */
const SECRET_KEYS = ["token", "headers", "auth"] as const;

/** Also read by the get functions and `pulumi-chatbot discover` (../cli). */
export const spec: ResourceSpec<
    LegacyWebhookInputs,
    LegacyWebhookOutputs,
    ApiWebhook,
    { id: string; name: string; url: string }
> = {
    type: "LegacyWebhook",
    noun: "legacy webhook",
    path: "/webhooks",
    inputKeys: ["name", "url", "token", "headers", "auth"],
    secretKeys: SECRET_KEYS,
    replaceKeys: [],
    outputKeys: ["lastError", "lastErrorAt"],
    schemas: { inputs: legacyInputsSchema, read: legacyWebhookSchema, listItem: legacyListItemSchema },
    createBody: body,
    updateBody: body,
    outputs(w) {
        const err = w.error;
        const out: LegacyWebhookOutputs = {
            name: w.name,
            url: w.url,
            lastError: typeof err === "string" ? err : err ? err.message : null,
            lastErrorAt: err && typeof err === "object" ? err.date : null,
        };
        if (w.token != null && w.token !== "") out.token = w.token;
        if (w.headers != null && w.headers.length > 0)
            out.headers = w.headers.map((h) => ({ name: h.name, value: h.value }));
        if (w.auth != null) out.auth = { username: w.auth.username, password: w.auth.password };
        return out;
    },
    blankOutputs: () => ({ lastError: null, lastErrorAt: null }),
    // Each write answers 200 "success", with the webhook's id (API description, 4.2).
    envelopes: {
        create: { code: 200, type: "success" },
        update: { code: 200, type: "success" },
        delete: { code: 200, type: "success" },
    },
    compareAs: { headers: headerListNames },
    created: {
        describe: (d) => `legacy webhook named "${d.name}" with url ${d.url}`,
        // The list gives no creation time: the provider reads each match and compares all of it.
        matches: (w, d) => w.name === d.name && w.url === d.url,
    },
};

/** The create and update body: the whole webhook. Absent token, headers or auth remove them. */
function body(d: LegacyWebhookInputs) {
    const b: Record<string, unknown> = { name: d.name, url: d.url };
    if (d.token !== undefined) b.token = d.token;
    if (d.headers !== undefined) b.headers = d.headers.map((h) => ({ name: h.name, value: h.value }));
    if (d.auth !== undefined) b.auth = { username: d.auth.username, password: d.auth.password };
    return b;
}

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
        // With an id the SDK reads the resource instead of registering it: no arguments are used.
        return new LegacyWebhook(name, {} as LegacyWebhookArgs, { ...opts, id });
    }

    constructor(name: string, args: LegacyWebhookArgs, opts?: pulumi.CustomResourceOptions) {
        super(...registration(spec, module, name, args, opts));
    }
}

// ---------------------------------------------------------------------------------------------
// The dynamic provider: this module's exports, called by the plugin.

const provider = dynamicProvider(spec);
export const { configure, check, diff, create, read, update } = provider;
const remove = provider.delete;
export { remove as delete };

// ---------------------------------------------------------------------------------------------
// Looking a legacy webhook up from a program: read only, in the program's own process.

export interface GetLegacyWebhookArgs {
    id?: string;
    name?: string;
}

export type GetLegacyWebhookOutputArgs = { [K in keyof GetLegacyWebhookArgs]?: pulumi.Input<string> };

/** The webhook's fields; `token`, `headers` and `auth` are secret Outputs. */
export type GetLegacyWebhookResult = Looked<LegacyWebhookOutputs, (typeof SECRET_KEYS)[number]>;

/** Reads an existing legacy webhook by `id` or `name` (see `getWebhookConnection`). */
export async function getLegacyWebhook(args: GetLegacyWebhookArgs): Promise<GetLegacyWebhookResult> {
    return withSecrets(await findOne(programClient(), spec, { id: args.id, name: args.name }), SECRET_KEYS);
}

/** `getLegacyWebhook` taking Inputs; the result is secret as a whole when it holds a secret. */
export function getLegacyWebhookOutput(
    args: GetLegacyWebhookOutputArgs,
): pulumi.Output<LegacyWebhookOutputs & { id: string }> {
    return outputForm<GetLegacyWebhookArgs, LegacyWebhookOutputs>(getLegacyWebhook, args);
}
