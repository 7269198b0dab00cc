/**
 * Provider settings, and the one place a client is built from them: the developer access token
 * and the API address.
 *
 * Stack config (`chatbot:token`, secret; `chatbot:apiUrl`) is read in the provider's `configure`;
 * the environment (`CHATBOT_TOKEN`, `CHATBOT_API_URL`) fills what config leaves out. Settings live
 * in this process only: never in resource inputs, state or messages.
 *
 * How patient the client is can be tuned from the environment (whole milliseconds or counts):
 * `CHATBOT_REQUEST_TIMEOUT_MS` (one attempt, default 30000), `CHATBOT_RETRY_MAX_ATTEMPTS` (attempts
 * after failures other than rate limits, 5), `CHATBOT_RETRY_BASE_MS` (first backoff, 500),
 * `CHATBOT_RETRY_MAX_ELAPSED_MS` (the time budget of one request's retries, 300000: rate limits
 * are waited out within it), `CHATBOT_MAX_IN_FLIGHT` (requests at once, 32). The time budget is
 * also a provider setting (`chatbot:retryMaxElapsedMs`), since how long a pipeline may wait is a
 * stack's choice. Tests shrink the waits with them.
 */
import { ChatbotClient, type ClientOptions } from "./client/client";

export const DEFAULT_API_URL = "https://api.chatbot.com";

export const configKeys = {
    token: "chatbot:token",
    apiUrl: "chatbot:apiUrl",
    retryMaxElapsedMs: "chatbot:retryMaxElapsedMs",
    refreshBeforeUpdate: "chatbot:refreshBeforeUpdate",
} as const;

/** A provider setting's name: `token`, the key of its stack config `chatbot:token` and of an
 *  explicit provider's argument. */
export type SettingName = keyof typeof configKeys;

/** Every provider setting, in `configKeys`' order: what is read, compared and keyed on. */
export const settingNames = Object.keys(configKeys) as SettingName[];
export const envVars = {
    token: "CHATBOT_TOKEN",
    apiUrl: "CHATBOT_API_URL",
    refreshBeforeUpdate: "CHATBOT_REFRESH_BEFORE_UPDATE",
} as const;

/** Environment variables that tune timeouts, retries and the in-flight limit. */
export const tuningEnvVars = {
    timeoutMs: "CHATBOT_REQUEST_TIMEOUT_MS",
    maxAttempts: "CHATBOT_RETRY_MAX_ATTEMPTS",
    baseDelayMs: "CHATBOT_RETRY_BASE_MS",
    maxElapsedMs: "CHATBOT_RETRY_MAX_ELAPSED_MS",
    maxInFlight: "CHATBOT_MAX_IN_FLIGHT",
} as const;

/** What the dynamic-provider plugin hands `configure`: the whole stack config. */
export interface ProviderConfig {
    get(key: string): string | undefined;
}

/** Provider settings as stack config or an explicit provider gives them (strings, as config is). */
export type StackSettings = { [K in SettingName]?: string };

/** Every setting, each as `read` finds it from its name (`token`) and stack config key
 *  (`chatbot:token`): where a setting is read, so none is left out. */
export function readSettings(read: (name: SettingName, key: string) => string | undefined): StackSettings {
    return Object.fromEntries(settingNames.map((name) => [name, read(name, configKeys[name])])) as StackSettings;
}

let fromStack: StackSettings = {};

/** Records stack config. Never throws: the plugin keeps a provider whose configure failed, with no
 *  config at all, so errors are raised where the settings are used instead. */
export function configureFromStack(config: ProviderConfig): void {
    const read = (key: string) => {
        try {
            const value = config.get(key);
            return typeof value === "string" && value !== "" ? value : undefined;
        } catch {
            return undefined;
        }
    };
    fromStack = readSettings((_, key) => read(key));
}

/** Changes whenever anything settings are made of changes: stack config or the environment. */
export function settingsKey(env: NodeJS.ProcessEnv = process.env): string {
    const vars = [...Object.values(envVars), ...Object.values(tuningEnvVars)].map((k) => env[k] ?? "");
    return JSON.stringify([...settingNames.map((name) => fromStack[name]), ...vars]);
}

export class SettingsError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "SettingsError";
    }
}

export type Settings = ClientOptions;

/** `stack`: stack config as read where it is at hand: in the plugin, what `configure` recorded;
 *  in a program (the get functions), the program's own `chatbot` config. */
export function resolveSettings(env: NodeJS.ProcessEnv = process.env, stack: StackSettings = fromStack): Settings {
    const given = { token: nonEmpty(stack.token), apiUrl: nonEmpty(stack.apiUrl) };
    const token = given.token ?? nonEmpty(env[envVars.token]);
    if (!token) {
        throw new SettingsError(
            "No ChatBot developer access token is set. Set it in stack config with " +
                `\`pulumi config set --secret ${configKeys.token} <token>\`, or in the ${envVars.token} environment variable.`,
        );
    }
    const apiUrl = given.apiUrl ?? nonEmpty(env[envVars.apiUrl]) ?? DEFAULT_API_URL;
    let parsed: URL | undefined;
    try {
        parsed = new URL(apiUrl);
    } catch {
        parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
        const source = given.apiUrl !== undefined ? configKeys.apiUrl : envVars.apiUrl;
        throw new SettingsError(`${source} must be an absolute http:// or https:// URL.`);
    }
    // At most what a timer can wait (2^31-1 ms, about 24.8 days): beyond, Node fires at once.
    const MAX = 2_147_483_647;
    const int = (key: keyof typeof tuningEnvVars, min: number, fromConfig?: string): number | undefined => {
        const configured = nonEmpty(fromConfig);
        const raw = configured ?? nonEmpty(env[tuningEnvVars[key]]);
        if (raw === undefined) return undefined;
        if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > MAX) {
            const source = configured !== undefined ? configKeys[key as keyof typeof configKeys] : tuningEnvVars[key];
            throw new SettingsError(`${source} must be a whole number from ${min} to ${MAX}.`);
        }
        return Number(raw);
    };
    return {
        apiUrl,
        token,
        authHint: `Set a valid one with \`pulumi config set --secret ${configKeys.token} <token>\` or the ${envVars.token} environment variable.`,
        timeoutMs: int("timeoutMs", 1),
        maxInFlight: int("maxInFlight", 1),
        retry: {
            maxAttempts: int("maxAttempts", 1),
            baseDelayMs: int("baseDelayMs", 0),
            maxElapsedMs: int("maxElapsedMs", 0, stack.retryMaxElapsedMs),
            budgetHint: `Give it more time with \`pulumi config set ${configKeys.retryMaxElapsedMs} <ms>\` or the ${tuningEnvVars.maxElapsedMs} environment variable.`,
        },
    };
}

/**
 * Whether the plugin asks the engine to read each resource before any update or preview (the
 * `refresh_before_update` flag of its Create, Read and Update answers): the provider setting
 * `chatbot:refreshBeforeUpdate`, else CHATBOT_REFRESH_BEFORE_UPDATE, else off. Off by default:
 * with it, every preview reads every flagged connection and so needs the token. `true` or `false`;
 * anything else is an error naming where it was set.
 */
export function refreshBeforeUpdate(env: NodeJS.ProcessEnv = process.env, stack: StackSettings = fromStack): boolean {
    const configured = nonEmpty(stack.refreshBeforeUpdate);
    const raw = configured ?? nonEmpty(env[envVars.refreshBeforeUpdate]);
    if (raw === undefined) return false;
    if (raw !== "true" && raw !== "false") {
        const source = configured !== undefined ? configKeys.refreshBeforeUpdate : envVars.refreshBeforeUpdate;
        throw new SettingsError(`${source} must be true or false.`);
    }
    return raw === "true";
}

function nonEmpty(v: string | undefined): string | undefined {
    return v === undefined || v === "" ? undefined : v;
}

let pluginClient: { key: string; client: ChatbotClient } | undefined;

/** The provider's client, for its current settings (stack config, else the environment): one per
 *  process (one pool, one in-flight limit) while they stay the same. Settings are resolved (and
 *  checked) again only when what they are made of changes. */
export function apiClient(): ChatbotClient {
    const key = settingsKey();
    if (!pluginClient || pluginClient.key !== key) pluginClient = { key, client: new ChatbotClient(resolveSettings()) };
    return pluginClient.client;
}
