/**
 * The account the acceptance tier runs against, and mocha's root hooks that open and close it.
 *
 * Live: CHATBOT_LIVE_TOKEN and CHATBOT_LIVE_STORY_ID (a sandbox story), and CHATBOT_LIVE_API_URL
 * (default https://api.chatbot.com). Otherwise the simulator in a process of its own on 127.0.0.1
 * (./simulatorProcess.js), verifying webhooks as ChatBot does against a backend of the kit on
 * loopback. The cases are the same either way: only the address and the token differ.
 *
 * Safe for a real account: every item the tier makes is named `pcb-acc-<run id>-...`, and the
 * after-all hook deletes every item with that prefix (`sweepAccount`, as `pulumi-chatbot sweep`),
 * whatever failed before. The token is never printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import * as readline from "node:readline";
import { Agent, type Dispatcher } from "undici";
import { ChatbotClient } from "../../provider/client/client";
import { sweepAccount } from "../../provider/cli/sweep";
import { DEFAULT_API_URL } from "../../provider/config";
import { installedRequire, loopbackServers } from "../helpers/support";
import { writeRecord } from "./fidelity";
import type * as Webhook from "pulumi-chatbot/webhook";

/** What every name the tier gives starts with; then the run's id. */
export const PREFIX = "pcb-acc-";

/** The latest answer the tier's client received (the client keeps what it learns to itself), and
 *  how many requests it sent. The cases run one request at a time. */
export class Observer {
    requests = 0;
    last: { status?: number; body: string } = { body: "" };
    readonly dispatcher: Dispatcher;

    constructor() {
        this.dispatcher = new Agent().compose((dispatch) => (opts, handler) => {
            this.requests++;
            this.last = { body: "" };
            const chunks: Buffer[] = [];
            const seen = this.last;
            // undici calls a handler's old-style or new-style callbacks; either gives the status.
            const wrapped = new Proxy(handler, {
                get(target, prop) {
                    const value = Reflect.get(target, prop) as unknown;
                    if (typeof value !== "function") return value;
                    const fn = value as (...a: unknown[]) => unknown;
                    if (prop === "onHeaders" || prop === "onResponseStart")
                        return (...a: unknown[]) => {
                            seen.status = (prop === "onHeaders" ? a[0] : a[1]) as number;
                            return fn.apply(target, a);
                        };
                    if (prop === "onData" || prop === "onResponseData")
                        return (...a: unknown[]) => {
                            chunks.push(Buffer.from((prop === "onData" ? a[0] : a[1]) as Buffer));
                            seen.body = Buffer.concat(chunks).toString("utf8");
                            return fn.apply(target, a);
                        };
                    return fn.bind(target);
                },
            });
            return dispatch(opts, wrapped);
        });
    }
}

export interface Account {
    live: boolean;
    apiUrl: string;
    /** The developer access token: never printed. */
    token: string;
    storyId: string;
    runId: string;
    /** `pcb-acc-<run id>-`: every name the tier gives starts with it. */
    prefix: string;
    /** Where v2 connections point, and the token their backend checks. */
    webhook: { url: string; token: string };
    /** A public URL, as a legacy webhook's must be (2.2): never called by the tier. */
    legacyUrl: string;
    /** The package's client, paced and retried as the provider's, observed. */
    client: ChatbotClient;
    observer: Observer;
    /** Simulator runs only: the query keys of each verification request the backend received. */
    verifications?: string[][];
    /** Simulator runs only: the requests the simulator answered, known once it has stopped. */
    simulatorRequests?: number;
}

let current: Account | undefined;
let simulator: ChildProcess | undefined;
/** The simulator process's latest line on standard output. */
let simulatorSaid = "{}";
const backends = loopbackServers();
const started = Date.now();

/** The account of this run (set by the root before-all hook). */
export function account(): Account {
    if (!current) throw new Error("the acceptance tier's account is not open (tests/live/mocharc.js's root hooks)");
    return current;
}

/** A client of the same account with another token. */
export function clientWithToken(token: string): ChatbotClient {
    const a = account();
    return new ChatbotClient({ apiUrl: a.apiUrl, token, dispatcher: a.observer.dispatcher });
}

function given(name: string): string | undefined {
    const v = process.env[name];
    return v === undefined || v === "" ? undefined : v;
}

async function open(): Promise<Account> {
    const runId = given("CHATBOT_LIVE_RUN_ID") ?? `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
    if (!/^[a-z0-9]{1,24}$/.test(runId)) throw new Error("CHATBOT_LIVE_RUN_ID: 1 to 24 lowercase letters and digits");
    const prefix = `${PREFIX}${runId}-`;
    const observer = new Observer();
    const liveToken = given("CHATBOT_LIVE_TOKEN");
    const liveStory = given("CHATBOT_LIVE_STORY_ID");
    const base = { runId, prefix, observer, legacyUrl: `https://example.com/${prefix}legacy` };
    if (liveToken !== undefined || liveStory !== undefined) {
        if (liveToken === undefined || liveStory === undefined)
            throw new Error("a live run needs both CHATBOT_LIVE_TOKEN and CHATBOT_LIVE_STORY_ID");
        const apiUrl = given("CHATBOT_LIVE_API_URL") ?? DEFAULT_API_URL;
        return {
            ...base,
            live: true,
            apiUrl,
            token: liveToken,
            storyId: liveStory,
            // The real API cannot reach a backend here: a public one, if the account verifies.
            webhook: {
                url: given("CHATBOT_LIVE_WEBHOOK_URL") ?? `https://example.com/${prefix}hook`,
                token: given("CHATBOT_LIVE_WEBHOOK_TOKEN") ?? `${prefix}hook-token`,
            },
            client: new ChatbotClient({ apiUrl, token: liveToken, dispatcher: observer.dispatcher }),
        };
    }
    // The backend ChatBot verifies, from the package's kit, noting each verification request's keys.
    const webhookToken = `${prefix}${randomBytes(8).toString("hex")}`;
    const { createWebhookHandler } = installedRequire("pulumi-chatbot/webhook") as typeof Webhook;
    const quiet = { warn: () => {}, error: () => {} };
    const handle = createWebhookHandler(() => ({}), { token: webhookToken, logger: quiet });
    const verifications: string[][] = [];
    const backendUrl = await backends.listen((req, res) => {
        const url = new URL(req.url ?? "/", "http://backend.invalid");
        if (req.method === "GET" && url.searchParams.has("challenge"))
            verifications.push([...new Set(url.searchParams.keys())].sort());
        handle(req, res);
    });
    const sim = await startSimulator({ verifyWebhooks: true });
    return {
        ...base,
        live: false,
        apiUrl: sim.url,
        token: sim.token,
        storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
        webhook: { url: `${backendUrl}/${prefix}hook`, token: webhookToken },
        client: new ChatbotClient({ apiUrl: sim.url, token: sim.token, dispatcher: observer.dispatcher }),
        verifications,
    };
}

/** Starts ./simulatorProcess.js and reads its address and token from its first line. */
async function startSimulator(options: object): Promise<{ url: string; token: string }> {
    const child = spawn(process.execPath, [path.join(__dirname, "simulatorProcess.js"), JSON.stringify(options)], {
        stdio: ["pipe", "pipe", "inherit"],
    });
    simulator = child;
    const lines = readline.createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the simulator did not start within 30 s")), 30_000);
        lines.on("line", (l) => {
            clearTimeout(timer);
            resolve(l);
            simulatorSaid = l;
        });
        child.once("exit", (code) => reject(new Error(`the simulator exited (code ${code}) before it started`)));
    });
    return JSON.parse(first) as { url: string; token: string };
}

/** Stops the simulator process; resolves to the requests it answered. */
async function stopSimulator(): Promise<number | undefined> {
    const child = simulator;
    if (!child || child.exitCode !== null) return undefined;
    const exited = new Promise((resolve) => child.once("close", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
    return (JSON.parse(simulatorSaid) as { requests?: number }).requests;
}

export const mochaHooks = {
    async beforeAll(this: Mocha.Context): Promise<void> {
        this.timeout(60_000);
        current = await open();
        const where = current.live
            ? `the ChatBot API at ${current.apiUrl} (live)`
            : `the simulator at ${current.apiUrl} (a process of its own)`;
        console.log(`acceptance tier: against ${where}; run ${current.runId}, names ${current.prefix}...`);
    },

    async afterAll(this: Mocha.Context): Promise<void> {
        this.timeout(300_000);
        const a = current;
        if (!a) return;
        try {
            // Whatever failed before: delete every item of this run, by its prefix.
            const { deleted } = await sweepAccount(a.client, { prefix: a.prefix }, () => {});
            if (deleted.length > 0)
                console.log(`acceptance tier: the sweep deleted ${deleted.length} left by the cases`);
        } finally {
            a.simulatorRequests = await stopSimulator();
            await backends.closeAll();
            if (process.env.CHATBOT_LIVE_RECORD === "1") console.log(`acceptance tier: wrote ${writeRecord(a.live)}`);
            const seconds = ((Date.now() - started) / 1000).toFixed(0);
            const total =
                a.simulatorRequests === undefined
                    ? "(the provider's, in the pulumi runs, are not counted here)"
                    : `(${a.simulatorRequests} answered by the simulator in all, the pulumi runs' included)`;
            console.log(`acceptance tier: ${a.observer.requests} requests from its client ${total}, ${seconds} s`);
        }
    },
};
