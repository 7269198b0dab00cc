/**
 * WebhookConnection: what the provider itself does with each step, on the provider module called
 * in this process as the dynamic-provider plugin calls it (tests/helpers/providerSteps.ts): updates that
 * remove what the program left out, drift, adoption, unknowns in a preview, invalid inputs and
 * the API's errors. Then what only a whole program shows, through the real pulumi CLI; the rest
 * of that (create, secrets in state, replace, refresh, import, parallel creates) is in
 * tests/cli/program.test.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ChatbotSimulator, ChatTraffic } from "pulumi-chatbot/testing";
import { createWebhookHandler, sampleWebhookRequest, text } from "../../provider/webhook";
import { CheckFailed, providerModule, ResourceSteps } from "../helpers/providerSteps";
import { installedTesting, emptySimulator, loopbackServers, runInstalledCommand } from "../helpers/support";
import {
    CHANGES_EXIT_CODE,
    CONNECTION_TYPE,
    declareStack,
    ok,
    OTHER_STORY,
    plain,
    pulumiCli,
    STORY,
    type Declared,
    type RunResult,
} from "../helpers/pulumi";

/** Secret values used below: none may appear in an error. */
const TOKEN = "tok-7f1c2e9a-webhook-secret";
const PASSWORD = "pw-1b2d3f-basic-secret";
const HEADER_VALUE = "hv-91aa-header-secret";
const SECRETS = [TOKEN, PASSWORD, HEADER_VALUE];
/** What a preview passes for a value not known yet (sdk/nodejs/runtime/rpc.ts unknownValue). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Inputs of `new WebhookConnection("orders", ...)`, as the plugin hands them to the provider. */
function inputs(over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
        storyId: STORY,
        name: "orders",
        url: "https://backend.example.com/orders",
        token: TOKEN,
        headers: { "X-Env": "prod", "X-Key": HEADER_VALUE },
        auth: { username: "bot", password: PASSWORD },
        ...over,
    };
}

function assertNoSecretsIn(text: string, where: string) {
    for (const s of SECRETS) assert.ok(!text.includes(s), `${where} contains a secret value`);
}

/** Fails unless `run` rejects with a message matching `pattern` and holding no secret. */
async function rejectsWith(run: Promise<unknown>, pattern: RegExp): Promise<void> {
    await assert.rejects(run, (e: Error) => {
        assert.match(e.message, pattern);
        assertNoSecretsIn(e.message, "the error");
        return true;
    });
}

describe("WebhookConnection provider steps", function () {
    let sim: ChatbotSimulator;
    let hook: ResourceSteps;
    const provider = providerModule("webhookConnection");
    const saved = { ...process.env };
    const stored = () => sim.getConnection(hook.state?.id ?? "");

    before(async () => {
        // OTHER_STORY is not a story of this account: the API refuses it (400).
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Orders" } });
        Object.assign(process.env, {
            CHATBOT_TOKEN: sim.token,
            CHATBOT_API_URL: sim.url,
            CHATBOT_RETRY_BASE_MS: "2",
            CHATBOT_RETRY_MAX_ATTEMPTS: "3",
        });
    });
    after(async () => {
        process.env = saved;
        await sim.close();
    });
    beforeEach(() => {
        emptySimulator(sim);
        process.env.CHATBOT_TOKEN = sim.token;
        hook = new ResourceSteps(provider);
    });

    it("a second up with the same inputs changes nothing and sends no request", async () => {
        assert.equal(await hook.up(inputs()), "create");
        sim.resetRequests();
        assert.equal(await hook.up(inputs()), "same");
        assert.deepEqual(sim.requests, [], "check and diff never call the API");
    });

    it("updates in place with PUT, removing token, headers and auth left out of the program", async () => {
        await hook.up(inputs());
        const id = hook.state?.id;
        const {
            token: _t,
            headers: _h,
            auth: _a,
            ...rest
        } = inputs({ name: "orders-v2", url: "https://b.example/v2" });
        assert.equal(await hook.up(rest), "update");
        assert.equal(hook.state?.id, id, "same connection");
        const now = stored();
        assert.equal(now?.name, "orders-v2");
        assert.equal(now?.url, "https://b.example/v2");
        assert.equal(now?.token, undefined);
        assert.equal(now?.headers, undefined);
        assert.equal(now?.auth, undefined);
        assert.equal(hook.state?.outputs.token, undefined, "state follows");
    });

    it("a changed header value alone is an update; a new story is a replacement", async () => {
        await hook.up(inputs());
        assert.equal(await hook.up(inputs({ headers: { "X-Env": "staging", "X-Key": HEADER_VALUE } })), "update");
        assert.deepEqual(stored()?.headers, { "X-Env": "staging", "X-Key": HEADER_VALUE });
        const diff = await provider.diff(hook.state!.id, hook.state!.outputs, inputs({ storyId: OTHER_STORY }));
        assert.deepEqual(diff.replaces, ["storyId"]);
    });

    it("refresh finds a change made by hand, secrets included, and lastError; the next up puts it right", async () => {
        await hook.up(inputs());
        sim.editConnection(hook.state!.id, { url: "https://elsewhere.example/", token: "changed-by-hand" });
        sim.noteError(hook.state!.id, "Response status is neither 200 nor 30X");
        await hook.refresh();
        assert.equal(hook.state?.outputs.url, "https://elsewhere.example/");
        assert.equal(hook.state?.outputs.token, "changed-by-hand");
        assert.equal(hook.state?.outputs.lastError, "Response status is neither 200 nor 30X");
        assert.equal(await hook.up(inputs()), "update");
        assert.equal(stored()?.url, "https://backend.example.com/orders");
        assert.equal(stored()?.token, TOKEN);
    });

    it("destroy deletes; deleting a connection already gone is not an error; refresh drops it", async () => {
        await hook.up(inputs());
        const gone = new ResourceSteps(provider);
        await gone.up(inputs({ name: "gone" }));
        sim.deleteConnection(gone.state!.id);
        await gone.refresh();
        assert.equal(gone.state, undefined, "refresh drops a connection deleted by hand");
        await hook.destroy();
        await provider.delete("0123456789abcdef01234567", inputs());
        assert.deepEqual(sim.listConnections(), []);
    });

    it("adoptId: only reads a matching connection, one PUT where it differs; a missing one, one on another story or a bad id fails naming adoptId", async () => {
        const existing = new ResourceSteps(provider);
        await existing.up(inputs());
        const id = existing.state!.id;
        sim.resetRequests();
        await hook.up(inputs({ adoptId: id }));
        assert.equal(hook.state?.id, id);
        assert.deepEqual(
            sim.requests.map((q) => q.method),
            ["GET"],
        );
        sim.resetRequests();
        await new ResourceSteps(provider).up(inputs({ adoptId: id, url: "https://backend.example.com/v3" }));
        assert.deepEqual(
            sim.requests.map((q) => q.method),
            ["GET", "PUT", "GET"],
        );
        assert.equal(sim.listConnections().length, 1);

        await rejectsWith(
            new ResourceSteps(provider).up(inputs({ adoptId: "0123456789abcdef01234567" })),
            /adoptId: no webhook connection 0123456789abcdef01234567 exists/,
        );
        sim.addConnection({ story: { id: OTHER_STORY, name: "Other" }, name: "x", url: "https://x.example/" });
        const other = sim.listConnections().find((c) => c.story.id === OTHER_STORY)!;
        await rejectsWith(
            new ResourceSteps(provider).up(inputs({ adoptId: other.id })),
            /adoptId: connection \w{24} belongs to story 6a1b2c3d4e5f6a7b8c9d0e1f, not to storyId 5f3c0d1e2a4b6c8d9e0f1a2b/,
        );
        await assert.rejects(new ResourceSteps(provider).up(inputs({ adoptId: "short" })), (e: unknown) => {
            assert.ok(e instanceof CheckFailed);
            assert.equal(e.failures[0].property, "adoptId");
            assert.match(e.failures[0].reason, /exactly 24 characters/);
            return true;
        });
        assert.equal(sim.listConnections().length, 2, "nothing created");
    });

    it("unknown values (preview) pass check and diff, and call no API", async () => {
        await hook.up(inputs());
        sim.resetRequests();
        const checked = await provider.check(hook.state!.inputs, inputs({ url: UNKNOWN, storyId: UNKNOWN }));
        assert.deepEqual(checked.failures, []);
        const diff = await provider.diff(hook.state!.id, hook.state!.outputs, checked.inputs);
        assert.equal(diff.changes, true);
        assert.deepEqual(diff.replaces, ["storyId"], "an unknown story may be a new one");
        assert.deepEqual(sim.requests, []);
    });

    it("reports every invalid property at once, before anything is sent", async () => {
        await assert.rejects(hook.up(inputs({ name: "", url: "not-a-url", headers: {} })), (e: unknown) => {
            assert.ok(e instanceof CheckFailed);
            assert.deepEqual(e.failures.map((f) => f.property).sort(), ["headers", "name", "url"]);
            return true;
        });
        assert.deepEqual(sim.requests, []);
    });

    describe("API failures", () => {
        it("400 names the operation, the connection, the status and the API's message", async () => {
            await rejectsWith(
                hook.up(inputs({ storyId: OTHER_STORY })),
                /create webhook connection "orders" failed: ChatBot API answered HTTP 400 \(badRequest\): story 6a1b2c3d4e5f6a7b8c9d0e1f does not exist/,
            );
            assert.equal(hook.state, undefined);
        });

        it("401 says the developer access token was rejected, without showing it", async () => {
            process.env.CHATBOT_TOKEN = "not-the-right-token";
            await assert.rejects(hook.up(inputs()), (e: Error) => {
                assert.match(e.message, /HTTP 401/);
                assert.match(e.message, /developer access token was rejected/);
                assert.ok(!e.message.includes("not-the-right-token"));
                return true;
            });
        });

        it("a webhook refused by ChatBot's verification request says what the backend must do, on create and update", async () => {
            // Nothing listens on the discard port of loopback: the verification request fails.
            const deadBackend = "http://127.0.0.1:9/orders";
            await hook.up(inputs());
            sim.verifyWebhooks = true;
            try {
                const saysWhatToDo =
                    /HTTP 400 \(badRequest\): webhook verification failed:.*the backend must be deployed and answer it/;
                await rejectsWith(hook.up(inputs({ url: deadBackend })), saysWhatToDo);
                hook = new ResourceSteps(provider);
                await rejectsWith(hook.up(inputs({ name: "fresh", url: deadBackend })), saysWhatToDo);
                assert.equal(hook.state, undefined, "nothing made");
            } finally {
                sim.verifyWebhooks = false;
            }
        });

        it("500 on update (every retry) leaves the outputs as the API has them, and the next up succeeds", async () => {
            await hook.up(inputs());
            const before = structuredClone(hook.state?.outputs);
            sim.inject({ method: "PUT", fault: { status: 500 }, times: 10 });
            await rejectsWith(
                hook.up(inputs({ name: "renamed" })),
                /update webhook connection "renamed" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            // What the API holds, which did not change (the update's read shows it).
            const { __provider: _p, ...after } = hook.state?.outputs ?? {};
            assert.deepEqual(after, before);
            sim.clearFaults();
            assert.equal(await hook.up(inputs({ name: "renamed" })), "update");
            assert.equal(stored()?.name, "renamed");
        });

        it("500 on refresh (every retry) is an error and keeps the resource", async () => {
            await hook.up(inputs());
            sim.inject({ method: "GET", fault: { status: 500 }, times: 10 });
            await rejectsWith(
                hook.refresh(),
                /read webhook connection "orders" \(\w{24}\) failed: ChatBot API answered HTTP 500/,
            );
            assert.ok(hook.state);
        });

        it("404 on update (deleted by hand, no refresh) says so and what to do", async () => {
            await hook.up(inputs());
            sim.deleteConnection(hook.state!.id);
            await rejectsWith(hook.up(inputs({ name: "x" })), /HTTP 404 \(notFound\).*`pulumi refresh` drops it/);
        });
    });
});

describe("WebhookConnection under the pulumi CLI: settings", function () {
    this.timeout(120_000);
    let sim: ChatbotSimulator;
    let env: Awaited<ReturnType<typeof declareStack>>;
    const orders: Declared = {
        kind: "WebhookConnection",
        name: "orders",
        args: { storyId: STORY, url: "https://backend.example.com/orders" },
    };

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Orders" } });
        env = await declareStack(sim);
        await env.declare([orders]);
    });
    after(async () => {
        env?.dispose();
        await sim?.close();
    });

    it("without a token, preview works and up fails naming both ways to set it; with it in stack config, up creates", async () => {
        const rm = await env.stack.pulumi(["config", "rm", "chatbot:token"]);
        assert.equal(rm.code, 0, rm.stderr);
        ok(await env.stack.run("preview"));
        const failed = await env.stack.run("up");
        assert.notEqual(failed.code, 0);
        assert.match(failed.stdout + failed.stderr, /pulumi config set --secret chatbot:token/);
        assert.match(failed.stdout + failed.stderr, /CHATBOT_TOKEN/);
        assert.equal(sim.listConnections().length, 0);

        await env.stack.setConfig({ "chatbot:token": { secret: sim.token } });
        ok(await env.stack.run("up"));
        const [made] = await env.stack.resources(CONNECTION_TYPE);
        assert.equal((plain(made.outputs) as Record<string, unknown>).url, "https://backend.example.com/orders");
        assert.equal(sim.listConnections().length, 1);
    });

    // The recipe of docs/webhook-kit.md ("Rotating a token, a password or a header"), continuing
    // the stack above: the backend is a resource of the program (a deployment writing what it
    // accepts), and ChatBot calls the connection all through each `pulumi up`, with whatever the
    // connection holds at that moment.
    it("a rotation of the token, a password and a header, ChatBot calling all along: no call refused, the old refused after; drift by hand shows and up --refresh puts the program's back; probe --stack passes at each step", async function () {
        this.timeout(900_000);
        const servers = loopbackServers();
        const generation = (g: string) => ({
            token: `tok-${g}-rotation-secret`,
            password: `pw-${g}-rotation-secret`,
            header: `hv-${g}-rotation-secret`,
        });
        type Generation = ReturnType<typeof generation>;
        const [A, B, C] = ["a", "b", "c"].map(generation);
        const secrets = [A, B, C].flatMap((g) => Object.values(g));
        const label = (token: string | null) =>
            token === null ? "none" : (["A", "B", "C"][[A, B, C].findIndex((g) => g.token === token)] ?? "other");

        // The backend as deployed: the kit's Node handler made anew from what the last deploy wrote.
        const deployTo = path.join(path.dirname(env.stack.projectDir), "backend-deployed.json");
        const backendLog: string[] = [];
        const accepted: string[] = []; // the generation of each call's token the backend answered 200
        let deployed = "";
        let kit: ReturnType<typeof createWebhookHandler> | undefined;
        const backendUrl = await servers.listen((req, res) => {
            if (!fs.existsSync(deployTo)) return void res.writeHead(503).end();
            const now = fs.readFileSync(deployTo, "utf8");
            if (now !== deployed) {
                const a = JSON.parse(now) as { tokens: string[]; passwords: string[]; headers: string[] };
                kit = createWebhookHandler(() => ({ responses: [text("Your order has shipped")] }), {
                    token: a.tokens,
                    auth: a.passwords.map((password) => ({ username: "chatbot", password })),
                    headers: { "X-Env": a.headers },
                    logger: { warn: (m) => backendLog.push(m), error: (m) => backendLog.push(m) },
                });
                deployed = now;
            }
            const token = new URL(req.url ?? "/", "http://x").searchParams.get("token");
            res.on("finish", () => req.method === "POST" && res.statusCode === 200 && accepted.push(label(token)));
            kit!(req, res);
        });
        const runs: RunResult[] = [];
        try {
            await env.declare([
                {
                    kind: "Backend",
                    name: "backend",
                    args: {
                        deployTo,
                        accepts: {
                            tokens: { secretConfig: "backendTokens", json: true },
                            passwords: { secretConfig: "backendPasswords", json: true },
                            headers: { secretConfig: "backendHeaders", json: true },
                        },
                    },
                },
                {
                    kind: "WebhookConnection",
                    name: "orders",
                    args: {
                        storyId: STORY,
                        url: `${backendUrl}/orders`,
                        token: { secretConfig: "hookToken" },
                        auth: { username: "chatbot", password: { secretConfig: "hookPassword" } },
                        headers: { "X-Env": { secretConfig: "hookHeader" } },
                    },
                    // The connection waits for the backend's deploy: what lets one up do two steps.
                    options: { dependsOn: ["backend"] },
                },
            ]);
            /** What the backend accepts, and what the connection sends: the program's stack config. */
            const configure = (backend: Generation[], connection: Generation) =>
                env.stack.setConfig({
                    backendTokens: { secret: JSON.stringify(backend.map((g) => g.token)) },
                    backendPasswords: { secret: JSON.stringify(backend.map((g) => g.password)) },
                    backendHeaders: { secret: JSON.stringify(backend.map((g) => g.header)) },
                    hookToken: { secret: connection.token },
                    hookPassword: { secret: connection.password },
                    hookHeader: { secret: connection.header },
                });
            const ordersId = () => sim.listConnections().find((c) => c.name === "orders")!.id;
            /** As a pipeline's post-deploy step (examples/pipelines.md); loopback urls need --allow-private. */
            const probeStack = async (step: string) => {
                const probed = await runInstalledCommand(["probe", "--stack", env.stack.name, "--allow-private"], {
                    env: env.stack.environment({
                        PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}`,
                    }),
                    cwd: env.stack.projectDir,
                });
                assert.equal(probed.code, 0, `${step}: probe --stack\n${probed.stdout}${probed.stderr}`);
                for (const secret of secrets) assert.ok(!(probed.stdout + probed.stderr).includes(secret));
            };
            const traffic: Array<ChatTraffic & { step: string; tokens: string[] }> = [];
            /** `pulumi up` while ChatBot calls the connection, on its own and bounded; then probe --stack. */
            const upDuringChats = async (step: string, flags: { refresh?: boolean } = {}) => {
                accepted.length = 0;
                const chats = sim.chatTraffic(ordersId(), { intervalMs: 20, maxCalls: 5000, maxMs: 300_000 });
                let r: RunResult;
                try {
                    r = await env.stack.run("up", flags);
                } finally {
                    traffic.push({ step, ...(await chats.stop()), tokens: [...new Set(accepted)] });
                }
                runs.push(r);
                ok(r);
                await probeStack(step);
                return r;
            };

            // ChatBot verifies the url and every new token, as a real rotation meets it.
            sim.verifyWebhooks = true;
            // Before the rotation: the connection moves to the backend, which accepts A alone.
            await configure([A], A);
            const start = await env.stack.run("up");
            runs.push(start);
            ok(start);
            await probeStack("start");
            assert.equal(sim.getConnection(ordersId())!.token, A.token);

            // 1. The backend accepts both; the connection still sends the old.
            await configure([B, A], A);
            await upDuringChats("1. backend accepts B and A");

            // Drift during the rotation: someone switches the connection to B by hand. A drift check
            // shows it and changes nothing; up --refresh puts the program's A back. No chat fails:
            // the backend accepts both.
            sim.editConnection(ordersId(), { token: B.token });
            const drift = await env.stack.run("preview", { refresh: true, expectNoChanges: true });
            runs.push(drift);
            assert.equal(drift.code, CHANGES_EXIT_CODE, drift.stdout + drift.stderr);
            assert.ok(
                drift.events.some(
                    (e) =>
                        e.resourcePreEvent?.metadata.op === "update" &&
                        e.resourcePreEvent.metadata.urn.endsWith("::orders"),
                ),
                "the drift check plans to put orders back",
            );
            assert.equal(sim.getConnection(ordersId())!.token, B.token, "a drift check writes nothing");
            await upDuringChats("drift put back", { refresh: true });
            assert.equal(sim.getConnection(ordersId())!.token, A.token, "the program's token is back");

            // 2. The connection switches.
            await configure([B, A], B);
            await upDuringChats("2. connection switches to B");
            assert.deepEqual(sim.getConnection(ordersId())!.auth, { username: "chatbot", password: B.password });

            // 3. The backend drops the old.
            await configure([B], B);
            await upDuringChats("3. backend drops A");

            // The same rotation in two ups: the connection depends on the backend, so one up
            // deploys the backend accepting both, then switches the connection.
            await configure([C, B], C);
            const both = await upDuringChats("1+2 in one up: backend accepts C and B, connection switches to C");
            const finished = both.steps.map((x) => x.name);
            assert.ok(
                finished.indexOf("backend") >= 0 && finished.indexOf("backend") < finished.indexOf("orders"),
                `the backend's deploy finished before the connection's update: ${finished.join(", ")}`,
            );
            await configure([C], C);
            await upDuringChats("3. backend drops B");

            const made = traffic.reduce((n, t) => n + t.calls, 0);
            console.log(
                `      ChatBot's calls during each up: ${traffic.map((t) => `${t.step}: ${t.calls} (${t.refused.length} refused)`).join("; ")}`,
            );
            for (const t of traffic) {
                assert.deepEqual(t.refused, [], `${t.step}: calls refused`);
                assert.ok(t.calls >= 3, `${t.step}: ChatBot called ${t.calls} times`);
            }
            assert.ok(made > 0);
            // Calls spanned each switch: the old token before it, the new after, both answered.
            assert.deepEqual(traffic[2].tokens.sort(), ["A", "B"], traffic[2].step);
            assert.deepEqual(traffic[3].tokens, ["B"], traffic[3].step);
            assert.deepEqual(traffic[4].tokens.sort(), ["B", "C"], traffic[4].step);

            // After the last step: the old of each is refused (401), the new accepted.
            const call = async (c: Generation) => {
                const res = await fetch(`${backendUrl}/orders?token=${encodeURIComponent(c.token)}`, {
                    method: "POST",
                    headers: {
                        "content-type": "application/json",
                        authorization: `Basic ${Buffer.from(`chatbot:${c.password}`).toString("base64")}`,
                        "X-Env": c.header,
                    },
                    body: JSON.stringify(sampleWebhookRequest),
                });
                return { status: res.status, body: await res.text() };
            };
            assert.equal((await call(C)).status, 200);
            for (const [what, old] of [
                ["token", { ...C, token: B.token }],
                ["password", { ...C, password: B.password }],
                ["header", { ...C, header: B.header }],
            ] as const) {
                const r = await call(old);
                assert.equal(r.status, 401, `the old ${what}`);
                for (const secret of secrets) assert.ok(!r.body.includes(secret));
            }
            assert.ok((await sim.callWebhook(ordersId())).ok, "ChatBot's call with the new values");
            assert.equal(backendLog.length, 3, backendLog.join("\n"));
            for (const line of backendLog) for (const secret of secrets) assert.ok(!line.includes(secret), line);
            const exported = JSON.stringify(await env.stack.export());
            for (const secret of secrets) assert.ok(!exported.includes(secret), "a secret in plain text in state");
            for (const r of runs) for (const secret of secrets) assert.ok(!(r.stdout + r.stderr).includes(secret));
        } finally {
            sim.verifyWebhooks = false;
            await servers.closeAll();
        }
    });
});
