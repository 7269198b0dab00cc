/**
 * LegacyWebhook's types, fields, what the API answers and its spec: everything of the resource but
 * the class a program creates (./legacyWebhook.ts). Apart, so that the native plugin, which serves
 * the spec, does not load @pulumi/pulumi.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as z from "../schema/zod";
import { limits } from "../limits";
import { basicAuth, headerList, publicHttpUrl, text, type AllTrue, type Same } from "../schema/fields";
import { field, inputsIn } from "./spec";
import type { ResourceSpec, SecretKeys } from "./spec";
import type { BasicAuth } from "./webhookConnectionSpec";

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
    token?: pulumi.Input<string | undefined>;
    /** Extra request headers, in order. Secret. */
    headers?: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; value: pulumi.Input<string> }>[] | undefined>;
    /** Basic authorization. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> } | undefined>;
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
// The fields: each input's facts, once (API description 2.2 and 4.2; limits in `limits.legacy`).
// Every input updates in place: the legacy API's PUT takes the whole webhook.

const limit = limits.legacy;

const fields = {
    name: field("text", text(limit.name.min, limit.name.max), { required: true }),
    // The API documents that a legacy webhook's url must be public.
    url: field("text", publicHttpUrl(limit.url.max), { required: true }),
    token: field("text", text(limit.token.min, limit.token.max), { secret: true }),
    headers: field("headerList", headerList(limit), { secret: true }),
    auth: field("basicAuth", basicAuth(limit.auth.max), { secret: true }),
};

/** The secret inputs, by name: what the get functions return as secret Outputs. */
export type SecretInputs = "token" | "headers" | "auth";

// ---------------------------------------------------------------------------------------------
// What the API answers

/** The last error: `{date, message}` in the single read. */
export interface ApiLegacyError {
    date: string;
    message: string;
}

/** A single read (`GET /webhooks/:id`). */
export interface ApiLegacyWebhook {
    id: string;
    name: string;
    url: string;
    token?: string | null;
    headers?: Array<{ name: string; value: string }> | null;
    auth?: { username: string; password: string } | null;
    error?: ApiLegacyError | string | false | null;
}

/** An item of the list read: id, name and url. */
export interface ApiLegacyListItem {
    id: string;
    name: string;
    url: string;
}

const readSchema = z.object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    token: z.string().nullish(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
    auth: z.object({ username: z.string(), password: z.string() }).nullish(),
    error: z
        .union([z.object({ date: z.string(), message: z.string() }), z.string(), z.literal(false), z.null()])
        .optional(),
});
/** What the list read holds (API description 2.2): id, name and url. Written once: the list
 *  item's type and schema, and the outputs a list item holds (`listed`), are these. */
const LISTED = { id: true, name: true, url: true } as const;
const listItemSchema = readSchema.pick(LISTED);

/** The outputs a list item holds (besides `id`). */
const listed = ["name", "url"] as const;

/** A legacy webhook as the list read shows it, as the list functions return it: what `listed` names. */
export type LegacyWebhookListed = { id: string } & Pick<LegacyWebhookOutputs, (typeof listed)[number]>;

/** Fails to compile when what is written out and what the schemas and fields say differ. */
type _TypesMatch = AllTrue<
    [
        Same<ApiLegacyWebhook, z.infer<typeof readSchema>>,
        Same<ApiLegacyListItem, z.infer<typeof listItemSchema>>,
        Same<SecretInputs, SecretKeys<typeof fields>>,
        // A list item's outputs are its fields the list read holds, under the same names.
        Same<ApiLegacyListItem, Pick<ApiLegacyWebhook, keyof typeof LISTED>>,
        Same<"id" | (typeof listed)[number], keyof typeof LISTED>,
    ]
>;

// ---------------------------------------------------------------------------------------------
// The spec

/** Also read by the registry (./registry.ts), the get functions and `pulumi-chatbot discover`. */
export const spec: ResourceSpec<
    LegacyWebhookInputs,
    LegacyWebhookOutputs,
    ApiLegacyWebhook,
    ApiLegacyListItem,
    "LegacyWebhook"
> = {
    type: "LegacyWebhook",
    noun: "legacy webhook",
    path: "/webhooks",
    fields,
    // Undocumented: an id of what the API assigned, checked only as a short non-empty string.
    adoptId: text(limit.id.min, limit.id.max),
    outputTypes: { lastError: "string or null", lastErrorAt: "string or null" },
    schemas: { read: readSchema, list: z.array(listItemSchema) },
    outputs: (w) => ({
        ...(inputsIn({ fields }, w) as LegacyWebhookInputs),
        lastError: typeof w.error === "string" ? w.error : w.error ? w.error.message : null,
        lastErrorAt: w.error && typeof w.error === "object" ? w.error.date : null,
    }),
    listed,
    blankOutputs: () => ({ lastError: null, lastErrorAt: null }),
    // Each write answers 200 "success", with the webhook's id (API description, 4.2).
    envelopes: {
        create: { code: 200, type: "success" },
        update: { code: 200, type: "success" },
        delete: { code: 200, type: "success" },
    },
    created: {
        describe: (d) => `legacy webhook named "${d.name}" with url ${d.url}`,
        // The list gives no creation time: the provider reads each match and compares all of it.
        matches: (w, d) => w.name === d.name && w.url === d.url,
    },
};
