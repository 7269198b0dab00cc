/**
 * The legacy webhook (unversioned `/webhooks`): its shapes, with the limits of `limits.legacy`.
 */
import { z } from "zod";
import { limits } from "../limits";
import { basicAuth, headerName, headerValue, httpUrl, list, record, text } from "./fields";

const L = limits.legacy;

/** Host names that are not public: the API documents that a legacy webhook's url must be public. */
function isPublicHost(hostname: string): boolean {
    const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) return false;
    // IPv6 literals: loopback, unspecified, unique local (fc00::/7) and link-local (fe80::/10).
    if (h.includes(":") && (h === "::1" || h === "::" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h))) return false;
    const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
    if (!m) return h.includes(".") || h.includes(":");
    const [a, b] = [Number(m[1]), Number(m[2])];
    return !(
        a === 0 ||
        a === 10 ||
        a === 127 ||
        (a === 169 && b === 254) ||
        (a === 172 && b >= 16 && b <= 31) ||
        (a === 192 && b === 168) ||
        (a === 100 && b >= 64 && b <= 127)
    );
}

export const legacyHeaderSchema = record({
    name: headerName(L.headerName.max),
    value: headerValue(L.headerValue.min, L.headerValue.max),
});

/** A legacy webhook's create and update body, and so a LegacyWebhook's inputs. */
export const legacyWebhookInputSchema = record({
    name: text(L.name.min, L.name.max),
    url: httpUrl(L.url.max).refine((u) => URL.canParse(u) && isPublicHost(new URL(u).hostname), {
        when: (payload) => typeof payload.value === "string" && URL.canParse(payload.value),
        error: "must be a public URL (not localhost or a private network address)",
    }),
    token: text(L.token.min, L.token.max).optional(),
    headers: list(legacyHeaderSchema, L.headers.min, L.headers.max).optional(),
    auth: basicAuth(L.auth.max).optional(),
});

/** A LegacyWebhook's inputs: the create body, and the id of an existing webhook to adopt. */
export const legacyInputsSchema = legacyWebhookInputSchema.extend({
    adoptId: text(L.id.min, L.id.max).optional(),
});

export type LegacyWebhookInput = z.infer<typeof legacyWebhookInputSchema>;

/** An item of the list read: id, name, url and the last error's message. */
export const legacyListItemSchema = z.object({ id: z.string(), name: z.string(), url: z.string() });

/** The last error: a message in the list read, `{date, message}` in the single read. */
export const legacyErrorSchema = z.object({ date: z.string(), message: z.string() });

export const legacyWebhookSchema = z.object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    token: z.string().nullish(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
    auth: z.object({ username: z.string(), password: z.string() }).nullish(),
    error: z.union([legacyErrorSchema, z.string(), z.literal(false), z.null()]).optional(),
});

export type LegacyWebhook = z.infer<typeof legacyWebhookSchema>;
