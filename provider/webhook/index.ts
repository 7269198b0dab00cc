/**
 * `pulumi-chatbot/webhook`: what a backend needs to answer ChatBot's webhook calls correctly.
 *
 * - `createWebhookHandler(fn, options)`: a Node `(req, res)` listener that answers ChatBot's
 *   verification request, checks the caller, validates the request and your answer, and replies
 *   as ChatBot requires.
 * - `createFetchHandler(fn, options)`: the same as `(Request) => Promise<Response>`, for Workers,
 *   Deno, Bun and Next.js; `forLambdaFunctionUrl` adapts it to a Lambda function URL.
 * - builders (`text`, `quickReplies`, `postback`, ...) for correct responses, and
 *   `verifyWebhookResponse` to check one in a unit test.
 * - `probeWebhook(url, options)`: calls a deployed backend as ChatBot does and names every problem.
 * - `webhookLimits`: every documented limit of a webhook call, as numbers.
 */
export { createWebhookHandler } from "./handler";
export type { WebhookContext, WebhookFunction } from "./handler";
export { createFetchHandler } from "./fetch";
export type { FetchWebhookContext, FetchWebhookFunction } from "./fetch";
export { forLambdaFunctionUrl } from "./lambda";
export type { LambdaFunctionUrlEvent, LambdaFunctionUrlResult } from "./lambda";
export { verifyWebhookResponse, DEFAULT_MAX_BODY_BYTES } from "./core";
export type {
    Accepted,
    BasicAuth,
    WebhookFunctionOf,
    WebhookHandlerOptions,
    WebhookLogger,
    WebhookProblem,
    WebhookVerification,
} from "./core";
export { probeWebhook, ProbeRefused, sampleWebhookRequest, sendVerificationRequest } from "./probe";
export { VERIFICATION_FAILED_PREFIX, isVerificationFailure, verificationFailureMessage } from "./verification";
export type { ProbeAnswer, ProbeOptions, ProbeResult, ProbeSend, ProbeVerification } from "./probe";
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
export { webhookLimits } from "../limits";
export type { CheckFailure } from "../schema/validate";
