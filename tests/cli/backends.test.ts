/**
 * The example backends of examples/backends, one per SDK language, each validating with its own
 * ecosystem's JSON Schema library (Python `jsonschema`, Go `santhosh-tekuri/jsonschema/v6`, Java
 * `com.networknt:json-schema-validator`) against the contract the package ships
 * (`pulumi-chatbot/webhook/schema/request.json`, `response.json`, as installed). Each is built once
 * per run, started on 127.0.0.1 and checked as ChatBot calls it (the verification request, then a
 * webhook call): ok, with the current token and a rotation's next (WEBHOOK_TOKENS) alike. Started
 * with BAD_ANSWER=1 it makes an answer over a documented limit, and its own validator refuses it
 * (500, naming the property and the limit) before ChatBot would. A
 * language whose toolchain is missing is skipped, saying so; every process is stopped in after().
 */
import { strict as assert } from "assert";
import { spawn, spawnSync, type ChildProcess } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type * as Webhook from "pulumi-chatbot/webhook";
import { installedRequire, root, runInstalledCommand } from "../helpers/support";
import { goProgramBinary, MAVEN_REPO, pythonVenvOf } from "../helpers/languagePrograms";
import { javaJar } from "../helpers/javaPrograms";

const EXAMPLES = path.join(root, "examples", "backends");
/** The schema files as the npm package installs them: what a backend in the user's repository reads. */
const SCHEMA_DIR = path.join(root, "node_modules", "pulumi-chatbot", "dist", "webhook", "schema");
const TOKEN = "backend-test-token";
/** The next token of a rotation, given in WEBHOOK_TOKENS (a JSON list): a comma, quotes and a
 *  non-ASCII letter, as a JSON list allows and a comma-separated one would not. */
const NEXT = 'next-t0ken, with "quotes" and é';
const STARTUP_MS = 60_000;

const webhook: typeof Webhook = installedRequire("pulumi-chatbot/webhook");

/** What `pulumi-chatbot probe --json` says of one backend. */
interface Probed {
    exit: number | null;
    ok: boolean;
    verification?: { ok: boolean };
    problems: string[];
}

/**
 * How a pipeline checks a backend as ChatBot calls it: the installed `pulumi-chatbot probe`, its
 * token from the environment (out of the command line), its --json read.
 */
async function probeBackend(url: string): Promise<Probed> {
    const r = await runInstalledCommand(["probe", url, "--json"], {
        env: { ...process.env, CHATBOT_PROBE_TOKEN: TOKEN },
    });
    assert.ok(!r.stdout.includes(TOKEN) && !r.stderr.includes(TOKEN), "the probe prints no token");
    const [backend] = (JSON.parse(r.stdout) as { backends: Probed[] }).backends;
    return { ...backend, exit: r.code };
}

/** The first of these commands that does not run (`[command, its version flag]`), as a reason to skip. */
function firstMissing(commands: Array<[string, string]>): string | undefined {
    const missing = commands.find(([command, flag]) => spawnSync(command, [flag], { stdio: "ignore" }).status !== 0);
    return missing && `${missing[0]} is not on PATH (or does not run)`;
}

interface Language {
    name: string;
    /** Why it cannot run here, when a tool is missing. */
    missing(): string | undefined;
    /** Builds it (once per run) and says how to start it. */
    build(): { command: string; args: string[]; cwd: string };
}

const LANGUAGES: Language[] = [
    {
        name: "Python (jsonschema)",
        missing: () => firstMissing([["python3", "--version"]]),
        build: () => {
            const dir = path.join(EXAMPLES, "python");
            const venv = pythonVenvOf(path.join(dir, "requirements.txt"));
            return { command: path.join(venv, "bin", "python"), args: [path.join(dir, "backend.py")], cwd: dir };
        },
    },
    {
        name: "Go (santhosh-tekuri/jsonschema)",
        missing: () => firstMissing([["go", "version"]]),
        build: () => {
            const dir = path.join(EXAMPLES, "go");
            return { command: goProgramBinary(dir), args: [], cwd: dir };
        },
    },
    {
        name: "Java (networknt json-schema-validator)",
        missing: () =>
            firstMissing([
                ["java", "-version"],
                ["mvn", "-version"],
                ["jar", "--version"],
            ]),
        build: () => {
            // A copy whose Maven settings name the repository's local repository, as the tests'
            // Java programs have (javaJar builds with a project's own .mvn/maven.config).
            const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-backend-java-")), "java");
            fs.cpSync(path.join(EXAMPLES, "java"), copy, { recursive: true, filter: (f) => !f.includes("target") });
            fs.mkdirSync(path.join(copy, ".mvn"));
            fs.writeFileSync(path.join(copy, ".mvn", "maven.config"), `-Dmaven.repo.local=${MAVEN_REPO}\n`);
            const jar = javaJar(copy);
            fs.rmSync(path.dirname(copy), { recursive: true, force: true });
            return { command: "java", args: ["-jar", jar], cwd: path.dirname(jar) };
        },
    },
];

interface Running {
    url: string;
    stderr(): string;
}

const started: ChildProcess[] = [];

/** Starts a backend on 127.0.0.1 (a free port) and resolves when it says where it listens. */
function start(how: { command: string; args: string[]; cwd: string }, env: Record<string, string>): Promise<Running> {
    const child = spawn(how.command, how.args, {
        cwd: how.cwd,
        env: { ...process.env, CHATBOT_SCHEMA_DIR: SCHEMA_DIR, PORT: "0", WEBHOOK_TOKEN: TOKEN, ...env },
        stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child);
    let out = "";
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
        const timer = setTimeout(
            () => reject(new Error(`no "listening on" within ${STARTUP_MS} ms:\n${out}${err}`)),
            STARTUP_MS,
        );
        // "close", not "exit": its standard error read to the end, for the reason it gives.
        child.once("close", (code) => {
            clearTimeout(timer);
            reject(new Error(`exited (${code}) before listening:\n${out}${err}`));
        });
        child.stdout!.on("data", (d: Buffer) => {
            out += d.toString();
            const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
            if (url) {
                clearTimeout(timer);
                child.removeAllListeners("close");
                resolve({ url: `${url}/`, stderr: () => err });
            }
        });
    });
}

/** A webhook call as ChatBot makes it, with the token; the answer's status and parsed body. */
async function call(
    url: string,
    body: unknown,
    token = TOKEN,
): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${url}?token=${encodeURIComponent(token)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

after(async function () {
    this.timeout(15_000);
    await Promise.all(
        started.map(
            (child) =>
                new Promise<void>((resolve) => {
                    if (child.exitCode !== null || child.signalCode !== null) return resolve();
                    const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
                    child.once("exit", () => {
                        clearTimeout(force);
                        resolve();
                    });
                    child.kill("SIGTERM");
                }),
        ),
    );
});

for (const language of LANGUAGES) {
    describe(`examples/backends: ${language.name}`, function () {
        let how: { command: string; args: string[]; cwd: string };

        before(function () {
            const missing = language.missing();
            if (missing) {
                console.log(`    skipped: ${missing}`);
                this.skip();
            }
            // A cold build: a virtual environment from PyPI, Go modules, Maven Central's jars.
            this.timeout(600_000);
            how = language.build();
        });

        it("answers the verification request and a webhook call as ChatBot requires, accepting each token of a rotation", async function () {
            this.timeout(STARTUP_MS + 30_000);
            // During a rotation: WEBHOOK_TOKEN (the current) and WEBHOOK_TOKENS (the next) both count.
            const backend = await start(how, { WEBHOOK_TOKENS: JSON.stringify([NEXT]) });
            const probed = await probeBackend(backend.url);
            assert.deepEqual(probed.problems, [], backend.stderr());
            assert.ok(probed.ok && probed.verification?.ok);
            assert.equal(probed.exit, 0, "`pulumi-chatbot probe` exits 0");
            const answered = await call(backend.url, webhook.sampleWebhookRequest);
            assert.deepEqual(answered.body.responses, [
                { type: "text", message: `Hello, ${webhook.sampleWebhookRequest.userId}` },
            ]);
            // Its own validator refuses what is not ChatBot's request, and a wrong token is refused.
            const notChatBots = await call(backend.url, { ...webhook.sampleWebhookRequest, node: "n" });
            assert.equal(notChatBots.status, 400);
            assert.match(String(notChatBots.body.error), /request\.json.*node/);
            const wrongToken = await fetch(`${backend.url}?challenge=c&token=wrong`);
            assert.equal(wrongToken.status, 401);
            assert.equal((await fetch(backend.url, { method: "PUT" })).status, 405);
            // The next token is accepted as the current is, by the verification request and a call.
            const next = encodeURIComponent(NEXT);
            const verified = await fetch(`${backend.url}?challenge=c-next&token=${next}`);
            assert.equal(verified.status, 200);
            assert.equal(await verified.text(), "c-next");
            assert.equal((await call(backend.url, webhook.sampleWebhookRequest, NEXT)).status, 200);
            assert.equal((await call(backend.url, webhook.sampleWebhookRequest, `${NEXT}x`)).status, 401);
            assert.equal((await call(backend.url, webhook.sampleWebhookRequest, "next-t0ken")).status, 401);
            // A list that is not one stops it at start, naming the variable and not its value.
            await assert.rejects(start(how, { WEBHOOK_TOKENS: `${NEXT},${TOKEN}` }), (e: Error) => {
                assert.match(e.message, /exited \(\d+\) before listening:[^]*WEBHOOK_TOKENS: must be a JSON list/);
                assert.ok(!e.message.includes("t0ken"), e.message);
                return true;
            });
        });

        it("refuses its own answer over a documented limit (BAD_ANSWER=1) with its validator's message", async function () {
            this.timeout(STARTUP_MS + 30_000);
            const backend = await start(how, { BAD_ANSWER: "1" });
            const answered = await call(backend.url, webhook.sampleWebhookRequest);
            assert.equal(answered.status, 500);
            const message = String(answered.body.error);
            // The property and the limit, as each library words them.
            assert.match(message, /^answer refused by response\.json: /);
            assert.match(message, /responses\/0\/message/);
            assert.match(message, /1,?024|too long/);
            // Its log gets the same line, which may arrive after the answer (another pipe).
            for (const until = Date.now() + 5_000; !backend.stderr().includes(message) && Date.now() < until;) {
                await new Promise((r) => setTimeout(r, 50));
            }
            assert.ok(backend.stderr().includes(message), `logged: ${backend.stderr()}`);
            // What ChatBot would make of it: a failed call.
            const probed = await probeBackend(backend.url);
            assert.equal(probed.ok, false);
            assert.equal(probed.exit, 1, "`pulumi-chatbot probe` exits 1: a backend would fail a chat");
            assert.ok(
                probed.problems.some((p) => /answered HTTP 500/.test(p)),
                probed.problems.join("; "),
            );
        });
    });
}
