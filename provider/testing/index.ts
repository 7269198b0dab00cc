/**
 * `pulumi-chatbot/testing`: a local ChatBot API simulator for testing programs and backends.
 */
export { ChatbotSimulator } from "./simulator";
export type {
    SimulatorOptions,
    StoredConnection,
    StoredLegacyWebhook,
    LegacyWebhookBody,
    FaultKind,
    FaultRule,
    RequestRecord,
    RateLimit,
    ChatTraffic,
} from "./simulator";
