/**
 * What every resource's provider does the same way: how the provider object is handed to Pulumi,
 * how secret inputs are marked, how inputs are compared, how a create avoids duplicates, how a
 * half-done create or update is recorded.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "path";
import type { z } from "zod";
import type { ChatbotApiError } from "../client/errors";
import { UNKNOWN, type CheckFailure } from "../schema/validate";

/** Property bags as they cross the plugin: plain JSON. */
export type Plain = Record<string, unknown>;

/**
 * The provider object for a resource module: the module's own exports. Installed under
 * node_modules (as npm, yarn and pnpm install it), the SDK serializes it as a `require()` of the
 * package's `providers/<name>` entry. Anywhere else (a linked checkout) the SDK would copy the
 * module's code by value, so a small object that requires the same entry by name stands in.
 */
export function providerModule(mod: NodeModule): pulumi.dynamic.ResourceProvider {
    if (mod.filename.split(path.sep).includes("node_modules")) {
        return mod.exports as pulumi.dynamic.ResourceProvider;
    }
    return delegatingProvider(`pulumi-chatbot/providers/${path.basename(mod.filename).replace(/\.[jt]s$/, "")}`);
}

function delegatingProvider(entry: string): pulumi.dynamic.ResourceProvider {
    type P = Required<pulumi.dynamic.ResourceProvider>;
    const impl = (): P => require(entry);
    return {
        configure: (req) => impl().configure(req),
        check: (olds, news) => impl().check(olds, news),
        diff: (id, olds, news) => impl().diff(id, olds, news),
        create: (inputs) => impl().create(inputs),
        read: (id, props) => impl().read(id, props),
        update: (id, olds, news) => impl().update(id, olds, news),
        delete: (id, props) => impl().delete(id, props),
    };
}

/** Marks an input secret, so state and outputs keep it encrypted; absent stays absent. */
export function secretIfSet<T>(v: pulumi.Input<T> | undefined): pulumi.Output<pulumi.Unwrap<T>> | undefined {
    return v === undefined ? undefined : pulumi.secret(v);
}

/** Desired (new) against stored (old) value of one input. Absent and null are the same; an
 *  unknown (preview) counts as a change; object key order does not matter. */
export function inputsDiffer(old: unknown, desired: unknown): boolean {
    return !sameValue(old ?? undefined, desired ?? undefined);
}

function sameValue(a: unknown, b: unknown): boolean {
    if (b === UNKNOWN) return false;
    if (a === b) return true;
    if (Array.isArray(a) || Array.isArray(b)) {
        return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
    }
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    const ka = Object.keys(a).filter((k) => (a as Plain)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Plain)[k] !== undefined);
    return ka.length === kb.length && kb.every((k) => sameValue((a as Plain)[k], (b as Plain)[k]));
}

/**
 * The error for "it exists, but a later step failed". The plugin turns an error carrying `id` into
 * the engine's partial-failure result, so the resource is recorded with these properties and the
 * next run reads it instead of making another. `inputs` are the call's own (they carry `__provider`).
 */
export function partialFailure(
    cause: unknown,
    id: string,
    properties: Plain,
    inputs: Plain,
    note = `It exists (id ${id}) and is recorded in state; the next \`pulumi up\` or \`pulumi refresh\` reads it back.`,
): Error {
    const message = cause instanceof Error ? cause.message : String(cause);
    const err = new Error(`${message} ${note}`) as Error & { id: string; properties: Plain; reasons: string[] };
    err.id = id;
    // The plugin records these properties as they are: without `__provider`, a later delete or
    // refresh of the half-made resource could not find its provider.
    err.properties = { ...properties, __provider: inputs.__provider };
    err.reasons = [message];
    return err;
}

/** check: keeps the resource's own inputs (not the plugin's `__provider`, not null or absent
 *  ones) and validates them; unknowns pass. */
export function checkInputs(
    schema: z.ZodType,
    keys: ReadonlyArray<string>,
    news: Plain,
): { inputs: Plain; failures: CheckFailure[] } {
    const { validate } = require("../schema/validate") as typeof import("../schema/validate");
    const inputs: Plain = {};
    for (const key of keys) if (news[key] !== undefined && news[key] !== null) inputs[key] = news[key];
    const result = validate(schema, inputs);
    return { inputs, failures: result.ok ? [] : result.failures };
}

/** diff: desired inputs against the outputs in state (the plugin passes no old inputs), so a
 *  change made by hand and found by refresh shows as a difference from the program. */
export function diffInputs(
    keys: ReadonlyArray<string>,
    replaceKeys: ReadonlyArray<string>,
    olds: Plain,
    news: Plain,
): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
    const replaces = replaceKeys.filter((k) => inputsDiffer(olds[k], news[k]));
    const changes = replaces.length > 0 || keys.some((k) => inputsDiffer(olds[k], news[k]));
    return { changes, replaces, deleteBeforeReplace: false };
}

/** Runs a read; a 404 means the resource is gone (undefined). */
export async function unlessNotFound<T>(op: () => Promise<T>): Promise<T | undefined> {
    const { NotFoundError } = require("../client/errors") as typeof import("../client/errors");
    try {
        return await op();
    } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
    }
}

/**
 * DELETE at `path`; already gone (404) is not an error. If it fails uncertainly (5xx, no answer:
 * it may have happened), one GET of the same path tells: gone is success.
 */
export async function deleteAt(path: string, operation: string, secrets: string[]): Promise<void> {
    const client = api();
    try {
        await unlessNotFound(() => client.request("DELETE", path, { operation, secrets }));
    } catch (e) {
        if (!(e instanceof Error) || !(e as ChatbotApiError).ambiguous) throw e;
        const stillThere = await unlessNotFound(() =>
            client.send("GET", path, { operation: `${operation}: check whether it is gone`, secrets }),
        ).catch(() => true);
        if (stillThere !== undefined) throw e;
    }
}

/** What a create's answer must hold: the new id. */
let envelopeSchema: import("zod").ZodType<{ id: string }> | undefined;
function createdEnvelopeSchema() {
    // Built once: zod compiles a schema on its first parse.
    if (!envelopeSchema) {
        const { z } = require("zod") as typeof import("zod");
        envelopeSchema = z.object({ id: z.string().min(1) });
    }
    return envelopeSchema;
}

/** Something the list shows that a create may have made; `createdAt` where the API tells it. */
export interface Candidate {
    id: string;
    createdAt?: string;
}

/** Date headers are whole seconds, and the API's clock is only known to about a second. */
const CLOCK_SLACK_MS = 2_000;

/**
 * Creates with one POST of `request.body` to `request.path`, returning the new id, so that a flaky
 * network or a struggling API never leaves a second one behind. A POST is not idempotent, so it is sent again only when the
 * API certainly did not act on it (429, API unreachable), or when it may have and the list
 * (`findMatching`) shows it did not. What the list shows made since the first POST is adopted;
 * two or more such matches fail rather than guess. After an uncertain failure:
 * - the API itself answered 500 or 503 (its envelope came back): it is done with the request. If
 *   the list shows nothing made, POST again.
 * - a gateway answered (502, 504, a 5xx without the API's envelope) or the connection was cut after
 *   sending: the API may still be making it. Keep looking for up to one request timeout; if
 *   nothing shows up, POST again.
 * - no answer in time, or a 2xx that cannot be read: keep looking as long, but never POST again;
 *   if nothing shows up, fail saying what to check.
 * `lookFor` names what to look for in the dashboard: `connection named "orders" on story ...`.
 * `snapshotFirst`: for an API that gives no creation time, list the matches before the first POST
 * so that one made by someone else is never taken for ours (one more GET per create).
 */
export async function createOnce(
    operation: string,
    lookFor: string,
    request: { path: string; body: Plain; secrets: string[] },
    findMatching: () => Promise<Candidate[]>,
    snapshotFirst = false,
): Promise<string> {
    const { ChatbotApiError, ConnectionError, ResponseFormatError, ServerError, appendNote } =
        require("../client/errors") as typeof import("../client/errors");
    const { duration, safeToRetry, sleep } = require("../client/client") as typeof import("../client/client");
    const client = api();
    const started = Date.now();
    const postAgain = new WeakSet<Error>();
    const checkHint =
        `Before running \`pulumi up\` again, look in the ChatBot dashboard for a ${lookFor}: if it is there, ` +
        `adopt it with \`adoptId: "<its id>"\` instead of making another.`;
    const before = snapshotFirst ? new Set((await findMatching()).map((c) => c.id)) : new Set<string>();

    const madeSinceStart = async (): Promise<string | undefined> => {
        const found = await findMatching();
        // On the API's clock, learnt from the list's Date header. Without a (readable) createdAt,
        // every match not there before counts.
        const since = started + client.clockOffsetMs - CLOCK_SLACK_MS;
        const made = found.filter((c) => {
            const at = c.createdAt === undefined ? NaN : Date.parse(c.createdAt);
            return !before.has(c.id) && (Number.isNaN(at) || at >= since);
        });
        if (made.length > 1) {
            throw new Error(
                `${made.length} were made since the create began (ids ${made.map((c) => c.id).join(", ")}), so which one is this resource's cannot be told`,
            );
        }
        return made[0]?.id;
    };

    let verifiedNothingMade: Error | undefined;
    const attempt = async (): Promise<string> => {
        try {
            const { path, body, secrets } = request;
            return (await client.send("POST", path, { operation, body, secrets, schema: createdEnvelopeSchema() })).id;
        } catch (e) {
            if (!(e instanceof ChatbotApiError) || !e.ambiguous) {
                if (e instanceof ChatbotApiError && safeToRetry("POST", e)) postAgain.add(e);
                throw e;
            }
            const neverPostAgain =
                (e instanceof ConnectionError && e.reason === "timeout") || e instanceof ResponseFormatError;
            const apiAnswered =
                e instanceof ServerError && e.statusType !== undefined && (e.status === 500 || e.status === 503);
            let id: string | undefined;
            try {
                id = await madeSinceStart();
                const deadline = Date.now() + (apiAnswered ? 0 : client.timeoutMs);
                for (let n = 1; !id && Date.now() < deadline; n++) {
                    // At least 50 ms apart, so a zero base delay cannot turn this into a busy loop.
                    const pause = Math.max(
                        50,
                        Math.min(client.retry.baseDelayMs * 2 ** (n - 1), client.retry.maxDelayMs),
                    );
                    await sleep(Math.max(0, Math.min(pause, deadline - Date.now())));
                    id = await madeSinceStart();
                }
            } catch (lookError) {
                const why = lookError instanceof Error ? lookError.message : String(lookError);
                throw appendNote(e, `Whether it was made is unknown: looking for it failed (${why}). ${checkHint}`);
            }
            if (id) return id;
            if (neverPostAgain) {
                const waited = duration(client.timeoutMs);
                throw appendNote(
                    e,
                    `It may yet be made: nothing like it showed up within ${waited} more. ${checkHint}`,
                );
            }
            verifiedNothingMade = e;
            postAgain.add(e);
            throw e;
        }
    };

    try {
        return await client.retrying(attempt, (e) => postAgain.has(e));
    } catch (e) {
        if (e instanceof Error && e === verifiedNothingMade) {
            appendNote(e, `Nothing was made: after each attempt the list had no ${lookFor}.`);
        }
        throw e;
    }
}

/** The note of a partial failure after an update whose read-back failed. */
const UPDATE_RECORDED =
    "The update was sent; what it should hold is recorded in state, and the next `pulumi refresh` or `pulumi up` reads it back.";

/**
 * An update: PUT the whole desired state to `path`, then read back what the API stored. A PUT
 * that may have been applied records what the API now holds (`failedWrite`); a read-back that
 * fails after a good PUT records `expected`, what the PUT should have led to.
 */
export async function putThenRead(
    id: string,
    path: string,
    write: { operation: string; body: Plain; secrets: string[] },
    readBack: (once: boolean) => Promise<Plain>,
    expected: Plain,
    inputs: Plain,
): Promise<Plain> {
    try {
        await api().request("PUT", path, write);
    } catch (e) {
        throw await failedWrite(e, id, () => readBack(true), inputs);
    }
    try {
        return await readBack(false);
    } catch (e) {
        throw partialFailure(e, id, expected, inputs, UPDATE_RECORDED);
    }
}

/**
 * The error for an update (or other write) that failed. If the change may have been made (see
 * `ambiguous`), what the API now holds is read once and recorded, so state matches the API; the
 * next `pulumi up` tries again. Otherwise, or if it cannot be read, the error as it is.
 */
async function failedWrite(cause: unknown, id: string, readNow: () => Promise<Plain>, inputs: Plain) {
    const { NotFoundError, appendNote } = require("../client/errors") as typeof import("../client/errors");
    if (cause instanceof NotFoundError) {
        return appendNote(
            cause,
            "It was deleted outside Pulumi: `pulumi refresh` drops it from state, then `pulumi up` creates it again.",
        );
    }
    if (!(cause instanceof Error) || !(cause as ChatbotApiError).ambiguous) return cause;
    try {
        const now = await readNow();
        return partialFailure(
            cause,
            id,
            now,
            inputs,
            "What the API now holds is recorded in state; the next `pulumi up` tries again.",
        );
    } catch {
        return cause;
    }
}

/** `"orders" (5f3c…)` where the name is known, else the id. */
export function label(props: Plain, id: string): string {
    return typeof props.name === "string" ? `"${props.name}" (${id})` : id;
}

/** The API client for the provider's settings. */
export function api() {
    return (require("../config") as typeof import("../config")).apiClient();
}

/** Copies all but the listed keys. */
export function omit(o: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = { ...o };
    for (const k of keys) delete out[k];
    return out;
}

/** Copies the listed keys that are set. */
export function pick(o: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = {};
    for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
    return out;
}

/** The provider's `configure`: records stack config (`chatbot:token`, `chatbot:apiUrl`). */
export function configure(req: { config: import("../config").ProviderConfig }): Promise<void> {
    (require("../config") as typeof import("../config")).configureFromStack(req.config);
    return Promise.resolve();
}

/** GET one resource, parsed with its schema. `once`: a single attempt, no retries. */
export function getOne<T>(
    path: string,
    schema: z.ZodType<T>,
    operation: string,
    secrets: string[],
    once = false,
): Promise<T> {
    const client = api();
    const opts = { operation, secrets, schema };
    return once ? client.send("GET", path, opts) : client.request("GET", path, opts);
}
