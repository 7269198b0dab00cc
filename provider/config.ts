/**
 * Provider settings: the developer access token and the API address.
 *
 * Stack config (`chatbot:token`, secret; `chatbot:apiUrl`) is read in the provider's `configure`;
 * the environment (`CHATBOT_TOKEN`, `CHATBOT_API_URL`) fills what config leaves out. Settings live
 * in this process only: never in resource inputs, state or messages.
 */
import { ChatbotClient } from "./client/client";

export const DEFAULT_API_URL = "https://api.chatbot.com";

export const configKeys = { token: "chatbot:token", apiUrl: "chatbot:apiUrl" } as const;
export const envVars = { token: "CHATBOT_TOKEN", apiUrl: "CHATBOT_API_URL" } as const;

/** What the dynamic-provider plugin hands `configure`: the whole stack config. */
export interface ProviderConfig {
    get(key: string): string | undefined;
}

let fromStack: { token?: string; apiUrl?: string } = {};
let cached: { key: string; client: ChatbotClient } | undefined;

/** Records stack config. Never throws: the plugin keeps a provider whose configure failed, with no
 *  config at all, so errors are raised where the settings are used instead. */
export function configureFromStack(config: ProviderConfig): void {
    const read = (key: string) => {
        try {
            const v = config.get(key);
            return typeof v === "string" && v !== "" ? v : undefined;
        } catch {
            return undefined;
        }
    };
    fromStack = { token: read(configKeys.token), apiUrl: read(configKeys.apiUrl) };
}

export class SettingsError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "SettingsError";
    }
}

export interface Settings {
    apiUrl: string;
    token: string;
}

export function resolveSettings(env: NodeJS.ProcessEnv = process.env): Settings {
    const token = fromStack.token ?? nonEmpty(env[envVars.token]);
    if (!token) {
        throw new SettingsError(
            "No ChatBot developer access token is set. Set it in stack config with " +
                `\`pulumi config set --secret ${configKeys.token} <token>\`, or in the ${envVars.token} environment variable.`,
        );
    }
    const apiUrl = fromStack.apiUrl ?? nonEmpty(env[envVars.apiUrl]) ?? DEFAULT_API_URL;
    let parsed: URL | undefined;
    try {
        parsed = new URL(apiUrl);
    } catch {
        parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
        const source = fromStack.apiUrl !== undefined ? configKeys.apiUrl : envVars.apiUrl;
        throw new SettingsError(`${source} must be an absolute http:// or https:// URL.`);
    }
    return { apiUrl, token };
}

/** The client for the current settings; one per process while they stay the same. */
export function apiClient(): ChatbotClient {
    const s = resolveSettings();
    const key = `${s.apiUrl}\n${s.token}`;
    if (!cached || cached.key !== key) cached = { key, client: new ChatbotClient(s) };
    return cached.client;
}

function nonEmpty(v: string | undefined): string | undefined {
    return v === undefined || v === "" ? undefined : v;
}
