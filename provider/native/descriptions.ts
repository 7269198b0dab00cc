/**
 * What the schema says of each resource, function and the provider beyond their fields: the
 * README's facts (what replaces, what is secret, what a lookup returns, which errors to expect),
 * and examples in the five languages the registry shows, in the `{{% examples %}}` blocks that
 * Pulumi's SDK generators filter to their own language for doc comments. Apart from schema.ts so
 * that prose and field tables change independently. The examples come from examples/<name>.pp
 * (and .yaml), converted by `npm run gen-examples` into examples/examples.json.
 */
import EXAMPLES from "./examples/examples.json";

/** The languages of every example, in the registry's order; their code fences carry these tags,
 *  the ones Pulumi's generators filter on. */
export const EXAMPLE_LANGUAGES = ["typescript", "python", "go", "java", "yaml"] as const;

type ExampleName = keyof typeof EXAMPLES;

/** Which examples each member shows, with their titles, by the member's name. */
const SHOWN: Record<string, Array<[title: string, example: ExampleName]>> = {
    WebhookConnection: [
        ["A connection with a token, headers and basic authorization", "webhookConnection"],
        ["Adopting a connection made in the dashboard", "webhookConnectionAdopt"],
    ],
    LegacyWebhook: [["A legacy webhook", "legacyWebhook"]],
    Provider: [["A second account", "provider"]],
    getWebhookConnection: [["By name in a story, then by id with its secrets", "getWebhookConnection"]],
    getWebhookConnections: [["The connections of a story", "getWebhookConnections"]],
    getLegacyWebhook: [["By id", "getLegacyWebhook"]],
    getLegacyWebhooks: [["By name prefix", "getLegacyWebhooks"]],
};

/** `text` followed by the examples of `member`, as registry providers' descriptions hold them. */
export function withExamples(member: string, text: string): string {
    // A member with none yet (a resource added by its spec alone) keeps its text;
    // tests/unit/schemaDocs.test.ts holds every registered one to having some.
    const shown = SHOWN[member];
    if (!shown) return text;
    const blocks = shown.map(([title, name]) => {
        const code = EXAMPLES[name] as Record<(typeof EXAMPLE_LANGUAGES)[number], string>;
        const fences = EXAMPLE_LANGUAGES.map((lang) => `\`\`\`${lang}\n${code[lang]}\n\`\`\``);
        return `{{% example %}}\n### ${title}\n\n${fences.join("\n")}\n{{% /example %}}`;
    });
    return `${text}\n\n{{% examples %}}\n## Example Usage\n\n${blocks.join("\n")}\n{{% /examples %}}`;
}

/** Each resource's description, by type; the field descriptions hold each field's limits. */
const RESOURCE_TEXT: Record<string, string> = {
    WebhookConnection:
        "A ChatBot webhook connection (`/v2/integrations/webhook`): the address a story's bot calls.\n\n" +
        "Changing `storyId` replaces the connection (the new one is made, then the old deleted): the API " +
        "cannot move one. Any other change updates it in place and sends the whole desired state, so " +
        "removing `token`, `headers` or `auth` from the program removes it from ChatBot. `token`, `headers` " +
        "and `auth` are secret, in state and in every output. Refresh reads every field, secrets included, so " +
        "a change made in the dashboard shows as drift and the next up puts it back; a connection deleted by " +
        "hand leaves the state.\n\n" +
        "Every documented limit is checked at preview, before any call: the error names the property and " +
        "its limit. `adoptId` (or the `import` resource option, or `pulumi import`) adopts an existing " +
        "connection on the first up instead of creating one. An up, refresh or destroy without a token fails " +
        "naming both ways to give one (`chatbot:token`, `CHATBOT_TOKEN`); an error the API answers carries " +
        "its request id where the API gives one.",
    LegacyWebhook:
        "A ChatBot legacy webhook (`/webhooks`, the older API).\n\n" +
        "Every field updates in place. `url` must be a public http(s) address (no localhost or private " +
        "address); `headers` are sent in order. `token`, the header values and the basic-auth password are " +
        "secret, in state and in every output. Refresh reads every field, so a change made by hand shows as " +
        "drift. Limits are checked at preview, naming the property and its limit; `adoptId`, the `import` " +
        "option or `pulumi import` adopt an existing webhook.",
};

/** A resource's description with its examples; `fallback` where none is written here. */
export function resourceDescription(type: string, fallback: string): string {
    return withExamples(type, RESOURCE_TEXT[type] ?? fallback);
}
