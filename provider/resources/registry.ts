/**
 * Every resource this package manages, once. `pulumi-chatbot discover` lists and reads each of
 * them, the program it writes declares them, and the stack-export reader knows their types, all
 * from this list; a resource added here and in ../index.ts is everywhere it needs to be. The specs
 * come from their own modules, without the classes: the native plugin loads no @pulumi/pulumi.
 */
import { spec as legacyWebhook } from "./legacyWebhookSpec";
import type { AnySpec } from "./spec";
import { spec as webhookConnection } from "./webhookConnectionSpec";

export const resources: ReadonlyArray<AnySpec> = [webhookConnection, legacyWebhook];

/** The resource whose Pulumi type name is `type` (`WebhookConnection`). */
export function resourceOfType(type: string): AnySpec {
    const found = resources.find((spec) => spec.type === type);
    if (!found)
        throw new Error(`no resource type ${type}: this package has ${resources.map((r) => r.type).join(", ")}`);
    return found;
}
