/**
 * `pulumi-chatbot/native`: the same resources as classes of the native provider plugin
 * (`pulumi-resource-chatbot`, types `chatbot:index:<Type>`), for programs whose project lists the
 * plugin under `plugins.providers`. Typed with the dynamic classes' own argument and output types,
 * so nothing is written twice; what `pulumi import` prints for them runs as it is.
 */
import * as pulumi from "@pulumi/pulumi";
import type { LegacyWebhookArgs, LegacyWebhookOutputs } from "../resources/legacyWebhook";
import { resourceOfType } from "../resources/registry";
import { unsetProperties } from "../resources/spec";
import type { WebhookConnectionArgs, WebhookConnectionOutputs } from "../resources/webhookConnection";
import { token } from "./schema";

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
            super(token(type), name, { ...unsetProperties(spec, "all"), ...(args ?? {}) }, opts);
        }
    }
    return Native as unknown as NativeResourceClass<Args, Outputs>;
}

export const WebhookConnection = nativeClass<WebhookConnectionArgs, WebhookConnectionOutputs>("WebhookConnection");
export type WebhookConnection = NativeResource<WebhookConnectionOutputs>;
export const LegacyWebhook = nativeClass<LegacyWebhookArgs, LegacyWebhookOutputs>("LegacyWebhook");
export type LegacyWebhook = NativeResource<LegacyWebhookOutputs>;
