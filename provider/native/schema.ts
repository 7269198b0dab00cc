/**
 * The Pulumi package schema of the native provider (`pulumi package get-schema`), generated from
 * the registry's specs: each resource's table of fields gives its inputs (type, required, secret,
 * replace on change), its `outputTypes` the rest. Nothing here is written per resource.
 */
import { resources } from "../resources/registry";
import { ADOPT_KEY, type Field, type FieldKind, type OutputType } from "../resources/spec";

export const PACKAGE = "chatbot";
const VERSION: string = (require("../../package.json") as { version: string }).version;

/** The token of a resource or type of this package: `chatbot:index:WebhookConnection`. */
export const token = (name: string) => `${PACKAGE}:index:${name}`;

type Property = Record<string, unknown>;

/** Object types the field kinds use, by name: their properties, and which are secret. */
const FIELD_OBJECTS: Record<string, { properties: string[]; secret?: string }> = {
    BasicAuth: { properties: ["username", "password"], secret: "password" },
    Header: { properties: ["name", "value"], secret: "value" },
};

function fieldType(kind: FieldKind): Property {
    switch (kind) {
        case "text":
            return { type: "string" };
        case "headerRecord":
            return { type: "object", additionalProperties: { type: "string" } };
        case "headerList":
            return { type: "array", items: { $ref: `#/types/${token("Header")}` } };
        case "basicAuth":
            return { $ref: `#/types/${token("BasicAuth")}` };
    }
}

function objectType(properties: ReadonlyArray<string>, secret?: string): Property {
    return {
        type: "object",
        properties: Object.fromEntries(
            properties.map((p) => [p, { type: "string", ...(p === secret ? { secret: true } : {}) }]),
        ),
        required: [...properties],
    };
}

/** The whole schema, as `GetSchema` returns it. */
export function packageSchema(): Record<string, unknown> {
    const types: Record<string, Property> = {};
    for (const [name, o] of Object.entries(FIELD_OBJECTS)) types[token(name)] = objectType(o.properties, o.secret);
    const outputType = (t: OutputType): Property => {
        if (typeof t === "string") return { type: "string" };
        types[token(t.object)] = objectType(t.properties);
        return { $ref: `#/types/${token(t.object)}` };
    };
    const resourceSchemas: Record<string, unknown> = {};
    for (const spec of resources) {
        const fields = Object.entries(spec.fields as Record<string, Field<unknown>>);
        const inputs: Record<string, Property> = {};
        for (const [key, field] of fields) {
            inputs[key] = {
                ...fieldType(field.kind),
                ...(field.secret ? { secret: true } : {}),
                ...(field.replaces ? { willReplaceOnChanges: true } : {}),
            };
        }
        const outputs: Record<string, Property> = { ...inputs };
        for (const [key, t] of Object.entries(spec.outputTypes as Record<string, OutputType>)) {
            outputs[key] = outputType(t);
        }
        inputs[ADOPT_KEY] = {
            type: "string",
            description: `The id of an existing ${spec.noun} to adopt on create, instead of making one.`,
        };
        // `name` defaults to the resource's name, as the dynamic provider's does.
        const requiredInputs = fields.filter(([key, f]) => f.required && key !== "name").map(([key]) => key);
        resourceSchemas[token(spec.type)] = {
            description: `A ChatBot ${spec.noun} (\`${spec.path}\`).`,
            inputProperties: inputs,
            requiredInputs,
            properties: outputs,
            required: [
                ...fields.filter(([, f]) => f.required).map(([key]) => key),
                ...Object.entries(spec.outputTypes as Record<string, OutputType>)
                    .filter(([, t]) => t !== "string or null")
                    .map(([key]) => key),
            ],
        };
    }
    const settings = {
        token: { type: "string", secret: true, description: "The ChatBot developer access token." },
        apiUrl: { type: "string", description: "The ChatBot API address (default https://api.chatbot.com)." },
    };
    return {
        name: PACKAGE,
        displayName: "ChatBot",
        version: VERSION,
        description: "ChatBot (chatbot.com) webhook connections.",
        license: "Apache-2.0",
        config: { variables: settings },
        provider: { inputProperties: settings },
        types,
        resources: resourceSchemas,
        // The classes `pulumi import` prints are this package's own (./index.ts).
        language: { nodejs: { packageName: "pulumi-chatbot/native" } },
    };
}
