/**
 * `pulumi-chatbot probe`: calls backends as ChatBot calls them (the verification request, then a
 * webhook call shaped as 2.4 of the API description) and says, for each, whether ChatBot would
 * accept it. The probing is the kit's `probeWebhook` (../webhook/probe.ts); this is its command:
 * one URL with the secrets given here, or every connection a stack manages (its ids read from
 * `pulumi stack export`, as `discover` reads a stack) or the account holds, each probed with its
 * own url, token, headers and auth as the API's single read returns them.
 *
 * Secrets: never printed. A backend's secrets come from flags, files or environment variables
 * (files and variables stay out of shell history); the developer access token from the
 * environment only, as for `discover`. Problems are scrubbed by the kit, URLs by the client's
 * redaction, and every line once more against every secret known to the run.
 *
 * What an account holds is anyone's with its dashboard: a url from it is called only where ChatBot
 * could call it (not at a loopback, private, link-local or metadata address, unless
 * --allow-private), and its names, urls and ids print through `printable`, so none can draw a line
 * of its own on the terminal.
 */
import * as fs from "fs";
import { parseArgs } from "util";
import { ChatbotClient } from "../client/client";
import { printable, printableJson, redact, scrub, secretsOfUrl, shown } from "../client/redact";
import { configKeys, envVars, readSettings, type StackSettings } from "../config";
import { listAccount, readOne } from "../resources/lookup";
import type { AnySpec, Plain } from "../resources/spec";
import { HEADER_NAME } from "../schema/fields";
import { validate } from "../schema/validate";
import { webhookLimits } from "../limits";
import { DEFAULT_MAX_BODY_BYTES } from "../webhook/core";
import { AddressRefused, checkedAddresses, probeSender, type Checked } from "./probeSend";
import { probeWebhook, urlProblems, type ProbeOptions, type ProbeResult, type ProbeSend } from "../webhook/probe";
import { webhookRequestSchema } from "../webhook/schema";
import type { WebhookRequest } from "../webhook/types";
import { apiFailure, commandClient } from "./apiClient";
import { Progress, type Io } from "./discover";
import { checkedRun, PulumiFailed, stackConfig } from "./pulumiCli";
import { exportedResources, managedResources, providerSettings, specOfType, StackExportError } from "./stackExport";

/** Exit codes: 0 every backend answers as ChatBot requires; 1 one does not; 2 bad usage, or the
 *  command could not run (a stack that does not exist, a token the API refuses). */
export const PROBE_EXIT = { ok: 0, failing: 1, usage: 2 } as const;

/** Where a backend's secrets may come from besides flags, which show in shell history. */
export const probeEnvVars = {
    token: "CHATBOT_PROBE_TOKEN",
    auth: "CHATBOT_PROBE_AUTH",
    headers: "CHATBOT_PROBE_HEADERS",
} as const;

export const PROBE_USAGE = `Usage: pulumi-chatbot probe <url> [options]
       pulumi-chatbot probe --stack NAME [options]
       pulumi-chatbot probe --all [options]

Calls each backend as ChatBot does: the verification request (GET ?challenge=&token=), then a
webhook call (a JSON POST shaped as ChatBot's, with the token in the query, basic auth and the
headers; at most one redirect; ${webhookLimits.callTimeoutMs / 1000} s), and prints one line per backend: ok, or each thing
ChatBot would refuse. No token, password or header value is printed. At most
${DEFAULT_MAX_BODY_BYTES / 2 ** 20} MiB of an answer is read.

ChatBot calls from the internet, so the probe does not call a loopback, private, link-local or
cloud metadata address for a url of the account (--stack, --all) or at any redirect; a <url> given
here is called wherever it is (local development), and says so.

What to probe (one of):
  <url>                    one backend, with the secrets below
  --stack NAME             every connection and legacy webhook the stack manages (read with
                           \`pulumi stack export --stack NAME\`, the pulumi on PATH), each with its
                           own url, token, headers and auth from the single read of the account
                           of the provider that manages it
  --all                    every connection and legacy webhook of the account, likewise

The developer access token (--stack, --all) is read from ${envVars.token}; the API address from
--api-url or ${envVars.apiUrl} (default https://api.chatbot.com). With --stack, an explicit
Provider's own token and API address come first, then the stack's ${configKeys.token} and
${configKeys.apiUrl}, as for the providers (read with --show-secrets, never printed); --api-url
before all.

A <url>'s secrets (a flag, or its file, or else the environment variable):
  --token T, --token-file FILE, ${probeEnvVars.token}            the connection's token
  --auth USER:PASSWORD, --auth-file FILE, ${probeEnvVars.auth}    basic authorization
  --header 'Name: value' (repeatable), --header-file FILE, ${probeEnvVars.headers}
                           extra headers, one 'Name: value' a line in the file or variable

Options:
  --no-verify              skip the verification request
  --request FILE           the webhook call's body (JSON, as ChatBot sends it) instead of a sample
  --timeout-ms MS          time allowed for each request, at most ChatBot's ${webhookLimits.callTimeoutMs}
  --allow-private          call loopback, private, link-local and metadata addresses too: for
                           the account's urls and at redirects (local development)
  --api-url URL            the ChatBot API address
  --json                   print the results as JSON on standard output
  -h, --help               show this help

Exit codes: 0 every backend answers as ChatBot requires, 1 one does not, 2 bad usage or the
command could not run (a stack that does not exist, a token the API refuses).
`;

/** `Io` of `discover`: the stack is read through `pulumi`. */
export type ProbeIo = Pick<Io, "stdout" | "stderr" | "env" | "pulumi">;

/** Bad usage: said on stderr, exit 2. */
class UsageError extends Error {}

/** One backend to probe: where its URL and secrets came from. */
interface Backend {
    label: string;
    kind: string;
    id?: string;
    name?: string;
    url: string;
    options: ProbeOptions;
    /** Set instead of probing: why it cannot be called at all (a connection the API no longer has). */
    missing?: string;
}

/** A backend's outcome, as printed and as --json has it. */
interface Outcome {
    label: string;
    kind: string;
    id?: string;
    name?: string;
    url: string;
    ok: boolean;
    status?: number;
    durationMs?: number;
    redirects?: number;
    verification?: ProbeResult["verification"];
    problems: string[];
}

type Values = ReturnType<typeof parseOptions>["values"];

export async function probe(argv: string[], io: ProbeIo): Promise<number> {
    const secrets: string[] = [];
    const fail = (message: string) => {
        io.stderr(`pulumi-chatbot probe: ${scrub(message, secrets)}\n`);
        return PROBE_EXIT.usage;
    };
    let client: ChatbotClient | undefined;
    let tokenFrom: string = envVars.token;
    try {
        const { values, positionals } = parseOptions(argv);
        if (values.help) {
            io.stdout(PROBE_USAGE);
            return PROBE_EXIT.ok;
        }
        const common = commonOptions(values);
        let backends: Backend[];
        if (values.stack === undefined && !values.all) {
            backends = [oneUrl(positionals, values, io.env, common)];
            await noteGivenPrivate(backends[0], io);
        } else {
            refuseUrlSecrets(positionals, values);
            const stack = values.stack === undefined ? undefined : await readStack(values.stack, values, io);
            secrets.push(...(stack?.accounts ?? []).flatMap((a) => (a.settings.token ? [a.settings.token] : [])));
            backends = [];
            // Each account the stack's connections are in, read with its own settings: the default
            // provider's (the stack's chatbot config), then each explicit provider's.
            for (const account of stack?.accounts ?? [{ settings: undefined, managed: [], from: envVars.token }]) {
                tokenFrom = account.from;
                const made = commandClient(io.env, values["api-url"], account.settings);
                if (!(made instanceof ChatbotClient)) return fail(made.error);
                client = made;
                backends.push(
                    ...(stack
                        ? await ofStack(stack.name, account.managed, client, common, io)
                        : await ofAccount(client, common, io)),
                );
            }
        }
        for (const b of backends) secrets.push(...secretsOfBackend(b));
        const outcomes = await probeAll(backends, client?.maxInFlight ?? 1, checkedOf(values), io);
        report(outcomes, values.json === true, secrets, io);
        return outcomes.every((o) => o.ok) ? PROBE_EXIT.ok : PROBE_EXIT.failing;
    } catch (e) {
        if (e instanceof UsageError || e instanceof StackExportError || e instanceof PulumiFailed)
            return fail(e.message);
        const failure = client && apiFailure(e, client, tokenFrom);
        if (failure !== undefined) return fail(failure);
        throw e;
    }
}

function parseOptions(argv: string[]) {
    try {
        return parseArgs({
            args: argv,
            strict: true,
            allowPositionals: true,
            options: {
                stack: { type: "string" },
                all: { type: "boolean" },
                "api-url": { type: "string" },
                token: { type: "string" },
                "token-file": { type: "string" },
                auth: { type: "string" },
                "auth-file": { type: "string" },
                header: { type: "string", multiple: true },
                "header-file": { type: "string" },
                "no-verify": { type: "boolean" },
                request: { type: "string" },
                "timeout-ms": { type: "string" },
                "allow-private": { type: "boolean" },
                json: { type: "boolean" },
                help: { type: "boolean", short: "h" },
            },
        });
    } catch (e) {
        throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${PROBE_USAGE}`);
    }
}

/** What every probe of the run shares: the verification request, the body, the time limit. */
function commonOptions(values: Values): Pick<ProbeOptions, "verify" | "request" | "timeoutMs"> {
    const out: Pick<ProbeOptions, "verify" | "request" | "timeoutMs"> = { verify: values["no-verify"] !== true };
    if (values.request !== undefined) out.request = requestFromFile(values.request);
    const timeout = values["timeout-ms"];
    if (timeout !== undefined) {
        const max = webhookLimits.callTimeoutMs;
        if (!/^\d+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > max) {
            throw new UsageError(`--timeout-ms must be a whole number from 1 to ${max} (ChatBot's limit).`);
        }
        out.timeoutMs = Number(timeout);
    }
    return out;
}

function requestFromFile(file: string): WebhookRequest {
    let body: unknown;
    try {
        body = JSON.parse(readText(file, "--request"));
    } catch (e) {
        if (e instanceof UsageError) throw e;
        throw new UsageError(`--request ${file} is not JSON.`);
    }
    const checked = validate(webhookRequestSchema, body);
    if (!checked.ok) {
        const why = checked.failures.map((f) => f.reason).join("; ");
        throw new UsageError(`--request ${file} is not a request as ChatBot sends it: ${why}.`);
    }
    return checked.value;
}

/** A file's text without its last line break; a file that cannot be read is bad usage. */
function readText(file: string, flag: string): string {
    try {
        return fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (e) {
        throw new UsageError(`cannot read ${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}.`);
    }
}

/** The one backend of `probe <url>`, with the secrets of its flags, files or variables. */
function oneUrl(positionals: string[], values: Values, env: NodeJS.ProcessEnv, common: ProbeOptions): Backend {
    if (positionals.length !== 1) {
        throw new UsageError(
            `${positionals.length === 0 ? "give a URL, --stack NAME or --all" : "give one URL"}.\n\n${PROBE_USAGE}`,
        );
    }
    const url = positionals[0];
    const wrong = urlProblems(url);
    if (wrong.length > 0) throw new UsageError(`cannot probe ${printable(scrub(url))} because ${wrong.join("; ")}.`);
    const options: ProbeOptions = { ...common };
    const token = secretOf(values.token, values["token-file"], env[probeEnvVars.token], "token");
    if (token !== undefined) options.token = token;
    const auth = secretOf(values.auth, values["auth-file"], env[probeEnvVars.auth], "auth");
    if (auth !== undefined) options.auth = parseAuth(auth);
    const headers = headersOf(values, env);
    if (headers !== undefined) options.headers = headers;
    return { label: printable(scrub(url, secretsOfUrl(url))), kind: "url", url, options };
}

/** One line on stderr when the url given is at an address ChatBot cannot reach: it is called all
 *  the same, as the user's own choice (a backend in local development). */
async function noteGivenPrivate(b: Backend, io: ProbeIo): Promise<void> {
    try {
        await checkedAddresses(new URL(b.url).hostname);
    } catch (e) {
        // A name that does not resolve is the probe's to report.
        if (!(e instanceof AddressRefused)) return;
        io.stderr(
            `probe: ${b.label}: ${printable(e.what)}, which ChatBot cannot reach; allowed: given on the command line.\n`,
        );
    }
}

/** A secret from its flag or its file (not both), else the environment variable. */
function secretOf(flag: string | undefined, file: string | undefined, fromEnv: string | undefined, name: string) {
    if (flag !== undefined && file !== undefined) throw new UsageError(`give --${name} or --${name}-file, not both.`);
    if (file !== undefined) return readText(file, `--${name}-file`);
    return flag ?? (fromEnv === "" ? undefined : fromEnv);
}

function parseAuth(text: string): { username: string; password: string } {
    const at = text.indexOf(":");
    // The value is a secret: the message never quotes it.
    if (at <= 0 || at === text.length - 1) throw new UsageError("basic authorization must be USER:PASSWORD.");
    return { username: text.slice(0, at), password: text.slice(at + 1) };
}

/** `Name: value` lines from --header and --header-file, else the environment variable. */
function headersOf(values: Values, env: NodeJS.ProcessEnv): Record<string, string> | undefined {
    const lines = [...(values.header ?? [])];
    if (values["header-file"] !== undefined)
        lines.push(...readText(values["header-file"], "--header-file").split(/\r?\n/));
    if (lines.length === 0) lines.push(...(env[probeEnvVars.headers] ?? "").split(/\r?\n/));
    const headers: Record<string, string> = {};
    for (const line of lines.filter((l) => l.trim() !== "")) {
        const at = line.indexOf(":");
        const name = at > 0 ? line.slice(0, at).trim() : "";
        // As fetch would refuse it; the value is a secret, so only a valid name is quoted.
        if (!HEADER_NAME.test(name)) {
            throw new UsageError("a header must be 'Name: value', Name an HTTP header name.");
        }
        headers[name] = line.slice(at + 1).trim();
    }
    return Object.keys(headers).length > 0 ? headers : undefined;
}

/** With --stack or --all, each connection's own secrets are used: a URL or one's own would be ignored. */
function refuseUrlSecrets(positionals: string[], values: Values): void {
    if (values.stack !== undefined && values.all) throw new UsageError("give --stack NAME or --all, not both.");
    const given = ["token", "token-file", "auth", "auth-file", "header", "header-file"].filter(
        (k) => values[k as keyof Values] !== undefined,
    );
    if (positionals.length > 0 || given.length > 0) {
        const what = positionals.length > 0 ? "a URL" : `--${given[0]}`;
        throw new UsageError(
            `${what} goes with probe <url>: with --stack or --all each connection is probed with its own url and secrets.`,
        );
    }
}

type Listed = Array<{ spec: AnySpec; id: string; name: string }>;

/**
 * What stack `name` manages (its export with secrets, as `recover` reads a stack), grouped by the
 * account each is in: the settings of the provider that manages it (stackExport.ts,
 * providerSettings: an explicit provider's own token and address, else the stack's `chatbot`
 * config), --api-url over all. The environment comes last, in commandClient.
 */
async function readStack(name: string, values: Values, io: ProbeIo) {
    const read = checkedRun(io.pulumi, secretsOfUrl(io.env.PULUMI_BACKEND_URL ?? ""));
    const text = await read(["stack", "export", "--show-secrets", "--stack", name], `stack export --stack ${name}`);
    const source = `stack ${name}`;
    const resources = exportedResources(text, source);
    const fromConfig = await stackConfig(read, ["--stack", name]);
    const accounts = new Map<string, { settings: StackSettings; managed: Listed; from: string }>();
    for (const r of managedResources(text, source)) {
        const spec = specOfType(r.type);
        if (!spec) continue;
        const settings = providerSettings(r.provider, resources, fromConfig);
        if (values["api-url"] !== undefined) settings.apiUrl = values["api-url"];
        const key = JSON.stringify(settings);
        // Where the token came from, for the message when the API refuses it.
        const own = providerSettings(r.provider, resources, () => undefined).token !== undefined;
        const providerName = r.provider.slice(0, r.provider.lastIndexOf("::")).split("::").pop() ?? "";
        const from = own
            ? `the token of provider ${printable(providerName)}`
            : settings.token !== undefined
              ? `stack ${name}'s ${configKeys.token}`
              : envVars.token;
        const account = accounts.get(key) ?? { settings, managed: [], from };
        account.managed.push({ spec, id: r.id, name: r.urn.split("::").pop() ?? r.id });
        accounts.set(key, account);
    }
    // A stack that manages nothing still names its account, as before.
    if (accounts.size === 0) {
        const settings = readSettings((_, key) => fromConfig(key));
        if (values["api-url"] !== undefined) settings.apiUrl = values["api-url"];
        const from = settings.token !== undefined ? `stack ${name}'s ${configKeys.token}` : envVars.token;
        accounts.set("", { settings, managed: [], from });
    }
    return { name, accounts: [...accounts.values()] };
}

/** Every connection the stack manages, read in full from the API. */
async function ofStack(
    name: string,
    managed: Listed,
    client: ChatbotClient,
    common: ProbeOptions,
    io: ProbeIo,
): Promise<Backend[]> {
    io.stderr(`probe: stack ${name} manages ${managed.length}; reading each at ${client.apiUrl}.\n`);
    return readBackends(managed, client, common, (item) => ({
        ...item,
        missing:
            `the stack records ${item.kind} ${printable(item.id ?? "")}, but the API at ${client.apiUrl} has none: ChatBot cannot call it ` +
            "(deleted by hand? `pulumi up --refresh` makes it again)",
    }));
}

/** Every connection of the account: the list reads, then each single read. */
async function ofAccount(client: ChatbotClient, common: ProbeOptions, io: ProbeIo): Promise<Backend[]> {
    const listed = await listAccount(client);
    io.stderr(`probe: ${listed.length} in the account at ${client.apiUrl}; reading each.\n`);
    return readBackends(listed, client, common, (item) => {
        io.stderr(`probe: ${item.label} was deleted while being read; left out.\n`);
        return undefined;
    });
}

/** Each item's single read (concurrent, within the client's in-flight limit) as a backend to probe. */
async function readBackends(
    items: Listed,
    client: ChatbotClient,
    common: ProbeOptions,
    gone: (item: Backend) => Backend | undefined,
): Promise<Backend[]> {
    const read = await Promise.all(
        items.map(async ({ spec, id, name: listed }) => {
            const outputs = await readOne(client, spec, id, `${shown(listed)} (${printable(id)})`);
            // The API's name where it has one: a stack knows its resources by their URNs' names.
            const name = typeof outputs?.name === "string" ? outputs.name : listed;
            const label = `${spec.noun} ${shown(name)} (${printable(id)})`;
            const base = { label, kind: spec.noun, id, name, url: "", options: common };
            return outputs ? asBackend(base, outputs, common) : gone(base);
        }),
    );
    return read.filter((b): b is Backend => b !== undefined);
}

/** A single read's url and secrets as the probe's options; legacy headers are `{ name, value }`s. */
function asBackend(base: Backend, outputs: Plain, common: ProbeOptions): Backend {
    const options: ProbeOptions = { ...common };
    if (typeof outputs.token === "string") options.token = outputs.token;
    const auth = outputs.auth as ProbeOptions["auth"] | null | undefined;
    if (auth) options.auth = auth;
    const headers = outputs.headers as Record<string, string> | Array<{ name: string; value: string }> | null;
    if (Array.isArray(headers)) {
        options.headers = {};
        // Repeated names are sent as one header, the values joined as HTTP joins them.
        for (const h of headers)
            options.headers[h.name] = [options.headers[h.name], h.value].filter(Boolean).join(", ");
    } else if (headers) {
        options.headers = headers;
    }
    return { ...base, url: String(outputs.url ?? ""), options };
}

function secretsOfBackend(b: Backend): string[] {
    const { token, auth, headers } = b.options;
    return [
        ...(token === undefined ? [] : [token, encodeURIComponent(token)]),
        ...(auth ? [auth.password] : []),
        ...Object.values(headers ?? {}),
        ...secretsOfUrl(b.url),
    ];
}

/** Which requests may not go where ChatBot could not: an account's urls are anyone's with its
 *  dashboard, so all of them; a url given here is the user's own, so only its redirects. */
function checkedOf(values: Values): Checked {
    if (values["allow-private"] === true) return "none";
    return values.stack === undefined && !values.all ? "redirects" : "all";
}

/** Probes every backend, `limit` at a time, a progress line on stderr at each quarter. */
async function probeAll(backends: Backend[], limit: number, checked: Checked, io: ProbeIo): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(backends.length);
    const progress = new Progress(backends.length, io, (done, total) => `probe: ${done} of ${total} probed`, 2);
    const sender = probeSender(checked);
    let next = 0;
    const worker = async () => {
        for (let i = next++; i < backends.length; i = next++) {
            outcomes[i] = await probeOne(backends[i], sender.send);
            progress.tick();
        }
    };
    try {
        await Promise.all(Array.from({ length: Math.min(limit, backends.length) }, worker));
    } finally {
        await sender.close();
    }
    return outcomes;
}

async function probeOne(b: Backend, send: ProbeSend): Promise<Outcome> {
    const shownAs = { label: b.label, kind: b.kind, id: b.id, name: b.name, url: scrub(b.url, secretsOfBackend(b)) };
    if (b.missing !== undefined) return { ...shownAs, ok: false, problems: [b.missing] };
    const r = await probeWebhook(b.url, { ...b.options, send });
    const { ok, status, durationMs, redirects, verification, problems } = r;
    return { ...shownAs, ok, status, durationMs, redirects, verification, problems };
}

/** Prints the outcomes. Their URLs and problems are scrubbed already; every known secret is
 *  taken out once more, whatever a backend's answer put where. What the account holds prints
 *  escaped: a url through `printable` (labels are made so), JSON through `printableJson`. */
function report(outcomes: Outcome[], json: boolean, secrets: string[], io: ProbeIo): void {
    const failing = outcomes.filter((o) => !o.ok).length;
    const summary = { backends: outcomes.length, ok: outcomes.length - failing, failing };
    if (json) {
        io.stdout(redact(printableJson({ ok: failing === 0, summary, backends: outcomes }), secrets) + "\n");
        return;
    }
    for (const o of outcomes) {
        const where = o.kind === "url" || o.url === "" ? o.label : `${o.label} ${printable(o.url)}`;
        const line = o.ok
            ? `ok    ${where}: answered as ChatBot requires (${o.verification ? "verified, " : ""}${o.durationMs} ms)`
            : `FAIL  ${where}: ${o.problems.join("; ")}`;
        io.stdout(`${redact(line, secrets)}\n`);
    }
    io.stdout(
        failing === 0
            ? `probe: ${plural(outcomes.length)} answer${outcomes.length === 1 ? "s" : ""} as ChatBot requires.\n`
            : `probe: ${failing} of ${plural(outcomes.length)} would fail a chat.\n`,
    );
}

function plural(n: number): string {
    return `${n} backend${n === 1 ? "" : "s"}`;
}
