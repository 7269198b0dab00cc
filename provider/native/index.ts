/**
 * `pulumi-chatbot/native`: the same resources as classes of the native provider plugin
 * (`pulumi-resource-chatbot`, types `chatbot:index:<Type>`). Like the generated SDKs of other
 * languages, each resource and `Provider` names the plugin's version and download address, so the
 * engine downloads the plugin from the release the first time a program needs it. Typed with the
 * dynamic classes' own argument and output types,
 * so nothing is written twice; what `pulumi import` prints for them runs as it is. `Provider` is
 * the plugin's explicit provider, its settings those of the schema (./schema.ts): one program can
 * manage connections in two accounts. Other languages' SDKs are generated from the same schema
 * (sdk/); this module is written over the types instead, since the Node.js host built here does not
 * generate SDKs.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupForms, type LookupRunner } from "../resources/getFunctions";
import type {
    GetLegacyWebhookArgs,
    GetLegacyWebhookOutputArgs,
    GetLegacyWebhookResult,
    GetLegacyWebhookWithSecrets,
    GetLegacyWebhooksArgs,
    LegacyWebhookArgs,
    LegacyWebhookListItem,
    LegacyWebhookOutputs,
    SecretInputs as LegacySecrets,
} from "../resources/legacyWebhook";
import { resourceOfType } from "../resources/registry";
import { unsetProperties } from "../resources/spec";
import type {
    GetWebhookConnectionArgs,
    GetWebhookConnectionOutputArgs,
    GetWebhookConnectionResult,
    GetWebhookConnectionWithSecrets,
    GetWebhookConnectionsArgs,
    SecretInputs as ConnectionSecrets,
    WebhookConnectionArgs,
    WebhookConnectionListItem,
    WebhookConnectionOutputs,
} from "../resources/webhookConnection";
import { PACKAGE, PLUGIN_DOWNLOAD_URL, SETTINGS, token, VERSION } from "./schema";

/** The plugin of this package's version, from its release: the options the generated SDKs give
 *  every resource (Pulumi's Node.js SDKs merge them the same way), so a user's own wins. */
const PLUGIN = { version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL };
const withPlugin = (opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions =>
    pulumi.mergeOptions(PLUGIN, opts);

/** A class of the native provider: `new X(name, args, opts)`, and `X.get(name, id)`. */
export interface NativeResourceClass<Args, Outputs> {
    new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): NativeResource<Outputs>;
    /** Brings an existing one, by its id, into the program (read only). */
    get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): NativeResource<Outputs>;
}

/** A resource of the native provider: its outputs as Outputs. */
export type NativeResource<Outputs> = pulumi.CustomResource & {
    readonly [K in keyof Outputs]-?: pulumi.Output<Outputs[K]>;
};

/** The class for one type of the registry: inputs as given (the plugin checks them, fills in
 *  `name` and marks secrets), every other property to be filled, as the dynamic classes do. */
function nativeClass<Args, Outputs>(type: string): NativeResourceClass<Args, Outputs> {
    const spec = resourceOfType(type);
    class Native extends pulumi.CustomResource {
        static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions) {
            return new Native(name, undefined, { ...opts, id });
        }

        constructor(name: string, args: Args | undefined, opts?: pulumi.CustomResourceOptions) {
            super(token(type), name, { ...unsetProperties(spec, "all"), ...(args ?? {}) }, withPlugin(opts));
        }
    }
    return Native as unknown as NativeResourceClass<Args, Outputs>;
}

export const WebhookConnection = nativeClass<WebhookConnectionArgs, WebhookConnectionOutputs>("WebhookConnection");
export type WebhookConnection = NativeResource<WebhookConnectionOutputs>;
export const LegacyWebhook = nativeClass<LegacyWebhookArgs, LegacyWebhookOutputs>("LegacyWebhook");
export type LegacyWebhook = NativeResource<LegacyWebhookOutputs>;

/** The provider's settings, as the schema names them: which account (`token`, secret) and which
 *  API address (`apiUrl`); one left out is read from CHATBOT_TOKEN or CHATBOT_API_URL (the
 *  stack's `chatbot:` config is the default provider's, not an explicit one's). A boolean setting
 *  (`refreshBeforeUpdate`) takes a boolean. */
export type ProviderArgs = {
    [K in keyof typeof SETTINGS]?: pulumi.Input<(typeof SETTINGS)[K]["type"] extends "boolean" ? boolean : string>;
};

/** The settings that are secret (the token): sealed in state and outputs. */
const SECRET_SETTINGS = Object.entries(SETTINGS)
    .filter(([, setting]) => "secret" in setting && setting.secret)
    .map(([key]) => key);

/**
 * An explicit ChatBot provider: give it to a resource (`{ provider }`) to manage that resource in
 * another account, or through another API address, than the stack's `chatbot:` config says.
 */
export class Provider extends pulumi.ProviderResource {
    constructor(name: string, args: ProviderArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
        const props: pulumi.Inputs = {};
        for (const key of Object.keys(SETTINGS) as Array<keyof ProviderArgs>) {
            const value = args[key];
            props[key] = value === undefined ? undefined : SECRET_SETTINGS.includes(key) ? pulumi.secret(value) : value;
        }
        const sealed: pulumi.CustomResourceOptions = {
            ...opts,
            additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...SECRET_SETTINGS],
        };
        super(PACKAGE, name, props, withPlugin(sealed));
    }
}

// ---------------------------------------------------------------------------------------------
// The plugin's lookup functions (../resources/lookup.ts), as every generated SDK has them: a plain
// form (a Promise) and an Output form, each taking invoke options, whose `provider` reads that
// provider's account. Read only; they run at preview too. No secret in a result unless asked for
// (`includeSecrets: true`): then the plain form's secret fields are secret Outputs (Node.js's plain
// invoke drops the marks, so they are put back), and the Output form is secret as a whole.

/** The plugin's Invoke, with the plugin of this package's version. */
const viaPlugin: LookupRunner<pulumi.InvokeOptions, pulumi.InvokeOutputOptions> = {
    plain: (fn, args, opts) => pulumi.runtime.invoke(token(fn.name), args, { ...PLUGIN, ...opts }),
    output: (fn, args, opts) => pulumi.runtime.invokeOutput(token(fn.name), args, { ...PLUGIN, ...opts }),
};

export type {
    GetWebhookConnectionArgs,
    GetWebhookConnectionOutputArgs,
    GetWebhookConnectionResult,
    GetWebhookConnectionWithSecrets,
    GetWebhookConnectionsArgs,
    WebhookConnectionListItem,
    GetLegacyWebhookArgs,
    GetLegacyWebhookOutputArgs,
    GetLegacyWebhookResult,
    GetLegacyWebhookWithSecrets,
    GetLegacyWebhooksArgs,
    LegacyWebhookListItem,
};

const webhookConnection = lookupForms<
    GetWebhookConnectionArgs,
    WebhookConnectionOutputs,
    ConnectionSecrets,
    GetWebhookConnectionsArgs,
    WebhookConnectionListItem,
    pulumi.InvokeOptions,
    pulumi.InvokeOutputOptions
>(resourceOfType("WebhookConnection"), viaPlugin);
/** Reads one connection, by `id`, or by `name` (and `storyId`); no match, or several, is an error naming them. */
export const getWebhookConnection = webhookConnection.get;
export const getWebhookConnectionOutput = webhookConnection.getOutput;
/** Lists the account's connections, in the API's order. */
export const getWebhookConnections = webhookConnection.list;
export const getWebhookConnectionsOutput = webhookConnection.listOutput;

const legacyWebhook = lookupForms<
    GetLegacyWebhookArgs,
    LegacyWebhookOutputs,
    LegacySecrets,
    GetLegacyWebhooksArgs,
    LegacyWebhookListItem,
    pulumi.InvokeOptions,
    pulumi.InvokeOutputOptions
>(resourceOfType("LegacyWebhook"), viaPlugin);
/** Reads one legacy webhook, by `id` or by `name`. */
export const getLegacyWebhook = legacyWebhook.get;
export const getLegacyWebhookOutput = legacyWebhook.getOutput;
/** Lists the account's legacy webhooks. */
export const getLegacyWebhooks = legacyWebhook.list;
export const getLegacyWebhooksOutput = legacyWebhook.listOutput;
