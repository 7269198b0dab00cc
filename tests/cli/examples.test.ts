/**
 * The runnable examples, whole, each run with the real pulumi CLI as its README says (`pulumi up`
 * in a copy of its folder), against the local ChatBot API simulator, checked after every step.
 *
 * - examples/quickstart: preview, up, preview with no change, a change of its stack config, up, a
 *   change by hand, refresh and destroy; replacement, components, the import option, failures.
 * - examples/pipelines.md: the CI drift check and a pull request's preview, as written there.
 * - examples/backend-alongside needs the AWS provider plugin, which cannot be had here (plugin
 *   downloads are blocked, and the Go module proxy refuses pulumi-aws). Its wiring is checked
 *   under `pulumi.runtime.setMocks` (the connection's url is the function URL output, secrets stay
 *   secret), and its backend as Lambda would call it.
 * - `npm start`: scripts/quickstart.ts run as a process.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { pathToFileURL } from "url";
import * as pulumi from "@pulumi/pulumi";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import {
    CHANGES_EXIT_CODE,
    CONNECTION_TYPE,
    isSecret,
    ok,
    plain,
    PulumiStack,
    type ConfigValue,
    type RunResult,
    type StepMetadata,
} from "../helpers/pulumi";
import { installedRequire, installedTesting, root } from "../helpers/support";

const EXAMPLES = path.join(root, "examples");
const QUICKSTART = path.join(EXAMPLES, "quickstart");
const BACKEND = path.join(EXAMPLES, "backend-alongside");
const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const OTHER_STORY = "6a1b2c3d4e5f6a7b8c9d0e1f";

/** Secret values: none may appear in `pulumi stack export` or in what the CLI prints. */
const WEBHOOK_TOKEN = "wt-3b9f1e-example-secret";
const BASIC_PASSWORD = "bp-77c2aa-example-secret";
/** The token and password a rotation replaces. */
const PREVIOUS_TOKEN = "wt-0a41d7-previous-secret";
const PREVIOUS_PASSWORD = "bp-5e90c3-previous-secret";

/**
 * One stack of one example, in a copy of its folder, against one simulator. Every run sets the
 * stack config to the example's own plus the run's (as a user would with `pulumi config set`).
 */
class ExampleStack {
    runs: RunResult[] = [];

    private constructor(
        readonly stack: PulumiStack,
        readonly sim: ChatbotSimulator,
        private readonly baseConfig: Record<string, ConfigValue>,
    ) {}

    static async create(
        example: string,
        sim: ChatbotSimulator,
        baseConfig: Record<string, ConfigValue>,
    ): Promise<ExampleStack> {
        const stack = await PulumiStack.create({
            projectDir: copyExample(example),
            // tsc type-checks the examples (npm run typecheck); here ts-node only transpiles them.
            env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        });
        return new ExampleStack(stack, sim, baseConfig);
    }

    /** The program's index.ts, replaced for a test. */
    set program(source: string) {
        fs.writeFileSync(path.join(this.stack.projectDir, "index.ts"), source);
    }
    get program(): string {
        return fs.readFileSync(path.join(this.stack.projectDir, "index.ts"), "utf8");
    }

    async run(
        command: "preview" | "up" | "refresh" | "destroy",
        config: Record<string, ConfigValue> = {},
        flags: { refresh?: boolean; expectNoChanges?: boolean } = {},
    ): Promise<RunResult> {
        await this.stack.setConfig({
            "chatbot:apiUrl": this.sim.url,
            "chatbot:token": { secret: this.sim.token },
            ...this.baseConfig,
            ...config,
        });
        const r = await this.stack.run(command, flags);
        this.runs.push(r);
        return r;
    }

    /** A resource's recorded outputs, secrets as their values. */
    async outputs(name: string): Promise<Record<string, unknown>> {
        const r = (await this.stack.resources()).find((x) => x.urn.endsWith(`::${name}`));
        assert.ok(r, `${name} is in the state`);
        return plain(r.outputs) as Record<string, unknown>;
    }

    /** The stack's outputs as `stack export --show-secrets` has them: secrets still marked. */
    async stackOutputs(): Promise<Record<string, unknown>> {
        const all = (await this.stack.export(true)).deployment.resources ?? [];
        return all.find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
    }

    /** Nothing secret in `pulumi stack export`, nor in anything the CLI printed. */
    async assertNoSecretsLeaked(): Promise<void> {
        const text = JSON.stringify(await this.stack.export());
        for (const s of [WEBHOOK_TOKEN, BASIC_PASSWORD, this.sim.token]) {
            assert.ok(!text.includes(s), "pulumi stack export shows a secret in plain text");
            for (const r of this.runs) assert.ok(!(r.stdout + r.stderr).includes(s), "the CLI printed a secret");
        }
    }

    close(): void {
        this.stack.dispose();
        fs.rmSync(path.dirname(this.stack.projectDir), { recursive: true, force: true });
    }
}

/** `[name, op]` of the WebhookConnection steps that change something, taken or planned (refresh
 *  reads and unchanged ones left out). */
function connectionSteps(r: RunResult): string[][] {
    return r.events
        .map((e) => e.resourcePreEvent?.metadata)
        .filter((m): m is StepMetadata => m?.type === CONNECTION_TYPE && m.op !== "refresh" && m.op !== "same")
        .map((m) => [m.urn.split("::").pop() ?? "", m.op]);
}

function byName(sim: ChatbotSimulator): Map<string, StoredConnection> {
    return new Map(sim.listConnections().map((c) => [c.name, c]));
}

function writes(sim: ChatbotSimulator): string[] {
    return sim.requests.filter((q) => q.method !== "GET").map((q) => `${q.method} ${q.path}`);
}

/** A copy of an example in a temporary folder, resolving packages from this repository. */
function copyExample(from: string): string {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-example-")), path.basename(from));
    fs.cpSync(from, dir, { recursive: true, filter: (src) => !src.includes("node_modules") });
    fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
    return dir;
}

// ---------------------------------------------------------------------------------------------

describe("examples/quickstart with the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let stack: ExampleStack;

    const config = {
        storyId: STORY,
        backendUrl: "https://bot-backend.example.com",
        webhookToken: { secret: WEBHOOK_TOKEN },
        basicPassword: { secret: BASIC_PASSWORD },
    };

    const start = async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        stack = await ExampleStack.create(QUICKSTART, sim, config);
    };
    const stop = async () => {
        stack?.close();
        await sim?.close();
    };

    // One stack of the quickstart as written, through one lifecycle: its cases continue it in
    // order (a failure in one may fail those after it), and what each asserts is of its own steps.
    describe("the program as written, one stack through its lifecycle", () => {
        before(start);
        afterEach(() => stack.assertNoSecretsLeaked());
        after(stop);

        it("preview, up, no-change preview, config change, up, drift by hand, refresh", async () => {
            // preview: a plan, and nothing in ChatBot, nothing in state.
            const preview = ok(await stack.run("preview"));
            assert.deepEqual(connectionSteps(preview), [
                ["orders", "create"],
                ["support", "create"],
            ]);
            assert.deepEqual(sim.requests, [], "preview calls no API");
            assert.deepEqual(await stack.stack.resources(), [], "preview records nothing");

            // up: both connections, as declared, the second fed by the first's outputs.
            const up = ok(await stack.run("up"));
            assert.deepEqual(up.changes, { create: 3 });
            const made = byName(sim);
            const orders = made.get("orders")!;
            const support = made.get("support")!;
            assert.equal(made.size, 2);
            assert.equal(orders.url, "https://bot-backend.example.com/chatbot/orders");
            assert.equal(orders.token, WEBHOOK_TOKEN);
            assert.deepEqual(orders.headers, { "X-Environment": "production" });
            assert.equal(support.url, "https://bot-backend.example.com/chatbot/support");
            assert.deepEqual(support.auth, { username: "chatbot", password: BASIC_PASSWORD });
            assert.deepEqual(support.headers, { "X-Environment": "production", "X-Orders-Connection": orders.id });
            assert.deepEqual(await stack.stack.outputs(), {
                ordersConnectionId: orders.id,
                supportConnectionId: support.id,
                supportUrl: support.url,
            });
            assert.ok(!isSecret((await stack.stackOutputs()).supportUrl), "a non-secret output stays plain");
            const [state] = (await stack.stack.export(true)).deployment.resources!.filter((r) =>
                r.urn.endsWith("::orders"),
            );
            for (const key of ["token", "headers"])
                assert.ok(isSecret(state.outputs?.[key]), `${key} is secret in state`);

            // The same program again: no change, no API call.
            sim.resetRequests();
            const again = ok(await stack.run("preview"));
            assert.deepEqual(again.changes, { same: 3 });
            assert.deepEqual(sim.requests, []);

            // A stack config change: previewed first (nothing touched), then made in place.
            const change = { environment: "staging", backendUrl: "https://new-backend.example.com" };
            const planned = ok(await stack.run("preview", change));
            assert.deepEqual(connectionSteps(planned), [
                ["orders", "update"],
                ["support", "update"],
            ]);
            assert.deepEqual(sim.requests, []);
            ok(await stack.run("up", change));
            const changed = byName(sim);
            assert.equal(changed.get("orders")!.id, orders.id, "updated in place");
            assert.equal(changed.get("orders")!.url, "https://new-backend.example.com/chatbot/orders");
            assert.equal(changed.get("support")!.url, "https://new-backend.example.com/chatbot/support");
            assert.deepEqual(changed.get("support")!.headers, {
                "X-Environment": "staging",
                "X-Orders-Connection": orders.id,
            });

            // By hand: support's url edited, orders deleted. Refresh records it and touches nothing.
            sim.editConnection(support.id, { url: "https://elsewhere.example/hook" });
            sim.deleteConnection(orders.id);
            sim.resetRequests();
            const refresh = ok(await stack.run("refresh", change));
            assert.deepEqual(refresh.changes, { delete: 1, update: 1, same: 1 });
            assert.deepEqual(writes(sim), [], "refresh only reads");
            assert.equal((await stack.outputs("support")).url, "https://elsewhere.example/hook");
            assert.equal(sim.getConnection(support.id)!.url, "https://elsewhere.example/hook");

            // up puts it right: orders again (a new id), and support follows it.
            ok(await stack.run("up", change));
            const fixed = byName(sim);
            const newOrders = fixed.get("orders")!;
            assert.notEqual(newOrders.id, orders.id);
            assert.equal(fixed.get("support")!.id, support.id);
            assert.equal(fixed.get("support")!.url, "https://new-backend.example.com/chatbot/support");
            assert.equal(fixed.get("support")!.headers!["X-Orders-Connection"], newOrders.id);
        });

        it("a failed registration ends the program, keeps what exists and says why", async () => {
            ok(await stack.run("up"));
            const before = sim.listConnections();
            const started = Date.now();
            const r = await stack.run("up", { storyId: "too-short" });
            assert.notEqual(r.code, 0);
            assert.match(r.stdout + r.stderr, /storyId: must be exactly 24 characters/);
            // Ends rather than retrying a refusal: bounded with room for a loaded machine (npm test
            // runs files side by side); how fast is the bench's to say.
            assert.ok(Date.now() - started < 120_000, `the failed run took ${Date.now() - started} ms`);
            assert.deepEqual(sim.listConnections(), before, "nothing changed, nothing deleted");
            assert.equal((await stack.stack.resources(CONNECTION_TYPE)).length, 2);
            // An exception in the program itself fails the run too, and deletes nothing.
            const thrown = await stack.run("up", { backendUrl: "not a url" });
            assert.notEqual(thrown.code, 0);
            assert.match(thrown.stdout + thrown.stderr, /Invalid URL/);
            assert.deepEqual(sim.listConnections(), before);
            // The state's secrets open only with the stack's passphrase.
            const wrong = await stack.stack.pulumi(["preview"], { env: { PULUMI_CONFIG_PASSPHRASE: "wrong" } });
            assert.notEqual(wrong.code, 0);
            assert.match(wrong.stdout + wrong.stderr, /incorrect passphrase/);
        });

        it("a new story replaces both connections, each created before the old one is deleted", async () => {
            ok(await stack.run("up"));
            const before = byName(sim);
            const r = ok(await stack.run("up", { storyId: OTHER_STORY }));
            assert.deepEqual(r.changes, { replace: 2, same: 1 });
            const order = connectionSteps(r).map(([name, op]) => `${op} ${name}`);
            for (const name of ["orders", "support"])
                assert.ok(
                    order.indexOf(`create-replacement ${name}`) < order.indexOf(`delete-replaced ${name}`),
                    `${name}: created before the old one is deleted (${order.join(", ")})`,
                );
            const after = byName(sim);
            assert.equal(after.size, 2, "the old connections are gone");
            assert.notEqual(after.get("orders")!.id, before.get("orders")!.id);
            assert.equal(after.get("support")!.story.id, OTHER_STORY);
            assert.equal(after.get("support")!.headers!["X-Orders-Connection"], after.get("orders")!.id);
        });

        it("destroy: nothing left in ChatBot or in state, dependents first", async () => {
            const destroy = ok(await stack.run("destroy"));
            assert.deepEqual(
                connectionSteps(destroy).map(([name, op]) => `${op} ${name}`),
                ["delete support", "delete orders"],
            );
            assert.deepEqual(sim.listConnections(), []);
            assert.deepEqual(await stack.stack.resources(), []);
        });
    });

    describe("programs of their own, a stack each", () => {
        beforeEach(start);
        afterEach(async () => {
            try {
                await stack.assertNoSecretsLeaked();
            } finally {
                await stop();
            }
        });

        it("a child of a component carries its parent's type in its URN; one left out of the program is deleted", async () => {
            stack.program = [
                'import * as pulumi from "@pulumi/pulumi";',
                'import * as chatbot from "pulumi-chatbot";',
                "const cfg = new pulumi.Config();",
                'const storyId = cfg.require("storyId");',
                "class Bot extends pulumi.ComponentResource {",
                "    readonly connections: chatbot.WebhookConnection[];",
                "    constructor(name: string, hooks: string[]) {",
                '        super("acme:chatbot:Bot", name);',
                "        this.connections = hooks.map(",
                "            (h) => new chatbot.WebhookConnection(h, { storyId, url: `https://bot.example.com/${h}`, token: `t-${h}` }, { parent: this }),",
                "        );",
                "        this.registerOutputs({ hooks: hooks.length });",
                "    }",
                "}",
                'const bot = new Bot("bot", cfg.require("hooks").split(","));',
                "export const ids = bot.connections.map((c) => c.id);",
                "// Secret because the engine returned it marked (additionalSecretOutputs): the SDK does not mark it itself.",
                "export const firstToken = bot.connections[0].token;",
                "",
            ].join("\n");
            ok(await stack.run("up", { hooks: "a,b" }));
            const all = (await stack.stack.export(true)).deployment.resources ?? [];
            assert.ok(
                all.some(
                    (r) =>
                        r.urn ===
                        "urn:pulumi:dev::chatbot-quickstart::acme:chatbot:Bot$pulumi-nodejs:dynamic/chatbot:WebhookConnection::a",
                ),
                "the child's URN",
            );
            const firstToken = (await stack.stackOutputs()).firstToken;
            assert.ok(isSecret(firstToken), "outputs reach the program with their secret marks");
            assert.equal(plain(firstToken), "t-a");
            const component = all.find((r) => r.type === "acme:chatbot:Bot");
            assert.deepEqual(component?.outputs, { hooks: 2 }, "the component's registered outputs are kept");
            const b = byName(sim).get("b")!;

            const planned = ok(await stack.run("preview", { hooks: "a" }));
            assert.deepEqual(connectionSteps(planned), [["b", "delete"]]);
            assert.ok(sim.getConnection(b.id), "a preview deletes nothing");
            ok(await stack.run("up", { hooks: "a" }));
            assert.deepEqual([...byName(sim).keys()], ["a"]);
            ok(await stack.run("destroy", { hooks: "a" }));
            assert.deepEqual(sim.listConnections(), []);
        });

        it("the import option adopts an existing connection; .get() of a missing id fails naming it", async () => {
            // The engine's import step reads with the id alone, which no dynamic provider can serve:
            // the class turns `import` into an adopting create instead.
            const res = await fetch(`${sim.url}/v2/integrations/webhook`, {
                method: "POST",
                headers: { authorization: `Bearer ${sim.token}`, "content-type": "application/json" },
                body: JSON.stringify({ storyId: STORY, name: "by-hand", url: "https://bot.example.com/by-hand" }),
            });
            const existing = ((await res.json()) as { id: string }).id;
            const program = (extra: string) =>
                [
                    'import * as pulumi from "@pulumi/pulumi";',
                    'import * as chatbot from "pulumi-chatbot";',
                    "const cfg = new pulumi.Config();",
                    "const c = new chatbot.WebhookConnection(",
                    '    "by-hand",',
                    '    { storyId: cfg.require("storyId"), url: "https://bot.example.com/by-hand", token: cfg.requireSecret("webhookToken") },',
                    '    { import: cfg.require("existingId") },',
                    ");",
                    "export const id = c.id;",
                    extra,
                    "",
                ].join("\n");
            stack.program = program("");
            sim.resetRequests();
            ok(await stack.run("up", { existingId: existing }));
            assert.deepEqual(writes(sim), [`PUT /v2/integrations/webhook/${existing}`], "adopted: nothing created");
            assert.equal(sim.listConnections().length, 1);
            assert.equal((await stack.outputs("by-hand")).token, WEBHOOK_TOKEN, "the token the program sets was put");
            assert.equal(sim.listConnections()[0].token, WEBHOOK_TOKEN);

            const missing = "0123456789abcdef01234567";
            stack.program = program(`export const other = chatbot.WebhookConnection.get("other", "${missing}").url;`);
            const r = await stack.run("up", { existingId: existing });
            assert.notEqual(r.code, 0);
            assert.match(r.stdout + r.stderr, new RegExp(`no webhook connection with id ${missing}`));
            ok(await stack.run("destroy", { existingId: existing }));
            assert.deepEqual(sim.listConnections(), []);
        });
    });
});

// ---------------------------------------------------------------------------------------------

describe("examples/pipelines.md with the pulumi CLI", function () {
    this.timeout(300_000);
    let sim: ChatbotSimulator;
    let stack: ExampleStack;

    // One deployed stack for both cases, in order: the drift check leaves it as the program says
    // (its last step asserts so), which is where a pull request's preview starts.
    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        stack = await ExampleStack.create(QUICKSTART, sim, {
            storyId: STORY,
            backendUrl: "https://bot-backend.example.com",
            webhookToken: { secret: WEBHOOK_TOKEN },
            basicPassword: { secret: BASIC_PASSWORD },
        });
        ok(await stack.run("up"));
    });
    afterEach(() => stack.assertNoSecretsLeaked());
    after(async () => {
        try {
            if (stack) ok(await stack.run("destroy"));
        } finally {
            stack?.close();
            await sim?.close();
        }
    });

    // As pipelines.md writes it: pulumi preview --refresh --expect-no-changes
    const driftCheck = () => stack.run("preview", {}, { refresh: true, expectNoChanges: true });

    it("the drift check passes when clean, fails after a hand edit without changing anything, passes once fixed", async () => {
        assert.equal((await driftCheck()).code, 0);

        const support = byName(sim).get("support")!;
        sim.editConnection(support.id, { headers: { "X-Environment": "production" } });
        sim.resetRequests();
        const drifted = await driftCheck();
        assert.equal(drifted.code, CHANGES_EXIT_CODE);
        assert.match(drifted.stdout + drifted.stderr, /no changes were expected/);
        assert.deepEqual(connectionSteps(drifted), [["support", "update"]]);
        assert.deepEqual(writes(sim), [], "a drift check only reads");
        assert.deepEqual(sim.getConnection(support.id)!.headers, { "X-Environment": "production" });

        // As pipelines.md writes it: pulumi up --refresh
        ok(await stack.run("up", {}, { refresh: true }));
        assert.equal(sim.getConnection(support.id)!.headers!["X-Orders-Connection"], byName(sim).get("orders")!.id);
        assert.equal((await driftCheck()).code, 0);
    });

    it("a pull request's preview of a changed program shows the planned changes and touches nothing", async () => {
        // The branch: the quickstart with a new path for orders and a third connection.
        stack.program =
            stack.program.replace('"/chatbot/orders"', '"/chatbot/v2/orders"') +
            '\nexport const billingId = new chatbot.WebhookConnection("billing", { storyId, url: "https://billing.example.com/hook" }).id;\n';
        const before = sim.listConnections();
        sim.resetRequests();
        const pr = ok(await stack.run("preview"));
        // Registrations that do not depend on each other arrive in any order.
        assert.deepEqual(connectionSteps(pr).sort(), [
            ["billing", "create"],
            ["orders", "update"],
            ["support", "update"],
        ]);
        assert.deepEqual(sim.requests, [], "a preview calls no API");
        assert.deepEqual(sim.listConnections(), before);
    });
});

// ---------------------------------------------------------------------------------------------

const FUNCTION_URL = "https://q4ldmbyhpd7mgbbmwprqbmlsvm0hzxhc.lambda-url.eu-west-1.on.aws/";

/** What AWS would compute for the example's resources: names, ARNs, the function URL. */
const awsMocks = {
    newResource({ type, name }: { type: string; name: string; inputs: unknown }): {
        state?: Record<string, unknown>;
    } {
        const physical = `${name}-7f3a2c1`;
        const arn = `arn:aws:${type.split(/[:/]/)[1]}:eu-west-1:123456789012:${physical}`;
        if (type === "aws:lambda/functionUrl:FunctionUrl")
            return { state: { functionUrl: FUNCTION_URL, urlId: "q4ldmbyhpd" } };
        if (type === "aws:lambda/function:Function" || type === "aws:iam/role:Role")
            return { state: { name: physical, arn } };
        return {};
    },
};

type BackendHandler = (
    event: unknown,
) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

/** The backend's environment as the program sets it (the token is added where it matters). */
const BACKEND_ENV = { BASIC_USERNAME: "chatbot", BASIC_PASSWORD: BASIC_PASSWORD, ENVIRONMENT: "production" };

describe("examples/backend-alongside", function () {
    this.timeout(180_000);

    it("under setMocks: the connection's url is the function URL output, and every secret stays secret", async () => {
        interface Registration {
            type: string;
            name: string;
            raw: Record<string, unknown>;
            propertyDependencies: Record<string, string[]>;
            dependencies: string[];
            additionalSecretOutputs: string[];
            urn?: string;
        }
        const registrations: Registration[] = [];
        const mocksModule: { MockMonitor: { prototype: Record<string, (...a: unknown[]) => unknown> } } =
            installedRequire("@pulumi/pulumi/runtime/mocks");
        const proto = mocksModule.MockMonitor.prototype;
        const register = proto.registerResource;
        type Req = {
            getType(): string;
            getName(): string;
            getObject(): { toJavaScript(): Record<string, unknown> };
            getAdditionalsecretoutputsList(): string[];
            getDependenciesList(): string[];
            getPropertydependenciesMap(): { forEach(cb: (v: { getUrnsList(): string[] }, k: string) => void): void };
        };
        proto.registerResource = function (this: unknown, req: unknown, cb: unknown) {
            const r = req as Req;
            const propertyDependencies: Record<string, string[]> = {};
            r.getPropertydependenciesMap().forEach((v, k) => (propertyDependencies[k] = v.getUrnsList()));
            const reg: Registration = {
                type: r.getType(),
                name: r.getName(),
                raw: r.getObject().toJavaScript(),
                propertyDependencies,
                dependencies: r.getDependenciesList(),
                additionalSecretOutputs: r.getAdditionalsecretoutputsList(),
            };
            registrations.push(reg);
            const done = cb as (err: unknown, resp?: { getUrn(): string }) => void;
            return register.call(this, req, (err: unknown, resp?: { getUrn(): string }) => {
                if (resp) reg.urn = resp.getUrn();
                done(err, resp);
            });
        };
        const program = path.join(BACKEND, "index.ts");
        try {
            const project = "chatbot-backend-alongside";
            pulumi.runtime.setAllConfig(
                {
                    [`${project}:storyId`]: STORY,
                    [`${project}:basicPassword`]: BASIC_PASSWORD,
                    [`${project}:webhookToken`]: WEBHOOK_TOKEN,
                    // Mid-rotation: the old token still accepted by the function.
                    [`${project}:previousWebhookToken`]: PREVIOUS_TOKEN,
                },
                [`${project}:basicPassword`, `${project}:webhookToken`, `${project}:previousWebhookToken`],
            );
            await pulumi.runtime.setMocks(
                {
                    newResource: (args) => {
                        const computed = awsMocks.newResource({ type: args.type, name: args.name, inputs: {} });
                        return { id: `${args.name}-id`, state: { ...args.inputs, ...(computed.state ?? {}) } };
                    },
                    call: () => ({}),
                },
                project,
                "dev",
                false,
            );
            delete require.cache[require.resolve(program)];
            const exports = require(program) as {
                connectionId: pulumi.Output<string>;
                webhookUrl: pulumi.Output<string>;
            };
            const connectionId = await new Promise<string>((resolve) => exports.connectionId.apply(resolve));
            const webhookUrl = await new Promise<string>((resolve) => exports.webhookUrl.apply(resolve));
            assert.equal(webhookUrl, FUNCTION_URL);
            assert.equal(connectionId, "orders-id");
            assert.equal(await pulumi.isSecret(exports.webhookUrl), false);
            assert.equal(await pulumi.isSecret(exports.connectionId), false);
        } finally {
            proto.registerResource = register;
            delete require.cache[require.resolve(program)];
        }

        const find = (type: string) => {
            const r = registrations.find((x) => x.type === type);
            assert.ok(r, `${type} was registered`);
            return r;
        };
        const connection = find("pulumi-nodejs:dynamic/chatbot:WebhookConnection");
        const functionUrl = find("aws:lambda/functionUrl:FunctionUrl");
        const fn = find("aws:lambda/function:Function");
        assert.equal(connection.raw.url, FUNCTION_URL, "the connection's url input is the function URL output");
        assert.deepEqual(connection.propertyDependencies.url, [functionUrl.urn], "and depends on the FunctionUrl only");
        // In a rotation, the connection switches only once the function accepts the new value.
        assert.ok(connection.dependencies.includes(fn.urn!), "the connection waits for the function's deploy");
        assert.equal(functionUrl.raw.functionName, "backend-7f3a2c1", "the function URL is the function's");
        for (const key of ["token", "headers", "auth"]) {
            assert.ok(isSecret(connection.raw[key]), `the connection's ${key} is sent secret`);
        }
        assert.deepEqual([...connection.additionalSecretOutputs].sort(), ["auth", "headers", "token"]);
        const env = fn.raw.environment as { variables: Record<string, unknown> };
        assert.ok(isSecret(env.variables.BASIC_PASSWORD), "the backend's password is sent secret");
        assert.ok(isSecret(env.variables.WEBHOOK_TOKEN), "the backend's token is sent secret");
        assert.ok(isSecret(env.variables.PREVIOUS_WEBHOOK_TOKEN), "and the previous one, during a rotation");
        assert.equal(env.variables.PREVIOUS_BASIC_PASSWORD, undefined, "not set: no variable");
        assert.equal(env.variables.BASIC_USERNAME, "chatbot");
        const wire = JSON.stringify(
            registrations.map((r) => r.raw),
            (_k, v: unknown) => (isSecret(v) ? "[secret]" : v),
        );
        for (const secret of [BASIC_PASSWORD, WEBHOOK_TOKEN, PREVIOUS_TOKEN])
            assert.ok(!wire.includes(secret), "no secret travels unmarked");
    });

    it("the backend answers a ChatBot call as the webhook kit requires, and refuses a wrong password", async () => {
        const saved = { ...process.env };
        Object.assign(process.env, { BASIC_USERNAME: "chatbot", BASIC_PASSWORD: BASIC_PASSWORD, ENVIRONMENT: "test" });
        try {
            const backend = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
                handler(event: unknown): Promise<{ statusCode: number; body: string }>;
            };
            const { sampleWebhookRequest, verifyWebhookResponse } = installedRequire(
                "pulumi-chatbot/webhook",
            ) as typeof import("pulumi-chatbot/webhook");
            const call = { ...sampleWebhookRequest, attributes: { order_id: "A-1001" } };
            const event = (password: string) => ({
                requestContext: { http: { method: "POST" } },
                headers: { authorization: `Basic ${Buffer.from(`chatbot:${password}`).toString("base64")}` },
                body: JSON.stringify(call),
                isBase64Encoded: false,
            });
            const ok = await backend.handler(event(BASIC_PASSWORD));
            assert.equal(ok.statusCode, 200);
            const answer: unknown = JSON.parse(ok.body);
            assert.deepEqual(verifyWebhookResponse(answer), { ok: true, failures: [] });
            assert.match(JSON.stringify(answer), /A-1001 has shipped/);
            assert.equal((await backend.handler(event("wrong"))).statusCode, 401);
        } finally {
            for (const k of ["BASIC_USERNAME", "BASIC_PASSWORD", "ENVIRONMENT"]) {
                if (saved[k] === undefined) delete process.env[k];
                else process.env[k] = saved[k];
            }
        }
    });

    it("the backend answers ChatBot's verification request with its token, and refuses another token", async () => {
        const backend = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
            backendHandler(env: Record<string, string>): BackendHandler;
        };
        const handler = backend.backendHandler({ ...BACKEND_ENV, WEBHOOK_TOKEN });
        const get = (query: string) =>
            handler({ rawPath: "/", rawQueryString: query, headers: {}, requestContext: { http: { method: "GET" } } });
        const ok = await get(`challenge=c-7&token=${WEBHOOK_TOKEN}`);
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.body, "c-7");
        const wrong = await get("challenge=c-7&token=another");
        assert.equal(wrong.statusCode, 401);
        assert.ok(!wrong.body.includes("c-7") && !wrong.body.includes(WEBHOOK_TOKEN));
    });

    it("mid-rotation, the backend accepts the previous token and password beside the new, and nothing else", async () => {
        const backend = (await import(pathToFileURL(path.join(BACKEND, "backend", "index.mjs")).href)) as {
            backendHandler(env: Record<string, string>): BackendHandler;
        };
        const handler = backend.backendHandler({
            ...BACKEND_ENV,
            WEBHOOK_TOKEN,
            PREVIOUS_WEBHOOK_TOKEN: PREVIOUS_TOKEN,
            PREVIOUS_BASIC_PASSWORD: PREVIOUS_PASSWORD,
        });
        const { sampleWebhookRequest } = installedRequire(
            "pulumi-chatbot/webhook",
        ) as typeof import("pulumi-chatbot/webhook");
        const post = (token: string, password: string) =>
            handler({
                rawPath: "/",
                rawQueryString: `token=${token}`,
                headers: { authorization: `Basic ${Buffer.from(`chatbot:${password}`).toString("base64")}` },
                body: JSON.stringify(sampleWebhookRequest),
                requestContext: { http: { method: "POST" } },
            });
        for (const token of [WEBHOOK_TOKEN, PREVIOUS_TOKEN])
            for (const password of [BASIC_PASSWORD, PREVIOUS_PASSWORD])
                assert.equal((await post(token, password)).statusCode, 200);
        assert.equal((await post("another", BASIC_PASSWORD)).statusCode, 401);
        assert.equal((await post(WEBHOOK_TOKEN, "another")).statusCode, 401);
    });
});

// ---------------------------------------------------------------------------------------------

describe("npm start (scripts/quickstart.ts)", function () {
    // How long it takes is the README's to say (measured, not asserted): beside other files in
    // npm test, it ran past the 90 s this case used to hold it to.
    this.timeout(600_000);

    it("runs every step through the real pulumi CLI against the simulator, reports success and exits 0", async () => {
        // Run as `npm start` runs it (after its build), as a process: a test never imports scripts/.
        const child = spawn(process.execPath, ["-r", "ts-node/register", path.join("scripts", "quickstart.ts")], {
            cwd: root,
            env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
            stdio: ["ignore", "pipe", "pipe"],
        });
        let text = "";
        child.stdout.on("data", (d: Buffer) => (text += d.toString()));
        child.stderr.on("data", (d: Buffer) => (text += d.toString()));
        const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
        assert.equal(code, 0, `the quickstart failed:\n${text}`);
        assert.match(text, /^1\. Started the ChatBot API simulator/m);
        assert.match(text, /Pulumi runs as the pulumi CLI/);
        assert.match(text, /drift found, exit code 7/);
        assert.match(text, /The simulator has 0 connections left/);
        assert.match(text, /every step behaved as expected/);
    });
});
