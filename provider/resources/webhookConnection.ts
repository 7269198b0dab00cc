/**
 * WebhookConnection: a ChatBot v2 webhook connection (`/v2/integrations/webhook`).
 *
 * This one file holds the resource's whole behaviour: the class a Pulumi program creates, and the
 * dynamic provider (this module's own exports: configure, check, diff, create, read, update,
 * delete) that the Pulumi engine calls through the dynamic-provider plugin.
 *
 * The provider handed to Pulumi is this module itself. Installed under node_modules, the SDK
 * serializes it as `require("pulumi-chatbot/providers/webhookConnection")`: a few hundred bytes
 * in state, no secrets, and the installed package's code runs for existing resources too.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Connection } from "../schema/connection";
import type { CheckFailure } from "../schema/validate";
import {
    api,
    checkInputs,
    createOnce,
    deleteAt,
    diffInputs,
    getOne,
    label,
    partialFailure,
    omit,
    pick,
    putThenRead,
    providerModule,
    secretIfSet,
    unlessNotFound,
    type Candidate,
    type Plain,
} from "./common";

const PATH = "/v2/integrations/webhook";

// ---------------------------------------------------------------------------------------------
// Types

export interface BasicAuth {
    username: string;
    password: string;
}

/** The arguments of a WebhookConnection, as a program writes them. */
export interface WebhookConnectionArgs {
    /** The story (24 characters) the connection belongs to. Changing it replaces the connection. */
    storyId: pulumi.Input<string>;
    /** 1 to 128 characters. Default: the resource's name. */
    name?: pulumi.Input<string>;
    /** The address ChatBot calls: an absolute http(s) URL, 1 to 1024 characters. */
    url: pulumi.Input<string>;
    /** 1 to 1024 characters; usable by the backend to verify calls. Secret. */
    token?: pulumi.Input<string>;
    /** 1 to 10 extra request headers. Secret. */
    headers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
    /** Basic authorization, username and password 1 to 1024 characters each. Secret. */
    auth?: pulumi.Input<{ username: pulumi.Input<string>; password: pulumi.Input<string> }>;
    /**
     * The id (24 characters) of a connection that already exists: the first `pulumi up` adopts it
     * (reads it and, where it differs, updates it to these arguments) instead of creating one. It
     * must belong to `storyId`. Ignored once the connection is managed. Works with every Pulumi
     * engine, unlike the `import` resource option for dynamic providers (pulumi/pulumi#16175).
     */
    adoptId?: pulumi.Input<string>;
}

/** The inputs as the provider sees them: resolved, secrets unwrapped. */
export interface WebhookConnectionInputs {
    storyId: string;
    name: string;
    url: string;
    token?: string;
    headers?: Record<string, string>;
    auth?: BasicAuth;
    adoptId?: string;
}

/** What the API stored, as the resource's outputs. */
export interface WebhookConnectionOutputs extends WebhookConnectionInputs {
    story: { id: string; name: string };
    /** The last error ChatBot noted calling the webhook, or null. */
    lastError: string | null;
    createdAt: string;
    updatedAt: string;
}

const INPUT_KEYS = ["storyId", "name", "url", "token", "headers", "auth"] as const;
const SECRET_KEYS = ["token", "headers", "auth"] as const;

// ---------------------------------------------------------------------------------------------
// The resource class

export class WebhookConnection extends pulumi.dynamic.Resource {
    declare readonly storyId: pulumi.Output<string>;
    declare readonly name: pulumi.Output<string>;
    declare readonly url: pulumi.Output<string>;
    declare readonly token: pulumi.Output<string | undefined>;
    declare readonly headers: pulumi.Output<Record<string, string> | undefined>;
    declare readonly auth: pulumi.Output<BasicAuth | undefined>;
    declare readonly story: pulumi.Output<{ id: string; name: string }>;
    declare readonly lastError: pulumi.Output<string | null>;
    declare readonly createdAt: pulumi.Output<string>;
    declare readonly updatedAt: pulumi.Output<string>;

    /** Brings an existing connection, by its 24-character id, into the program (read only). */
    static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): WebhookConnection {
        // With an id the SDK reads the resource instead of registering it: no arguments are used.
        return new WebhookConnection(name, {} as WebhookConnectionArgs, { ...opts, id });
    }

    constructor(name: string, args: WebhookConnectionArgs, opts?: pulumi.CustomResourceOptions) {
        const outputsOnly = { story: undefined, lastError: undefined, createdAt: undefined, updatedAt: undefined };
        const props: Record<string, unknown> = opts?.id
            ? { ...Object.fromEntries(INPUT_KEYS.map((k) => [k, undefined])), ...outputsOnly }
            : {
                  storyId: args?.storyId,
                  name: args?.name ?? name,
                  url: args?.url,
                  token: secretIfSet(args?.token),
                  headers: secretIfSet(args?.headers),
                  auth: secretIfSet(args?.auth),
                  adoptId: args?.adoptId,
                  ...outputsOnly,
              };
        super(
            providerModule(module),
            name,
            props,
            { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...SECRET_KEYS] },
            "chatbot",
            "WebhookConnection",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The dynamic provider: this module's exports, called by the plugin.

export { configure } from "./common";

export async function check(_olds: Plain, news: Plain): Promise<{ inputs: Plain; failures: CheckFailure[] }> {
    const { connectionInputsSchema } = require("../schema/connection") as typeof import("../schema/connection");
    const result = checkInputs(connectionInputsSchema, [...INPUT_KEYS, "adoptId"], news);
    // zod's records skip a "__proto__" key without a word, so it would pass and then be dropped
    // (found by tests/properties.test.ts). Refuse it here, where the raw input is still at hand.
    const headers = result.inputs.headers;
    if (headers !== null && typeof headers === "object" && Object.hasOwn(headers, "__proto__")) {
        const reason = 'headers.__proto__: "__proto__" cannot be used as a header name';
        result.failures.push({ property: "headers.__proto__", reason });
    }
    return result;
}

/** A new story replaces the connection (the update body has no storyId); the rest updates. */
export async function diff(_id: string, olds: Plain, news: Plain) {
    return diffInputs(INPUT_KEYS, ["storyId"], olds, news);
}

/**
 * POST, then read back what the API stored. A POST answered uncertainly (5xx, connection cut, no
 * answer) is never simply repeated: the connection it may have made is looked for and adopted
 * (`createOnce`), so a flaky network does not leave a second one behind.
 */
export async function create(inputs: Plain): Promise<{ id: string; outs: Plain }> {
    const desired = inputs as unknown as WebhookConnectionInputs;
    if (desired.adoptId !== undefined) return adopt(desired.adoptId, desired, inputs);
    const operation = `create webhook connection "${desired.name}"`;
    const secrets = secretsOf(desired);
    const id = await createOnce(
        operation,
        `connection named "${desired.name}" on story ${desired.storyId} with url ${desired.url}`,
        { path: PATH, body: body(desired, true), secrets },
        () => findMatching(desired),
    );
    try {
        return { id, outs: await readOutputs(id, `read back webhook connection ${label(inputs, id)}`, secrets) };
    } catch (e) {
        // It exists: record it (a partial failure), so the next run reads it instead of creating another.
        throw partialFailure(e, id, expectedOutputs(desired), inputs);
    }
}

export async function read(id: string, props: Plain): Promise<{ id: string; props: Plain; inputs?: Plain }> {
    const outs = await unlessNotFound(() =>
        readOutputs(id, `read webhook connection ${label(props, id)}`, secretsOf(props)),
    );
    // Gone: an empty id tells the engine to drop it from state.
    return outs ? { id, props: outs, inputs: pick(outs, INPUT_KEYS) } : { id: "", props: {} };
}

/** PUT carries the whole desired state: what the program left out is removed remotely. */
export async function update(id: string, olds: Plain, news: Plain): Promise<{ outs: Plain }> {
    const desired = news as unknown as WebhookConnectionInputs;
    const secrets = [...secretsOf(desired), ...secretsOf(olds)];
    const operation = `update webhook connection ${label(news, id)}`;
    const outs = await putThenRead(
        id,
        `${PATH}/${encodeURIComponent(id)}`,
        { operation, body: body(desired, false), secrets },
        (once) => readOutputs(id, `read back webhook connection ${label(news, id)}`, secrets, once),
        expectedOutputs(desired, olds),
        news,
    );
    return { outs };
}

/**
 * Brings an existing connection under management instead of creating one: read it, check it is on
 * the desired story, and PUT the desired state only where it differs.
 */
async function adopt(
    id: string,
    desired: WebhookConnectionInputs,
    inputs: Plain,
): Promise<{ id: string; outs: Plain }> {
    const operation = `adopt webhook connection ${id} as "${desired.name}"`;
    const secrets = secretsOf(desired);
    const current = await unlessNotFound(() => readOutputs(id, operation, secrets));
    if (!current) {
        throw new Error(
            `${operation} failed: adoptId: no webhook connection ${id} exists. Check the id in the ChatBot dashboard, or remove adoptId to create a new connection.`,
        );
    }
    if (current.storyId !== desired.storyId) {
        throw new Error(
            `${operation} failed: adoptId: connection ${id} belongs to story ${String(current.storyId)}, not to storyId ${desired.storyId}; a connection cannot move to another story.`,
        );
    }
    if (!diffInputs(INPUT_KEYS, [], current, inputs).changes) return { id, outs: current };
    // What differs is an update, like any other.
    return { id, outs: (await update(id, current, inputs)).outs };
}

/** A connection that is already gone is not an error; nor is one found gone after an uncertain DELETE. */
async function deleteConnection(id: string, props: Plain): Promise<void> {
    const operation = `delete webhook connection ${label(props, id)}`;
    await deleteAt(`${PATH}/${encodeURIComponent(id)}`, operation, secretsOf(props));
}
export { deleteConnection as delete };

// ---------------------------------------------------------------------------------------------
// Mapping between inputs, the API's bodies and outputs

/** The request body: the whole desired state. Absent token, headers or auth remove them. */
function body(d: WebhookConnectionInputs, withStory: boolean): Plain {
    const b: Plain = withStory ? { storyId: d.storyId, name: d.name, url: d.url } : { name: d.name, url: d.url };
    if (d.token !== undefined) b.token = d.token;
    if (d.headers !== undefined) b.headers = d.headers;
    if (d.auth !== undefined) b.auth = { username: d.auth.username, password: d.auth.password };
    return b;
}

/** GET the connection, as outputs. `once`: a single attempt, no retries. */
async function readOutputs(id: string, operation: string, secrets: string[], once = false): Promise<Plain> {
    const { connectionSchema } = require("../schema/connection") as typeof import("../schema/connection");
    return toOutputs(await getOne(`${PATH}/${encodeURIComponent(id)}`, connectionSchema, operation, secrets, once));
}

/** What the list shows with this story, name and url: what a create may have made. */
async function findMatching(d: WebhookConnectionInputs): Promise<Candidate[]> {
    const { z } = require("zod") as typeof import("zod");
    const { connectionListItemSchema } = require("../schema/connection") as typeof import("../schema/connection");
    const list = await api().request("GET", PATH, {
        operation: `list webhook connections to look for "${d.name}"`,
        schema: z.array(connectionListItemSchema),
    });
    return list
        .filter((c) => c.story.id === d.storyId && c.name === d.name && c.url === d.url)
        .map((c) => ({ id: c.id, createdAt: c.createdAt }));
}

function toOutputs(c: Connection): Plain {
    const out: WebhookConnectionOutputs = {
        storyId: c.story.id,
        name: c.name,
        url: c.url,
        story: { id: c.story.id, name: c.story.name },
        lastError: typeof c.error === "string" ? c.error : null,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
    };
    // An API may say "none" with an empty value: absent, as the program says it.
    if (c.token != null && c.token !== "") out.token = c.token;
    if (c.headers != null && Object.keys(c.headers).length > 0) out.headers = { ...c.headers };
    if (c.auth != null) out.auth = { username: c.auth.username, password: c.auth.password };
    return out as unknown as Plain;
}

/** The outputs a successful create or update should lead to, for a partial-failure record. */
function expectedOutputs(d: WebhookConnectionInputs, known: Plain = {}): Plain {
    // What was known before (story, timestamps) stays; every input is the program's, so a token,
    // headers or auth the write removed do not linger in state.
    const before = omit(known, INPUT_KEYS);
    return {
        story: { id: d.storyId, name: "" },
        lastError: null,
        createdAt: "",
        updatedAt: "",
        ...before,
        ...body(d, true),
    };
}

function secretsOf(v: Partial<WebhookConnectionInputs> | Plain): string[] {
    const p = v as Partial<WebhookConnectionInputs>;
    const headers = p.headers && typeof p.headers === "object" ? Object.values(p.headers) : [];
    return [p.token, p.auth?.username, p.auth?.password, ...headers].filter((s): s is string => typeof s === "string");
}
