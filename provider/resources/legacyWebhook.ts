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
import { dynamicProvider } from "./dynamicProvider";
import { lookupForms } from "./getFunctions";
import { resourceClass } from "./registration";
import type { Found, Looked, LookupArgs, LookupInputs } from "./spec";
import {
    spec,
    type LegacyWebhookArgs,
    type LegacyWebhookListed,
    type LegacyWebhookOutputs,
    type SecretInputs,
} from "./legacyWebhookSpec";

export * from "./legacyWebhookSpec";

// ---------------------------------------------------------------------------------------------
// The resource class

/** `new LegacyWebhook(name, args, opts)`; `LegacyWebhook.get(name, id)` brings an existing legacy webhook, by id, into
 *  the program, read only. Its outputs are `LegacyWebhookOutputs`, each an Output. */
export class LegacyWebhook extends resourceClass<LegacyWebhookArgs, LegacyWebhookOutputs>(spec, module) {}

// What the plugin calls for a legacy webhook: this module's exports are its dynamic provider.
export const { configure, check, diff, create, read, update, delete: remove } = dynamicProvider(spec);
export { remove as delete };

// ---------------------------------------------------------------------------------------------
// Looking a legacy webhook up from a program: read only, in the program's own process.

export type GetLegacyWebhookArgs = LookupArgs;
export type GetLegacyWebhookOutputArgs = LookupInputs<GetLegacyWebhookArgs>;

/** The webhook's fields but `token`, `headers` and `auth`: nothing secret. */
export type GetLegacyWebhookResult = Found<LegacyWebhookOutputs, SecretInputs>;

/** With `includeSecrets: true`: `token`, `headers` and `auth` too, as secret Outputs. */
export type GetLegacyWebhookWithSecrets = Looked<LegacyWebhookOutputs, SecretInputs>;

/** Narrows the list: names starting with a prefix. */
export interface GetLegacyWebhooksArgs {
    namePrefix?: string;
}

/** A legacy webhook as the list read shows it: id, name and url. */
export type LegacyWebhookListItem = LegacyWebhookListed;

const lookups = lookupForms<
    GetLegacyWebhookArgs,
    LegacyWebhookOutputs,
    SecretInputs,
    GetLegacyWebhooksArgs,
    LegacyWebhookListItem
>(spec);

/** Reads an existing legacy webhook by `id` or `name` (see `getWebhookConnection`). */
export const getLegacyWebhook = lookups.get;
/** `getLegacyWebhook` taking Inputs; secret as a whole only with `includeSecrets: true`. */
export const getLegacyWebhookOutput = lookups.getOutput;
/** Lists the account's legacy webhooks (id, name and url of each). Read only. */
export const getLegacyWebhooks = lookups.list;
/** `getLegacyWebhooks` taking Inputs. */
export const getLegacyWebhooksOutput = lookups.listOutput;
