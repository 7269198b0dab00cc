/**
 * `pulumi-chatbot/webhook`: what a backend needs to answer ChatBot's webhook calls correctly.
 *
 * - `createWebhookHandler(fn, options)`: a `(req, res)` listener that checks the caller,
 *   validates the request and your answer, and replies as ChatBot requires.
 * - builders (`text`, `quickReplies`, `postback`, ...) for correct responses, and
 *   `verifyWebhookResponse` to check one in a unit test.
 * - `probeWebhook(url, options)`: calls a deployed backend as ChatBot does and names every problem.
 * - `webhookLimits`: every documented limit of a webhook call, as numbers.
 */
export { createWebhookHandler, verifyWebhookResponse, DEFAULT_MAX_BODY_BYTES } from "./handler";
export type {
    WebhookContext,
    WebhookFunction,
    WebhookHandlerOptions,
    WebhookProblem,
    WebhookVerification,
} from "./handler";
export { probeWebhook, sampleWebhookRequest } from "./probe";
export type { ProbeOptions, ProbeResult } from "./probe";
export {
    text,
    randomText,
    image,
    quickReplies,
    cards,
    buttons,
    postback,
    goto,
    urlButton,
    webview,
    phone,
} from "./types";
export type {
    ResponseOptions,
    WebhookRequest,
    WebhookResponse,
    BotResponse,
    TextResponse,
    RandomTextResponse,
    ImageResponse,
    QuickRepliesResponse,
    CardsResponse,
    Card,
    ButtonsResponse,
    Button,
    QuickReplyButton,
    PostbackButton,
    GotoButton,
    UrlButton,
    WebviewButton,
    WebviewHeight,
    PhoneButton,
} from "./types";
// The numbers, not the zod schemas: zod stays an implementation detail of the package.
export { webhookLimits } from "../schema/webhook";
export type { CheckFailure } from "../schema/validate";
