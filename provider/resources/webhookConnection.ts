/**
 * WebhookConnection: a ChatBot v2 webhook connection (`/v2/integrations/webhook`).
 *
 * This module holds the resource's whole behaviour: its types, its table of fields, what the API
 * answers and its spec (./webhookConnectionSpec.ts, re-exported here), the class a Pulumi program
 * creates, and the dynamic provider ./dynamicProvider.ts builds from the spec, which this module
 * exports (configure, check, diff, create, read, update, delete) for the plugin to call.
 *
 * The provider handed to Pulumi is this module itself. Installed under node_modules, the SDK
 * serializes it as `require("pulumi-chatbot/providers/webhookConnection")`: a few hundred bytes
 * in state, no secrets, and the installed package's code runs for existing resources too.
 */
import { dynamicProvider } from "./dynamicProvider";
import { lookupForms } from "./getFunctions";
import { resourceClass } from "./registration";
import type { Found, Looked, LookupArgs, LookupInputs } from "./spec";
import {
    spec,
    type SecretInputs,
    type WebhookConnectionArgs,
    type WebhookConnectionListed,
    type WebhookConnectionOutputs,
} from "./webhookConnectionSpec";

export * from "./webhookConnectionSpec";

// ---------------------------------------------------------------------------------------------
// The resource class

/** `new WebhookConnection(name, args, opts)`; `WebhookConnection.get(name, id)` brings an existing connection, by its 24-character id, into
 *  the program, read only. Its outputs are `WebhookConnectionOutputs`, each an Output. */
export class WebhookConnection extends resourceClass<WebhookConnectionArgs, WebhookConnectionOutputs>(spec, module) {}

// ---------------------------------------------------------------------------------------------
// What the plugin calls for a webhook connection: this module's exports are its dynamic provider.
export const { configure, check, diff, create, read, update, delete: remove } = dynamicProvider(spec);
export { remove as delete };

// ---------------------------------------------------------------------------------------------
// Looking a connection up from a program: read only, in the program's own process.

/** Look a connection up by `id`, or by `name` (and `storyId`, where names repeat across stories). */
export interface GetWebhookConnectionArgs extends LookupArgs {
    storyId?: string;
}

export type GetWebhookConnectionOutputArgs = LookupInputs<GetWebhookConnectionArgs>;

/** The connection's fields but `token`, `headers` and `auth`: nothing secret. */
export type GetWebhookConnectionResult = Found<WebhookConnectionOutputs, SecretInputs>;

/** With `includeSecrets: true`: `token`, `headers` and `auth` too, as secret Outputs. */
export type GetWebhookConnectionWithSecrets = Looked<WebhookConnectionOutputs, SecretInputs>;

/** Narrows the list: one story's connections, or names starting with a prefix. */
export interface GetWebhookConnectionsArgs {
    storyId?: string;
    namePrefix?: string;
}

/** A connection as the list read shows it: no token, headers or auth. */
export type WebhookConnectionListItem = WebhookConnectionListed;

const lookups = lookupForms<
    GetWebhookConnectionArgs,
    WebhookConnectionOutputs,
    SecretInputs,
    GetWebhookConnectionsArgs,
    WebhookConnectionListItem
>(spec);

/**
 * Reads an existing connection, as a Pulumi invoke function does: nothing is managed or changed.
 * Settings as the provider's: stack config `chatbot:token` and `chatbot:apiUrl`, else
 * CHATBOT_TOKEN and CHATBOT_API_URL. No match, or several, is an error that says which.
 */
export const getWebhookConnection = lookups.get;
/** `getWebhookConnection` taking Inputs; secret as a whole only with `includeSecrets: true`. */
export const getWebhookConnectionOutput = lookups.getOutput;
/** Lists the account's connections (the list read's fields), in the API's order. Read only. */
export const getWebhookConnections = lookups.list;
/** `getWebhookConnections` taking Inputs. */
export const getWebhookConnectionsOutput = lookups.listOutput;
