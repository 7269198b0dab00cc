/**
 * Which resources a policy sees are this package's, from either delivery: the dynamic provider
 * (TypeScript) and the native plugin (any language).
 */
import { token } from "../native/schema";
import { DYNAMIC_MODULE } from "../resources/registration";
import { resources } from "../resources/registry";

/** The package's resource types a rule may look at. */
export type ChatbotType = "WebhookConnection" | "LegacyWebhook";

/**
 * The package's type of each token its resources have, from either delivery.
 *
 * Native: `chatbot:index:<Type>`, the namespace of the plugin named `chatbot`, which the engine
 * gives only to resources that plugin serves.
 *
 * Dynamic: `pulumi-nodejs:dynamic/chatbot:<Type>`. Why this is sound, and why nothing else is:
 * - Every resource class of this package registers with module `chatbot` and its type
 *   (resources/registration.ts), which every @pulumi/pulumi the package accepts (its peer range)
 *   puts into the token (since early 2023, pulumi/pulumi#11873). So each of our dynamic resources has exactly this token: none is missed.
 * - `pulumi-nodejs:` means the SDK's dynamic-provider plugin serves it, and the token is the key
 *   the engine itself knows the resource by (its URN). Another resource gets it only by
 *   registering a dynamic resource as `chatbot`/`WebhookConnection`, that is by claiming to be
 *   this package's resource; any other dynamic resource, `pulumi-nodejs:dynamic:Resource`
 *   included (a class that names no module and type), is never taken for ours.
 * - What would name the code behind a dynamic resource, its serialized provider (`__provider`,
 *   a `require("pulumi-chatbot/providers/...")`), never reaches a policy: the engine drops
 *   `__`-keys from what it sends analyzers (FilterProperties with SkipInternalKeys,
 *   pkg/resource/plugin/analyzer_plugin.go), and a look at the properties' shape would take any
 *   resource with a `url` for ours.
 */
const types = new Map(
    resources.flatMap((spec) => [
        [token(spec.type), spec.type as ChatbotType],
        [`pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${spec.type}`, spec.type as ChatbotType],
    ]),
);

/** The package's type of a resource, or undefined when it is not one of ours. */
export function chatbotType(resource: { type: string }): ChatbotType | undefined {
    return types.get(resource.type);
}
