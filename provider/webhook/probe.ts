/**
 * Checks that a backend answers a webhook call as ChatBot requires, by making the call the way
 * ChatBot does: a JSON POST with the connection's basic auth and headers, at most one redirect
 * followed, a 200 with a valid response body, all within ChatBot's time limit (10 s).
 *
 * Each problem maps onto one of the causes for which ChatBot fails a call: a status that is
 * neither 200 nor a redirect, more than one redirect, a URL that cannot be reached, a body that
 * is not a valid response, or a timeout. A failing backend is a result, never an exception, and
 * no problem carries the password, a header value, or a URL's query or user info.
 *
 * undici is loaded when a probe runs, so importing this module stays cheap.
 */
import { performance } from "perf_hooks";
import type { Dispatcher } from "undici";
import { errorCode, firstHeader } from "../client/client";
import { redact } from "../client/errors";
import { connectionLimits } from "../limits";
import { httpUrl } from "../schema/fields";
import { validate } from "../schema/validate";
import { webhookLimits, webhookResponseSchema } from "../schema/webhook";
import type { WebhookRequest, WebhookResponse } from "../schema/webhook";

export interface ProbeOptions {
    /** The body to send; default `sampleWebhookRequest`. */
    request?: WebhookRequest;
    /** Basic authorization, as set on the connection's `auth`. */
    auth?: { username: string; password: string };
    /** Extra request headers, as set on the connection's `headers`. */
    headers?: Record<string, string>;
    /** Time allowed for the whole call, redirect and body included (ms). Default: ChatBot's 10000. */
    timeoutMs?: number;
}

export interface ProbeResult {
    /** True when ChatBot would accept the answer: no problems. */
    ok: boolean;
    /** The status of the last answer received, when one was. */
    status?: number;
    /** Time the whole call took, until the answer was judged or the time limit struck (ms). */
    durationMs: number;
    /** Redirect answers received (ChatBot follows 1; a second one fails the call). */
    redirects: number;
    /** What ChatBot would fail the call for, one sentence each; empty when `ok`. */
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

/** Calls `url` as ChatBot would and says whether ChatBot would accept the answer. */
export async function probeWebhook(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
    const { Agent, request } = require("undici") as typeof import("undici");
    const timeoutMs = options.timeoutMs ?? webhookLimits.callTimeoutMs;
    const started = performance.now();
    const problems: string[] = [];
    let status: number | undefined;
    let redirects = 0;
    const result = (response?: WebhookResponse): ProbeResult => ({
        ok: problems.length === 0,
        ...(status === undefined ? {} : { status }),
        durationMs: Math.round(performance.now() - started),
        redirects,
        problems,
        ...(response === undefined ? {} : { response }),
    });

    // The same check a WebhookConnection's `url` gets: ChatBot could not call anything else.
    const checkedUrl = validate(httpUrl(connectionLimits.url.max), url);
    if (!checkedUrl.ok) {
        problems.push(...checkedUrl.failures.map((f) => `the URL ${f.reason}`));
        return result();
    }

    const secrets = secretsOf(options);
    const baseHeaders: Record<string, string> = {
        ...lowerCaseKeys(options.headers ?? {}),
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "pulumi-chatbot-probe",
    };
    if (options.auth) {
        const credentials = Buffer.from(`${options.auth.username}:${options.auth.password}`).toString("base64");
        baseHeaders.authorization = `Basic ${credentials}`;
    }

    // One agent per probe, closed at the end: no socket outlives the call.
    const agent: Dispatcher = new Agent({ connect: { timeout: timeoutMs } });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    let target = new URL(url);
    let method: "POST" | "GET" = "POST";
    let headers = baseHeaders;
    let credentialsDropped = false;
    try {
        for (;;) {
            const res = await request(target, {
                method,
                headers: method === "POST" ? headers : withoutBodyHeaders(headers),
                body: method === "POST" ? JSON.stringify(options.request ?? sampleWebhookRequest) : undefined,
                dispatcher: agent,
                signal: deadline.signal,
            });
            status = res.statusCode;
            if (!REDIRECTS.has(res.statusCode)) {
                const text = await res.body.text();
                if (res.statusCode !== 200) {
                    problems.push(
                        `${display(target)} answered HTTP ${res.statusCode}; ChatBot accepts only 200, ` +
                            `or a redirect (at most ${webhookLimits.maxRedirects}) to an answer of 200`,
                    );
                    if (method === "GET") problems.push(GET_AFTER_REDIRECT);
                    if (res.statusCode === 401 && credentialsDropped) problems.push(AUTH_NOT_FORWARDED);
                    return result();
                }
                return result(judgeBody(text, problems));
            }

            await res.body.dump().catch(() => undefined);
            redirects++;
            const location = firstHeader(res.headers.location);
            if (!location) {
                problems.push(`${display(target)} answered a ${res.statusCode} redirect without a Location header`);
                return result();
            }
            if (redirects > webhookLimits.maxRedirects) {
                problems.push(
                    `more than one redirect: ${display(target)} redirected again; ChatBot follows at most ` +
                        `${webhookLimits.maxRedirects} (a redirect loop, or a chain: point the connection at the final URL)`,
                );
                return result();
            }
            let next: URL;
            try {
                next = new URL(location, target);
            } catch {
                problems.push(`${display(target)} redirected to a Location that is not a URL`);
                return result();
            }
            if (next.protocol !== "http:" && next.protocol !== "https:") {
                problems.push(`${display(target)} redirected to a URL that is not http:// or https://`);
                return result();
            }
            // As HTTP clients do: 303, and 301/302 after a POST, are followed with GET; 307/308 keep the POST.
            if (res.statusCode === 303 || res.statusCode === 301 || res.statusCode === 302) method = "GET";
            // Credentials go only where they were meant for: neither basic auth nor the
            // connection's own headers (secret values) are sent to another origin.
            if (next.origin !== target.origin) {
                const own = Object.keys(lowerCaseKeys(options.headers ?? {}));
                credentialsDropped ||= headers.authorization !== undefined || own.some((k) => k in headers);
                headers = { ...headers };
                delete headers.authorization;
                for (const k of own) delete headers[k];
            }
            target = next;
        }
    } catch (error) {
        if (deadline.signal.aborted) {
            problems.push(
                `timed out: no complete answer within the time limit of ${timeoutMs} ms ` +
                    `(ChatBot's limit is ${webhookLimits.callTimeoutMs} ms, including any proxy or load balancer)`,
            );
        } else {
            problems.push(unreachable(error, target, redirects, secrets));
        }
        return result();
    } finally {
        clearTimeout(timer);
        await agent.destroy().catch(() => undefined);
    }
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
    const checked = validate(webhookResponseSchema, body);
    if (checked.ok) return checked.value;
    for (const f of checked.failures) problems.push(`invalid body: ${f.reason}`);
    return undefined;
}

const AUTH_NOT_FORWARDED =
    "basic authorization and the connection's headers were not sent on after the redirect to another origin; " +
    "point the connection at the final URL";

const GET_AFTER_REDIRECT =
    "the call was repeated as GET after a 301, 302 or 303 redirect, as HTTP clients do, so the body was lost; " +
    "redirect with 307 or 308 to keep the POST";

/** Cause 3: the URL (or the redirect's) could not be reached. */
function unreachable(error: unknown, target: URL, redirects: number, secrets: string[]): string {
    const where = `${display(target)}${redirects > 0 ? " (the redirect's target)" : ""}`;
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
    const message = error instanceof Error ? redact(error.message, secrets) : "unknown error";
    return `could not connect to ${where}: ${code ? `${code}: ` : ""}${message}`;
}

/** A URL as a problem may show it: no user info, query or fragment, which may hold secrets. */
function display(u: URL): string {
    return `${u.origin}${u.pathname}`;
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutBodyHeaders(h: Record<string, string>): Record<string, string> {
    const out = { ...h };
    delete out["content-type"];
    return out;
}

function secretsOf(options: ProbeOptions): string[] {
    const out = Object.values(options.headers ?? {});
    if (options.auth) {
        out.push(options.auth.password, options.auth.username);
        out.push(Buffer.from(`${options.auth.username}:${options.auth.password}`).toString("base64"));
    }
    return out;
}
