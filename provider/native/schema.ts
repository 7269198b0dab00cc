/**
 * The Pulumi package schema of the native provider (`pulumi package get-schema`), generated from
 * the registry's specs: each resource's table of fields gives its inputs (type, required, secret,
 * replace on change) and their descriptions (what the field holds, its facts, and what its check
 * refuses, in the check's own words), its `outputTypes` the rest. Nothing here is written per
 * resource. The SDKs of other languages are generated from it (`npm run gen-sdk`, into sdk/), so
 * it also carries what those generators read: each language's package names.
 */
import { DEFAULT_RETRY } from "../client/retry";
import { configKeys, DEFAULT_API_URL, envVars, tuningEnvVars } from "../config";
import { INCLUDE_SECRETS, lookupFunctions, NAME_PREFIX, type LookupFunction } from "../resources/lookup";
import { resources } from "../resources/registry";
import { ADOPT_KEY, keysWhere, omit, pick, type Field, type FieldKind, type OutputType } from "../resources/spec";
import { validate } from "../schema/validate";
import { resourceDescription, withExamples } from "./descriptions";

export const PACKAGE = "chatbot";
const PACKAGE_JSON = require("../../package.json") as { version: string; repository: { url: string } };
/** The package's version: the plugin's, the SDKs' and the schema's. */
export const VERSION: string = PACKAGE_JSON.version;

/**
 * The repository's home, named once (package.json `repository`), as `github.com/<owner>/<repo>`:
 * the download address, the Go module and the Python project's links derive from it.
 */
export const REPOSITORY = ((url: string) => {
    const m = /github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?$/.exec(url);
    if (!m) throw new Error(`package.json repository is not a GitHub repository: ${url}`);
    return `github.com/${m[1]}/${m[2]}`;
})(PACKAGE_JSON.repository.url);

/**
 * Where the engine downloads the plugin from when a program's SDK asks for a version it does not
 * have: the repository's GitHub releases, as for registry providers. The engine asks the GitHub
 * API for the release `v<version>` and fetches its asset
 * `pulumi-resource-chatbot-v<version>-<os>-<arch>.tar.gz` (`npm run release` makes them).
 * `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` points it at a mirror.
 */
export const PLUGIN_DOWNLOAD_URL = `github://api.${REPOSITORY}`;

/** The package's logo, a file of the repository (docs/logo.svg) as the registry fetches it. */
export const LOGO_URL = `https://raw.githubusercontent.com/${REPOSITORY.slice("github.com/".length)}/main/docs/logo.svg`;

/** The Go SDK's import path: the module `<repository>/sdk` (go.mod in sdk/, released by the tag
 *  `sdk/v<version>`), as registry providers' Go SDKs are. */
export const GO_MODULE = `${REPOSITORY}/sdk`;
export const GO_IMPORT_BASE_PATH = `${GO_MODULE}/go/chatbot`;

/** The Java SDK's base package (docs/java.md), and the version of Pulumi's Java SDK
 *  (com.pulumi:pulumi, Maven Central) it is built and tested on. */
export const JAVA_BASE_PACKAGE = "com.pulumichatbot";
export const JAVA_SDK_VERSION = "1.36.1";

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

/** What a field of each kind holds, and which part of it is secret when the field is. */
const KIND_TEXT: Record<FieldKind, { holds: string; secret: string }> = {
    text: { holds: "A string.", secret: "Secret." },
    headerRecord: { holds: "HTTP header names to values.", secret: "Secret: each value." },
    headerList: { holds: "HTTP headers, each `{ name, value }`, sent in order.", secret: "Secret: each value." },
    basicAuth: { holds: "Basic authorization: `{ username, password }`.", secret: "Secret: the password." },
};

/**
 * Values that break each rule a check of this kind can have; what the check answers names the
 * rule and its limit ("must be 1 to 128 characters"). The first of a pair says which part the
 * answer is about.
 */
const PROBES: Record<FieldKind, Array<[string, unknown]>> = {
    text: [
        ["", ""],
        ["", "x"],
        ["", "http://127.0.0.1/"],
    ],
    headerRecord: [
        ["", {}],
        ["each name", { "bad name": "v" }],
        ["each value", { "X-Probe": "a\nb" }],
    ],
    headerList: [
        ["", []],
        ["each name", [{ name: "", value: "v" }]],
        ["each name", [{ name: "bad name", value: "v" }]],
        ["each value", [{ name: "X-Probe", value: "" }]],
        ["each value", [{ name: "X-Probe", value: "a\nb" }]],
    ],
    basicAuth: [
        ["the username", { username: "", password: "p" }],
        ["the password", { username: "u", password: "" }],
    ],
};

/** What a field's check refuses, in the check's own words: `each name must be 1 to 128 characters`. */
function rules(field: Field<unknown>): string[] {
    const found: string[] = [];
    for (const [part, probe] of PROBES[field.kind]) {
        const result = validate(field.check, probe);
        if (result.ok) continue;
        for (const failure of result.failures) {
            const message = failure.property ? failure.reason.slice(failure.property.length + 2) : failure.reason;
            const rule = part ? `${part} ${message}` : message;
            if (!found.includes(rule)) found.push(rule);
        }
    }
    return found;
}

/** A field's description, from its facts alone. */
function describeField(key: string, field: Field<unknown>): string {
    const parts = [KIND_TEXT[field.kind].holds];
    if (key === "name") parts.push("Default: the resource's name.");
    else parts.push(field.required ? "Required." : "Optional.");
    if (field.secret) parts.push(KIND_TEXT[field.kind].secret);
    if (field.replaces) parts.push("Changing it replaces the resource: the API cannot change it in place.");
    const refused = rules(field);
    if (refused.length > 0) parts.push(`Checked at preview: ${refused.join("; ")}.`);
    return parts.join(" ");
}

function describeOutput(t: OutputType): string {
    if (t === "string or null") return "Read from ChatBot; null when there is none.";
    if (t === "string") return "Read from ChatBot.";
    return `Read from ChatBot: \`{ ${t.properties.join(", ")} }\`.`;
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

/** The provider's settings: an explicit provider's arguments, or the default provider's stack
 *  config (`chatbot:token`, `chatbot:apiUrl`); the environment fills what is not given. */
export const SETTINGS = {
    token: {
        type: "string",
        secret: true,
        description:
            "The ChatBot developer access token: which account. Secret. Where none is given, the " +
            `${envVars.token} environment variable.`,
    },
    apiUrl: {
        type: "string",
        description:
            `The ChatBot API address. Where none is given, the ${envVars.apiUrl} environment variable, else ` +
            `${DEFAULT_API_URL}.`,
    },
    retryMaxElapsedMs: {
        type: "integer",
        description:
            "The time budget of one request's retries, in milliseconds: an API that limits requests (429, or 503 " +
            "with Retry-After) is waited out as it asks within it, however many attempts that takes. Where none " +
            `is given, the ${tuningEnvVars.maxElapsedMs} environment variable, else ${DEFAULT_RETRY.maxElapsedMs}.`,
    },
    refreshBeforeUpdate: {
        type: "boolean",
        description:
            "Whether every `pulumi up` and preview reads each resource this provider manages before the program " +
            "runs (the engine's refresh before update), so a change made by hand is put back without `--refresh`. " +
            "Each read is one request per resource per run, and a preview then needs the token. Where none is " +
            `given, the ${envVars.refreshBeforeUpdate} environment variable (true or false), else false.`,
    },
} as const satisfies Record<keyof typeof configKeys, Property>;

interface ResourceSchema {
    properties: Record<string, Property>;
    required: string[];
}

/**
 * A lookup function's schema (../resources/lookup.ts): `get<Type>` takes `id`, or `name` and what
 * the resource narrows a search by, and returns `id` and every output of the resource but the
 * secret ones, which come (marked) only with `includeSecrets`; `get<Type>s` returns `items`, each
 * what the list read holds (a type of its own).
 */
function functionSchema(fn: LookupFunction, resource: ResourceSchema, types: Record<string, Property>): Property {
    const { spec } = fn;
    const narrow: Record<string, Property> = spec.narrowBy
        ? { [spec.narrowBy.arg]: { type: "string", description: spec.narrowBy.description } }
        : {};
    const id = { type: "string", description: `The ${spec.noun}'s id.` };
    const secrets = keysWhere(spec, "secret");
    // A function's result is read, never set: what replaces a resource means nothing here.
    const outputs = Object.fromEntries(
        Object.entries(resource.properties).map(([key, p]) => [key, omit(p, ["willReplaceOnChanges"])]),
    );
    const onlyAsked = (p: Property): Property => ({
        ...p,
        description: `Only with \`${INCLUDE_SECRETS}: true\`. ${String(p.description)}`,
    });
    if (!fn.many) {
        return {
            description:
                `Reads an existing ${spec.noun} (\`${spec.path}/{id}\`), by \`id\` or by \`name\`: nothing is managed or ` +
                "changed. No match, or more than one (named by their ids), is an error that says what was looked " +
                `for. Nothing in the result is secret: the secret fields come (marked secret) only with \`${INCLUDE_SECRETS}\`. ` +
                "An explicit provider reads its own account.",
            inputs: {
                type: "object",
                properties: {
                    id: { type: "string", description: `The id of the ${spec.noun} to read. Give \`id\` or \`name\`.` },
                    name: {
                        type: "string",
                        description: `The name of the ${spec.noun} to read: exactly one must have it. Give \`id\` or \`name\`.`,
                    },
                    ...narrow,
                    [INCLUDE_SECRETS]: {
                        type: "boolean",
                        description:
                            `Also return the secret fields (${secrets.map((k) => `\`${k}\``).join(", ")}), marked secret, so an ` +
                            "Output form's whole result is secret. Default false: nothing in the result is secret.",
                    },
                },
            },
            outputs: {
                type: "object",
                properties: {
                    id,
                    ...Object.fromEntries(
                        Object.entries(outputs).map(([k, p]) => [k, secrets.includes(k) ? onlyAsked(p) : p]),
                    ),
                },
                // A secret field may be left out, however the resource requires it.
                required: ["id", ...resource.required.filter((k) => !secrets.includes(k))],
            },
        };
    }
    const item = token(`${spec.type}ListItem`);
    types[item] = {
        type: "object",
        description: `A ${spec.noun} as the list read (\`GET ${spec.path}\`) shows it: no secret field.`,
        properties: { id, ...pick(outputs, spec.listed) },
        required: ["id", ...resource.required.filter((key) => spec.listed.includes(key))],
    };
    return {
        description:
            `Lists the ${spec.noun}s of the account (\`GET ${spec.path}\`), each with what the list read holds, ` +
            "which has no secret field: nothing in the result is secret. Read one in full with its get function. " +
            "Nothing is managed or changed.",
        inputs: listInputs(spec),
        outputs: {
            type: "object",
            properties: {
                items: { type: "array", items: { $ref: `#/types/${item}` }, description: "In the API's order." },
            },
            required: ["items"],
        },
    };
}

/** What a list narrows by: the spec's own argument (a v2 connection's `storyId`) and `namePrefix`.
 *  The list functions' inputs, and the resource's `listInputs`: with them the engine's `List` is
 *  the resource's, and `pulumi do <Type> list` (pkg/cmd/pulumi/do/do_resource.go in pulumi/pulumi
 *  v3.274.1) offers the command, with a flag for each. */
function listInputs(spec: { narrowBy?: { arg: string; description: string } }): Property {
    return {
        type: "object",
        properties: {
            ...(spec.narrowBy
                ? { [spec.narrowBy.arg]: { type: "string", description: spec.narrowBy.description } }
                : {}),
            [NAME_PREFIX]: { type: "string", description: "Only those whose name starts with this." },
        },
    };
}

/** The schema's properties of a resource's inputs: each field's type, description and facts. */
function inputProperties(spec: (typeof resources)[number]): Record<string, Property> {
    const inputs: Record<string, Property> = {};
    for (const [key, field] of Object.entries(spec.fields as Record<string, Field<unknown>>)) {
        inputs[key] = {
            ...fieldType(field.kind),
            description: describeField(key, field),
            ...(field.secret ? { secret: true } : {}),
            ...(field.replaces ? { willReplaceOnChanges: true } : {}),
        };
    }
    return inputs;
}

/** A resource's schema: its inputs and `adoptId`, its outputs (every input and its
 *  `outputTypes`, whose object types go into `types`), and which of each are required. */
function resourceSchema(spec: (typeof resources)[number], types: Record<string, Property>): Record<string, unknown> {
    const outputType = (t: OutputType): Property => {
        if (typeof t === "string") return { type: "string" };
        types[token(t.object)] = objectType(t.properties);
        return { $ref: `#/types/${token(t.object)}` };
    };
    const fields = Object.entries(spec.fields as Record<string, Field<unknown>>);
    const inputs = inputProperties(spec);
    const outputs: Record<string, Property> = { ...inputs };
    for (const [key, t] of Object.entries(spec.outputTypes as Record<string, OutputType>)) {
        outputs[key] = { ...outputType(t), description: describeOutput(t) };
    }
    inputs[ADOPT_KEY] = {
        type: "string",
        description:
            `The id of an existing ${spec.noun} to adopt on create, instead of making one: the first up reads ` +
            "it and updates it where it differs. Ignored once the resource is managed.",
    };
    // `name` defaults to the resource's name, as the dynamic provider's does.
    const requiredInputs = fields.filter(([key, f]) => f.required && key !== "name").map(([key]) => key);
    return {
        description: resourceDescription(spec.type, `A ChatBot ${spec.noun} (\`${spec.path}\`).`),
        listInputs: listInputs(spec),
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

/** What each language's SDK generator reads: its package names and dependencies. */
const LANGUAGES = {
    // The classes `pulumi import` prints are this package's own (./index.ts).
    nodejs: { packageName: "pulumi-chatbot/native" },
    python: {
        packageName: "pulumi_chatbot",
        pyproject: { enabled: true },
        respectSchemaVersion: true,
        // What the `pulumi` package from PyPI (3.272.0, tested) needs.
        pythonRequires: ">=3.10",
        readme:
            "ChatBot (chatbot.com) webhook connections as Pulumi resources: `WebhookConnection`, " +
            "`LegacyWebhook`, and `Provider` for a second account. The engine downloads the " +
            "`pulumi-resource-chatbot` plugin of the same version the first time a program needs it.",
    },
    go: { importBasePath: GO_IMPORT_BASE_PATH, respectSchemaVersion: true },
    // Java packages com.pulumichatbot.chatbot[.inputs|.outputs], Maven coordinates
    // com.pulumichatbot:chatbot (pulumi-java's group is the base package). The base package
    // starts with com. because the Java SDK finds a package's plugin.json only at
    // com/<namespace>/<name>/plugin.json on the classpath (com.pulumi.bootstrap.internal).
    java: { basePackage: JAVA_BASE_PACKAGE, dependencies: { "com.pulumi:pulumi": JAVA_SDK_VERSION } },
};

/** The whole schema, as `GetSchema` returns it. */
export function packageSchema(): Record<string, unknown> {
    const types: Record<string, Property> = {};
    for (const [name, o] of Object.entries(FIELD_OBJECTS)) types[token(name)] = objectType(o.properties, o.secret);
    const resourceSchemas: Record<string, unknown> = {};
    for (const spec of resources) resourceSchemas[token(spec.type)] = resourceSchema(spec, types);
    const functions: Record<string, unknown> = {};
    for (const fn of lookupFunctions) {
        const schema = functionSchema(fn, resourceSchemas[token(fn.spec.type)] as ResourceSchema, types);
        functions[token(fn.name)] = { ...schema, description: withExamples(fn.name, String(schema.description)) };
    }
    return {
        name: PACKAGE,
        displayName: "ChatBot",
        version: VERSION,
        description: "ChatBot (chatbot.com) webhook connections.",
        // The registry files a package under its `category/` keyword and shows `kind/native` as a
        // provider of its own (not a bridged Terraform one).
        keywords: ["pulumi", "chatbot", "webhook", "category/utility", "kind/native"],
        publisher: "pulumi-chatbot",
        logoUrl: LOGO_URL,
        license: "Apache-2.0",
        homepage: `https://${REPOSITORY}`,
        repository: `https://${REPOSITORY}`,
        pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
        // The SDKs carry the schema's version, and Go's is a module of its own (sdk/go.mod).
        supportPack: true,
        config: { variables: SETTINGS },
        provider: {
            description: withExamples(
                "Provider",
                "The ChatBot provider: give one to a resource (the `provider` option) to manage it in another " +
                    "account or through another API address than the stack's.",
            ),
            inputProperties: SETTINGS,
        },
        types,
        resources: resourceSchemas,
        functions,
        language: LANGUAGES,
    };
}
