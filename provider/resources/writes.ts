/**
 * The write-safety rules, for every resource: a create is never sent twice blindly, an update or
 * delete that may have happened is followed by a read, and a write that half-succeeded is
 * recorded so the next run reads it instead of making another. How long to wait between tries is
 * the client's business (`retrying`, `lookFor`); this file decides what to try.
 */
import { apiClient, duration, safeToRetry } from "../client/client";
import {
    ChatbotApiError,
    ConnectionError,
    NotFoundError,
    ResponseFormatError,
    ServerError,
    appendNote,
} from "../client/errors";
import { z } from "zod";
import type { Plain } from "./spec";

/** Something the list shows that a create may have made; `createdAt` where the API tells it. */
export interface Candidate {
    id: string;
    createdAt?: string;
}

/** What a create's answer must hold: the new id. */
const createdEnvelope = z.object({ id: z.string().min(1) });

/** Date headers are whole seconds, and the API's clock is only known to about a second. */
const CLOCK_SLACK_MS = 2_000;

export interface CreateRequest {
    operation: string;
    path: string;
    body: Plain;
    secrets: string[];
    /** Names what to look for in the dashboard: `connection named "orders" on story ...`. */
    lookFor: string;
    /** What the list shows that this create may have made. */
    findMatching: () => Promise<Candidate[]>;
    /** For an API that gives no creation time: list the matches before the POST, so one made
     *  by someone else is never taken for ours (one more GET per create). */
    snapshotFirst: boolean;
}

/**
 * Creates with one POST, returning the new id, so that a flaky network or a struggling API never
 * leaves a second one behind. A POST is not idempotent, so it is sent again only when the API
 * certainly did not act on it (429, API unreachable), or when it may have and the list shows it
 * did not. What the list shows made since the first POST is adopted; two or more such matches fail
 * rather than guess. After an uncertain failure:
 * - the API itself answered 500 or 503 (its envelope came back): it is done with the request. If
 *   the list shows nothing made, POST again.
 * - a gateway answered (502, 504, a 5xx without the API's envelope) or the connection was cut after
 *   sending: the API may still be making it. Keep looking for up to one request timeout; if
 *   nothing shows up, POST again.
 * - no answer in time, or a 2xx that cannot be read: keep looking as long, but never POST again;
 *   if nothing shows up, fail saying what to check.
 */
export async function createOnce(req: CreateRequest): Promise<string> {
    const client = apiClient();
    const started = Date.now();
    const postAgain = new WeakSet<Error>();
    const checkHint =
        `Before running \`pulumi up\` again, look in the ChatBot dashboard for a ${req.lookFor}: if it is there, ` +
        `adopt it with \`adoptId: "<its id>"\` instead of making another.`;
    const before = req.snapshotFirst ? new Set((await req.findMatching()).map((c) => c.id)) : new Set<string>();

    const madeSinceStart = async (): Promise<string | undefined> => {
        const found = await req.findMatching();
        // On the API's clock, learnt from this list's own Date header (so read after it).
        // Without a (readable) createdAt, every match not there before counts.
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
            const { operation, path, body, secrets } = req;
            return (await client.send("POST", path, { operation, body, secrets, schema: createdEnvelope })).id;
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
                id = await client.lookFor(madeSinceStart, apiAnswered ? 0 : client.timeoutMs);
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
            appendNote(e, `Nothing was made: after each attempt the list had no ${req.lookFor}.`);
        }
        throw e;
    }
}

export interface UpdateRequest {
    id: string;
    operation: string;
    path: string;
    body: Plain;
    secrets: string[];
    /** GET what the API holds now, as outputs; `once`: a single attempt, no retries. */
    readBack: (once: boolean) => Promise<Plain>;
    /** What the update should lead to, recorded if its read-back fails. */
    expected: Plain;
    /** The call's own inputs (they carry `__provider`). */
    inputs: Plain;
}

/**
 * PUT the whole desired state, then read back what the API stored. A PUT that may have been
 * applied records what the API now holds; a read-back that fails after a good PUT records
 * `expected`, what the PUT should have led to.
 */
export async function updateThenRead(req: UpdateRequest): Promise<Plain> {
    const { id, operation, path, body, secrets, inputs } = req;
    try {
        await apiClient().request("PUT", path, { operation, body, secrets });
    } catch (e) {
        throw await failedWrite(e, id, () => req.readBack(true), inputs);
    }
    try {
        return await req.readBack(false);
    } catch (e) {
        throw partialFailure(
            e,
            id,
            req.expected,
            inputs,
            "The update was sent; what it should hold is recorded in state, and the next `pulumi refresh` or `pulumi up` reads it back.",
        );
    }
}

/**
 * DELETE; already gone (404) is not an error. If it fails uncertainly (5xx, no answer: it may
 * have happened), one GET of the same path tells: gone is success.
 */
export async function deleteConfirmed(path: string, operation: string, secrets: string[]): Promise<void> {
    const client = apiClient();
    try {
        await unlessNotFound(() => client.request("DELETE", path, { operation, secrets }));
    } catch (e) {
        if (!(e instanceof ChatbotApiError) || !e.ambiguous) throw e;
        const stillThere = await unlessNotFound(() =>
            client.send("GET", path, { operation: `${operation}: check whether it is gone`, secrets }),
        ).catch(() => true);
        if (stillThere !== undefined) throw e;
    }
}

/** Runs a read; a 404 means the resource is gone (undefined). */
export async function unlessNotFound<T>(op: () => Promise<T>): Promise<T | undefined> {
    try {
        return await op();
    } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
    }
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
    const err = Object.assign(new Error(`${message} ${note}`), {
        id,
        // Without `__provider`, a later delete or refresh of the half-made resource could not
        // find its provider: the plugin records these properties as they are.
        properties: { ...properties, __provider: inputs.__provider },
        reasons: [message],
    });
    return err;
}

/**
 * The error for a write that failed. If the change may have been made (see `ambiguous`), what the
 * API now holds is read once and recorded, so state matches the API; the next `pulumi up` tries
 * again. Otherwise, or if it cannot be read, the error as it is.
 */
async function failedWrite(cause: unknown, id: string, readNow: () => Promise<Plain>, inputs: Plain) {
    if (cause instanceof NotFoundError) {
        return appendNote(
            cause,
            "It was deleted outside Pulumi: `pulumi refresh` drops it from state, then `pulumi up` creates it again.",
        );
    }
    if (!(cause instanceof ChatbotApiError) || !cause.ambiguous) return cause;
    try {
        const now = await readNow();
        const note = "What the API now holds is recorded in state; the next `pulumi up` tries again.";
        return partialFailure(cause, id, now, inputs, note);
    } catch {
        return cause;
    }
}
