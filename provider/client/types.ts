/**
 * The shapes the client shares with the rest of the package, written out with no dependency, so
 * that declarations reaching them (a resource's spec, the check failures) never reach zod's or
 * undici's.
 */

/** The documented shape of an answer: anything with zod's `safeParse`. Spelt out here so that
 *  the package's public declarations never reach zod's. */
export interface Schema<T> {
    safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<Issue> } };
}

/** A problem a schema found: where, and what. */
export interface Issue {
    path: ReadonlyArray<PropertyKey>;
    message: string;
    code?: string;
    /** A record key's own problems (zod's `invalid_key`). */
    issues?: ReadonlyArray<{ message: string }>;
    /** The keys an object should not have (zod's `unrecognized_keys`). */
    keys?: ReadonlyArray<string>;
}

/** A documented success envelope: `{ code: 201, type: "created" }`. */
export interface Envelope {
    code: number;
    type: string;
}
