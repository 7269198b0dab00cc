/**
 * WebhookConnection: a ChatBot v2 webhook connection (`/v2/integrations/webhook`).
 *
 * This file holds the resource's whole behaviour: its types, its table of fields, what the API
 * answers, the class a Pulumi program creates, and its spec, from which ./dynamicProvider.ts
 * builds the dynamic provider this module exports (configure, check, diff, create, read, update,
 * delete) for the plugin to call.
 *
 * The provider handed to Pulumi is this module itself. Installed under node_modules, the SDK
 * serializes it as `require("pulumi-chatbot/providers/webhookConnection")`: a few hundred bytes
 * in state, no secrets, and the installed package's code runs for existing resources too.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { limits } from "../limits";
import { basicAuth, headerRecord, httpUrl, text, type AllTrue, type Same } from "../schema/fields";
import { dynamicProvider } from "./dynamicProvider";
import { lookUp, outputForm } from "./lookup";
import { ChatbotResource } from "./registration";
import { field, inputsIn } from "./spec";
import type { Looked, LookupArgs, LookupInputs, ResourceSpec, SecretKeys } from "./spec";

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
    token?: pulumi.Input<string>;
    /** Extra request headers, name to value. Secret. */
    headers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
    /** Basic authorization. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> }>;
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
type SecretInputs = "token" | "headers" | "auth";

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

/** An item of the list read: no token, headers or auth. */
export type ApiConnectionListItem = Omit<ApiConnection, "token" | "headers" | "auth">;

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
const listItemSchema = readSchema.omit({ token: true, headers: true, auth: true });

/** Fails to compile when what is written out and what the schemas and fields say differ. */
type _TypesMatch = AllTrue<
    [
        Same<ApiConnection, z.infer<typeof readSchema>>,
        Same<ApiConnectionListItem, z.infer<typeof listItemSchema>>,
        Same<SecretInputs, SecretKeys<typeof fields>>,
    ]
>;

// ---------------------------------------------------------------------------------------------
// The spec

/** Also read by the registry (./registry.ts), the get functions and `pulumi-chatbot discover`. */
export const spec: ResourceSpec<
    WebhookConnectionInputs,
    WebhookConnectionOutputs,
    ApiConnection,
    ApiConnectionListItem
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

// ---------------------------------------------------------------------------------------------
// The resource class

/** `new WebhookConnection(name, args, opts)`; `WebhookConnection.get(name, id)` brings an existing connection, by its 24-character id, into
 *  the program, read only. */
export class WebhookConnection extends ChatbotResource {
    declare readonly storyId: pulumi.Output<string>;
    declare readonly name: pulumi.Output<string>;
    declare readonly url: pulumi.Output<string>;
    declare readonly token: pulumi.Output<string | undefined>;
    declare readonly headers: pulumi.Output<Record<string, string> | undefined>;
    declare readonly auth: pulumi.Output<BasicAuth | undefined>;
    declare readonly story: pulumi.Output<{ id: string; name: string }>;
    declare readonly lastError: pulumi.Output<string | null>;
    declare readonly createdAt: pulumi.Output<string>;
    declare readonly updatedAt: pulumi.Output<string>;

    constructor(name: string, args: WebhookConnectionArgs, opts?: pulumi.CustomResourceOptions) {
        super(spec, module, name, args, opts);
    }
}

// ---------------------------------------------------------------------------------------------
// What the plugin calls for a webhook connection: this module's exports are its dynamic provider.
export const { configure, check, diff, create, read, update, delete: remove } = dynamicProvider(spec);
export { remove as delete };

// ---------------------------------------------------------------------------------------------
// Looking a connection up from a program: read only, in the program's own process.

/** Look a connection up by `id`, or by `name` (and `storyId`, where names repeat across stories). */
export interface GetWebhookConnectionArgs extends LookupArgs {
    storyId?: string;
}

export type GetWebhookConnectionOutputArgs = LookupInputs<GetWebhookConnectionArgs>;

/** The connection's fields; `token`, `headers` and `auth` are secret Outputs. */
export type GetWebhookConnectionResult = Looked<WebhookConnectionOutputs, SecretInputs>;

/**
 * Reads an existing connection, as a Pulumi invoke function does: nothing is managed or changed.
 * Settings as the provider's: stack config `chatbot:token` and `chatbot:apiUrl`, else
 * CHATBOT_TOKEN and CHATBOT_API_URL. No match, or several, is an error that says which.
 */
export async function getWebhookConnection(args: GetWebhookConnectionArgs): Promise<GetWebhookConnectionResult> {
    const { storyId } = args;
    return lookUp<WebhookConnectionOutputs, SecretInputs, ApiConnectionListItem>(spec, {
        id: args.id,
        name: args.name,
        ...(storyId ? { also: { test: (c) => c.story.id === storyId, says: `on story ${storyId}` } } : {}),
    });
}

/** `getWebhookConnection` taking Inputs; the result is secret as a whole when it holds a secret. */
export function getWebhookConnectionOutput(
    args: GetWebhookConnectionOutputArgs,
): pulumi.Output<WebhookConnectionOutputs & { id: string }> {
    return outputForm<GetWebhookConnectionArgs, WebhookConnectionOutputs>(getWebhookConnection, args);
}
