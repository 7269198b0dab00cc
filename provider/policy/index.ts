/**
 * `pulumi-chatbot/policy`: the rules of the package's policy pack, for a team's own pack. The
 * ready pack is the package's `policy-pack` folder: `pulumi preview --policy-pack
 * node_modules/pulumi-chatbot/policy-pack`.
 */
export {
    allowedHosts,
    callerVerified,
    chatbotPolicies,
    hostMatches,
    httpsOnly,
    legacyWebhook,
    uniqueTarget,
} from "./rules";
export { chatbotType, type ChatbotType } from "./resources";
