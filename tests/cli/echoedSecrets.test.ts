/**
 * Secrets the API quotes back (issue 27). An API may put what it was sent into its error
 * messages: the bearer token of a request it refuses, or the value of a field it does not like.
 * Every error the package builds from such an answer must show the secret redacted: its message,
 * and wherever else an error's text can go (String(), its stack, JSON, util.inspect; a partial
 * failure's reasons; the pulumi CLI's output, its event log and the exported state). Each case
 * also checks that the redaction marker `[secret]` is there, so a case passes because the secret
 * was replaced, not because the API's words were dropped.
 *
 * The secrets: the developer access token (the client's own bearer token, which no caller passes
 * in: the client adds it), and each secret input of both resources: the webhook `token`, a header
 * value and `auth.password`. Three layers:
 * - the client, against a loopback API that echoes what it was sent (the Authorization header,
 *   the body) in every form of error answer the client reads, 4xx and 5xx;
 * - a create's partial failure (the POST succeeds, every read-back fails quoting the secret), and
 *   the other writes' errors, through the provider module in this process (tests/helpers/providerSteps.ts);
 * - one program through the real pulumi CLI (tests/helpers/pulumi.ts): an up whose read-backs fail quoting
 *   every secret, a refresh and a destroy that fail the same way.
 *
 * About 20 s, most of it the CLI's. SHOW_OUTPUT=1 prints what the CLI printed. To run this file
 * alone (.mocharc.js adds every test file to those given on the command line):
 *     TS_NODE_TRANSPILE_ONLY=true npx mocha --no-config -r ts-node/register --extension ts \
 *         --timeout 60000 tests/cli/echoedSecrets.test.ts
 */
import { strict as assert } from "assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { inspect } from "node:util";
import type * as http from "node:http";
import type { ChatbotSimulator, FaultKind } from "pulumi-chatbot/testing";
import { ChatbotClient } from "../../provider/client/client";
import { ChatbotApiError } from "../../provider/client/errors";
import type { Envelope } from "../../provider/client/types";
import { providerModule, ResourceSteps } from "../helpers/providerSteps";
import { CONNECTION_TYPE, LEGACY_TYPE, jsProjectYaml, ok, PulumiStack, STORY, tempProject } from "../helpers/pulumi";
import { emptySimulator, installedTesting, loopbackServers } from "../helpers/support";

/** The developer access token: the simulator accepts it, the client sends it. */
const DEV_TOKEN = "dev-7f3a91-echoed-secret";
/** The secret inputs. Each is a string no message would hold by chance. */
const WEBHOOK_TOKEN = "whtok-2b8e40-echoed-secret";
const HEADER_VALUE = "hdrval-c05d17-echoed-secret";
const PASSWORD = "passwd-9e61aa-echoed-secret";

/** The mark `redact` (provider/client/redact.ts) puts where a secret was. */
const MARK = "[secret]";

/** A secret, and how an API that quotes it back words its message. */
interface Quoted {
    name: string;
    value: string;
    /** What the API says, given the Authorization header it got. */
    says(authorization: string): string;
}

const QUOTED: Quoted[] = [
    {
        name: "the developer access token",
        value: DEV_TOKEN,
        says: (authorization) => `token not accepted: "${authorization}"`,
    },
    {
        name: "the webhook token",
        value: WEBHOOK_TOKEN,
        says: () => `token "${WEBHOOK_TOKEN}" does not pass the verification request`,
    },
    {
        name: "a header value",
        value: HEADER_VALUE,
        says: () => `headers.X-Key: "${HEADER_VALUE}" is not a valid header value`,
    },
    {
        name: "auth.password",
        value: PASSWORD,
        says: () => `auth: basic authorization bot:${PASSWORD} was refused by the backend`,
    },
];

const ALL_SECRETS = QUOTED.map((q) => q.value);

/** Every text an error can be shown as. `reasons`: a partial failure's, which the CLI shows. */
function views(e: unknown): Record<string, string> {
    assert.ok(e instanceof Error, `an Error, not ${inspect(e)}`);
    const out: Record<string, string> = {
        message: e.message,
        "String()": String(e),
        stack: e.stack ?? "",
        "JSON.stringify": JSON.stringify(e),
        "util.inspect": inspect(e, { depth: 5 }),
    };
    if (e instanceof ChatbotApiError) out.apiMessage = e.apiMessage ?? "";
    const reasons = (e as { reasons?: unknown }).reasons;
    if (reasons !== undefined) out.reasons = JSON.stringify(reasons);
    return out;
}

/** No view of `e` shows any of `secrets`, and its message shows the mark (`marks` times at least). */
function assertRedacted(e: unknown, secrets: string[], where: string, marks = 1): void {
    for (const [view, text] of Object.entries(views(e))) {
        // A partial failure's JSON carries `properties`: what the engine records in state (as
        // secrets: the CLI case checks the exported state). Its message and reasons must not.
        const shown = view === "JSON.stringify" || view === "util.inspect" ? withoutProperties(e, view) : text;
        for (const s of secrets)
            assert.ok(!shown.includes(s), `${where}: the error's ${view} shows a secret:\n${shown}`);
    }
    const message = (e as Error).message;
    assert.ok(
        message.split(MARK).length - 1 >= marks,
        `${where}: the message shows no redaction mark ${MARK} (${marks} expected):\n${message}`,
    );
}

/** JSON or util.inspect of `e` without its `properties` (a partial failure's state to record). */
function withoutProperties(e: unknown, view: string): string {
    const { properties: _properties, ...rest } = e as Error & { properties?: unknown };
    const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as Error, rest, {
        message: (e as Error).message,
        stack: (e as Error).stack,
    });
    return view === "JSON.stringify" ? JSON.stringify(copy) : inspect(copy, { depth: 5 });
}

// ---------------------------------------------------------------------------------------------
// The client, against an API that echoes.

const V2 = "/v2/integrations/webhook";
const CREATE_BODY = {
    storyId: STORY,
    name: "orders",
    url: "https://backend.example.com/orders",
    token: WEBHOOK_TOKEN,
    headers: { "X-Env": "prod", "X-Key": HEADER_VALUE },
    auth: { username: "bot", password: PASSWORD },
};
/** What the provider passes as `secrets` for these inputs (every string in token, headers, auth). */
const CREATE_SECRETS = [WEBHOOK_TOKEN, "prod", HEADER_VALUE, "bot", PASSWORD];
const CREATED: Envelope = { code: 201, type: "created" };

/** Where the API's words sit in an error answer: each form the client reads. */
const FORMS: Array<{ name: string; writesOnly?: boolean; answer(status: number, message: string): [number, unknown] }> =
    [
        {
            name: "the envelope's status.message",
            answer: (status, message) => [
                status,
                { timestamp: now(), status: { code: status, type: "error", message } },
            ],
        },
        {
            name: "the envelope's status.description",
            answer: (status, message) => [
                status,
                { timestamp: now(), status: { code: status, type: "error", description: message } },
            ],
        },
        {
            name: "the envelope's status.details",
            answer: (status, message) => [
                status,
                { timestamp: now(), status: { code: status, type: "error", details: message } },
            ],
        },
        {
            name: "the envelope's status.error",
            answer: (status, message) => [
                status,
                { timestamp: now(), status: { code: status, type: "error", error: message } },
            ],
        },
        { name: "a bare top-level message (a gateway)", answer: (status, message) => [status, { message }] },
        {
            // The transport's second path: a write's 2xx whose envelope says it failed (5xx: the
            // envelope's own status is what the error reports).
            name: "an HTTP 200 whose envelope says this status",
            writesOnly: true,
            answer: (status, message) => [200, { timestamp: now(), status: { code: status, type: "error", message } }],
        },
    ];

/** 4xx and 5xx: each error class of provider/client/errors.ts. 429 asks to wait longer than the
 *  time budget the client is given, so it gives up at once. */
const STATUSES = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503];

describe("echoed secrets: the client's errors", () => {
    const servers = loopbackServers();
    let apiUrl: string;
    /** The next answers: status and body, given what the request carried. */
    let answer: (req: { authorization: string; body: string }) => [number, unknown] = () => [500, {}];
    /** What the API sent back, to show the secret was in it. */
    let sent: string[] = [];

    before(async () => {
        apiUrl = await servers.listen((req: http.IncomingMessage, res: http.ServerResponse) => {
            let body = "";
            req.setEncoding("utf8");
            req.on("data", (c: string) => (body += c));
            req.on("end", () => {
                const [status, json] = answer({ authorization: req.headers.authorization ?? "", body });
                const text = JSON.stringify(json);
                sent.push(text);
                res.writeHead(status, {
                    "content-type": "application/json",
                    ...(status === 429 ? { "retry-after": "120" } : {}),
                });
                res.end(text);
            });
        });
    });
    after(() => servers.closeAll());
    beforeEach(() => {
        sent = [];
    });

    const client = () =>
        new ChatbotClient({
            apiUrl,
            token: DEV_TOKEN,
            // A budget below the 429's Retry-After (120 s): the 429's error comes at once.
            retry: { maxAttempts: 2, baseDelayMs: 1, maxElapsedMs: 60_000 },
            authHint: "Set a valid one.",
        });

    /** Sends the request, the API answering `status` with `says` in `form`; checks the error. */
    async function expectRedacted(
        form: (typeof FORMS)[number],
        status: number,
        quoted: Quoted,
        send: (c: ChatbotClient) => Promise<unknown>,
        where: string,
    ): Promise<void> {
        sent = [];
        answer = ({ authorization }) => form.answer(status, quoted.says(authorization));
        await assert.rejects(send(client()), (e: unknown) => {
            assert.ok(e instanceof ChatbotApiError, `${where}: a ChatbotApiError, not ${inspect(e)}`);
            assert.equal(e.status, status, `${where}: the error is the API's answer`);
            assertRedacted(e, ALL_SECRETS, where);
            return true;
        });
        assert.ok(
            sent.length > 0 && sent.every((text) => text.includes(quoted.value)),
            `${where}: the API's answer quoted the secret`,
        );
    }

    for (const quoted of QUOTED) {
        for (const form of FORMS) {
            it(`${quoted.name}, quoted in ${form.name}: redacted from a create's and a read's error, 4xx and 5xx`, async () => {
                for (const status of STATUSES) {
                    if (form.writesOnly && status < 500) continue;
                    await expectRedacted(
                        form,
                        status,
                        quoted,
                        (c) =>
                            c.request("POST", V2, {
                                operation: 'create webhook connection "orders"',
                                body: CREATE_BODY,
                                secrets: CREATE_SECRETS,
                                envelope: CREATED,
                            }),
                        `POST, HTTP ${status}`,
                    );
                    if (form.writesOnly) continue;
                    // A read: the API holds the secrets; the provider passes them as on a create.
                    await expectRedacted(
                        form,
                        status,
                        quoted,
                        (c) =>
                            c.request("GET", `${V2}/0123456789abcdef01234567`, {
                                operation: 'read webhook connection "orders"',
                                secrets: CREATE_SECRETS,
                            }),
                        `GET, HTTP ${status}`,
                    );
                }
            });
        }
    }

    it("an answer that echoes the whole request (its Authorization header and body), twice, shows none of it", async () => {
        for (const status of [400, 401, 500]) {
            sent = [];
            answer = ({ authorization, body }) => [
                status,
                {
                    timestamp: now(),
                    status: {
                        code: status,
                        type: "error",
                        message: `cannot process ${body} (${authorization}); the request was ${authorization} ${body}`,
                    },
                },
            ];
            await assert.rejects(
                client().request("PUT", `${V2}/0123456789abcdef01234567`, {
                    operation: 'update webhook connection "orders"',
                    body: CREATE_BODY,
                    secrets: CREATE_SECRETS,
                    envelope: { code: 200, type: "success" },
                }),
                (e: unknown) => {
                    // The token, the header value, the password and the developer access token, each twice.
                    assertRedacted(e, ALL_SECRETS, `PUT, HTTP ${status}`, 8);
                    return true;
                },
            );
            assert.ok(
                ALL_SECRETS.every((s) => sent.join("").includes(s)),
                "the API quoted every secret",
            );
        }
    });
});

// ---------------------------------------------------------------------------------------------
// Through the provider, in this process: a create's partial failure, and the other writes.

// No case here waits on the timeout; it is short only so that a read-back that never shows gives up
// soon, and still far above what an immediate answer takes on a loaded machine (as in
// tests/helpers/faultMatrix.ts, where 120 ms once failed a case).
const FAST = { CHATBOT_REQUEST_TIMEOUT_MS: "800", CHATBOT_RETRY_MAX_ATTEMPTS: "3", CHATBOT_RETRY_BASE_MS: "2" };

/** A resource under test, and where its requests go. */
interface Kit {
    title: string;
    module: "webhookConnection" | "legacyWebhook";
    noun: string;
    one: RegExp;
    list: RegExp;
    inputs(): Record<string, unknown>;
    /** The resource as the API holds it, by id. */
    stored(sim: ChatbotSimulator, id: string): unknown;
}

const KITS: Kit[] = [
    {
        title: "WebhookConnection",
        module: "webhookConnection",
        noun: "webhook connection",
        one: /^\/v2\/integrations\/webhook\/\w+$/,
        list: /^\/v2\/integrations\/webhook$/,
        inputs: () => ({ ...CREATE_BODY }),
        stored: (sim, id) => sim.getConnection(id),
    },
    {
        title: "LegacyWebhook",
        module: "legacyWebhook",
        noun: "legacy webhook",
        one: /^\/webhooks\/\w+$/,
        list: /^\/webhooks$/,
        inputs: () => ({
            name: "legacy-orders",
            url: "https://backend.example.com/legacy",
            token: WEBHOOK_TOKEN,
            headers: [{ name: "X-Key", value: HEADER_VALUE }],
            auth: { username: "bot", password: PASSWORD },
        }),
        stored: (sim, id) => sim.getLegacyWebhook(id),
    },
];

/** Read-back failures: answers that end the read-back (4xx) or that it gives up on (5xx). */
const READ_BACK_FAULTS: Array<{ status: number; envelope: boolean }> = [
    { status: 400, envelope: true },
    { status: 401, envelope: true },
    { status: 403, envelope: true },
    { status: 500, envelope: true },
    { status: 503, envelope: true },
    { status: 502, envelope: false },
];

describe("echoed secrets: through the provider (in process)", () => {
    let sim: ChatbotSimulator;
    const saved = { ...process.env };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ token: DEV_TOKEN });
        Object.assign(process.env, FAST, { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url });
    });
    after(async () => {
        process.env = saved;
        await sim.close();
    });
    beforeEach(async () => {
        await sim.idle();
        emptySimulator(sim);
    });

    /** A fault answering `status` with `message`, as the API or (no envelope) a gateway does. */
    const fault = (status: number, envelope: boolean, message: string): FaultKind => ({ status, envelope, message });

    for (const kit of KITS) {
        const provider = providerModule(kit.module);
        for (const quoted of QUOTED) {
            it(`${kit.title}: a create's partial failure whose read-back quotes ${quoted.name} is recorded, redacted`, async () => {
                for (const { status, envelope } of READ_BACK_FAULTS) {
                    const where = `read-back answered ${status}${envelope ? "" : " without the envelope"}`;
                    emptySimulator(sim);
                    // The POST goes through; every read of what it made fails, quoting the secret.
                    sim.inject({
                        method: "GET",
                        path: kit.one,
                        fault: fault(status, envelope, quoted.says(`Bearer ${DEV_TOKEN}`)),
                        times: 100,
                    });
                    const hook = new ResourceSteps(provider);
                    await assert.rejects(hook.up(kit.inputs()), (e: unknown) => {
                        assert.ok(e instanceof Error);
                        assert.match(
                            e.message,
                            new RegExp(`read back ${kit.noun} .*failed: ChatBot API answered HTTP ${status}`),
                        );
                        assert.ok((e as { id?: string }).id, `${where}: a partial failure (it carries the id)`);
                        assertRedacted(e, ALL_SECRETS, where);
                        return true;
                    });
                    assert.ok(hook.state, `${where}: the half-made resource is in state`);
                    assert.ok(kit.stored(sim, hook.state.id), `${where}: and it exists`);
                    assert.ok(
                        sim.requests.some((r) => r.method === "GET" && r.status === status),
                        `${where}: the API answered the read-back with the echo`,
                    );
                }
            });
        }

        it(`${kit.title}: the list a create reads to look for what it made, failing and quoting every secret`, async () => {
            // v2: the list after an uncertain POST (a gateway's 502); legacy: the list before the POST.
            sim.inject({ method: "POST", path: kit.list, fault: fault(502, false, "bad gateway") });
            sim.inject({
                method: "GET",
                path: kit.list,
                fault: fault(400, true, `refused: ${ALL_SECRETS.join(", ")}`),
                times: 100,
            });
            const hook = new ResourceSteps(provider);
            await assert.rejects(hook.up(kit.inputs()), (e: unknown) => {
                assert.ok(
                    sim.requests.some((r) => r.method === "GET" && kit.list.test(r.path) && r.status === 400),
                    "the list answered with the echo",
                );
                assertRedacted(e, ALL_SECRETS, "the create's list");
                return true;
            });
        });

        it(`${kit.title}: a refused create, an update's partial failure, a refresh and a delete whose answers quote every secret`, async () => {
            const says = `refused: ${ALL_SECRETS.join(", ")}`;
            const marks = ALL_SECRETS.length;
            // A create the API refuses (400): nothing is made.
            sim.inject({ method: "POST", path: kit.list, fault: fault(400, true, says) });
            const hook = new ResourceSteps(provider);
            await assert.rejects(hook.up(kit.inputs()), (e: unknown) => {
                assert.match(
                    (e as Error).message,
                    new RegExp(`create ${kit.noun} .*failed: ChatBot API answered HTTP 400`),
                );
                assertRedacted(e, ALL_SECRETS, "the refused create", marks);
                return true;
            });
            assert.equal(hook.state, undefined);

            // Made; then an update whose PUT goes through and whose read-back fails: a partial failure.
            await hook.up(kit.inputs());
            sim.inject({ method: "GET", path: kit.one, fault: fault(500, true, says), times: 100 });
            await assert.rejects(hook.up({ ...kit.inputs(), name: "renamed" }), (e: unknown) => {
                assert.match((e as Error).message, /The update was sent/);
                assert.ok((e as { id?: string }).id, "a partial failure");
                assertRedacted(e, ALL_SECRETS, "the update's partial failure", marks);
                return true;
            });

            // A refresh whose read fails (the plugin prints this error's stack too).
            await assert.rejects(hook.refresh(), (e: unknown) => {
                assert.match(
                    (e as Error).message,
                    new RegExp(`read ${kit.noun} .*failed: ChatBot API answered HTTP 500`),
                );
                assertRedacted(e, ALL_SECRETS, "the refresh", marks);
                return true;
            });

            // A delete refused with 400 (the DELETE, with the state's secrets).
            sim.clearFaults();
            sim.inject({ method: "DELETE", path: kit.one, fault: fault(400, true, says) });
            await assert.rejects(hook.destroy(), (e: unknown) => {
                assert.match(
                    (e as Error).message,
                    new RegExp(`delete ${kit.noun} .*failed: ChatBot API answered HTTP 400`),
                );
                assertRedacted(e, ALL_SECRETS, "the delete", marks);
                return true;
            });
            await hook.destroy();
        });
    }
});

// ---------------------------------------------------------------------------------------------
// Through the real pulumi CLI: one program, both resources.
//
// The CLI masks the values of secret stack config in what it prints (so a stdout check alone
// would pass whatever the provider did with them), but not in its event log or in state (a
// partial failure's reasons are kept as the resource's `initErrors`). So the secrets come three
// ways: the developer access token from CHATBOT_TOKEN, the connection's from secret stack config
// (as the README shows), the legacy webhook's from outside stack config (as from another
// resource's output; the package makes them secret): the CLI knows neither the first nor the
// last to mask them.

const LEGACY_TOKEN = "lgtok-41d2c9-echoed-secret";
const LEGACY_HEADER = "lghdr-7a0b33-echoed-secret";
const LEGACY_PASSWORD = "lgpwd-e5f8c2-echoed-secret";

const ECHO_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot");
const config = new pulumi.Config();
new chatbot.WebhookConnection("echo", {
    storyId: "${STORY}",
    url: "https://backend.example.com/echo",
    token: config.requireSecret("token"),
    headers: { "X-Key": config.requireSecret("header") },
    auth: { username: "bot", password: config.requireSecret("password") },
});
// Not from stack config: the CLI does not know these values.
new chatbot.LegacyWebhook("echo-legacy", {
    url: "https://backend.example.com/echo-legacy",
    token: process.env.ECHO_LEGACY_TOKEN,
    headers: [{ name: "X-Key", value: process.env.ECHO_LEGACY_HEADER }],
    auth: { username: "bot", password: process.env.ECHO_LEGACY_PASSWORD },
});
`;

describe("echoed secrets: through the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let project: string;
    let stack: PulumiStack;
    const v2One = /^\/v2\/integrations\/webhook\/\w+$/;
    const legacyOne = /^\/webhooks\/\w+$/;
    const v2Secrets = [DEV_TOKEN, WEBHOOK_TOKEN, HEADER_VALUE, PASSWORD];
    const legacySecrets = [DEV_TOKEN, LEGACY_TOKEN, LEGACY_HEADER, LEGACY_PASSWORD];
    const everySecret = [...new Set([...v2Secrets, ...legacySecrets])];
    /** What the API says about each resource: every secret it was sent, and the bearer token. */
    const saysV2 = `refused: ${v2Secrets.join(", ")}`;
    const saysLegacy = `refused: ${legacySecrets.join(", ")}`;
    /** The API's words as the provider must show them: the four quoted secrets, each replaced. */
    const redacted = String.raw`refused: \[secret\], \[secret\], \[secret\], \[secret\]`;

    /** Each answer a read of either resource gets: a failure quoting what it was sent. */
    const failReads = () => {
        sim.inject({ method: "GET", path: v2One, fault: { status: 503, message: saysV2 }, times: 1000 });
        sim.inject({ method: "GET", path: legacyOne, fault: { status: 503, message: saysLegacy }, times: 1000 });
    };

    /** Nothing the run printed, logged as an engine event, or left in state shows a secret; the
     *  CLI shows the API's words, redacted (`shows`: a pattern per resource). */
    const assertNothingShows = async (
        run: { stdout: string; stderr: string; events: unknown[] },
        where: string,
        shows: RegExp[],
    ) => {
        if (process.env.SHOW_OUTPUT) console.log(`${where}:\n${run.stdout}\n${run.stderr}`);
        const texts: Record<string, string> = {
            "the CLI's stdout": run.stdout,
            "the CLI's stderr": run.stderr,
            "the event log": JSON.stringify(run.events),
            "pulumi stack export": JSON.stringify(await stack.export()),
        };
        for (const [what, text] of Object.entries(texts))
            for (const s of everySecret) assert.ok(!text.includes(s), `${where}: ${what} shows a secret:\n${text}`);
        // Every file the CLI wrote: the backend (state, its backups, history), PULUMI_HOME, and
        // the project's own (its stack config).
        const projectFiles = fs.readdirSync(project, { withFileTypes: true }).filter((d) => d.isFile());
        for (const file of [...filesUnder(stack.scratch), ...projectFiles.map((d) => path.join(project, d.name))]) {
            const text = fs.readFileSync(file, "latin1");
            for (const s of everySecret) assert.ok(!text.includes(s), `${where}: ${file} shows a secret`);
        }
        for (const pattern of shows) assert.match(run.stdout, pattern, `${where}: the CLI shows the API's words`);
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ token: DEV_TOKEN, stories: { [STORY]: "Shop" } });
        project = tempProject("echo", { "Pulumi.yaml": jsProjectYaml("echo"), "index.js": ECHO_PROGRAM });
        stack = await PulumiStack.create({
            projectDir: project,
            config: {
                "chatbot:apiUrl": sim.url,
                token: { secret: WEBHOOK_TOKEN },
                password: { secret: PASSWORD },
                header: { secret: HEADER_VALUE },
            },
            env: {
                CHATBOT_TOKEN: DEV_TOKEN,
                ECHO_LEGACY_TOKEN: LEGACY_TOKEN,
                ECHO_LEGACY_HEADER: LEGACY_HEADER,
                ECHO_LEGACY_PASSWORD: LEGACY_PASSWORD,
                // Quick give-ups: two attempts, milliseconds apart.
                CHATBOT_RETRY_BASE_MS: "5",
                CHATBOT_RETRY_MAX_ATTEMPTS: "2",
                CHATBOT_REQUEST_TIMEOUT_MS: "2000",
            },
        });
    });
    after(async () => {
        stack?.dispose();
        if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true });
        await sim?.close();
    });

    it("an up whose read-backs fail quoting every secret records both, and nothing shows a secret", async () => {
        failReads();
        const up = await stack.run("up");
        assert.notEqual(up.code, 0, "the up fails");
        await assertNothingShows(up, "after the up", [
            new RegExp(
                `read back webhook connection "echo" failed: ChatBot API answered HTTP 503 \\(serviceUnavailable\\): ${redacted}`,
            ),
            new RegExp(
                `read back legacy webhook "echo-legacy" failed: ChatBot API answered HTTP 503 \\(serviceUnavailable\\): ${redacted}`,
            ),
        ]);
        // Both half-made resources are in state (partial failures), their secrets kept as secrets.
        const inState = [...(await stack.resources(CONNECTION_TYPE)), ...(await stack.resources(LEGACY_TYPE))];
        assert.deepEqual(
            inState.map((r) => Boolean(r.id)),
            [true, true],
            "both are recorded with their ids",
        );
        const shown = JSON.stringify(inState);
        for (const s of [WEBHOOK_TOKEN, HEADER_VALUE, PASSWORD, LEGACY_TOKEN, LEGACY_HEADER, LEGACY_PASSWORD])
            assert.ok(shown.includes(s), "--show-secrets shows the secrets the state holds");
    });

    it("a refresh and a destroy whose answers quote every secret: nothing shows a secret", async () => {
        sim.clearFaults();
        failReads();
        const refresh = await stack.run("refresh");
        assert.notEqual(refresh.code, 0, "the refresh fails");
        await assertNothingShows(refresh, "after the refresh", [
            new RegExp(
                `read webhook connection "echo" \\(\\w+\\) failed: ChatBot API answered HTTP 503 \\(serviceUnavailable\\): ${redacted}`,
            ),
            new RegExp(
                `read legacy webhook "echo-legacy" \\(\\w+\\) failed: ChatBot API answered HTTP 503 \\(serviceUnavailable\\): ${redacted}`,
            ),
        ]);

        sim.clearFaults();
        sim.inject({ method: "DELETE", path: v2One, fault: { status: 400, message: saysV2 }, times: 1000 });
        sim.inject({ method: "DELETE", path: legacyOne, fault: { status: 400, message: saysLegacy }, times: 1000 });
        const destroy = await stack.run("destroy");
        assert.notEqual(destroy.code, 0, "the destroy fails");
        await assertNothingShows(destroy, "after the destroy", [
            new RegExp(
                `delete webhook connection "echo" \\(\\w+\\) failed: ChatBot API answered HTTP 400 \\(badRequest\\): ${redacted}`,
            ),
            new RegExp(
                `delete legacy webhook "echo-legacy" \\(\\w+\\) failed: ChatBot API answered HTTP 400 \\(badRequest\\): ${redacted}`,
            ),
        ]);

        sim.clearFaults();
        ok(await stack.run("destroy"));
        assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 0);
    });
});

function now(): string {
    return new Date().toISOString();
}

function filesUnder(dir: string): string[] {
    return fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => path.join(d.parentPath, d.name));
}
