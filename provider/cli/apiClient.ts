/**
 * The API client of a command (`discover`, `sweep`): the token from CHATBOT_TOKEN, the address from
 * --api-url or CHATBOT_API_URL; what is missing or wrong is said once, as the command's error.
 */
import { ChatbotClient } from "../client/client";
import { envVars, resolveSettings, SettingsError } from "../config";

export function commandClient(env: NodeJS.ProcessEnv, apiUrl: string | undefined): ChatbotClient | { error: string } {
    try {
        return new ChatbotClient(
            resolveSettings({ ...env, ...(apiUrl !== undefined ? { [envVars.apiUrl]: apiUrl } : {}) }, {}),
        );
    } catch (e) {
        if (!(e instanceof SettingsError)) throw e;
        return {
            error: /token/.test(e.message)
                ? `no ChatBot developer access token: set ${envVars.token}.`
                : `${apiUrl !== undefined ? "--api-url" : envVars.apiUrl} must be an absolute http:// or https:// URL.`,
        };
    }
}
