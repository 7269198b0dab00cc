/**
 * The API client of a command (`discover`, `sweep`, `probe`): the token from CHATBOT_TOKEN, the address from
 * --api-url or CHATBOT_API_URL (below a stack's config, given as `stack`, as the provider resolves
 * them); what is missing or wrong is said once, as the command's error.
 */
import { ChatbotClient } from "../client/client";
import { AuthenticationError, ChatbotApiError, ConnectionError } from "../client/errors";
import { configKeys, envVars, resolveSettings, SettingsError, type StackSettings } from "../config";

export function commandClient(
    env: NodeJS.ProcessEnv,
    apiUrl: string | undefined,
    stack?: StackSettings,
): ChatbotClient | { error: string } {
    try {
        return new ChatbotClient(
            resolveSettings({ ...env, ...(apiUrl !== undefined ? { [envVars.apiUrl]: apiUrl } : {}) }, stack ?? {}),
        );
    } catch (e) {
        if (!(e instanceof SettingsError)) throw e;
        return {
            error: /token/.test(e.message)
                ? `no ChatBot developer access token: set ${envVars.token}${stack ? ` or the stack's ${configKeys.token}` : ""}.`
                : `${apiUrl !== undefined ? "--api-url" : envVars.apiUrl} must be an absolute http:// or https:// URL.`,
        };
    }
}

/** What a command says when the API failed it: a refused token (`tokenFrom` says where it was
 *  set), an address that cannot be reached, or another API error (messages redacted by the
 *  client); undefined for anything else. */
export function apiFailure(e: unknown, client: ChatbotClient, tokenFrom: string = envVars.token): string | undefined {
    if (e instanceof AuthenticationError) {
        return `the ChatBot API at ${client.apiUrl} rejected the developer access token (HTTP 401). Set a valid one in ${tokenFrom}.`;
    }
    if (e instanceof ConnectionError && e.reason === "unreachable") {
        return `cannot reach the ChatBot API: ${e.message} Check ${envVars.apiUrl} or --api-url.`;
    }
    return e instanceof ChatbotApiError ? e.message : undefined;
}
