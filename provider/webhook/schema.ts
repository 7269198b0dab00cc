/**
 * The payloads of a webhook call: the request ChatBot POSTs to a user's backend, and the response
 * the backend must return (bot responses, buttons, attributes). Every documented limit is written
 * once, in `limits.webhook` (../limits.ts), and read by the schemas below, the handler and the probe.
 *
 * Responses and buttons are strict (an unknown key fails) so a typo such as `mesage` is caught
 * before ChatBot silently drops it. The request is lenient: ChatBot may send more than is documented.
 */
import * as z from "../schema/zod";
import { webhookLimits } from "../limits";
import { list, record, text, typeError, type AllTrue, type Same } from "../schema/fields";
import { validate, type CheckFailure } from "../schema/validate";
import type * as Types from "./types";

const limit = webhookLimits;
const sized = (r: { readonly min: number; readonly max: number }) => text(r.min, r.max);

/** An option of a union discriminated on `type`: a strict object whose `type` is one literal. */
type Typed = z.ZodObject<{ type: z.ZodLiteral<string> }, z.core.$strict>;

/**
 * A union discriminated on `type` whose failure for an unknown or missing type lists the allowed
 * ones ("must be one of text, randomText, ..."), instead of zod's generic "invalid input". The
 * list is read from the options, so a type is named once, in its schema.
 */
function byType<const Options extends readonly [Typed, ...Typed[]]>(options: Options) {
    const allowed = options.map((o) => o.shape.type.value).join(", ");
    return z.discriminatedUnion("type", options, {
        error: (issue) => (issue.code === "invalid_union" ? `must be one of ${allowed}` : "must be an object"),
    });
}

// ---------------------------------------------------------------------------------------------
// Buttons (2.7)

/** A story node id: 36 characters, a version 4 UUID (version nibble 4, variant 8, 9, a or b), in
 *  either case. Spelled out rather than with the `i` flag: a JSON Schema `pattern` has no flags,
 *  so the generated schema (./jsonSchema.ts) would otherwise refuse upper case. */
const UUID_V4 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
/** `+` and then digits only: with 3 to 16 characters that is 2 to 15 digits, as in E.164. */
const PHONE = /^\+[0-9]{2,}$/;

export const postbackButtonSchema = record({
    type: z.literal("postback"),
    title: sized(limit.buttons.postback.title),
    value: sized(limit.buttons.postback.value),
});

export const gotoButtonSchema = record({
    type: z.literal("goto"),
    title: sized(limit.buttons.goto.title),
    value: sized(limit.buttons.goto.value).regex(UUID_V4, { error: "must be a UUIDv4 (the id of a story node)" }),
});

export const urlButtonSchema = record({
    type: z.literal("url"),
    title: sized(limit.buttons.url.title),
    value: sized(limit.buttons.url.value),
});

export const webviewButtonSchema = record({
    type: z.literal("webview"),
    title: sized(limit.buttons.webview.title),
    value: sized(limit.buttons.webview.value),
    // Optional on input: ChatBot uses `defaultHeight`. Not filled in, so the parsed value is what was sent.
    height: z
        .enum(limit.buttons.webview.heights, { error: `must be one of ${limit.buttons.webview.heights.join(", ")}` })
        .optional(),
});

export const phoneButtonSchema = record({
    type: z.literal("phone"),
    title: sized(limit.buttons.phone.title),
    value: sized(limit.buttons.phone.value).regex(PHONE, { error: "must be + followed by at least 2 digits" }),
});

/** The buttons quick replies may carry. */
export const quickReplyButtonSchema = byType([postbackButtonSchema, gotoButtonSchema]);

/** The buttons cards and a buttons response may carry: all five. */
export const buttonSchema = byType([
    postbackButtonSchema,
    gotoButtonSchema,
    urlButtonSchema,
    webviewButtonSchema,
    phoneButtonSchema,
]);

// ---------------------------------------------------------------------------------------------
// Bot responses (2.6)

/**
 * Every response may say how long to wait before it is sent; absent means ChatBot's default. The
 * API description (2.6) types it as a number, not an integer, so 150.5 passes; NaN and Infinity
 * do not (zod's number refuses them).
 */
const delay = z
    .number(typeError("a number"))
    .min(limit.delay.min, { error: `must be ${limit.delay.min} to ${limit.delay.max}` })
    .max(limit.delay.max, { error: `must be ${limit.delay.min} to ${limit.delay.max}` })
    .optional();

export const textResponseSchema = record({
    type: z.literal("text"),
    delay,
    message: sized(limit.responses.text.message),
});

export const randomTextResponseSchema = record({
    type: z.literal("randomText"),
    delay,
    messages: list(
        sized(limit.responses.randomText.message),
        limit.responses.randomText.messages.min,
        limit.responses.randomText.messages.max,
    ),
});

export const imageResponseSchema = record({
    type: z.literal("image"),
    delay,
    imageUrl: sized(limit.responses.image.imageUrl),
});

export const quickRepliesResponseSchema = record({
    type: z.literal("quickReplies"),
    delay,
    title: sized(limit.responses.quickReplies.title),
    buttons: list(
        quickReplyButtonSchema,
        limit.responses.quickReplies.buttons.min,
        limit.responses.quickReplies.buttons.max,
    ),
});

export const cardSchema = record({
    title: sized(limit.responses.cards.title),
    subtitle: sized(limit.responses.cards.subtitle),
    imageUrl: sized(limit.responses.cards.imageUrl),
    buttons: list(buttonSchema, limit.responses.cards.buttons.min, limit.responses.cards.buttons.max),
});

export const cardsResponseSchema = record({
    type: z.literal("cards"),
    delay,
    // The doc gives no count limit for elements, so none is enforced here.
    elements: z.array(cardSchema, { error: "must be a list" }),
});

export const buttonsResponseSchema = record({
    type: z.literal("buttons"),
    delay,
    title: sized(limit.responses.buttons.title),
    buttons: list(buttonSchema, limit.responses.buttons.buttons.min, limit.responses.buttons.buttons.max),
});

export const botResponseSchema = byType([
    textResponseSchema,
    randomTextResponseSchema,
    imageResponseSchema,
    quickRepliesResponseSchema,
    cardsResponseSchema,
    buttonsResponseSchema,
]);

// ---------------------------------------------------------------------------------------------
// The call: request (2.4) and response (2.5)

const attributesSchema = z.record(z.string(), z.unknown(), { error: "must be an object" });

/**
 * The response a backend returns. Both properties are optional, so `{}` is valid (the chat goes
 * on with nothing said and nothing stored); `{ attributes }` alone is the documented
 * attributes-only answer. No count limit on `responses` is documented, so an empty list passes.
 * Strict at the top as well: `{ response: [...] }` is a typo ChatBot would silently ignore.
 */
export const webhookResponseSchema = record({
    responses: z.array(botResponseSchema, { error: "must be a list" }).optional(),
    attributes: attributesSchema.optional(),
});

/** A call's JSON holds no preview's unknown: every issue counts (../schema/validate.ts). */
export const JSON_VALUE = { preview: false } as const;

/**
 * Validates a backend's answer, as the handlers, `verifyWebhookResponse` and the probe judge it.
 *
 * An answer in the older format is named as such. ChatBot's own example backends
 * (ChatBotCom/nodejs-webhook-example and php-webhook-example, index.js and index.php;
 * nodejs-firebase-webhook-example) answer `{ "type": "text", "elements": [...] }`, and name
 * attributes `parameters`: the format of the older BotEngine documentation. ChatBot's current
 * webhook documentation and the API description (2.5, 2.6) use `message`, `messages` and
 * `attributes`; zod alone would say "is required" and "unknown property", right but not where the
 * format came from or what to write instead.
 */
export function validateWebhookResponse(
    value: unknown,
): { ok: true; value: Types.WebhookResponse } | { ok: false; failures: CheckFailure[] } {
    const checked = validate(webhookResponseSchema, value, JSON_VALUE);
    return checked.ok ? checked : { ok: false, failures: namingOlderFormat(value, checked.failures) };
}

const OLDER_FORMAT = "the older format of ChatBot's example backends (the BotEngine documentation)";
const CURRENT_TEXT =
    '{"type": "text", "message": "..."} for one text, or {"type": "randomText", "messages": [...]} for one of several at random';

/** `failures`, with those an older-format answer causes replaced by one sentence per place. */
function namingOlderFormat(value: unknown, failures: CheckFailure[]): CheckFailure[] {
    if (!isObject(value)) return failures;
    if (isOlderText(value)) {
        const reason =
            `the answer is one bot response in ${OLDER_FORMAT}, {"type": "text", "elements": [...]}; the current ` +
            `format lists them in "responses": {"responses": [...]}, each ${CURRENT_TEXT}`;
        return [{ property: "", reason }];
    }
    let out = failures;
    const responses = Array.isArray(value.responses) ? value.responses : [];
    responses.forEach((r, i) => {
        if (!isOlderText(r)) return;
        const at = `responses[${i}]`;
        out = out.filter((f) => f.property !== at && !f.property.startsWith(`${at}.`));
        const reason = `${at}: {"type": "text", "elements": [...]} is ${OLDER_FORMAT}; the current format is ${CURRENT_TEXT}`;
        out.push({ property: at, reason });
    });
    if ("parameters" in value) {
        out = out.filter((f) => !(f.property === "" && f.reason === 'unknown property "parameters"'));
        const reason =
            `parameters: is what ${OLDER_FORMAT} calls attributes; the current format names them ` +
            '"attributes": {"attributes": {...}}';
        out.push({ property: "parameters", reason });
    }
    return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isOlderText(v: unknown): boolean {
    return isObject(v) && v.type === "text" && Array.isArray(v.elements);
}

const str = z.string(typeError("a string"));

/**
 * The request ChatBot POSTs. Lenient: keys beyond the documented ones are kept (ChatBot may add
 * some), `externalId` may be absent or null (only channel integrations supply one), and the
 * attribute objects may be absent.
 */
export const webhookRequestSchema = z.looseObject(
    {
        chatId: str,
        messageId: str,
        userId: str,
        externalId: str.nullish(),
        node: z.looseObject(
            {
                id: str,
                name: str,
                type: z.literal("WEBHOOK", { error: 'must be "WEBHOOK"' }),
                webhookId: str,
                webhookName: str,
            },
            { error: "must be an object" },
        ),
        userAttributes: attributesSchema.optional(),
        attributes: attributesSchema.optional(),
    },
    { error: "must be an object" },
);

/** The kit's public types (./types.ts) are written out; this fails to compile when one of them
 *  and its schema say different things. */
type _TypesMatchSchemas = AllTrue<
    [
        Same<Types.PostbackButton, z.infer<typeof postbackButtonSchema>>,
        Same<Types.GotoButton, z.infer<typeof gotoButtonSchema>>,
        Same<Types.UrlButton, z.infer<typeof urlButtonSchema>>,
        Same<Types.WebviewButton, z.infer<typeof webviewButtonSchema>>,
        Same<Types.PhoneButton, z.infer<typeof phoneButtonSchema>>,
        Same<Types.QuickReplyButton, z.infer<typeof quickReplyButtonSchema>>,
        Same<Types.Button, z.infer<typeof buttonSchema>>,
        Same<Types.TextResponse, z.infer<typeof textResponseSchema>>,
        Same<Types.RandomTextResponse, z.infer<typeof randomTextResponseSchema>>,
        Same<Types.ImageResponse, z.infer<typeof imageResponseSchema>>,
        Same<Types.QuickRepliesResponse, z.infer<typeof quickRepliesResponseSchema>>,
        Same<Types.Card, z.infer<typeof cardSchema>>,
        Same<Types.CardsResponse, z.infer<typeof cardsResponseSchema>>,
        Same<Types.ButtonsResponse, z.infer<typeof buttonsResponseSchema>>,
        Same<Types.BotResponse, z.infer<typeof botResponseSchema>>,
        Same<Types.WebhookResponse, z.infer<typeof webhookResponseSchema>>,
        Same<Types.WebhookRequest, z.infer<typeof webhookRequestSchema>>,
    ]
>;
