/**
 * The ChatBot API simulator (`pulumi-chatbot/testing`, as installed) in a child process of its
 * own, as the real API is remote: its work must not share a process with the bench's timers.
 * The parent asks it over IPC to reset, to report its request log, to limit the account and to
 * change a connection's url as a person would in the dashboard.
 *
 * Run as a script, this file is the child.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as Testing from "pulumi-chatbot/testing";

/** What the parent learns from the request log since the last reset. */
export interface RequestStats {
    requests: number;
    byMethod: Record<string, number>;
    /** The same, less the requests answered 429 (the account limit): what the API served. */
    servedByMethod: Record<string, number>;
    /** Requests that were not 2xx. */
    failed: number;
    /** Requests answered 429 by the account limit (`limit`). */
    limited: number;
    maxInFlight: number;
    /** Connections the account holds now. */
    held: number;
}

type Ask =
    | { id: number; op: "reset" }
    | { id: number; op: "stats" }
    | { id: number; op: "limit"; limit: Testing.RateLimit | undefined }
    | { id: number; op: "url"; name: string; set?: string };
type Answer = { id: number; stats?: RequestStats; url?: string; error?: string };
type Hello = { ready: true; url: string; token: string } | { ready: false; error: string };

const START_TIMEOUT_MS = 30_000;
const ASK_TIMEOUT_MS = 10_000;

export class RemoteSimulator {
    private seq = 0;
    private readonly waiting = new Map<number, (a: Answer) => void>();

    private constructor(
        private readonly child: ChildProcess,
        readonly url: string,
        readonly token: string,
    ) {
        child.on("message", (m: Answer) => {
            const done = this.waiting.get(m.id);
            this.waiting.delete(m.id);
            done?.(m);
        });
    }

    get pid(): number | undefined {
        return this.child.pid;
    }

    /** Starts the child (TypeScript through ts-node, transpile only) and waits for its address. */
    static async start(latencyMs: number): Promise<RemoteSimulator> {
        const child = fork(__filename, [String(latencyMs)], {
            execArgv: ["-r", "ts-node/register/transpile-only"],
            env: { ...process.env, TS_NODE_PROJECT: path.join(__dirname, "..", "tsconfig.json") },
            stdio: ["ignore", "inherit", "inherit", "ipc"],
        });
        try {
            const hello = await new Promise<Hello>((resolve, reject) => {
                const timer = setTimeout(
                    () => reject(new Error("the simulator did not start in time")),
                    START_TIMEOUT_MS,
                );
                child.once("message", (m: Hello) => {
                    clearTimeout(timer);
                    resolve(m);
                });
                child.once("exit", (code) => {
                    clearTimeout(timer);
                    reject(new Error(`the simulator exited (code ${code}) before it started`));
                });
            });
            if (!hello.ready) throw new Error(`the simulator failed to start: ${hello.error}`);
            return new RemoteSimulator(child, hello.url, hello.token);
        } catch (e) {
            child.kill("SIGKILL");
            throw e;
        }
    }

    /** Forgets the request log and the in-flight peak. The connections stay: a stack's refresh
     *  reads what its up made. */
    async reset(): Promise<void> {
        await this.ask({ op: "reset" });
    }

    /** Sets the account-wide request limit (`SimulatorOptions.rateLimit`); undefined: none. */
    async limit(limit: Testing.RateLimit | undefined): Promise<void> {
        await this.ask({ op: "limit", limit });
    }

    /** The url of the one connection named `name`; with `set`, changed first, by hand (no request
     *  is logged). */
    async connectionUrl(name: string, set?: string): Promise<string> {
        const a = await this.ask({ op: "url", name, set });
        if (a.url === undefined) throw new Error("the simulator sent no url");
        return a.url;
    }

    /** The request log since the last reset, counted. */
    async stats(): Promise<RequestStats> {
        const a = await this.ask({ op: "stats" });
        if (!a.stats) throw new Error("the simulator sent no stats");
        return a.stats;
    }

    private ask(question: Ask extends infer A ? (A extends Ask ? Omit<A, "id"> : never) : never): Promise<Answer> {
        const id = ++this.seq;
        const op = question.op;
        return new Promise<Answer>((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiting.delete(id);
                reject(new Error(`the simulator did not answer "${op}" in time`));
            }, ASK_TIMEOUT_MS);
            this.waiting.set(id, (a) => {
                clearTimeout(timer);
                if (a.error) reject(new Error(`simulator: ${a.error}`));
                else resolve(a);
            });
            this.child.send({ id, ...question } as Ask);
        });
    }

    /** Ends the child; SIGKILL if it has not gone within a second. */
    async close(): Promise<void> {
        const child = this.child;
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 1_000);
        await exited;
        clearTimeout(timer);
    }
}

/** The child: the simulator of the installed package, answering the parent's questions. */
async function serve(latencyMs: number): Promise<void> {
    const send = (m: Hello | Answer) => process.send?.(m);
    try {
        const root = path.resolve(__dirname, "..");
        const installed = createRequire(path.join(root, "node_modules", "_bench_.js"));
        const { ChatbotSimulator } = installed("pulumi-chatbot/testing") as typeof Testing;
        const sim = await ChatbotSimulator.start({ latencyMs });
        process.on("message", (m: Ask) => {
            if (m.op === "reset") {
                sim.resetRequests();
                send({ id: m.id });
            } else if (m.op === "limit") {
                sim.rateLimit = m.limit;
                send({ id: m.id });
            } else if (m.op === "stats") {
                const byMethod: Record<string, number> = {};
                const servedByMethod: Record<string, number> = {};
                for (const r of sim.requests) {
                    byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
                    if (r.status !== 429) servedByMethod[r.method] = (servedByMethod[r.method] ?? 0) + 1;
                }
                const failed = sim.requests.filter((r) => r.status < 200 || r.status >= 300).length;
                send({
                    id: m.id,
                    stats: {
                        requests: sim.requests.length,
                        byMethod,
                        servedByMethod,
                        failed,
                        limited: sim.rateLimited,
                        maxInFlight: sim.maxInFlight,
                        held: sim.listConnections().length,
                    },
                });
            } else if (m.op === "url") {
                const named = sim.listConnections().filter((c) => c.name === m.name);
                if (named.length !== 1) {
                    send({ id: m.id, error: `${named.length} connections named ${m.name}` });
                    return;
                }
                if (m.set !== undefined) sim.editConnection(named[0].id, { url: m.set });
                send({ id: m.id, url: sim.getConnection(named[0].id)?.url });
            } else {
                send({ id: (m as { id: number }).id, error: "unknown request" });
            }
        });
        const stop = () => void sim.close().finally(() => process.exit(0));
        process.on("SIGTERM", stop);
        process.on("disconnect", stop);
        send({ ready: true, url: sim.url, token: sim.token });
    } catch (e) {
        send({ ready: false, error: e instanceof Error ? e.message : String(e) });
        process.exit(1);
    }
}

if (require.main === module) void serve(Number(process.argv[2] ?? "0"));
