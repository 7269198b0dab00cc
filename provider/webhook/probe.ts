/**
 * Checks that a backend answers ChatBot as ChatBot requires, by calling it the way ChatBot does:
 *
 * 1. the verification request ChatBot sends when a webhook is added, `GET <url>?challenge=<random>
 *    &token=<token>`, which must be answered 200 with the challenge as the body (help center,
 *    "Verification request"; ChatBotCom/nodejs-webhook-example, index.js). It carries only those
 *    two parameters: neither source shows the connection's auth or headers on it, so none are sent;
 * 2. a webhook call: a JSON POST with the connection's basic auth and headers, and the token in
 *    the query as the example backend expects of every call; at most one redirect followed, a 200
 *    with a valid response body, all within ChatBot's time limit (10 s).
 *
 * Each problem maps onto one of the causes for which ChatBot fails a call: a status that is
 * neither 200 nor a redirect, more than one redirect, a URL that cannot be reached, a body that
 * is not a valid response, or a timeout. A failing backend is a result, never an exception, and
 * no problem carries the token, the password, a header value, or a URL's query or user info. It
 * reads at most DEFAULT_MAX_BODY_BYTES of any answer: a backend may answer without end. What it
 * reports of an answer names properties by their path, printable, never a value: the answer may be
 * another service's (an internal one's, its keys holding secrets). Where it may connect is its
 * sender's to decide (`ProbeOptions.send`): the `pulumi-chatbot probe` command's
 * calls no address ChatBot could not reach (../cli/probeSend.ts, on Node).
 *
 * Web-standard APIs only (fetch, URL, AbortController, performance, streams), like the rest of the kit.
 */
import { printable, redact, scrub, secretsOfUrl, shown } from "../client/redact";
import { connectionLimits } from "../limits";
import { httpUrl } from "../schema/fields";
import { validate, type CheckFailure } from "../schema/validate";
import { webhookLimits } from "../limits";
import { DEFAULT_MAX_BODY_BYTES, readTextUpTo } from "./core";
import { validateWebhookResponse } from "./schema";
import type { WebhookRequest, WebhookResponse } from "./types";

export interface ProbeOptions {
    /** The body to send; default `sampleWebhookRequest`. */
    request?: WebhookRequest;
    /** The connection's `token`: sent with the verification request and in every call's query. */
    token?: string;
    /**
     * Make the verification request first. Default: when `token` is given. Set it for a
     * connection without a token: ChatBot verifies those too, sending no `token` parameter.
     */
    verify?: boolean;
    /** Basic authorization, as set on the connection's `auth`. */
    auth?: { username: string; password: string };
    /** Extra request headers, as set on the connection's `headers`. */
    headers?: Record<string, string>;
    /** Time allowed for each request, redirect and body included (ms). Default: ChatBot's 10000. */
    timeoutMs?: number;
    /**
     * Makes each request of the probe: the verification request, the call, and each redirect's
     * target (`redirected`). Default: the runtime's `fetch`, which goes wherever the url and its
     * redirects point. Throw `ProbeRefused` to refuse one: the problem names the url and the reason.
     */
    send?: ProbeSend;
}

/** Sends one request of the probe; redirects are the probe's to follow (`init.redirect` is "manual"). */
export type ProbeSend = (url: URL, init: RequestInit, redirected: boolean) => Promise<ProbeAnswer>;

/** What the probe reads of an answer: what any fetch's `Response` has. */
export interface ProbeAnswer {
    status: number;
    headers: { get(name: string): string | null };
    body: ReadableStream<Uint8Array> | null;
}

/** A request a `ProbeSend` would not make; `message` says why, after the url it names. */
export class ProbeRefused extends Error {
    override name = "ProbeRefused";
}

/** How the verification request went. */
export interface ProbeVerification {
    /** True when the backend answered 200 with the challenge as the body. */
    ok: boolean;
    /** The status of the last answer received, when one was. */
    status?: number;
    durationMs: number;
    redirects: number;
}

export interface ProbeResult {
    /** True when ChatBot would accept the backend: no problems, in verification or in the call. */
    ok: boolean;
    /** The verification request's outcome, when it was made (see `ProbeOptions.verify`). */
    verification?: ProbeVerification;
    /** The status of the webhook call's last answer, when one was received. */
    status?: number;
    /** Time the webhook call took, until the answer was judged or the time limit struck (ms). */
    durationMs: number;
    /** Redirect answers received on the webhook call (ChatBot follows 1; a second one fails the call). */
    redirects: number;
    /**
     * What ChatBot would refuse the backend for, one sentence each; empty when `ok`. Problems of
     * the verification request come first and start with "verification request:".
     */
    problems: string[];
    /** The parsed response, when it was valid. */
    response?: WebhookResponse;
}

/** What the probe sends unless told otherwise: a request shaped as ChatBot's (2.4). */
export const sampleWebhookRequest: WebhookRequest = {
    chatId: "pulumi-chatbot-probe-chat",
    messageId: "pulumi-chatbot-probe-message",
    userId: "pulumi-chatbot-probe-user",
    externalId: "pulumi-chatbot-probe-external",
    node: {
        id: "5f0c3d9e-8a7b-4c6d-9e1f-2a3b4c5d6e7f",
        name: "Webhook probe",
        type: "WEBHOOK",
        webhookId: "pulumi-chatbot-probe-webhook",
        webhookName: "pulumi-chatbot probe",
    },
    userAttributes: { default_name: "Probe User", default_email: "probe@example.com" },
    attributes: {},
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const VERIFICATION = "verification request:";

/** Calls `url` as ChatBot would and says whether ChatBot would accept the backend. */
export async function probeWebhook(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
    const timeoutMs = options.timeoutMs ?? webhookLimits.callTimeoutMs;
    const problems: string[] = [];

    const wrongUrl = urlProblems(url);
    if (wrongUrl.length > 0) return { ok: false, durationMs: 0, redirects: 0, problems: wrongUrl };
    const secrets = [...secretsOf(options), ...secretsOfUrl(url)];

    let verification: ProbeVerification | undefined;
    const send = options.send ?? fetchAnswer;
    if (options.verify ?? options.token !== undefined) {
        const checked = await sendVerificationRequest(url, { token: options.token, timeoutMs, send });
        const { problems: found, ...outcome } = checked;
        verification = outcome;
        problems.push(...found.map((p) => `${VERIFICATION} ${p}`));
    }

    const headers: Record<string, string> = {
        ...lowerCaseKeys(options.headers ?? {}),
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "pulumi-chatbot-probe",
    };
    if (options.auth) headers.authorization = `Basic ${toBase64(`${options.auth.username}:${options.auth.password}`)}`;
    const target = new URL(url);
    if (options.token !== undefined) target.searchParams.set("token", options.token);
    const ownHeaders = Object.keys(lowerCaseKeys(options.headers ?? {}));
    const body = JSON.stringify(options.request ?? sampleWebhookRequest);
    const call = { method: "POST", headers, body, timeoutMs, secrets, ownHeaders, send } as const;
    const got = await exchange(target, call, problems);

    let response: WebhookResponse | undefined;
    if (got.text !== undefined && got.status === 200) response = judgeBody(got.text, problems);
    return {
        ok: problems.length === 0,
        ...(verification === undefined ? {} : { verification }),
        ...(got.status === undefined ? {} : { status: got.status }),
        durationMs: got.durationMs,
        redirects: got.redirects,
        problems: problems.map((p) => scrub(p, secrets)),
        ...(response === undefined ? {} : { response }),
    };
}

/** Why ChatBot could not call `url` at all, one sentence each; empty when it could. The same
 *  check a WebhookConnection's `url` gets: ChatBot could not call anything else. */
export function urlProblems(url: string): string[] {
    const checked = validate(httpUrl(connectionLimits.url.max), url);
    return checked.ok ? [] : checked.failures.map((f) => `the URL ${f.reason}`);
}

/**
 * Sends ChatBot's verification request to `url` (with `token` when given) and judges the answer:
 * 200 with the challenge as the whole body. The probe and the simulator's `verifyWebhooks` use it.
 */
export async function sendVerificationRequest(
    url: string,
    options: { token?: string; timeoutMs?: number; send?: ProbeSend } = {},
): Promise<ProbeVerification & { problems: string[] }> {
    const challenge = randomChallenge();
    const target = new URL(url);
    target.searchParams.set("challenge", challenge);
    if (options.token !== undefined) target.searchParams.set("token", options.token);
    const problems: string[] = [];
    const secrets = [
        ...(options.token === undefined ? [] : [options.token, encodeURIComponent(options.token)]),
        ...secretsOfUrl(url),
    ];
    const got = await exchange(
        target,
        {
            method: "GET",
            headers: {},
            timeoutMs: options.timeoutMs ?? webhookLimits.callTimeoutMs,
            secrets,
            ownHeaders: [],
            send: options.send ?? fetchAnswer,
        },
        problems,
    );
    if (got.text !== undefined && got.status === 200 && got.text !== challenge) {
        problems.push(
            `${display(target)} answered 200, but its body is not the challenge: answer with the value ` +
                "of the challenge query parameter as the whole body",
        );
    }
    if (got.status === 401) {
        problems.push(
            options.token === undefined
                ? "the backend wants a token, but the connection has none: set the connection's token"
                : "the backend refused the token: it checks another token than the connection's",
        );
    } else if (got.status === 405) {
        problems.push(
            "the backend does not answer the verification request: it must answer a GET with a challenge " +
                "query parameter with 200 and the challenge as the body (the kit's handlers do)",
        );
    }
    return {
        ok: problems.length === 0,
        ...(got.status === undefined ? {} : { status: got.status }),
        durationMs: got.durationMs,
        redirects: got.redirects,
        problems: problems.map((p) => scrub(p, secrets)),
    };
}

interface Exchange {
    /** The last answer's status, when one came. */
    status?: number;
    /** The body of a final answer of 200. */
    text?: string;
    redirects: number;
    durationMs: number;
}

/** How an exchange's first request is made, and what it must keep out of its problems. */
interface Outgoing {
    method: "GET" | "POST";
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
    secrets: string[];
    /** The connection's own header names (lower case): their values are secrets. */
    ownHeaders: string[];
    send: ProbeSend;
}

/** The default `ProbeSend`: the runtime's fetch. */
function fetchAnswer(url: URL, init: RequestInit): Promise<ProbeAnswer> {
    return fetch(url, init);
}

/** Where a request goes, and how, at one step of a redirect chain. */
interface Hop {
    target: URL;
    method: "GET" | "POST";
    headers: Record<string, string>;
    /** Basic auth or the connection's headers were left out at a redirect to another origin. */
    credentialsDropped: boolean;
}

/**
 * One request as ChatBot makes it: at most one redirect followed, everything within `timeoutMs`.
 * Problems other than the body's are added to `problems`.
 */
async function exchange(first: URL, request: Outgoing, problems: string[]): Promise<Exchange> {
    const started = performance.now();
    const out: Exchange = { redirects: 0, durationMs: 0 };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), request.timeoutMs);
    const { method, headers } = request;
    let hop: Hop | undefined = { target: first, method, headers, credentialsDropped: false };
    let at = first;
    try {
        while (hop) {
            at = hop.target;
            hop = await step(hop, request, deadline.signal, out, problems);
        }
        return out;
    } catch (error) {
        problems.push(
            deadline.signal.aborted
                ? timedOut(request.timeoutMs)
                : unreachable(error, at, out.redirects, request.secrets),
        );
        return out;
    } finally {
        clearTimeout(timer);
        out.durationMs = Math.round(performance.now() - started);
    }
}

/** Sends one hop's request and reads its answer: the next hop of a redirect ChatBot would follow,
 *  or undefined once the answer is final. */
async function step(
    hop: Hop,
    request: Outgoing,
    signal: AbortSignal,
    out: Exchange,
    problems: string[],
): Promise<Hop | undefined> {
    const post = hop.method === "POST";
    // Redirects are answered here, not followed by fetch.
    const init: RequestInit = {
        method: hop.method,
        headers: post ? hop.headers : withoutBodyHeaders(hop.headers),
        body: post ? request.body : undefined,
        redirect: "manual",
        signal,
    };
    const res = await request.send(hop.target, init, out.redirects > 0);
    out.status = res.status;
    if (!REDIRECTS.has(res.status)) {
        await readFinalAnswer(res, hop, request.method, out, problems);
        return undefined;
    }
    await res.body?.cancel().catch(() => undefined);
    out.redirects++;
    return followRedirect(res, hop, out.redirects, request.ownHeaders, problems);
}

/** Reads an answer that is not a redirect, at most DEFAULT_MAX_BODY_BYTES of it: a 200's body is
 *  kept for judging, any other status is a problem. */
async function readFinalAnswer(
    res: ProbeAnswer,
    hop: Hop,
    firstMethod: "GET" | "POST",
    out: Exchange,
    problems: string[],
): Promise<void> {
    const text = res.body ? await readTextUpTo(res.body, DEFAULT_MAX_BODY_BYTES) : "";
    if (text === undefined) {
        problems.push(
            `${display(hop.target)} answered HTTP ${res.status} with a body too large: over ` +
                `${DEFAULT_MAX_BODY_BYTES / 2 ** 20} MiB, the most the probe reads (as much as the kit's handlers take); ` +
                "it stopped reading there",
        );
    }
    if (res.status === 200) {
        if (text !== undefined) out.text = text;
        return;
    }
    problems.push(
        `${display(hop.target)} answered HTTP ${res.status}; ChatBot accepts only 200, ` +
            `or a redirect (at most ${webhookLimits.maxRedirects}) to an answer of 200`,
    );
    if (hop.method === "GET" && firstMethod === "POST") problems.push(GET_AFTER_REDIRECT);
    if (res.status === 401 && hop.credentialsDropped) problems.push(AUTH_NOT_FORWARDED);
}

/** The next hop of a redirect answer, or undefined (with the problem added) when ChatBot would not follow it. */
function followRedirect(
    res: ProbeAnswer,
    hop: Hop,
    redirects: number,
    ownHeaders: string[],
    problems: string[],
): Hop | undefined {
    const { target } = hop;
    const location = res.headers.get("location");
    if (!location) {
        problems.push(`${display(target)} answered a ${res.status} redirect without a Location header`);
        return undefined;
    }
    if (redirects > webhookLimits.maxRedirects) {
        problems.push(
            `more than one redirect: ${display(target)} redirected again; ChatBot follows at most ` +
                `${webhookLimits.maxRedirects} (a redirect loop, or a chain: point the connection at the final URL)`,
        );
        return undefined;
    }
    let next: URL;
    try {
        next = new URL(location, target);
    } catch {
        problems.push(`${display(target)} redirected to a Location that is not a URL`);
        return undefined;
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
        problems.push(`${display(target)} redirected to a URL that is not http:// or https://`);
        return undefined;
    }
    // As HTTP clients do: 303, and 301/302 after a POST, are followed with GET; 307/308 keep the POST.
    const method = res.status === 303 || res.status === 301 || res.status === 302 ? "GET" : hop.method;
    if (next.origin === target.origin) return { ...hop, target: next, method };
    // Credentials go only where they were meant for: neither basic auth nor the
    // connection's own headers (secret values) are sent to another origin.
    const headers = { ...hop.headers };
    const dropped = headers.authorization !== undefined || ownHeaders.some((k) => k in headers);
    delete headers.authorization;
    for (const k of ownHeaders) delete headers[k];
    return { target: next, method, headers, credentialsDropped: hop.credentialsDropped || dropped };
}

function timedOut(timeoutMs: number): string {
    return (
        `timed out: no complete answer within the time limit of ${timeoutMs} ms ` +
        `(ChatBot's limit is ${webhookLimits.callTimeoutMs} ms, including any proxy or load balancer)`
    );
}

/** Parses and validates a 200's body; each failing property becomes a problem. */
function judgeBody(text: string, problems: string[]): WebhookResponse | undefined {
    let body: unknown;
    try {
        body = JSON.parse(text);
    } catch {
        problems.push(
            text.trim() === ""
                ? 'invalid body: the answer is empty; ChatBot needs a JSON object such as {} or {"responses": [...]}'
                : "invalid body: the answer is not JSON",
        );
        return undefined;
    }
    const checked = validateWebhookResponse(body);
    if (checked.ok) return checked.value;
    for (const f of checked.failures) problems.push(`invalid body: ${failureShown(f)}`);
    return undefined;
}

/** A key of the answer that may be named: a short word of letters, camelCase as the contract's own
 *  are (a typo of one reads so). Any other key may carry a value (`aws_secret_access_key=...`, an
 *  `AKIA...` key id) or codes a terminal acts on. */
const NAMEABLE_KEY = /^[a-z][A-Za-z]{0,19}$/;

/** A failure as the probe reports it: by path, an unknown key named only when it is a plain word,
 *  the others counted; printable characters only. */
function failureShown(f: CheckFailure): string {
    if (f.unknownKeys === undefined) return printable(f.reason);
    const named = f.unknownKeys.filter((k) => NAMEABLE_KEY.test(k));
    const hidden = f.unknownKeys.length - named.length;
    const parts: string[] = [];
    if (named.length > 0) parts.push(`${unknownProperties(named.length)} ${named.map((k) => shown(k)).join(", ")}`);
    if (hidden > 0) {
        const one = hidden === 1;
        parts.push(
            `${hidden} ${unknownProperties(hidden)} whose name${one ? " is" : "s are"} not shown ` +
                `(not ${one ? "a plain word" : "plain words"})`,
        );
    }
    const what = parts.join(", and ");
    return f.property ? `${printable(f.property)}: ${what}` : what;
}

function unknownProperties(n: number): string {
    return `unknown propert${n === 1 ? "y" : "ies"}`;
}

const AUTH_NOT_FORWARDED =
    "basic authorization and the connection's headers were not sent on after the redirect to another origin; " +
    "point the connection at the final URL";

const GET_AFTER_REDIRECT =
    "the call was repeated as GET after a 301, 302 or 303 redirect, as HTTP clients do, so the body was lost; " +
    "redirect with 307 or 308 to keep the POST";

/** The `code` of a network error, wherever fetch put it (Node nests it in `cause`). */
function errorCode(error: unknown): string | undefined {
    for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === "string" && code !== "UND_ERR") return code;
        e = (e as { cause?: unknown }).cause;
    }
    return undefined;
}

/** A sender's refusal, wherever fetch put it (a connector's error is the `cause` of fetch's). */
function refusalIn(error: unknown): ProbeRefused | undefined {
    for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
        if (e instanceof ProbeRefused) return e;
        e = (e as { cause?: unknown }).cause;
    }
    return undefined;
}

/** Cause 3: the URL (or the redirect's) could not be reached, or its sender would not call it. */
function unreachable(error: unknown, target: URL, redirects: number, secrets: string[]): string {
    const where = `${display(target)}${redirects > 0 ? " (the redirect's target)" : ""}`;
    const refused = refusalIn(error);
    if (refused) return `refused to call ${where}: ${printable(redact(refused.message, secrets))}`;
    const code = errorCode(error);
    switch (code) {
        case "ECONNREFUSED":
            return `could not connect to ${where}: connection refused (nothing listens there)`;
        case "ENOTFOUND":
        case "EAI_AGAIN":
            return `could not connect to ${where}: the host name ${target.hostname} does not resolve`;
        case "ECONNRESET":
        case "EPIPE":
        case "UND_ERR_SOCKET":
            return `could not get an answer from ${where}: the connection was closed before a complete answer`;
        case "UND_ERR_CONNECT_TIMEOUT":
            return `could not connect to ${where}: the connection was not accepted in time`;
        case "EHOSTUNREACH":
        case "ENETUNREACH":
            return `could not connect to ${where}: the host is unreachable`;
    }
    if (code && /CERT|SSL|TLS|SELF_SIGNED|SIGNATURE/.test(code)) {
        return `could not connect to ${where}: its TLS certificate is not accepted (${code})`;
    }
    // fetch's own message is a bare "fetch failed"; the cause says what happened.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const message = cause instanceof Error ? printable(redact(cause.message, secrets)) : "unknown error";
    return `could not connect to ${where}: ${code ? `${code}: ` : ""}${message}`;
}

/** A URL as a problem may show it: no user info, query or fragment, which may hold secrets, and
 *  printable (a URL's origin and path are serialized percent-encoded already). */
function display(u: URL): string {
    return printable(`${u.origin}${u.pathname}`);
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutBodyHeaders(h: Record<string, string>): Record<string, string> {
    const out = { ...h };
    delete out["content-type"];
    return out;
}

/** Base64 of UTF-8 text, without Node's Buffer. */
function toBase64(text: string): string {
    let binary = "";
    for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
    return btoa(binary);
}

/** A random string, as ChatBot's challenge is (help center: "a unique string of characters"). */
function randomChallenge(): string {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function secretsOf(options: ProbeOptions): string[] {
    const out = Object.values(options.headers ?? {});
    if (options.token !== undefined) out.push(options.token, encodeURIComponent(options.token));
    if (options.auth) {
        out.push(options.auth.password, options.auth.username);
        out.push(toBase64(`${options.auth.username}:${options.auth.password}`));
    }
    return out;
}
