/**
 * The write-safety rules, for every resource: a create is never sent twice blindly, an update or
 * delete that may have happened is followed by a read, and a write that half-succeeded is
 * recorded so the next run reads it instead of making another. How long to wait between tries is
 * the client's business (`retrying`, `lookFor`); this file decides what to try.
 */
import {
    BadRequestError,
    ChatbotApiError,
    ConnectionError,
    NotFoundError,
    ServerError,
    WriteNotAppliedError,
    appendNote,
} from "../client/errors";
import type { ChatbotClient } from "../client/client";
import { duration, safeToRetry } from "../client/retry";
import type { Envelope } from "../client/types";
import { apiClient } from "../config";
import { isVerificationFailure } from "../webhook/verification";
import * as z from "../schema/zod";
import type { Plain } from "./spec";

/** Something the list shows that a create may have made; `createdAt` where the API tells it. */
export interface Candidate {
    id: string;
    createdAt?: string;
}

/** What a create's answer must hold: the new id. */
const createdEnvelope = z.object({ id: z.string().min(1) });

/** What ChatBot needs when it refuses a write because the backend failed its verification request
 *  (help center, "Verification request"): added to that refusal's message. */
const VERIFICATION_NOTE =
    "ChatBot calls the url with a verification request when a connection is made, or its url or token change: " +
    "the backend must be deployed and answer it (the handlers of pulumi-chatbot/webhook do, given the connection's token), " +
    "and the connection must depend on the backend (use an output of the backend as its url).";

/** `e`, with what to do added when it is ChatBot refusing a webhook its verification request failed. */
function explainRefusal(e: unknown): unknown {
    return e instanceof BadRequestError && isVerificationFailure(e.apiMessage) ? appendNote(e, VERIFICATION_NOTE) : e;
}

/** Date headers are whole seconds, and the API's clock is only known to about a second. */
const CLOCK_SLACK_MS = 2_000;

export interface CreateRequest<T> {
    operation: string;
    path: string;
    body: Plain;
    secrets: string[];
    envelope: Envelope;
    /** Names what to look for in the dashboard: `connection named "orders" on story ...`. */
    lookFor: string;
    /** What the list shows that this create may have made. */
    findMatching: () => Promise<Candidate[]>;
    /** For an API that gives no creation time: list the matches before the POST, so one made
     *  by someone else is never taken for ours (one more GET per create). */
    snapshotFirst: boolean;
    /** Reads what was made (with the client's GET retries); undefined while the API does not show it. */
    readMade: (id: string) => Promise<T | undefined>;
    /** Whether the list shows this id. */
    listed: (id: string) => Promise<boolean>;
}

/** What a create made: its id and, unless reading it failed, what the API shows of it. */
export type Made<T> = { id: string; shown: T } | { id: string; shown?: undefined; readError: unknown };

/**
 * Creates with one POST, returning the new id, so that a flaky network or a struggling API never
 * leaves a second one behind. A POST is not idempotent, so it is sent again only when the API
 * certainly did not act on it (429, API unreachable), or when it may have and the list shows it
 * did not. What the list shows made since the first POST is adopted; two or more such matches fail
 * rather than guess. After an uncertain failure:
 * - the API itself answered 500 or 503 (its envelope came back): it is done with the request. If
 *   the list shows nothing made, POST again.
 * - a gateway answered (502, 504, a 5xx without the API's envelope), something other than the API
 *   answered 200 (not the documented envelope: a proxy, a captive portal), or the connection was
 *   cut after sending: the API may still be making it. Keep looking for up to one request
 *   timeout; if nothing shows up, POST again.
 * - no answer in time: the request may still be on its way. Keep looking as long, but never POST
 *   again; if nothing shows up, fail saying what to check.
 * No create is taken as done until the API shows it: what was made is read back (for up to one
 * request timeout while a read does not show it yet). If neither a read nor the list shows the id
 * the API answered, nothing was made, and the POST is sent again.
 */
export async function createOnce<T>(req: CreateRequest<T>): Promise<Made<T>> {
    const run = new CreateRun(req, apiClient());
    await run.snapshot();
    try {
        return await run.client.retrying(
            () => run.attempt(),
            (e) => run.postAgain.has(e),
        );
    } catch (e) {
        if (e instanceof Error && e === run.verifiedNothingMade) {
            appendNote(e, `Nothing was made: after each attempt the list had no ${req.lookFor}.`);
        }
        throw explainRefusal(e);
    }
}

/** One create, across its attempts: what was there before, and what each attempt learnt. */
class CreateRun<T> {
    readonly started = Date.now();
    /** The failures after which the POST may be sent again. */
    readonly postAgain = new WeakSet<Error>();
    /** The last failure after which the list showed nothing made. */
    verifiedNothingMade: Error | undefined;
    private before = new Set<string>();
    private readonly checkHint: string;

    constructor(
        private readonly req: CreateRequest<T>,
        readonly client: ChatbotClient,
    ) {
        this.checkHint =
            `Before running \`pulumi up\` again, look in the ChatBot dashboard for a ${req.lookFor}: if it is there, ` +
            `adopt it with \`adoptId: "<its id>"\` instead of making another.`;
    }

    /** For an API that gives no creation time: the matches that exist before the POST. */
    async snapshot(): Promise<void> {
        if (this.req.snapshotFirst) this.before = new Set((await this.req.findMatching()).map((c) => c.id));
    }

    /** One POST; after an uncertain failure, what the list shows it made; then the read-back. */
    async attempt(): Promise<Made<T>> {
        let id: string;
        try {
            const { operation, path, body, secrets, envelope } = this.req;
            id = (await this.client.send("POST", path, { operation, body, secrets, envelope, schema: createdEnvelope }))
                .id;
        } catch (e) {
            id = await this.lookAfter(e);
        }
        return this.confirm(id);
    }

    /** The one match made since the create began, if any; two or more fail rather than guess. */
    private async madeSinceStart(): Promise<string | undefined> {
        const found = await this.req.findMatching();
        // On the API's clock, learnt from this list's own Date header (so read after it).
        // Without a (readable) createdAt, every match not there before counts.
        const since = this.started + this.client.clockOffsetMs - CLOCK_SLACK_MS;
        const made = found.filter((c) => {
            const at = c.createdAt === undefined ? NaN : Date.parse(c.createdAt);
            return !this.before.has(c.id) && (Number.isNaN(at) || at >= since);
        });
        if (made.length > 1) {
            throw new Error(
                `${made.length} were made since the create began (ids ${made.map((c) => c.id).join(", ")}), so which one is this resource's cannot be told`,
            );
        }
        return made[0]?.id;
    }

    /** After an uncertain POST: the id of what it made, found in the list; else it throws. */
    private async lookAfter(e: unknown): Promise<string> {
        if (!(e instanceof ChatbotApiError) || !e.ambiguous) {
            if (e instanceof ChatbotApiError && safeToRetry("POST", e)) this.postAgain.add(e);
            throw e;
        }
        const neverPostAgain = e instanceof ConnectionError && e.reason === "timeout";
        const apiAnswered =
            e instanceof ServerError && e.statusType !== undefined && (e.status === 500 || e.status === 503);
        let id: string | undefined;
        try {
            id = await this.client.lookFor(() => this.madeSinceStart(), apiAnswered ? 0 : this.client.timeoutMs);
        } catch (lookError) {
            const why = lookError instanceof Error ? lookError.message : String(lookError);
            throw appendNote(e, `Whether it was made is unknown: looking for it failed (${why}). ${this.checkHint}`);
        }
        if (id) return id;
        if (neverPostAgain) {
            const waited = duration(this.client.timeoutMs);
            throw appendNote(
                e,
                `It may yet be made: nothing like it showed up within ${waited} more. ${this.checkHint}`,
            );
        }
        this.verifiedNothingMade = e;
        this.postAgain.add(e);
        throw e;
    }

    /** The API shows what it made: read it back; a read that fails still leaves it made. */
    private async confirm(id: string): Promise<Made<T>> {
        let shown: T | undefined;
        try {
            shown = await this.client.lookFor(() => this.req.readMade(id), this.client.timeoutMs);
        } catch (readError) {
            return { id, readError };
        }
        if (shown !== undefined) return { id, shown };
        const why = `The API answered that it made ${id}, but reading it shows nothing`;
        if (await this.req.listed(id).catch(() => true))
            return { id, readError: new Error(`${this.req.operation} failed: ${why}.`) };
        const notApplied = new WriteNotAppliedError(
            { operation: this.req.operation },
            [],
            `${why}, nor does the list.`,
        );
        this.verifiedNothingMade = notApplied;
        this.postAgain.add(notApplied);
        throw notApplied;
    }
}

/**
 * Reads that follow a write (the read-back, the check that a delete took) go through the client's
 * GET retries: a passing 429, 5xx or reset there must not fail a write the API carried out. When
 * such a read has spent its own retries, the write is not sent again for it: its error is final.
 */
const spentReads = new WeakSet<object>();
async function readAfterWrite<T>(read: () => Promise<T>): Promise<T> {
    try {
        return await read();
    } catch (e) {
        if (e instanceof Error) spentReads.add(e);
        throw e;
    }
}

/** Whether a PUT or DELETE attempt is sent again after `e`: it is idempotent, so when the API
 *  did not show it done or the answer was uncertain, unless a read after it gave up. */
function idempotentRetry(method: "PUT" | "DELETE"): (e: ChatbotApiError) => boolean {
    return (e) => !spentReads.has(e) && (e instanceof WriteNotAppliedError || safeToRetry(method, e));
}

export interface UpdateRequest {
    id: string;
    operation: string;
    path: string;
    body: Plain;
    secrets: string[];
    envelope: Envelope;
    /** GET what the API holds now, as outputs (with the client's GET retries). */
    read: () => Promise<Plain>;
    /** The inputs in which `now` differs from what was sent (names, never values). */
    differs: (now: Plain) => string[];
    /** What the update should lead to, recorded if it cannot be read back. */
    expected: Plain;
    /** The call's own inputs (they carry `__provider`). */
    inputs: Plain;
}

/**
 * PUT the whole desired state, then read it back: done only when the API shows what was sent.
 * An uncertain PUT (5xx, no answer, an answer that is not the documented envelope) and a PUT the
 * read-back does not show are sent again, as the retry policy allows (PUT is idempotent). A
 * give-up names the fields that differ and records what the API holds, so state matches it and
 * the next `pulumi up` tries again; if it could not be read, what the PUT should have led to.
 */
export async function updateVerified(req: UpdateRequest): Promise<Plain> {
    const { id, operation, path, body, secrets, envelope, inputs } = req;
    const client = apiClient();
    let shown: Plain | undefined;
    let answered = false;
    const attempt = async (): Promise<Plain> => {
        let uncertain: ChatbotApiError | undefined;
        try {
            await client.send("PUT", path, { operation, body, secrets, envelope });
            answered = true;
        } catch (e) {
            if (!(e instanceof ChatbotApiError) || !e.ambiguous) throw e;
            uncertain = e;
        }
        shown = await readAfterWrite(req.read);
        const fields = req.differs(shown);
        if (fields.length === 0) return shown;
        const summary = `Read back, it holds ${fields.join(", ")} not as sent.`;
        throw uncertain ? appendNote(uncertain, summary) : new WriteNotAppliedError({ operation }, fields, summary);
    };
    try {
        return await client.retrying(attempt, idempotentRetry("PUT"));
    } catch (e) {
        if (e instanceof NotFoundError) {
            throw appendNote(
                e,
                "It was deleted outside Pulumi: `pulumi refresh` drops it from state, then `pulumi up` creates it again.",
            );
        }
        if (!(e instanceof ChatbotApiError) || !(e.ambiguous || answered || shown)) throw explainRefusal(e);
        // It may have changed: state must say what the API holds.
        if (!shown && !spentReads.has(e)) shown = await req.read().catch(() => undefined);
        if (shown) {
            const note = "What the API now holds is recorded in state; the next `pulumi up` tries again.";
            throw partialFailure(e, id, shown, inputs, note);
        }
        if (answered) {
            const note =
                "The update was sent; what it should hold is recorded in state, and the next `pulumi refresh` or `pulumi up` reads it back.";
            throw partialFailure(e, id, req.expected, inputs, note);
        }
        throw e;
    }
}

/**
 * DELETE, then read: done only when the API no longer shows it (404), whatever the DELETE's
 * answer was. One still there is deleted again as the retry policy allows (DELETE is idempotent);
 * a give-up keeps it in state. `client`: the provider's, unless a caller has its own (`sweep`).
 */
export async function deleteVerified(
    path: string,
    operation: string,
    secrets: string[],
    envelope: Envelope,
    client: ChatbotClient = apiClient(),
): Promise<void> {
    const attempt = async (): Promise<void> => {
        let uncertain: ChatbotApiError | undefined;
        try {
            await client.send("DELETE", path, { operation, secrets, envelope });
        } catch (e) {
            if (!(e instanceof NotFoundError)) {
                if (!(e instanceof ChatbotApiError) || !e.ambiguous) throw e;
                uncertain = e;
            }
        }
        const check = { operation: `${operation}: check that it is gone`, secrets };
        if ((await readAfterWrite(() => unlessNotFound(() => client.request("GET", path, check)))) === undefined)
            return;
        const summary = "Read back, it is still there.";
        throw uncertain ? appendNote(uncertain, summary) : new WriteNotAppliedError({ operation }, [], summary);
    };
    await client.retrying(attempt, idempotentRetry("DELETE"));
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
    const message = `${cause instanceof Error ? cause.message : String(cause)} ${note}`;
    const err = Object.assign(new Error(message), {
        id,
        // Without `__provider`, a later delete or refresh of the half-made resource could not
        // find its provider: the plugin records these properties as they are.
        properties: { ...properties, __provider: inputs.__provider },
        // The pulumi CLI shows a half-done resource's reasons, not the error's message.
        reasons: [message],
    });
    return err;
}
