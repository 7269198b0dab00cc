/**
 * WebhookConnection's types, fields, what the API answers and its spec: everything of the resource
 * but the class a program creates (./webhookConnection.ts). Apart, so that the native plugin,
 * which serves the spec, does not load @pulumi/pulumi (half a second of its start).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as z from "../schema/zod";
import { limits } from "../limits";
import { basicAuth, headerRecord, httpUrl, text, type AllTrue, type Same } from "../schema/fields";
import { field, inputsIn } from "./spec";
import type { ResourceSpec, SecretKeys } from "./spec";

// ---------------------------------------------------------------------------------------------
// Types. Limits: `limits.connection`, checked at preview.

export type BasicAuth = { username: string; password: string };

/** The arguments of a WebhookConnection, as a program writes them. */
export interface WebhookConnectionArgs {
    /** The story (its 24-character id) the connection belongs to. Changing it replaces the connection. */
    storyId: pulumi.Input<string>;
    /** Default: the resource's name. */
    name?: pulumi.Input<string>;
    /** The address ChatBot calls: an absolute http(s) URL. */
    url: pulumi.Input<string>;
    /** Usable by the backend to verify calls. Secret. */
    token?: pulumi.Input<string | undefined>;
    /** Extra request headers, name to value. Secret. */
    headers?: pulumi.Input<Record<string, pulumi.Input<string>> | undefined>;
    /** Basic authorization. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> } | undefined>;
    /**
     * The id of a connection that already exists: the first `pulumi up` adopts it (reads it and,
     * where it differs, updates it to these arguments) instead of creating one. It must belong to
     * `storyId`. Ignored once the connection is managed. The `import` resource option does the
     * same.
     */
    adoptId?: pulumi.Input<string>;
}

/** The inputs as the provider sees them: resolved, secrets unwrapped. */
export type WebhookConnectionInputs = {
    storyId: string;
    name: string;
    url: string;
    token?: string;
    headers?: Record<string, string>;
    auth?: BasicAuth;
};

/** What the API stored, as the resource's outputs. */
export type WebhookConnectionOutputs = WebhookConnectionInputs & {
    story: { id: string; name: string };
    /** The last error ChatBot noted calling the webhook, or null. */
    lastError: string | null;
    createdAt: string;
    updatedAt: string;
};

// ---------------------------------------------------------------------------------------------
// The fields: each input's facts, once (API description 2.1 and 4.1; limits in `limits.connection`).

const limit = limits.connection;

const fields = {
    // The update body has no storyId: a connection cannot move to another story.
    storyId: field("text", text(limit.idLength, limit.idLength), { required: true, replaces: true }),
    name: field("text", text(limit.name.min, limit.name.max), { required: true }),
    url: field("text", httpUrl(limit.url.max), { required: true }),
    token: field("text", text(limit.token.min, limit.token.max), { secret: true }),
    headers: field("headerRecord", headerRecord(limit.headers), { secret: true }),
    auth: field("basicAuth", basicAuth(limit.auth.max), { secret: true }),
};

/** The secret inputs, by name: what the get functions return as secret Outputs. */
export type SecretInputs = "token" | "headers" | "auth";

// ---------------------------------------------------------------------------------------------
// What the API answers

/** A single read (`GET /v2/integrations/webhook/:id`): every field. */
export interface ApiConnection {
    id: string;
    story: { id: string; name: string };
    name: string;
    url: string;
    token?: string | null;
    headers?: Record<string, string> | null;
    auth?: { username: string; password: string } | null;
    /** The last error the API noted: a message, or false/null where there is none. */
    error?: string | false | null;
    createdAt: string;
    updatedAt: string;
}

/** What the list read leaves out (API description 2.1): the secret fields. Written once: the
 *  list item's type and schema, and the outputs a list item holds (`listed`), are what is left. */
const UNLISTED = { token: true, headers: true, auth: true } as const;
type Unlisted = keyof typeof UNLISTED;

/** An item of the list read: no token, headers or auth. */
export type ApiConnectionListItem = Omit<ApiConnection, Unlisted>;

const readSchema = z.object({
    id: z.string(),
    story: z.object({ id: z.string(), name: z.string() }),
    name: z.string(),
    url: z.string(),
    token: z.string().nullish(),
    headers: z.record(z.string(), z.string()).nullish(),
    auth: z.object({ username: z.string(), password: z.string() }).nullish(),
    error: z.union([z.string(), z.literal(false), z.null()]).optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
});
const listItemSchema = readSchema.omit(UNLISTED);

/** The outputs a list item holds (besides `id`), in the order the list functions show them. */
const listed = ["storyId", "story", "name", "url", "lastError", "createdAt", "updatedAt"] as const;

/** A connection as the list read shows it, as the list functions return it: what `listed` names. */
export type WebhookConnectionListed = { id: string } & Pick<WebhookConnectionOutputs, (typeof listed)[number]>;

/** Fails to compile when what is written out and what the schemas and fields say differ. */
type _TypesMatch = AllTrue<
    [
        Same<ApiConnection, z.infer<typeof readSchema>>,
        Same<ApiConnectionListItem, z.infer<typeof listItemSchema>>,
        Same<SecretInputs, SecretKeys<typeof fields>>,
        // Every output but what the list read leaves out: `listed` misses none and adds none.
        Same<(typeof listed)[number], Exclude<keyof WebhookConnectionOutputs, Unlisted>>,
    ]
>;

// ---------------------------------------------------------------------------------------------
// The spec

/** Also read by the registry (./registry.ts), the get functions and `pulumi-chatbot discover`. */
export const spec: ResourceSpec<
    WebhookConnectionInputs,
    WebhookConnectionOutputs,
    ApiConnection,
    ApiConnectionListItem,
    "WebhookConnection"
> = {
    type: "WebhookConnection",
    noun: "webhook connection",
    path: "/v2/integrations/webhook",
    fields,
    adoptId: text(limit.idLength, limit.idLength),
    outputTypes: {
        story: { object: "Story", properties: ["id", "name"] },
        lastError: "string or null",
        createdAt: "string",
        updatedAt: "string",
    },
    schemas: { read: readSchema, list: z.array(listItemSchema) },
    outputs: (c) => ({
        ...(inputsIn({ fields }, c) as Omit<WebhookConnectionInputs, "storyId">),
        // The answer names the story, not the storyId the create body carried.
        storyId: c.story.id,
        story: { id: c.story.id, name: c.story.name },
        lastError: typeof c.error === "string" ? c.error : null,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
    }),
    listed,
    narrowBy: {
        arg: "storyId",
        description: "Only connections of this story (its 24-character id): names repeat across stories.",
        test: (c, storyId) => c.story.id === storyId,
        says: (storyId) => `on story ${storyId}`,
    },
    blankOutputs: (d) => ({ story: { id: d.storyId, name: "" }, lastError: null, createdAt: "", updatedAt: "" }),
    created: {
        describe: (d) => `connection named "${d.name}" on story ${d.storyId} with url ${d.url}`,
        matches: (c, d) => c.story.id === d.storyId && c.name === d.name && c.url === d.url,
        createdAt: (c) => c.createdAt,
    },
    envelopes: {
        create: { code: 201, type: "created" },
        update: { code: 200, type: "success" },
        delete: { code: 200, type: "success" },
    },
    container: (o) => ({ kind: "story", id: o.storyId, name: o.story.name }),
    cannotAdopt: (current, d, id) =>
        current.storyId === d.storyId
            ? undefined
            : `connection ${id} belongs to story ${current.storyId}, not to storyId ${d.storyId}; a connection cannot move to another story.`,
};
