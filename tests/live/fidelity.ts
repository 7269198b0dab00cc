/**
 * The fidelity record: for each documented behaviour, what the simulator answered and what the
 * live API answered, as each contract case saw it. Only shapes are kept (the HTTP status, the
 * envelope's `status.type`, which keys were present, and whether `error` was null or false),
 * never a value that could be secret. docs/api-fidelity.json holds the observations, each side's
 * rows kept until a run of that side replaces them; docs/api-fidelity.md is rendered from it
 * (`npm run test:live -- --record`). A case whose side differs from the other side's record fails
 * naming its behaviour.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Each behaviour the tier checks, and what the API description says of it (its section). */
export const DOCUMENTED = {
    "v2 create":
        "POST /v2/integrations/webhook: 201, an envelope of `id`, `timestamp`, `status` {code 201, type `created`} (4.1, 2.3)",
    "v2 single read":
        "GET /v2/integrations/webhook/:id: every field: `id`, `story` {id, name}, `name`, `url`, `token`, `headers`, `auth` {username, password}, `error` (null when none), `createdAt`, `updatedAt` (2.1)",
    "v2 list read":
        "GET /v2/integrations/webhook: an array; each item `id`, `story`, `name`, `url`, `error` (false when none), `createdAt`, `updatedAt`, and no `token`, `headers` or `auth` (2.1)",
    "v2 update":
        "PUT /v2/integrations/webhook/:id (name, url, the optional fields; no storyId): 200, an envelope of `timestamp`, `status` {code 200, type `success`} (4.1)",
    "v2 delete":
        "DELETE /v2/integrations/webhook/:id: 200, an envelope of `timestamp`, `status` {code 200, type `success`} (4.1)",
    "v2 missing id":
        "GET /v2/integrations/webhook/:id of an id that does not exist: 404 (7); its envelope is not shown",
    "wrong token": "a request with an invalid developer access token: 401 (5, 7); its envelope is not shown",
    "v2 limit: name over 128": "`name` is 1 to 128 characters: 400 for 129 (4.1, 7)",
    "v2 limit: url over 1024": "`url` is 1 to 1024 characters: 400 for 1025 (4.1, 7)",
    "v2 limit: token over 1024": "`token` is 1 to 1024 characters: 400 for 1025 (4.1, 7)",
    "v2 limit: token empty": "`token` is 1 to 1024 characters: 400 for an empty one (4.1, 7)",
    "v2 limit: headers over 10": "`headers` has 1 to 10 entries: 400 for 11 (4.1, 7)",
    "v2 limit: headers empty": "`headers` has 1 to 10 entries: 400 for none (4.1, 7)",
    "v2 limit: auth.username over 1024": "`auth.username` is 1 to 1024 characters: 400 for 1025 (2.1, 7)",
    "v2 limit: auth without password": "`auth.password` is required inside `auth`: 400 without it (2.1, 7)",
    "v2 limit: storyId not 24": "`storyId` is 24 characters: 400 for 23 (4.1, 7)",
    "legacy create": "POST /webhooks: 200, an envelope of `id`, `timestamp`, `status` {code 200, type `success`} (4.2)",
    "legacy single read":
        "GET /webhooks/:ID: `id`, `name`, `url`, `token`, `headers` [{name, value}], `auth`, `error` (an object {date, message} when noted) (2.2)",
    "legacy list read": "GET /webhooks: an array; each item `id`, `name`, `url`, `error` (2.2)",
    "legacy update":
        "PUT /webhooks/:ID: 200, an envelope of `id`, `timestamp`, `status` {code 200, type `success`} (4.2)",
    "legacy delete":
        "DELETE /webhooks/:ID: 200, an envelope of `id`, `timestamp`, `status` {code 200, type `success`} (4.2)",
    "legacy missing id": "GET /webhooks/:ID of an id that does not exist: 404 (7)",
    "legacy limit: name over 1024": "`name` is 1 to 1024 characters: 400 for 1025 (2.2, 7)",
    "legacy limit: token over 1024": "`token` is 1 to 1024 characters: 400 for 1025 (2.2, 7)",
    "legacy limit: headers over 99": "`headers` has 1 to 99 items: 400 for 100 (2.2, 7)",
    "legacy limit: header name over 128": "a header's `name` is 1 to 128 characters: 400 for 129 (2.2, 7)",
    "legacy limit: header value over 1024": "a header's `value` is 1 to 1024 characters: 400 for 1025 (2.2, 7)",
    "legacy limit: url not public": "`url` must be a public URL: 400 for a loopback one (2.2, 7)",
    "verification request":
        "on adding a webhook ChatBot sends `GET <url>?challenge=<random>&token=<token>`; a backend answering 200 with the challenge gets its connection (help center, 10)",
    "verification refused":
        "a backend that refuses the verification (401, wrong token): the webhook is not accepted; the API's answer is not shown anywhere (10)",
} as const;

export type Behaviour = keyof typeof DOCUMENTED;

/** What one side answered: never a value that could be secret. */
export interface Seen {
    status: number | undefined;
    /** The envelope's `status.type`, where it has one. */
    type?: string;
    /** The keys present (`status.code`, `headers[].name`), `error=null` or `error=false`. */
    keys: string[];
}

interface Row extends Seen {
    /** The day it was seen (YYYY-MM-DD). */
    date: string;
}

interface FidelityRecord {
    simulator: { [b: string]: Row };
    live: { [b: string]: Row };
}

const root = path.resolve(__dirname, "..", "..");
export const RECORD_JSON = path.join(root, "docs", "api-fidelity.json");
export const RECORD_MD = path.join(root, "docs", "api-fidelity.md");

function readRecord(): FidelityRecord {
    if (!fs.existsSync(RECORD_JSON)) return { simulator: {}, live: {} };
    return JSON.parse(fs.readFileSync(RECORD_JSON, "utf8")) as FidelityRecord;
}

/** This run's observations. */
const seenNow = new Map<Behaviour, Seen>();

/** The keys of a JSON answer, one level into objects (and into an array's first item); `null` and
 *  `false` values are named as such (the list read's `error`). Values are never kept. */
export function shape(json: unknown, at = ""): string[] {
    if (json === null || typeof json !== "object" || Array.isArray(json)) return [];
    const keys: string[] = [];
    for (const [k, v] of Object.entries(json as { [k: string]: unknown })) {
        const name = `${at}${k}`;
        if (v === null || v === false) keys.push(`${name}=${String(v)}`);
        else if (Array.isArray(v)) keys.push(`${name}[]`, ...(at === "" ? shape(v[0], `${name}[].`) : []));
        else if (typeof v === "object") keys.push(...(at === "" ? shape(v, `${name}.`) : [`${name}{}`]));
        else keys.push(name);
    }
    return keys.sort();
}

/** What an answer shows: its HTTP status, envelope type and keys. */
export function seenOf(status: number | undefined, json: unknown): Seen {
    const type = (json as { status?: { type?: unknown } } | undefined)?.status?.type;
    return { status, ...(typeof type === "string" ? { type } : {}), keys: shape(json) };
}

/**
 * Notes what this run saw of `behaviour`; fails, naming it, when the other side's record differs
 * (in a live run, the simulator's; against the simulator, the live API's, where it ran).
 */
export function observe(behaviour: Behaviour, seen: Seen, live: boolean): void {
    seenNow.set(behaviour, seen);
    const other = readRecord()[live ? "simulator" : "live"][behaviour];
    if (!other) return;
    const [mine, theirs] = [describe(seen), describe(other)];
    const [me, them] = live ? ["the live API", "the simulator"] : ["the simulator", "the live API"];
    assert.equal(mine, theirs, `"${behaviour}": ${me} answered ${mine}; ${them} answered ${theirs} (${other.date})`);
}

function describe(s: Seen): string {
    return `${s.status === undefined ? "no answer" : `HTTP ${s.status}`}${s.type ? ` (${s.type})` : ""}; ${s.keys.length > 0 ? s.keys.join(", ") : "no keys"}`;
}

/** Merges this run's observations into its side of the record and renders the doc; returns the
 *  files written. */
export function writeRecord(live: boolean): string {
    const record = readRecord();
    const date = new Date().toISOString().slice(0, 10);
    const side = record[live ? "live" : "simulator"];
    for (const [b, s] of seenNow) side[b] = { ...s, date };
    const ordered = (rows: { [b: string]: Row }) =>
        Object.fromEntries(
            (Object.keys(DOCUMENTED) as Behaviour[]).filter((b) => rows[b]).map((b) => [b, rows[b]] as const),
        );
    const out: FidelityRecord = { simulator: ordered(record.simulator), live: ordered(record.live) };
    fs.writeFileSync(RECORD_JSON, `${JSON.stringify(out, null, 2)}\n`);
    fs.writeFileSync(RECORD_MD, render(out));
    // As `npm run lint` checks it (prettier's own layout of the JSON).
    execFileSync(path.join(root, "node_modules", ".bin", "prettier"), ["--write", "--log-level=warn", RECORD_JSON]);
    return `${path.relative(root, RECORD_MD)} and ${path.relative(root, RECORD_JSON)}`;
}

function render(record: FidelityRecord): string {
    const cell = (row: Row | undefined) => (row ? `${describe(row)} (${row.date})` : "not run");
    const lines = [
        "# Where the simulator and the ChatBot API agree",
        "",
        "Written by `npm run test:live -- --record` from [api-fidelity.json](api-fidelity.json); do not edit by",
        "hand. Each row is a behaviour the API description (its sections in brackets) documents, or, for",
        "verification, ChatBot's help center; the columns say what the simulator (`pulumi-chatbot/testing`)",
        "and the live API answered to the acceptance tier's case of that name (tests/live): the HTTP",
        "status, the envelope's `status.type`, and the keys present (never a value). A live run keeps the",
        "simulator's column and a simulator run the live one; a case fails when the two differ. How to",
        "run it: [CONTRIBUTING.md](../CONTRIBUTING.md#the-acceptance-tier-against-any-api-address).",
        "",
        "| behaviour | the documentation says | the simulator answered | the live API answered |",
        "| --- | --- | --- | --- |",
    ];
    for (const b of Object.keys(DOCUMENTED) as Behaviour[]) {
        const text = DOCUMENTED[b].replace(/\|/g, "\\|");
        lines.push(`| ${b} | ${text} | ${cell(record.simulator[b])} | ${cell(record.live[b])} |`);
    }
    return `${lines.join("\n")}\n`;
}
