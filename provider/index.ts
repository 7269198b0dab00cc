/**
 * pulumi-chatbot: ChatBot (chatbot.com) webhook connections as Pulumi resources.
 */
export {
    WebhookConnection,
    getWebhookConnection,
    getWebhookConnectionOutput,
    getWebhookConnections,
    getWebhookConnectionsOutput,
} from "./resources/webhookConnection";
export type {
    WebhookConnectionArgs,
    WebhookConnectionInputs,
    WebhookConnectionOutputs,
    BasicAuth,
    GetWebhookConnectionArgs,
    GetWebhookConnectionOutputArgs,
    GetWebhookConnectionResult,
    GetWebhookConnectionWithSecrets,
    GetWebhookConnectionsArgs,
    WebhookConnectionListItem,
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
export {
    LegacyWebhook,
    getLegacyWebhook,
    getLegacyWebhookOutput,
    getLegacyWebhooks,
    getLegacyWebhooksOutput,
} from "./resources/legacyWebhook";
export type {
    LegacyWebhookArgs,
    LegacyWebhookInputs,
    LegacyWebhookOutputs,
    LegacyHeader,
    GetLegacyWebhookArgs,
    GetLegacyWebhookOutputArgs,
    GetLegacyWebhookResult,
    GetLegacyWebhookWithSecrets,
    GetLegacyWebhooksArgs,
    LegacyWebhookListItem,
} from "./resources/legacyWebhook";
