/**
 * pulumi-chatbot: ChatBot (chatbot.com) webhook connections as Pulumi resources.
 */
export { WebhookConnection } from "./resources/webhookConnection";
export type {
    WebhookConnectionArgs,
    WebhookConnectionInputs,
    WebhookConnectionOutputs,
    BasicAuth,
} from "./resources/webhookConnection";
export {
    ChatbotApiError,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ClientError,
    ConnectionError,
    ResponseFormatError,
} from "./client/errors";
export { configKeys, envVars, DEFAULT_API_URL } from "./config";
export { limits, connectionLimits, legacyLimits } from "./limits";
export { LegacyWebhook } from "./resources/legacyWebhook";
export type {
    LegacyWebhookArgs,
    LegacyWebhookInputs,
    LegacyWebhookOutputs,
    LegacyHeader,
} from "./resources/legacyWebhook";
