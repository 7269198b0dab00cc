/**
 * `pulumi-chatbot probe` against what a hostile backend or account may hold (issue 65), called as
 * the command calls it: a body that never ends is read up to the limit and no further; a redirect
 * to a metadata, loopback or private address is refused before any connection; an account's url
 * to such an address is refused unless --allow-private, while a url given on the command line is
 * called and said to be; an answer's keys are named by path, never with what they carry; and an
 * account's names and urls print with their terminal codes escaped. Every server listens on
 * 127.0.0.1 only; every loop and wait is bounded.
 */
import { strict as assert } from "assert";
import * as http from "http";
import {
    Socket,
    type AddressInfo,
    type connect,
    type LookupFunction,
    type NetConnectOpts,
    type TcpNetConnectOpts,
} from "net";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { probe } from "../../provider/cli/probe";
import type { PulumiRun } from "../../provider/cli/pulumiCli";
import { DEFAULT_MAX_BODY_BYTES } from "../../provider/webhook";
import { emptySimulator, installedTesting, loopbackServers } from "../helpers/support";

const STORY = { id: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "Orders" };
const GIB = 2 ** 30;
/** What the kernel's socket buffers on loopback and undici's stream may hold beyond what the probe
 *  read: tens of MB at most, against the GiB an unbounded read takes. */
const IN_FLIGHT = 32 * 2 ** 20;
/** Codes a terminal acts on (C0 but the line break, DEL, C1): none may reach the output. */
const TERMINAL_CODES = /(?!\n)\p{Cc}/u;

interface Run {
    code: number;
    stdout: string;
    stderr: string;
}

const noPulumi: PulumiRun = () => Promise.reject(new Error("no pulumi run expected"));

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
    let stdout = "";
    let stderr = "";
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env, pulumi: noPulumi };
    const code = await probe(argv, io);
    return { code, stdout, stderr };
}

/** What an endless answer sent, and when the client went (before the body's end, or not). */
interface Sent {
    bytes: number;
    closed: Promise<boolean>;
}

/** Answers `status` with a body declared as 1 GiB and streamed as the client takes it, from one
 *  chunk allocated once; stops when the client goes. */
function endlessAnswer(res: http.ServerResponse, status: number): Sent {
    const chunk = Buffer.alloc(64 * 1024, "x");
    let gone = false;
    const sent: Sent = {
        bytes: 0,
        closed: new Promise((resolve) => res.on("close", () => resolve(sent.bytes < GIB))),
    };
    res.on("close", () => (gone = true));
    res.writeHead(status, { "content-type": "application/json", "content-length": String(GIB) });
    const more = () => {
        while (!gone && sent.bytes < GIB) {
            sent.bytes += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", more);
        }
        if (!gone) res.end();
    };
    more();
    return sent;
}

describe("pulumi-chatbot probe, against hostile backends and accounts", function () {
    this.timeout(20_000);
    const servers = loopbackServers();
    const counted: http.Server[] = [];
    /** A server on 127.0.0.1 that counts the connections made to it. */
    async function listenCounting(listener: http.RequestListener, count: () => void): Promise<string> {
        const server = http.createServer(listener).on("connection", count);
        counted.push(server);
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
    /** What each endless answer sent, by the request that got it. */
    let sent: Record<string, Sent> = {};
    let endless = "";
    let redirecting = "";
    let redirected = 0;
    let internal = "";
    let internalConnections = 0;
    let internalPort = 0;
    let hostile = "";
    /** Connections this process opened (undici opens each with net.connect). */
    let socketsOpened = 0;
    /** Past this many, a connection is not made: were the probe to try an address it must refuse,
     *  the test fails without reaching it (a real metadata service, in CI). */
    let socketsAllowed = Infinity;
    const netModule = require("net") as { connect: typeof connect };
    const realConnect = netModule.connect;
    /** The options of each connection stopped. */
    let stopped: NetConnectOpts[] = [];
    const countingConnect = ((...args: Parameters<typeof connect>) => {
        if (++socketsOpened <= socketsAllowed) return realConnect(...args);
        stopped.push(args[0] as unknown as NetConnectOpts);
        const socket = new Socket();
        process.nextTick(() => socket.destroy(new Error("a connection the test forbids")));
        return socket;
    }) as typeof connect;

    before(async () => {
        endless = await servers.listen((req, res) => {
            const at = `${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`;
            req.resume();
            sent[at] = endlessAnswer(res, req.method === "POST" && at.endsWith("/fail") ? 500 : 200);
        });
        // Answers as a good backend would: ChatBot's challenge, or {}.
        internal = await listenCounting(
            (req, res) => {
                const challenge = new URL(req.url ?? "/", "http://x").searchParams.get("challenge");
                req.resume().on("end", () => res.end(req.method === "GET" ? (challenge ?? "") : "{}"));
            },
            () => internalConnections++,
        );
        internalPort = Number(new URL(internal).port);
        const redirect: Record<string, string> = {
            "/to-metadata": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
            "/to-loopback": `${internal}/internal`,
            "/to-localhost": `http://localhost:${internalPort}/internal`,
            "/to-mapped": `http://[::ffff:127.0.0.1]:${internalPort}/internal`,
            "/to-numeric": `http://0x7f.1:${internalPort}/internal`,
            "/to-rebinding": `http://rebinding.test:${internalPort}/internal`,
        };
        redirecting = await listenCounting(
            (req, res) => {
                req.resume();
                res.writeHead(307, { location: redirect[req.url ?? ""] ?? "/" }).end();
            },
            () => redirected++,
        );
        hostile = await servers.listen((req, res) => {
            req.resume();
            res.end(
                JSON.stringify({
                    responses: [{ type: "text", message: "hi", "x=s3cr3t-VALUE": 1 }],
                    "aws_secret_access_key=AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                    AKIAIOSFODNN7EXAMPLF: "a key that is itself a credential",
                    "\u001b[2K\rok    \u009b31m": "x",
                    mesage: "a plain typo, named",
                }),
            );
        });
        netModule.connect = countingConnect;
    });
    after(async () => {
        netModule.connect = realConnect;
        await servers.closeAll();
        for (const server of counted) server.closeAllConnections();
        await Promise.all(counted.map((server) => new Promise((resolve) => server.close(resolve))));
    });
    beforeEach(() => {
        sent = {};
        redirected = 0;
        internalConnections = 0;
        socketsOpened = 0;
        socketsAllowed = Infinity;
        stopped = [];
    });

    describe("a body that does not end", () => {
        it("the verification request's answer and a 200's: too large, read to the limit and no further", async () => {
            const r = await run([`${endless}/ok`, "--token", "t0ken"]);
            assert.equal(r.code, 1, r.stdout + r.stderr);
            const tooLarge = new RegExp(
                `answered HTTP 200 with a body too large: over 1 MiB, the most the probe reads`,
                "g",
            );
            assert.equal(r.stdout.match(tooLarge)?.length, 2, r.stdout);
            assert.match(
                r.stdout,
                /verification request: http:\/\/127\.0\.0\.1:\d+\/ok answered HTTP 200 with a body too large/,
            );
            assert.ok(!/ERR_STRING_TOO_LONG|could not connect/.test(r.stdout), r.stdout);
            for (const at of ["GET /ok", "POST /ok"]) await assertReadBounded(at);
        });

        it("a 500's body: too large, and the status said", async () => {
            const r = await run([`${endless}/fail`, "--no-verify"]);
            assert.equal(r.code, 1);
            assert.match(r.stdout, /\/fail answered HTTP 500 with a body too large: over 1 MiB/);
            assert.match(r.stdout, /\/fail answered HTTP 500; ChatBot accepts only 200/);
            await assertReadBounded("POST /fail");
        });

        /** The server wrote at most the limit and what sockets and streams hold in flight, and the
         *  probe closed the connection long before the 1 GiB the answer declared. */
        async function assertReadBounded(at: string) {
            const s = sent[at];
            assert.ok(s, `${at} was answered`);
            let timer: NodeJS.Timeout | undefined;
            const waited = new Promise((resolve) => (timer = setTimeout(resolve, 5000, "still open after 5 s")));
            const early = await Promise.race([s.closed, waited]).finally(() => clearTimeout(timer));
            assert.equal(early, true, `${at}: the probe closed the connection before the body's end`);
            assert.ok(s.bytes > DEFAULT_MAX_BODY_BYTES, `${at}: the server sent ${s.bytes} bytes, past the limit`);
            assert.ok(
                s.bytes <= DEFAULT_MAX_BODY_BYTES + IN_FLIGHT,
                `${at}: the server sent ${s.bytes} bytes before the probe stopped reading`,
            );
        }
    });

    describe("a redirect where ChatBot would not go", () => {
        const refusals: Array<[string, RegExp]> = [
            [
                "/to-metadata",
                /refused to call http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/security-credentials\/ \(the redirect's target\): 169\.254\.169\.254 is a cloud metadata address, which ChatBot cannot reach from the internet \(for a backend in local development: --allow-private\)/,
            ],
            [
                "/to-loopback",
                /refused to call http:\/\/127\.0\.0\.1:\d+\/internal \(the redirect's target\): 127\.0\.0\.1 is a loopback address/,
            ],
            [
                "/to-localhost",
                /refused to call http:\/\/localhost:\d+\/internal \(the redirect's target\): localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
            ],
            [
                "/to-mapped",
                /refused to call http:\/\/\[::ffff:7f00:1\]:\d+\/internal .*: ::ffff:7f00:1 is a loopback address/,
            ],
            [
                "/to-numeric",
                /refused to call http:\/\/127\.0\.0\.1:\d+\/internal .*: 127\.0\.0\.1 is a loopback address/,
            ],
        ];
        for (const [from, says] of refusals) {
            it(`${from}: refused with a sentence, no socket opened to it, though the first url (loopback, given here) was called`, async () => {
                socketsAllowed = 1;
                const r = await run([`${redirecting}${from}`, "--no-verify"]);
                assert.equal(r.code, 1, r.stdout + r.stderr);
                assert.match(r.stdout, says);
                assert.equal(redirected, 1, "the url given was called");
                assert.equal(internalConnections, 0, "nothing connected to the redirect's target");
                assert.equal(socketsOpened, 1, "the one socket the probe opened was the first url's");
            });
        }

        it("a name that resolves elsewhere by the time of the connection (DNS rebinding) is connected at the address checked", async () => {
            // A resolver as an attacker's DNS server answers: a public address for the check, then
            // this machine. The public one is a documentation address, and the test stops the
            // connection to it: what matters is the address the socket was given.
            const dns = (require("dns") as typeof import("dns")).promises;
            const realLookup = dns.lookup;
            let asked = 0;
            dns.lookup = (async (host: string) => {
                if (host !== "rebinding.test") throw new Error(`unexpected lookup of ${host}`);
                return [{ address: asked++ === 0 ? "203.0.113.7" : "127.0.0.1", family: 4 }];
            }) as unknown as typeof dns.lookup;
            try {
                socketsAllowed = 1;
                const r = await run([`${redirecting}/to-rebinding`, "--no-verify"]);
                assert.match(
                    r.stdout,
                    /could not connect to http:\/\/rebinding\.test:\d+\/internal .*a connection the test forbids/,
                );
            } finally {
                dns.lookup = realLookup;
            }
            assert.equal(asked, 1, "the name was resolved once, for the check");
            assert.equal(stopped.length, 1);
            const lookup = (stopped[0] as TcpNetConnectOpts).lookup as LookupFunction;
            const answered = await new Promise((resolve, reject) =>
                lookup("rebinding.test", { all: true }, (e, all) => (e ? reject(e) : resolve(all))),
            );
            assert.deepEqual(
                answered,
                [{ address: "203.0.113.7", family: 4 }],
                "the socket connects to the address checked",
            );
            assert.equal(asked, 1, "and never asks the resolver again");
            assert.equal(internalConnections, 0);
        });

        it("--allow-private follows it (local development)", async () => {
            const r = await run([`${redirecting}/to-loopback`, "--no-verify", "--allow-private"]);
            assert.equal(r.code, 0, r.stdout + r.stderr);
            assert.equal(internalConnections, 1);
            assert.equal(socketsOpened, 2);
        });
    });

    it("a url given on the command line at a loopback address is called, and one line says so", async () => {
        const r = await run([`${internal}/internal`, "--no-verify"]);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.equal(internalConnections, 1);
        assert.equal(
            r.stderr,
            `probe: ${internal}/internal: 127.0.0.1 is a loopback address, which ChatBot cannot reach; ` +
                "allowed: given on the command line.\n",
        );
    });

    it("an answer's keys are named by path, a key that is not a plain word not at all, and no value", async () => {
        const expected = [
            "invalid body: responses[0]: 1 unknown property whose name is not shown (not a plain word)",
            'invalid body: unknown property "mesage", and 3 unknown properties whose names are not shown (not plain words)',
        ];
        const json = await run([`${hostile}/hook`, "--no-verify", "--json"]);
        const lines = await run([`${hostile}/hook`, "--no-verify"]);
        const { problems } = (JSON.parse(json.stdout) as { backends: Array<{ problems: string[] }> }).backends[0];
        assert.deepEqual([...problems].sort(), expected);
        assert.ok(lines.stdout.startsWith(`FAIL  ${hostile}/hook: invalid body: `), lines.stdout);
        for (const problem of expected) assert.ok(lines.stdout.includes(problem), lines.stdout);
        for (const r of [json, lines]) {
            assert.equal(r.code, 1);
            const out = r.stdout + r.stderr;
            for (const leak of ["AKIA", "aws_secret", "wJalr", "credential", "s3cr3t", "VALUE", "[2K", "31m"]) {
                assert.ok(!out.includes(leak), `${leak} was printed:\n${out}`);
            }
            assert.ok(!TERMINAL_CODES.test(out), `a terminal code was printed: ${JSON.stringify(out)}`);
        }
    });

    describe("--all", () => {
        let sim: ChatbotSimulator;
        before(async () => {
            sim = await installedTesting().ChatbotSimulator.start();
        });
        after(() => sim.close());
        beforeEach(() => emptySimulator(sim));
        const apiEnv = () => ({ CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url, CHATBOT_RETRY_BASE_MS: "1" });

        it("refuses a connection whose url is internal, calling nothing there; --allow-private calls it", async () => {
            const c = sim.addConnection({ story: STORY, name: "internal", url: `${internal}/internal` });
            const r = await run(["--all"], apiEnv());
            assert.equal(r.code, 1, r.stdout + r.stderr);
            const refused =
                `refused to call ${internal}/internal: 127.0.0.1 is a loopback address, which ChatBot cannot ` +
                "reach from the internet (for a backend in local development: --allow-private)";
            assert.equal(
                r.stdout.split("\n")[0],
                `FAIL  webhook connection "internal" (${c.id}) ${internal}/internal: verification request: ${refused}; ${refused}`,
            );
            assert.equal(internalConnections, 0, "nothing connected to the internal url");

            const allowed = await run(["--all", "--allow-private"], apiEnv());
            assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
            assert.equal(internalConnections, 2, "the verification request and the call");
        });

        it("prints a name and url holding terminal codes escaped: no false ok line", async () => {
            const trick = "\u001b[2K\r ok";
            const c = sim.addConnection({ story: STORY, name: `orders${trick}`, url: `${internal}/${trick}` });
            const r = await run(["--all", "--allow-private"], apiEnv());
            assert.ok(!TERMINAL_CODES.test(r.stdout + r.stderr), JSON.stringify(r.stdout + r.stderr));
            const escaped = "\\u{1b}[2K\\u{d} ok";
            assert.ok(
                r.stdout.startsWith(
                    `ok    webhook connection "orders${escaped}" (${c.id}) ${internal}/${escaped}: answered as ChatBot requires`,
                ),
                r.stdout,
            );
            // --json escapes them as JSON does, so the values read back exactly.
            const json = await run(["--all", "--allow-private", "--json"], apiEnv());
            assert.ok(!TERMINAL_CODES.test(json.stdout), JSON.stringify(json.stdout));
            const [b] = (JSON.parse(json.stdout) as { backends: Array<{ name: string; url: string }> }).backends;
            assert.deepEqual([b.name, b.url], [`orders${trick}`, `${internal}/${trick}`]);
            // Given on the command line, the same: its label is printed escaped too.
            const given = await run([`${internal}/${trick}`, "--no-verify"]);
            assert.ok(!TERMINAL_CODES.test(given.stdout + given.stderr), JSON.stringify(given.stdout + given.stderr));
            assert.ok(
                given.stdout.startsWith(`ok    ${internal}/${escaped}: answered as ChatBot requires`),
                given.stdout,
            );
        });
    });
});
