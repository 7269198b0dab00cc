/**
 * The v2 webhook connection (`/v2/integrations/webhook`): its request and answer shapes, with the
 * limits of `limits.connection`. Read by the WebhookConnection provider and by the simulator.
 */
import { z } from "zod";
import { limits } from "../limits";
import { basicAuth, headerName, headerValue, httpUrl, record, text } from "./fields";

const L = limits.connection;

export const connectionHeadersSchema = z
    .record(headerName(), headerValue(0), {
        error: (issue) =>
            issue.code === "invalid_type" ? "must be an object of header names to string values" : undefined,
    })
    .refine((h) => Object.keys(h).length >= L.headers.min && Object.keys(h).length <= L.headers.max, {
        error: `must have ${L.headers.min} to ${L.headers.max} headers`,
    });

/** What the update body (PUT) carries: everything but the story. */
export const connectionUpdateSchema = record({
    name: text(L.name.min, L.name.max),
    url: httpUrl(L.url.max),
    token: text(L.token.min, L.token.max).optional(),
    headers: connectionHeadersSchema.optional(),
    auth: basicAuth(L.auth.max).optional(),
});

/** What the create body (POST) carries, and so what a WebhookConnection's inputs are. */
export const connectionCreateSchema = connectionUpdateSchema.extend({
    storyId: text(L.idLength, L.idLength),
});

/** A WebhookConnection's inputs: the create body, and the id of an existing connection to adopt. */
export const connectionInputsSchema = connectionCreateSchema.extend({
    adoptId: text(L.idLength, L.idLength).optional(),
});

export type ConnectionUpdate = z.infer<typeof connectionUpdateSchema>;
export type ConnectionCreate = z.infer<typeof connectionCreateSchema>;

/** The last error the API noted: a message, or false/null where there is none. */
export const lastErrorSchema = z.union([z.string(), z.literal(false), z.null()]);

/** A single read (`GET /v2/integrations/webhook/:id`): every field. */
export const connectionSchema = z.object({
    id: z.string(),
    story: z.object({ id: z.string(), name: z.string() }),
    name: z.string(),
    url: z.string(),
    token: z.string().nullish(),
    headers: z.record(z.string(), z.string()).nullish(),
    auth: z.object({ username: z.string(), password: z.string() }).nullish(),
    error: lastErrorSchema.optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
});

/** An item of the list read: no token, headers or auth. */
export const connectionListItemSchema = connectionSchema.pick({
    id: true,
    story: true,
    name: true,
    url: true,
    error: true,
    createdAt: true,
    updatedAt: true,
});

export type Connection = z.infer<typeof connectionSchema>;
export type ConnectionListItem = z.infer<typeof connectionListItemSchema>;
