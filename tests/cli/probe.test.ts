/**
 * `pulumi-chatbot probe --stack`, run as a pipeline's post-deploy step runs it
 * (examples/pipelines.md): after a real `pulumi up` of two connections, each pointing at a backend
 * on 127.0.0.1 (the kit's handler, and one written from ChatBot's example backends, which answers
 * in the older `elements` format), the installed command reads the stack (its export, and its
 * config for the API's token and address) through the real pulumi CLI and the connections' secrets
 * through the simulator's single read, and exits 1 naming the bad one; without --allow-private it
 * calls neither, their urls being on loopback, where ChatBot could not go. One `up`, one destroy.
 */
import { strict as assert } from "assert";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { createWebhookHandler, text } from "../../provider/webhook";
import { declareStack, ok, pulumiCli, STORY, type PulumiStack } from "../helpers/pulumi";
import { installedTesting, loopbackServers, runInstalledCommand, type CommandResult } from "../helpers/support";

const TOKEN = "hook-t0ken-cli-secret";
const PASSWORD = "hook-pa55-cli-secret";
const HEADER = "hook-h3ader-cli-secret";

describe("pulumi-chatbot probe --stack, through the real pulumi CLI", function () {
    this.timeout(300_000);
    const servers = loopbackServers();
    let sim: ChatbotSimulator;
    let stack: PulumiStack;
    let dispose = () => {};
    let calls: string[] = [];

    before(async () => {
        const kit = createWebhookHandler(() => ({ responses: [text("Your order has shipped")] }), {
            token: TOKEN,
            auth: { username: "chatbot", password: PASSWORD },
            headers: { "X-Env": HEADER },
            logger: { warn() {}, error() {} },
        });
        const good = await servers.listen((req, res) => {
            calls.push(`orders ${req.method}`);
            kit(req, res);
        });
        // As ChatBotCom/nodejs-webhook-example answers.
        const older = await servers.listen((req, res) => {
            calls.push(`example ${req.method}`);
            const query = new URL(req.url ?? "/", "http://x").searchParams;
            if (query.get("token") !== TOKEN) return res.writeHead(401).end();
            if (req.method === "GET") return res.end(query.get("challenge") ?? "");
            req.resume().on("end", () => res.end(JSON.stringify({ responses: [{ type: "text", elements: ["Ok"] }] })));
        });
        sim = await installedTesting().ChatbotSimulator.start();
        const made = await declareStack(sim, {
            stack: "prod",
            config: {
                hookToken: { secret: TOKEN },
                hookPassword: { secret: PASSWORD },
                hookHeader: { secret: HEADER },
            },
        });
        stack = made.stack;
        dispose = made.dispose;
        await made.declare([
            {
                kind: "WebhookConnection",
                name: "orders",
                args: {
                    storyId: STORY,
                    url: `${good}/hook`,
                    token: { secretConfig: "hookToken" },
                    auth: { username: "chatbot", password: { secretConfig: "hookPassword" } },
                    headers: { "X-Env": { secretConfig: "hookHeader" } },
                },
            },
            {
                kind: "WebhookConnection",
                name: "example",
                args: { storyId: STORY, url: `${older}/`, token: { secretConfig: "hookToken" } },
            },
        ]);
        ok(await stack.run("up"));
    });

    after(async () => {
        try {
            if (stack) ok(await stack.run("destroy"));
        } finally {
            dispose();
            await sim?.close();
            await servers.closeAll();
        }
    });

    /** The installed command, in the project's folder, with the stack's backend and the pulumi CLI on PATH. */
    function probe(args: string[]): Promise<CommandResult> {
        // No CHATBOT_TOKEN or CHATBOT_API_URL: the stack's config has them, as a pipeline's may.
        const env = stack.environment({
            PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}`,
        });
        return runInstalledCommand(["probe", ...args], { env, cwd: stack.projectDir });
    }

    it("after `pulumi up`, exits 1 naming the backend in the older format, the other ok, no secret printed", async () => {
        calls = [];
        // The backends are on loopback, as in local development.
        const r = await probe(["--stack", "prod", "--allow-private"]);
        assert.equal(r.code, 1, r.stdout + r.stderr);
        const [orders, example] = ["orders", "example"].map((name) =>
            sim.listConnections().find((c) => c.name === name)!,
        );
        const lines = r.stdout.trim().split("\n");
        assert.equal(lines.length, 3, r.stdout);
        const line = (name: string) => lines.find((l) => l.includes(`"${name}"`)) ?? "";
        assert.match(
            line("orders"),
            new RegExp(
                `^ok {4}webhook connection "orders" \\(${orders.id}\\) .*answered as ChatBot requires \\(verified`,
            ),
        );
        assert.match(
            line("example"),
            new RegExp(
                `^FAIL {2}webhook connection "example" \\(${example.id}\\) .*older format of ChatBot's example backends`,
            ),
        );
        assert.equal(lines[2], "probe: 1 of 2 backends would fail a chat.");
        assert.match(r.stderr, /^probe: stack prod manages 2; reading each at /m);
        assert.deepEqual(calls.sort(), ["example GET", "example POST", "orders GET", "orders POST"]);
        for (const secret of [TOKEN, PASSWORD, HEADER, sim.token]) {
            assert.ok(!(r.stdout + r.stderr).includes(secret), `${secret} was printed`);
        }
    });

    it("without --allow-private, calls neither backend: each line says its loopback address was refused", async () => {
        calls = [];
        const r = await probe(["--stack", "prod"]);
        assert.equal(r.code, 1, r.stdout + r.stderr);
        const lines = r.stdout.trim().split("\n");
        assert.equal(lines.length, 3, r.stdout);
        for (const line of lines.slice(0, 2)) {
            assert.match(
                line,
                /^FAIL {2}webhook connection .*: verification request: refused to call http:\/\/127\.0\.0\.1:\d+\/.*: 127\.0\.0\.1 is a loopback address, which ChatBot cannot reach from the internet/,
            );
        }
        assert.deepEqual(calls, [], "no backend was called");
    });

    it("a stack that does not exist: exit 2, the pulumi CLI's words naming it, no stack trace", async () => {
        const r = await probe(["--stack", "nope"]);
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.match(
            r.stderr,
            /^pulumi-chatbot probe: `pulumi stack export --stack nope` failed \(exit \d+\):\n.*nope/m,
        );
        assert.ok(!/\n\s+at /.test(r.stderr), r.stderr);
        assert.equal(r.stdout, "");
    });
});
