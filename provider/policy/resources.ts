/**
 * Which resources are this package's, from either delivery: the dynamic provider (TypeScript) and
 * the native plugin (any language). The one home of that rule: the policy pack judges by it, and
 * the stack-export reader (../cli/stackExport.ts) counts by it.
 */
import { token } from "../native/schema";
import { resources, type ResourceType } from "../resources/registry";
import { DYNAMIC_MODULE, type AnySpec } from "../resources/spec";

/** The package's resource types a rule may look at: every type of the registry. */
export type ChatbotType = ResourceType;

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
const specs = new Map<string, AnySpec>(
    resources.flatMap((spec) => [
        [token(spec.type), spec],
        [`pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${spec.type}`, spec],
    ]),
);

/** The spec of a resource's type token, from either delivery, or undefined when it is not one of ours. */
export function specOfToken(type: string): AnySpec | undefined {
    return specs.get(type);
}

/** The package's type of a resource, or undefined when it is not one of ours. */
export function chatbotType(resource: { type: string }): ChatbotType | undefined {
    return specOfToken(resource.type)?.type as ChatbotType | undefined;
}

/** The package's types whose resources have input `key` (a url, a token): what a rule about that
 *  input looks at, so a resource added to the registry is judged by the rules that concern it. */
export function typesWith(key: string): ChatbotType[] {
    return resources.filter((spec) => key in spec.fields).map((spec) => spec.type as ChatbotType);
}
