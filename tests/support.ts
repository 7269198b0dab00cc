/**
 * Shared test set-up: the package as users install it (from `npm pack`, under node_modules), the
 * simulator, and the real dynamic-provider plugin driven by the engine stand-in.
 */
import * as http from "http";
import type { AddressInfo } from "net";
import * as path from "path";
import { createRequire } from "module";
import type * as Package from "pulumi-chatbot";
import type * as Testing from "pulumi-chatbot/testing";
import { secret, startProviderPlugin, type ProviderPlugin } from "./engine/plugin";
import { serializeProvider } from "./engine/serialize";
import { Engine } from "./engine/engine";

export const root = path.resolve(__dirname, "..");

/** `require` as a file in the root's node_modules sees it: the installed package, not the checkout. */
export const installedRequire = createRequire(path.join(root, "node_modules", "_tests_.js"));

export function installedPackage(): typeof Package {
    return installedRequire("pulumi-chatbot");
}

export function installedTesting(): typeof Testing {
    return installedRequire("pulumi-chatbot/testing");
}

/** The `__provider` value a program stores for a resource of the given module, serialized as the
 *  SDK does. */
export async function providerText(resourceModule: "webhookConnection" | "legacyWebhook"): Promise<string> {
    return serializeProvider(installedRequire(`pulumi-chatbot/providers/${resourceModule}`));
}

export interface Stack {
    sim: Testing.ChatbotSimulator;
    plugin: ProviderPlugin;
    engine: Engine;
    close(): Promise<void>;
}

/**
 * A simulator and a plugin that reaches it. By default the token and address come from the
 * environment (CHATBOT_TOKEN, CHATBOT_API_URL); `via: "config"` passes them as stack config.
 */
export async function startStack(
    opts: {
        via?: "env" | "config";
        token?: string;
        stories?: Record<string, string>;
        /** More environment for the plugin (e.g. CHATBOT_REQUEST_TIMEOUT_MS); undefined removes a variable. */
        env?: Record<string, string | undefined>;
        /** `--parallel` of the engine stand-in; default the engine's default (4 × CPUs, or PULUMI_PARALLEL). */
        parallel?: number;
    } = {},
): Promise<Stack> {
    const { ChatbotSimulator } = installedTesting();
    const sim = await ChatbotSimulator.start({ stories: opts.stories });
    const token = opts.token ?? sim.token;
    const viaConfig = opts.via === "config";
    const plugin = await startProviderPlugin({
        cwd: root,
        env: {
            ...(viaConfig
                ? { CHATBOT_TOKEN: undefined, CHATBOT_API_URL: undefined }
                : { CHATBOT_TOKEN: token, CHATBOT_API_URL: sim.url }),
            // Retries wait milliseconds, not seconds, in tests.
            CHATBOT_RETRY_BASE_MS: "2",
            ...opts.env,
        },
    });
    // As the CLI sends it: the token is secret config.
    await plugin.configure(viaConfig ? { "chatbot:token": secret(token), "chatbot:apiUrl": sim.url } : {});
    const engine = new Engine(plugin, opts.parallel !== undefined ? { parallel: opts.parallel } : {});
    return {
        sim,
        plugin,
        engine,
        async close() {
            await plugin.close();
            await sim.close();
        },
    };
}

/** Loopback HTTP servers for one test file: `listen` starts one on 127.0.0.1 and resolves to its
 *  base URL; `closeAll` (for an `after` hook) ends them and their open connections. */
export function loopbackServers(): {
    listen(listener: http.RequestListener): Promise<string>;
    closeAll(): Promise<void>;
} {
    const servers: http.Server[] = [];
    return {
        async listen(listener) {
            const server = http.createServer(listener);
            servers.push(server);
            await new Promise<void>((resolve, reject) => {
                server.once("error", reject);
                server.listen(0, "127.0.0.1", resolve);
            });
            return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        },
        async closeAll() {
            await Promise.all(
                servers.splice(0).map(
                    (server) =>
                        new Promise<void>((resolve) => {
                            server.closeAllConnections();
                            server.close(() => resolve());
                        }),
                ),
            );
        },
    };
}
