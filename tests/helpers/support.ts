/**
 * Shared test set-up: the package as users install it (from `npm pack`, under node_modules), and
 * loopback servers.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as path from "path";
import type { SchemaDescriptions } from "./schemaExamples";
import { createRequire } from "module";
import type * as Package from "pulumi-chatbot";
import type * as Testing from "pulumi-chatbot/testing";

export const root = path.resolve(__dirname, "..", "..");

/** This checkout's version (package.json): what the release, the plugin and the native classes carry. */
export const PACKAGE_VERSION = (
    JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }
).version;

/** `require` as a file in the root's node_modules sees it: the installed package, not the checkout. */
export const installedRequire = createRequire(path.join(root, "node_modules", "_tests_.js"));

/** What a webhook connection holds without its secret fields (`token`, `headers`, `auth`), sorted:
 *  a lookup's result without `includeSecrets`, and a list item. */
export const CONNECTION_KEYS_WITHOUT_SECRETS = [
    "createdAt",
    "id",
    "lastError",
    "name",
    "story",
    "storyId",
    "updatedAt",
    "url",
];

export function installedPackage(): typeof Package {
    return installedRequire("pulumi-chatbot");
}

export function installedTesting(): typeof Testing {
    return installedRequire("pulumi-chatbot/testing");
}

/** The installed native plugin's package schema, as `pulumi package get-schema` prints it. */
export function installedSchema(): SchemaDescriptions {
    const schema = require(path.join(root, "node_modules", "pulumi-chatbot", "dist", "native", "schema.js")) as {
        packageSchema(): SchemaDescriptions;
    };
    return schema.packageSchema();
}

export interface CommandResult {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** The installed `pulumi-chatbot` command, run as users run it (a process), with `env` as its
 *  whole environment, `stdin` given; killed after a minute. */
export function runInstalledCommand(
    args: string[],
    opts: { env: NodeJS.ProcessEnv; cwd?: string; stdin?: string },
): Promise<CommandResult> {
    const cli = path.join(root, "node_modules", "pulumi-chatbot", "dist", "cli", "index.js");
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [cli, ...args], { env: opts.env, cwd: opts.cwd });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        const timer = setTimeout(() => child.kill(), 60_000);
        child.once("error", reject);
        child.once("exit", (code) => {
            clearTimeout(timer);
            resolve({ code, stdout, stderr });
        });
        child.stdin.end(opts.stdin ?? "");
    });
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

/** What the simulator holds of a v2 connection, as a `WebhookConnection`'s outputs name it. */
export function connectionAsOutputs(c: Testing.StoredConnection): Record<string, unknown> {
    return {
        storyId: c.story.id,
        story: c.story,
        name: c.name,
        url: c.url,
        token: c.token,
        headers: c.headers,
        auth: c.auth,
        lastError: c.error,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
    };
}

/** Empties the simulator between tests: no connection, legacy webhook or fault, a fresh request log. */
export function emptySimulator(sim: Testing.ChatbotSimulator): void {
    sim.clearFaults();
    for (const c of sim.listConnections()) sim.deleteConnection(c.id);
    for (const w of sim.listLegacyWebhooks()) sim.deleteLegacyWebhook(w.id);
    sim.resetRequests();
}
