/**
 * `pulumi-chatbot probe`, called as the command calls it (injected stdout, stderr, environment and
 * `pulumi`), against backends on 127.0.0.1: the kit's own handler, one written from ChatBot's
 * example backends (the older `elements` format), a slow one, a failing one and one that counts
 * the calls it holds at once; `--all` and `--stack` against the simulator in this process. Exit
 * codes, the lines, the --json shape, every secret kept out of what it prints, and the concurrency
 * bound. Every server listens on 127.0.0.1 only and every wait is bounded.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { probe } from "../../provider/cli/probe";
import type { PulumiRun } from "../../provider/cli/pulumiCli";
import { createWebhookHandler, text, type WebhookRequest } from "../../provider/webhook";
import { emptySimulator, installedTesting, loopbackServers } from "../helpers/support";

const STORY = { id: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "Orders" };
const CONNECTION_TYPE = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
const LEGACY_TYPE = "pulumi-nodejs:dynamic/chatbot:LegacyWebhook";

/** The backend's secrets: none may appear in anything the command prints. */
const TOKEN = "t0ken-PROBE-secret";
const AUTH = { username: "chatbot", password: "pa55-PROBE-secret" };
const HEADERS = { "X-Env": "h3ader-PROBE-secret" };
const SECRET = /PROBE-secret|t0ken|pa55|h3ader|qu3ry/;

interface Run {
    code: number;
    stdout: string;
    stderr: string;
}

/** What --json prints. */
interface JsonReport {
    ok: boolean;
    summary: { backends: number; ok: number; failing: number };
    backends: Array<Record<string, unknown>>;
}

describe("pulumi-chatbot probe", function () {
    this.timeout(20_000);
    const servers = loopbackServers();
    let good = "";
    let older = "";
    let slow = "";
    let failing = "";
    let counting = "";
    let seen: Array<{ method: string; body?: WebhookRequest }> = [];
    let holding = 0;
    let mostHeld = 0;
    const timers: NodeJS.Timeout[] = [];

    before(async () => {
        const kit = createWebhookHandler(
            (call) => {
                seen.push({ method: "POST", body: call });
                return { responses: [text(`Hi ${call.userId}`)], attributes: { known: true } };
            },
            { token: TOKEN, auth: AUTH, headers: HEADERS, logger: { warn() {}, error() {} } },
        );
        good = await servers.listen((req, res) => {
            if (req.method === "GET") seen.push({ method: "GET" });
            kit(req, res);
        });
        // As ChatBotCom/nodejs-webhook-example: the token checked on every request, the challenge
        // answered, and an answer in the older BotEngine format.
        older = await servers.listen((req, res) => {
            const query = new URL(req.url ?? "/", "http://x").searchParams;
            if (query.get("token") !== TOKEN) return res.writeHead(401).end();
            if (req.method === "GET") return res.end(query.get("challenge") ?? "");
            req.resume().on("end", () =>
                res.end(JSON.stringify({ responses: [{ type: "text", elements: ["Ok, no problem"] }] })),
            );
        });
        slow = await servers.listen((req, res) => {
            // Bounded: answers after 3 s if the probe is still there.
            timers.push(setTimeout(() => res.writableEnded || res.end("{}"), 3000));
        });
        failing = await servers.listen((req, res) => res.writeHead(500).end("boom"));
        counting = await servers.listen((req, res) => {
            const challenge = new URL(req.url ?? "/", "http://x").searchParams.get("challenge");
            holding++;
            mostHeld = Math.max(mostHeld, holding);
            timers.push(
                setTimeout(() => {
                    holding--;
                    res.end(req.method === "GET" ? (challenge ?? "") : "{}");
                }, 100),
            );
        });
    });
    after(async () => {
        timers.forEach(clearTimeout);
        await servers.closeAll();
    });
    beforeEach(() => {
        seen = [];
        holding = 0;
        mostHeld = 0;
    });

    const noPulumi: PulumiRun = () => Promise.reject(new Error("no pulumi run expected"));

    async function run(argv: string[], env: NodeJS.ProcessEnv = {}, pulumi: PulumiRun = noPulumi): Promise<Run> {
        let stdout = "";
        let stderr = "";
        const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env, pulumi };
        const code = await probe(argv, io);
        return { code, stdout, stderr };
    }

    function assertNoSecret(r: Run, ...more: string[]) {
        const shown = r.stdout + r.stderr;
        assert.ok(!SECRET.test(shown), `a secret was printed:\n${shown}`);
        for (const s of more) assert.ok(!shown.includes(s), `${s} was printed:\n${shown}`);
    }

    const secretFlags = [
        "--token",
        TOKEN,
        "--auth",
        `${AUTH.username}:${AUTH.password}`,
        "--header",
        "X-Env: h3ader-PROBE-secret",
    ];

    describe("probe <url>", () => {
        it("passes the kit's handler given its secrets as flags: exit 0, one ok line and the summary", async () => {
            const r = await run([`${good}/hook`, ...secretFlags]);
            assert.equal(r.code, 0, r.stdout + r.stderr);
            const lines = r.stdout.trim().split("\n");
            assert.equal(lines.length, 2);
            assert.match(
                lines[0],
                new RegExp(`^ok {4}${good}/hook: answered as ChatBot requires \\(verified, \\d+ ms\\)$`),
            );
            assert.equal(lines[1], "probe: 1 backend answers as ChatBot requires.");
            assert.deepEqual(
                seen.map((s) => s.method),
                ["GET", "POST"],
                "the verification request, then the call",
            );
            assert.equal(seen[1].body?.node.type, "WEBHOOK", "a request shaped as ChatBot's (2.4)");
            assertNoSecret(r);
        });

        it("takes the secrets from files, or else from CHATBOT_PROBE_TOKEN, _AUTH and _HEADERS", async () => {
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-probe-"));
            try {
                const file = (name: string, text: string) => {
                    fs.writeFileSync(path.join(dir, name), text);
                    return path.join(dir, name);
                };
                const fromFiles = await run([
                    `${good}/hook`,
                    "--token-file",
                    file("token", `${TOKEN}\n`),
                    "--auth-file",
                    file("auth", `${AUTH.username}:${AUTH.password}\n`),
                    "--header-file",
                    file("headers", "X-Env: h3ader-PROBE-secret\n"),
                ]);
                assert.equal(fromFiles.code, 0, fromFiles.stdout + fromFiles.stderr);
                assertNoSecret(fromFiles);
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
            const env = {
                CHATBOT_PROBE_TOKEN: TOKEN,
                CHATBOT_PROBE_AUTH: `${AUTH.username}:${AUTH.password}`,
                CHATBOT_PROBE_HEADERS: "X-Env: h3ader-PROBE-secret",
            };
            const fromEnv = await run([`${good}/hook`], env);
            assert.equal(fromEnv.code, 0, fromEnv.stdout + fromEnv.stderr);
            assertNoSecret(fromEnv);

            // Without them the kit's handler refuses the verification request and the call.
            const without = await run([`${good}/hook`]);
            assert.equal(without.code, 1);
            assert.match(
                without.stdout,
                /^FAIL {2}.*verification request: .*answered HTTP 401.*the backend wants a token/m,
            );
            assert.equal(without.stdout.trim().split("\n").pop(), "probe: 1 of 1 backend would fail a chat.");
        });

        it("names a backend written from ChatBot's example backends as the older format, in lines and in --json", async () => {
            const r = await run([`${older}/`, "--token", TOKEN]);
            assert.equal(r.code, 1);
            assert.match(
                r.stdout,
                /^FAIL {2}http:\/\/127\.0\.0\.1:\d+\/: invalid body: responses\[0\]: \{"type": "text", "elements": \[\.\.\.\]\} is the older format of ChatBot's example backends .*\{"type": "text", "message": "\.\.\."\}.*"randomText", "messages"/m,
            );
            assertNoSecret(r);

            const json = await run([`${older}/`, "--token", TOKEN, "--json"]);
            assert.equal(json.code, 1);
            const out = JSON.parse(json.stdout) as JsonReport;
            assert.equal(out.ok, false);
            assert.deepEqual(out.summary, { backends: 1, ok: 0, failing: 1 });
            assert.equal(out.backends.length, 1);
            const [b] = out.backends;
            assert.equal(b.kind, "url");
            assert.equal(b.url, `${older}/`);
            assert.equal(b.ok, false);
            assert.equal(b.status, 200);
            assert.deepEqual(b.verification && (b.verification as { ok: boolean }).ok, true);
            assert.equal((b.problems as string[]).length, 1);
            assert.match((b.problems as string[])[0], /older format of ChatBot's example backends/);
            assertNoSecret(json);
        });

        it("fails a slow backend, a failing one and a host nothing listens on: exit 1, each problem said", async () => {
            const tooSlow = await run([`${slow}/hook`, "--no-verify", "--timeout-ms", "300"]);
            assert.equal(tooSlow.code, 1);
            assert.match(tooSlow.stdout, /^FAIL {2}.*timed out: no complete answer within the time limit of 300 ms/m);

            const fails = await run([`${failing}/hook`]);
            assert.equal(fails.code, 1);
            assert.match(
                fails.stdout,
                /verification request: .*answered HTTP 500.*; .*answered HTTP 500; ChatBot accepts only 200/,
            );

            const closed = http.createServer();
            await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
            const { port } = closed.address() as AddressInfo;
            await new Promise<void>((resolve) => closed.close(() => resolve()));
            const unreachable = await run([`http://127.0.0.1:${port}/hook?key=qu3ry-PROBE-secret`, "--token", TOKEN]);
            assert.equal(unreachable.code, 1);
            assert.match(
                unreachable.stdout,
                /could not connect to http:\/\/127\.0\.0\.1:\d+\/hook: connection refused/,
            );
            assert.match(unreachable.stdout, /\?key=\*\*\*/, "the URL is shown with its query values masked");
            assertNoSecret(unreachable);
        });

        it("--no-verify sends no verification request; --request sends the user's own body", async () => {
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-probe-"));
            try {
                const request = path.join(dir, "request.json");
                const own = {
                    chatId: "c1",
                    messageId: "m1",
                    userId: "user-from-file",
                    node: { id: "n", name: "n", type: "WEBHOOK", webhookId: "w", webhookName: "w" },
                };
                fs.writeFileSync(request, JSON.stringify(own));
                const r = await run([`${good}/hook`, ...secretFlags, "--no-verify", "--request", request]);
                assert.equal(r.code, 0, r.stdout + r.stderr);
                assert.deepEqual(
                    seen.map((s) => s.method),
                    ["POST"],
                );
                assert.equal(seen[0].body?.userId, "user-from-file");
                assert.match(r.stdout, /^ok {4}.*answered as ChatBot requires \(\d+ ms\)$/m);

                fs.writeFileSync(request, JSON.stringify({ chatId: "c1" }));
                const bad = await run([`${good}/hook`, "--request", request]);
                assert.equal(bad.code, 2);
                assert.match(bad.stderr, /is not a request as ChatBot sends it: messageId: /);
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        });

        it("refuses bad usage with exit 2, calling nothing and printing no secret", async () => {
            const cases: Array<[string[], RegExp]> = [
                [[], /give a URL, --stack NAME or --all/],
                [[`${good}/a`, `${good}/b`], /give one URL/],
                [
                    ["ftp://127.0.0.1/hook?key=qu3ry-PROBE-secret"],
                    /cannot probe ftp:\/\/127\.0\.0\.1\/hook\?key=\*\*\* because the URL must be an absolute http:\/\/ or https:\/\/ URL/,
                ],
                [["not a url"], /must be an absolute http:\/\/ or https:\/\/ URL/],
                [[`${good}/hook`, "--auth", "pa55-PROBE-secret"], /basic authorization must be USER:PASSWORD/],
                [[`${good}/hook`, "--header", "h3ader-PROBE-secret"], /a header must be 'Name: value'/],
                [[`${good}/hook`, "--token", TOKEN, "--token-file", "x"], /--token or --token-file, not both/],
                [
                    [`${good}/hook`, "--token-file", "/nonexistent/token"],
                    /cannot read --token-file \/nonexistent\/token: ENOENT/,
                ],
                [[`${good}/hook`, "--timeout-ms", "20000"], /--timeout-ms must be a whole number from 1 to 10000/],
                [[`${good}/hook`, "--bogus"], /Unknown option '--bogus'/],
                [["--stack", "prod", "--all"], /--stack NAME or --all, not both/],
                [["--all", "--token", TOKEN], /--token goes with probe <url>/],
                [["--stack", "prod", `${good}/hook`], /a URL goes with probe <url>/],
            ];
            for (const [argv, says] of cases) {
                const r = await run(argv, { CHATBOT_TOKEN: "x", CHATBOT_API_URL: "http://127.0.0.1:9" });
                assert.equal(r.code, 2, `${argv.join(" ")}: ${r.stderr}`);
                assert.match(r.stderr, says);
                assert.match(r.stderr, /^pulumi-chatbot probe: /);
                assert.equal(r.stdout, "");
                assertNoSecret(r);
            }
            assert.deepEqual(seen, [], "no backend was called");
        });
    });

    describe("probe --all and --stack, against the simulator", () => {
        let sim: ChatbotSimulator;
        before(async () => {
            sim = await installedTesting().ChatbotSimulator.start();
        });
        after(() => sim.close());
        beforeEach(() => emptySimulator(sim));

        /** The account's backends here are on loopback, as in local development: ChatBot could not call them. */
        const ALLOW = "--allow-private";

        const apiEnv = (extra: NodeJS.ProcessEnv = {}) => ({
            CHATBOT_TOKEN: sim.token,
            CHATBOT_API_URL: sim.url,
            CHATBOT_RETRY_BASE_MS: "1",
            ...extra,
        });

        function seed() {
            return {
                orders: sim.addConnection({
                    story: STORY,
                    name: "orders",
                    url: `${good}/hook`,
                    token: TOKEN,
                    auth: AUTH,
                    headers: HEADERS,
                }),
                example: sim.addConnection({
                    story: STORY,
                    name: "example",
                    url: `${older}/?key=qu3ry-PROBE-secret`,
                    token: TOKEN,
                }),
                legacy: sim.addLegacyWebhook({
                    name: "legacy",
                    url: `${good}/legacy`,
                    token: TOKEN,
                    auth: AUTH,
                    headers: [{ name: "X-Env", value: HEADERS["X-Env"] }],
                }),
            };
        }

        it("--all probes every connection and legacy webhook with its own url, token, headers and auth", async () => {
            const s = seed();
            const r = await run(["--all", ALLOW], apiEnv());
            assert.equal(r.code, 1, r.stdout + r.stderr);
            const lines = r.stdout.trim().split("\n");
            assert.equal(lines.length, 4);
            const line = (name: string) => lines.find((l) => l.includes(`"${name}"`)) ?? "";
            assert.match(
                line("orders"),
                new RegExp(`^ok {4}webhook connection "orders" \\(${s.orders.id}\\) ${good}/hook: answered`),
            );
            assert.match(
                line("legacy"),
                new RegExp(`^ok {4}legacy webhook "legacy" \\(${s.legacy.id}\\) ${good}/legacy: answered`),
            );
            assert.match(
                line("example"),
                new RegExp(
                    `^FAIL {2}webhook connection "example" \\(${s.example.id}\\) ${older}/\\?key=\\*\\*\\*: invalid body: responses\\[0\\]: .*older format`,
                ),
            );
            assert.equal(lines[3], "probe: 1 of 3 backends would fail a chat.");
            assert.match(r.stderr, /^probe: 3 in the account at http:\/\/127\.0\.0\.1:\d+; reading each\.$/m);
            assert.match(r.stderr, /^probe: 3 of 3 probed$/m);
            assert.equal(
                seen.filter((x) => x.method === "POST").length,
                2,
                "the kit's handler took both calls of its own",
            );
            assertNoSecret(r, sim.token);

            const json = await run(["--all", "--json", ALLOW], apiEnv());
            const out = JSON.parse(json.stdout) as JsonReport;
            assert.equal(out.ok, false);
            assert.deepEqual(out.summary, { backends: 3, ok: 2, failing: 1 });
            assert.deepEqual(
                out.backends.map((b) => [b.kind, b.id, b.name, b.ok]).sort(),
                [
                    ["legacy webhook", s.legacy.id, "legacy", true],
                    ["webhook connection", s.example.id, "example", false],
                    ["webhook connection", s.orders.id, "orders", true],
                ].sort(),
            );
            assertNoSecret(json, sim.token);
        });

        it("--all keeps within the client's in-flight limit (CHATBOT_MAX_IN_FLIGHT), probes and reads alike", async () => {
            for (let i = 0; i < 6; i++) sim.addConnection({ story: STORY, name: `c${i}`, url: `${counting}/hook` });
            sim.resetRequests();
            const r = await run(["--all", ALLOW], apiEnv({ CHATBOT_MAX_IN_FLIGHT: "2" }));
            assert.equal(r.code, 0, r.stdout + r.stderr);
            assert.equal(r.stdout.trim().split("\n").pop(), "probe: 6 backends answer as ChatBot requires.");
            assert.equal(mostHeld, 2, "two backends' requests at once: concurrent, and no more than the limit");
            assert.ok(sim.maxInFlight <= 2, `the API had ${sim.maxInFlight} requests at once`);
        });

        it("a token the API refuses, or none, fails with exit 2, saying which and printing no token", async () => {
            seed();
            const wrong = await run(["--all"], apiEnv({ CHATBOT_TOKEN: "wr0ng-PROBE-secret" }));
            assert.equal(wrong.code, 2);
            assert.match(
                wrong.stderr,
                /the ChatBot API at http:\/\/127\.0\.0\.1:\d+ rejected the developer access token \(HTTP 401\)\. Set a valid one in CHATBOT_TOKEN\./,
            );
            assert.equal(wrong.stdout, "");
            assertNoSecret(wrong);
            const none = await run(["--all"], { CHATBOT_API_URL: sim.url });
            assert.equal(none.code, 2);
            assert.match(none.stderr, /no ChatBot developer access token: set CHATBOT_TOKEN/);
            assert.deepEqual(seen, [], "no backend was called");
        });

        /** `pulumi` as the command runs it: `stack export --stack prod` answers the given resources,
         *  `config --json --show-secrets --stack prod` the given config. */
        function pulumiWith(
            resources: Array<{ type: string; id: string; name: string }>,
            config: Record<string, string> = {},
        ): PulumiRun {
            return async (args) => {
                const at = args.indexOf("--stack");
                const stack = at >= 0 ? args[at + 1] : "";
                if (stack !== "prod")
                    return { code: 255, stdout: "", stderr: `error: no stack named '${stack}' found\n` };
                if (args[0] === "config" && args.includes("--show-secrets")) {
                    const json = Object.fromEntries(
                        Object.entries(config).map(([k, value]) => [k, { value, secret: true }]),
                    );
                    return { code: 0, stdout: JSON.stringify(json), stderr: "" };
                }
                if (args[0] !== "stack" || args[1] !== "export")
                    return { code: 1, stdout: "", stderr: `unexpected ${args.join(" ")}` };
                const deployment = {
                    manifest: {},
                    resources: resources.map((r) => ({
                        urn: `urn:pulumi:prod::app::${r.type}::${r.name}`,
                        type: r.type,
                        id: r.id,
                        custom: true,
                    })),
                };
                return { code: 0, stdout: JSON.stringify({ version: 3, deployment }), stderr: "" };
            };
        }

        it("--stack probes the connections the stack's export names, and says which the API no longer has", async () => {
            const s = seed();
            const gone = "0123456789abcdef01234567";
            const pulumi = pulumiWith([
                { type: CONNECTION_TYPE, id: s.orders.id, name: "orders" },
                { type: LEGACY_TYPE, id: s.legacy.id, name: "legacy" },
                { type: CONNECTION_TYPE, id: gone, name: "gone" },
            ]);
            const r = await run(["--stack", "prod", ALLOW], apiEnv(), pulumi);
            assert.equal(r.code, 1, r.stdout + r.stderr);
            const lines = r.stdout.trim().split("\n");
            assert.equal(lines.length, 4);
            assert.match(lines[0], /^ok {4}webhook connection "orders"/);
            assert.match(lines[1], /^ok {4}legacy webhook "legacy"/);
            assert.match(
                lines[2],
                new RegExp(
                    `^FAIL {2}webhook connection "gone" \\(${gone}\\): the stack records webhook connection ${gone}, but the API at .* has none`,
                ),
            );
            assert.ok(!r.stdout.includes(s.example.id), "a connection the stack does not manage is not probed");
            assert.match(r.stderr, /^probe: stack prod manages 3; reading each at /m);
            assertNoSecret(r, sim.token);
        });

        it("--stack takes the stack's chatbot:token and chatbot:apiUrl before the environment, as the provider does", async () => {
            const s = seed();
            const pulumi = pulumiWith([{ type: CONNECTION_TYPE, id: s.orders.id, name: "orders" }], {
                "chatbot:token": sim.token,
                "chatbot:apiUrl": sim.url,
            });
            const env = {
                CHATBOT_TOKEN: "wr0ng-PROBE-secret",
                CHATBOT_API_URL: "http://127.0.0.1:9",
                CHATBOT_RETRY_BASE_MS: "1",
            };
            const r = await run(["--stack", "prod", ALLOW], env, pulumi);
            assert.equal(r.code, 0, r.stdout + r.stderr);
            assert.match(r.stdout, /^ok {4}webhook connection "orders"/m);
            assertNoSecret(r, sim.token);
            // A wrong token in the stack's config is refused by the API: exit 2, the token not shown.
            const wrongPulumi = pulumiWith([{ type: CONNECTION_TYPE, id: s.orders.id, name: "orders" }], {
                "chatbot:token": "wr0ng-PROBE-secret",
            });
            const wrong = await run(["--stack", "prod"], apiEnv(), wrongPulumi);
            assert.equal(wrong.code, 2);
            assert.match(
                wrong.stderr,
                /rejected the developer access token \(HTTP 401\)\. Set a valid one in stack prod's chatbot:token\./,
            );
            assertNoSecret(wrong);
        });

        it("--stack reads each connection with the settings of the provider that manages it: a second account's with its own token (issue 67)", async () => {
            const s = seed();
            const partner = await installedTesting().ChatbotSimulator.start();
            try {
                const theirs = partner.addConnection({
                    story: STORY,
                    name: "partner-orders",
                    url: `${good}/hook`,
                    token: TOKEN,
                    auth: AUTH,
                    headers: HEADERS,
                });
                const urn = (type: string, name: string) => `urn:pulumi:prod::app::${type}::${name}`;
                const providerType = "pulumi:providers:chatbot";
                // As `stack export --show-secrets` writes a secret input.
                const secret = (v: string) => ({
                    "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                    plaintext: JSON.stringify(v),
                });
                const resources = [
                    { urn: urn(providerType, "default_0_2_0"), type: providerType, id: "p0", inputs: {} },
                    {
                        urn: urn(providerType, "partner"),
                        type: providerType,
                        id: "p1",
                        inputs: { token: secret(partner.token), apiUrl: partner.url },
                    },
                    {
                        urn: urn(CONNECTION_TYPE, "orders"),
                        type: CONNECTION_TYPE,
                        id: s.orders.id,
                        provider: `${urn(providerType, "default_0_2_0")}::p0`,
                    },
                    {
                        urn: urn(CONNECTION_TYPE, "partner-orders"),
                        type: CONNECTION_TYPE,
                        id: theirs.id,
                        provider: `${urn(providerType, "partner")}::p1`,
                    },
                ];
                const pulumi: PulumiRun = async (args) => {
                    if (args[0] === "config") {
                        const config = { "chatbot:token": { value: sim.token }, "chatbot:apiUrl": { value: sim.url } };
                        return { code: 0, stdout: JSON.stringify(config), stderr: "" };
                    }
                    assert.ok(args.includes("--show-secrets"), "the explicit providers' tokens are read");
                    return { code: 0, stdout: JSON.stringify({ version: 3, deployment: { resources } }), stderr: "" };
                };
                const env = { CHATBOT_TOKEN: "wr0ng-PROBE-secret", CHATBOT_RETRY_BASE_MS: "1" };
                sim.resetRequests();
                partner.resetRequests();
                const r = await run(["--stack", "prod", ALLOW], env, pulumi);
                assert.equal(r.code, 0, r.stdout + r.stderr);
                assert.match(r.stdout, /^ok {4}webhook connection "orders"/m);
                assert.match(r.stdout, /^ok {4}webhook connection "partner-orders"/m);
                assert.deepEqual(
                    partner.requests.map((x) => x.path),
                    [`/v2/integrations/webhook/${theirs.id}`],
                    "the partner's connection read from its own account",
                );
                assert.ok(!sim.requests.some((x) => x.path.includes(theirs.id)), "not from the stack's account");
                assertNoSecret(r, sim.token);
                assertNoSecret(r, partner.token);
                // The partner's token refused: the message names its provider, not the stack's config.
                resources[1].inputs = { token: secret("wr0ng-PARTNER-secret"), apiUrl: partner.url };
                const wrong = await run(["--stack", "prod", ALLOW], env, pulumi);
                assert.equal(wrong.code, 2);
                assert.match(wrong.stderr, /Set a valid one in the token of provider partner\./);
                assertNoSecret(wrong);
                assert.ok(!wrong.stderr.includes("wr0ng-PARTNER-secret"));
            } finally {
                await partner.close();
            }
        });

        it("a --stack that does not exist fails with exit 2, naming it, with no stack trace", async () => {
            const r = await run(["--stack", "nope"], apiEnv(), pulumiWith([]));
            assert.equal(r.code, 2);
            assert.match(
                r.stderr,
                /^pulumi-chatbot probe: `pulumi stack export --stack nope` failed \(exit 255\):\nerror: no stack named 'nope' found$/m,
            );
            assert.ok(!/\n\s+at /.test(r.stderr), r.stderr);
            assert.equal(r.stdout, "");
        });
    });
});
