/**
 * LegacyWebhook: a webhook of ChatBot's older, unversioned API (`/webhooks`). New programs should
 * use WebhookConnection; this resource manages webhooks made before it, and accounts that still
 * use the older interface.
 *
 * As with WebhookConnection, the types, the fields, what the API answers and the spec are in
 * ./legacyWebhookSpec.ts, re-exported here with the class; this module's exports are the dynamic
 * provider, serialized as
 * `require("pulumi-chatbot/providers/legacyWebhook")`. Every property updates in place: the legacy
 * API's PUT takes the whole webhook.
 */
import type * as pulumi from "@pulumi/pulumi";
import { dynamicProvider } from "./dynamicProvider";
import { listUp, lookUp, outputForm } from "./getFunctions";
import { resourceClass } from "./registration";
import type { Looked, LookupArgs, LookupInputs } from "./spec";
import {
    spec,
    type ApiLegacyListItem,
    type LegacyWebhookArgs,
    type LegacyWebhookListed,
    type LegacyWebhookOutputs,
    type SecretInputs,
} from "./legacyWebhookSpec";
import type { AllTrue, Same } from "../schema/fields";

export * from "./legacyWebhookSpec";

// ---------------------------------------------------------------------------------------------
// The resource class

/** `new LegacyWebhook(name, args, opts)`; `LegacyWebhook.get(name, id)` brings an existing legacy webhook, by id, into
 *  the program, read only. Its outputs are `LegacyWebhookOutputs`, each an Output. */
export class LegacyWebhook extends resourceClass<LegacyWebhookArgs, LegacyWebhookOutputs>(spec, module) {}

/** Fails to compile when a list function's item is not what the spec's `listed` names. */
type _ListItemMatches = AllTrue<[Same<LegacyWebhookListItem, LegacyWebhookListed>]>;

// What the plugin calls for a legacy webhook: this module's exports are its dynamic provider.
export const { configure, check, diff, create, read, update, delete: remove } = dynamicProvider(spec);
export { remove as delete };

// ---------------------------------------------------------------------------------------------
// Looking a legacy webhook up from a program: read only, in the program's own process.

export type GetLegacyWebhookArgs = LookupArgs;
export type GetLegacyWebhookOutputArgs = LookupInputs<GetLegacyWebhookArgs>;

/** The webhook's fields; `token`, `headers` and `auth` are secret Outputs. */
export type GetLegacyWebhookResult = Looked<LegacyWebhookOutputs, SecretInputs>;

/** Reads an existing legacy webhook by `id` or `name` (see `getWebhookConnection`). */
export async function getLegacyWebhook(args: GetLegacyWebhookArgs): Promise<GetLegacyWebhookResult> {
    return lookUp<LegacyWebhookOutputs, SecretInputs, ApiLegacyListItem>(spec, { id: args.id, name: args.name });
}

/** `getLegacyWebhook` taking Inputs; the result is secret as a whole when it holds a secret. */
export function getLegacyWebhookOutput(
    args: GetLegacyWebhookOutputArgs,
): pulumi.Output<LegacyWebhookOutputs & { id: string }> {
    return outputForm<GetLegacyWebhookArgs, LegacyWebhookOutputs>(getLegacyWebhook, args);
}

/** Narrows the list: names starting with a prefix. */
export interface GetLegacyWebhooksArgs {
    namePrefix?: string;
}

/** A legacy webhook as the list read shows it: id, name and url. */
export type LegacyWebhookListItem = { id: string } & Pick<LegacyWebhookOutputs, "name" | "url">;

/** Lists the account's legacy webhooks (id, name and url of each). Read only. */
export function getLegacyWebhooks(args: GetLegacyWebhooksArgs = {}): Promise<{ items: LegacyWebhookListItem[] }> {
    return listUp("getLegacyWebhooks", args);
}

/** `getLegacyWebhooks` taking Inputs. */
export function getLegacyWebhooksOutput(
    args: LookupInputs<GetLegacyWebhooksArgs> = {},
): pulumi.Output<{ items: LegacyWebhookListItem[] }> {
    return outputForm<GetLegacyWebhooksArgs, { items: LegacyWebhookListItem[] }>(getLegacyWebhooks, args);
}
