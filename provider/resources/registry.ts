/**
 * Every resource this package manages, once. The native plugin serves them, the schema declares
 * them (resources and lookup functions), the policy pack and the stack-export reader know their
 * types, `pulumi-chatbot discover` lists and reads each of them, the program it writes declares
 * them, and recover and sweep find them, all from this list: a resource added here and in
 * ../index.ts is everywhere it needs to be. The specs come from their own modules, without the
 * classes: the native plugin loads no @pulumi/pulumi.
 */
import { spec as legacyWebhook } from "./legacyWebhookSpec";
import type { AnySpec } from "./spec";
import { spec as webhookConnection } from "./webhookConnectionSpec";

const specs = [webhookConnection, legacyWebhook] as const;

/** The Pulumi type names of this package's resources (`WebhookConnection`), from the list. */
export type ResourceType = (typeof specs)[number]["type"];

const listed: AnySpec[] = [...specs];

export const resources: ReadonlyArray<AnySpec> = listed;

/**
 * For tests only (tests/unit/newResource.test.ts): lists `spec` as a spec written above is, for
 * every module loaded after this call. What reads the registry when it loads (the plugin's
 * types, the schema's functions, the policy pack's and the stack export's types) reads it once,
 * so a test calls this on a fresh load of the package's modules.
 */
export function registerForTests(spec: AnySpec): void {
    listed.push(spec);
}

/** The resource whose Pulumi type name is `type` (`WebhookConnection`). */
export function resourceOfType(type: string): AnySpec {
    const found = resources.find((spec) => spec.type === type);
    if (!found)
        throw new Error(`no resource type ${type}: this package has ${resources.map((r) => r.type).join(", ")}`);
    return found;
}
