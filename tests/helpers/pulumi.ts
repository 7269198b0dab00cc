/**
 * Whole programs through the real pulumi CLI (scripts/pulumiStack.ts runs it hermetically), and
 * what the tests share about them: the program of tests/programs/declare.js, secrets in state.
 * Test tooling: not published.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import type { ResourceType } from "../../provider/resources/registry";
import { PulumiStack, tempProject, jsProjectYaml, type ConfigValue } from "../../scripts/pulumiStack";
import { PLUGIN_YAML } from "./languagePrograms";

export * from "../../scripts/pulumiStack";

/** The wrapper a secret value has in state (sdk/go/common/resource/properties.go). */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";

export function isSecret(v: unknown): boolean {
    return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SECRET_SIG_KEY] !== undefined;
}

/** The plaintext of a value from `stack export --show-secrets` (secrets as `{ plaintext: JSON }`). */
export function plain(v: unknown): unknown {
    if (isSecret(v)) {
        const text = (v as { plaintext?: string }).plaintext;
        return text === undefined ? v : JSON.parse(text);
    }
    if (Array.isArray(v)) return v.map(plain);
    if (typeof v === "object" && v !== null) {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    }
    return v;
}

export const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
export const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";
export const CONNECTION_TYPE = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
export const LEGACY_TYPE = "pulumi-nodejs:dynamic/chatbot:LegacyWebhook";

/** A resource of tests/programs/declare.js. */
export interface Declared {
    /** "Provider": the native plugin's explicit provider (with `native`), named by `options.provider`. */
    /** "Backend": a webhook backend's deployment, its `accepts` written to the file `deployTo`. */
    kind: ResourceType | "Provider" | "Backend";
    name: string;
    args?: Record<string, unknown>;
    options?: Record<string, unknown>;
    get?: string;
}

/** The types of tests/programs/declare.js's resources through the native plugin (`native: true`). */
export const NATIVE_CONNECTION_TYPE = "chatbot:index:WebhookConnection";
export const NATIVE_LEGACY_TYPE = "chatbot:index:LegacyWebhook";

/** A project running tests/programs/declare.js (named `project`, default "declare"), and a stack
 *  of it that reaches `sim` (a simulator, or any API: its address and token). With `native`, the
 *  program declares the native plugin's classes (`pulumi-chatbot/native`) and the project takes the
 *  plugin from the installed package. */
export async function declareStack(
    sim: Pick<ChatbotSimulator, "url" | "token">,
    opts: {
        config?: Record<string, ConfigValue>;
        env?: Record<string, string | undefined>;
        stack?: string;
        /** The native plugin's classes instead of the dynamic provider's. */
        native?: boolean;
        project?: string;
    } = {},
): Promise<{ stack: PulumiStack; declare(resources: Declared[]): Promise<void>; dispose(): void }> {
    const program = fs.readFileSync(path.join(__dirname, "..", "programs", "declare.js"), "utf8");
    const name = opts.project ?? "declare";
    const project = tempProject(name, {
        "Pulumi.yaml": jsProjectYaml(name) + (opts.native ? PLUGIN_YAML : ""),
        "index.js": opts.native
            ? program.replace('require("pulumi-chatbot")', 'require("pulumi-chatbot/native")')
            : program,
    });
    const stack = await PulumiStack.create({
        projectDir: project,
        stack: opts.stack,
        config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token }, ...opts.config },
        // Retries wait milliseconds, not seconds, in tests.
        env: { CHATBOT_RETRY_BASE_MS: "5", ...opts.env },
    });
    return {
        stack,
        declare: (resources) => stack.setConfig({ resources: JSON.stringify(resources) }),
        dispose() {
            stack.dispose();
            fs.rmSync(path.dirname(project), { recursive: true, force: true });
        },
    };
}
