/**
 * The webhook contract as JSON Schema (draft 2020-12), written from the zod schemas of ./schema.ts
 * by zod itself: the build (scripts/build-clean.js) writes what `webhookJsonSchemas()` returns into
 * dist/webhook/schema/request.json and response.json, shipped as `pulumi-chatbot/webhook/schema/…`
 * and in the release, so that a backend in any language validates with its own library what the
 * kit validates. Nothing here states a rule: each comes from ./schema.ts; this module only names
 * the parts, says in descriptions what the API description adds, and writes the unions by type so
 * that any validator names the property that failed (byTypeBranches).
 */
import * as z from "../schema/zod";
import * as s from "./schema";

/** How lengths are counted, said once in each root's description: alike here and in the kit (zod
 *  counts code points too), but not documented by ChatBot. */
const LENGTHS =
    "Lengths (minLength, maxLength) count characters (Unicode code points), here as in the kit; an emoji " +
    "beyond U+FFFF is one character, though two UTF-16 code units. ChatBot does not document how it counts.";

const SOURCE = "Generated from the zod schemas of pulumi-chatbot's webhook kit (pulumi-chatbot/webhook); do not edit.";

/** The parts of the response, each a `$defs` entry of its own: [schema, id, what the API description says]. */
const PARTS: Array<[z.ZodType, string, string]> = [
    [s.postbackButtonSchema, "postbackButton", "A postback button (2.7): sends `value` back as the user's answer."],
    [s.gotoButtonSchema, "gotoButton", "A goto button (2.7): `value` is the id of a story node, a UUIDv4."],
    [s.urlButtonSchema, "urlButton", "A URL button (2.7): opens `value`."],
    [
        s.webviewButtonSchema,
        "webviewButton",
        "A webview button (2.7). `height` may be left out: ChatBot then uses compact (2.7 lists it as " +
            "required and gives compact as its default; the kit accepts both).",
    ],
    [s.phoneButtonSchema, "phoneButton", "A phone button (2.7): `value` is + and 2 to 15 digits."],
    [s.quickReplyButtonSchema, "quickReplyButton", "A button of quick replies: postback or goto (2.6)."],
    [s.buttonSchema, "button", "A button of a card or a buttons response: any of the five (2.6, 2.7)."],
    [s.textResponseSchema, "textResponse", "A text response (2.6)."],
    [s.randomTextResponseSchema, "randomTextResponse", "One of `messages`, chosen at random (2.6)."],
    [s.imageResponseSchema, "imageResponse", "An image response (2.6)."],
    [s.quickRepliesResponseSchema, "quickRepliesResponse", "A title with quick reply buttons (2.6)."],
    [s.cardSchema, "card", "A card of a cards response (2.6)."],
    [
        s.cardsResponseSchema,
        "cardsResponse",
        "A cards response (2.6); the API description gives no limit on the number of cards.",
    ],
    [s.buttonsResponseSchema, "buttonsResponse", "A title with buttons (2.6)."],
    [
        s.botResponseSchema,
        "botResponse",
        "A bot response, chosen by `type` (2.6). Each may carry `delay`, 100 to 10000 ms; ChatBot uses " +
            "1000 when it is absent.",
    ],
];

export interface WebhookJsonSchemas {
    /** The request ChatBot POSTs to a backend (API description 2.4). */
    request: Record<string, unknown>;
    /** The answer a backend must give (2.5 to 2.7). */
    response: Record<string, unknown>;
}

/** The request and response schemas as JSON Schema, as the build writes them. */
export function webhookJsonSchemas(): WebhookJsonSchemas {
    const meta = z.registry<{ id?: string; title?: string; description?: string }>();
    for (const [schema, id, description] of PARTS) meta.add(schema, { id, description });
    meta.add(s.webhookResponseSchema, {
        title: "ChatBot webhook response",
        description:
            "What a backend answers ChatBot's webhook call with, as a JSON body of an HTTP 200 (API description " +
            "2.5 to 2.7): bot responses and attributes, both optional (attributes alone, or {}, are valid). " +
            `Unknown properties are refused, so a typo is not silently dropped. ${LENGTHS} ${SOURCE}`,
    });
    meta.add(s.webhookRequestSchema, {
        title: "ChatBot webhook request",
        description:
            "The JSON body ChatBot POSTs to a backend during a chat (API description 2.4). Properties beyond " +
            `these are allowed: ChatBot may send more than it documents. ${SOURCE}`,
    });
    // "input": what is sent over the wire (no schema of the contract transforms, but this is the side meant).
    const options = { metadata: meta, io: "input", target: "draft-2020-12", override: byTypeBranches } as const;
    return {
        request: z.toJSONSchema(s.webhookRequestSchema, options) as Record<string, unknown>,
        response: z.toJSONSchema(s.webhookResponseSchema, options) as Record<string, unknown>,
    };
}

type Override = NonNullable<Parameters<typeof z.toJSONSchema>[1]>["override"];

/**
 * A union discriminated on `type` as zod writes it is a `oneOf` of its options, which a validator
 * can only refuse as a whole: every option's failures, the option meant among them (ajv: 19
 * messages for one empty `message`). Written instead as "type is one of these" and, for each
 * type, "then this option": the same values pass, and a validator in any language names the
 * property that failed in the option meant, or the allowed types, as the kit does.
 */
const byTypeBranches: Override = ({ zodSchema, jsonSchema }) => {
    const def = zodSchema._zod.def;
    if (def.type !== "union" || !("discriminator" in def) || !Array.isArray(jsonSchema.oneOf)) return;
    const types = def.options.map((o) => {
        const shape = (o as unknown as z.ZodObject<{ type: z.ZodLiteral<string> }>).shape;
        return shape.type.value;
    });
    const options = jsonSchema.oneOf;
    delete jsonSchema.oneOf;
    Object.assign(jsonSchema, {
        type: "object",
        required: ["type"],
        properties: { type: { enum: types } },
        allOf: types.map((type, i) => ({
            // An object with this type: anything else is left to the checks above, said once.
            if: { type: "object", required: ["type"], properties: { type: { const: type } } },
            then: options[i],
        })),
    });
};
