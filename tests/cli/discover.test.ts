/**
 * `pulumi-chatbot discover`, run as users run it (the installed package's command, a process),
 * reading a real `pulumi stack export`, and the program it writes, run by the real pulumi CLI.
 *
 * The proof of the issue: an account of 25 v2 connections and 5 legacy webhooks, 3 of them
 * managed by a stack (made by `pulumi up`, which also reads a fourth with `.get()`); discover
 * writes a program for the other 27; with the config its
 * --with-secrets file sets, `up` adopts all 27 reading only, `preview --expect-no-changes` passes,
 * and discover with the new stack's export finds nothing (`--check` exits 0). An adopted one that
 * differs gets exactly one PUT. No secret reaches stdout, stderr or the program.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator, StoredConnection, StoredLegacyWebhook } from "pulumi-chatbot/testing";
import {
    CONNECTION_TYPE,
    LEGACY_TYPE,
    declareStack,
    ok,
    pulumiCli,
    PulumiStack,
    type ConfigValue,
    type Declared,
    type RunResult,
} from "../helpers/pulumi";
import { installedTesting, root, runInstalledCommand, type CommandResult } from "../helpers/support";
import {
    go,
    goProgramBinary,
    GO_SDK,
    GO_SDK_MODULE,
    linkFiles,
    MAVEN_REPO,
    PLUGIN_YAML,
    python,
    pythonVenv,
    runGoBinary,
    useSdkRepository,
} from "../helpers/languagePrograms";
import { packageAndRunFromJar } from "../helpers/javaPrograms";

const STORIES = ["5f3c0d1e2a4b6c8d9e0f1a2b", "6a1b2c3d4e5f6a7b8c9d0e1f"];

/** Runs the installed command. Retries wait milliseconds, and give up after one attempt where a
 *  test wants a failure fast. */
function runCli(args: string[], env: Record<string, string | undefined>, stdin?: string): Promise<CommandResult> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, CHATBOT_RETRY_BASE_MS: "2" };
    for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete childEnv[k];
        else childEnv[k] = v;
    }
    return runInstalledCommand(["discover", ...args], { env: childEnv, stdin });
}

/** Every secret value the account holds: none may be shown except in the --with-secrets file. */
function secretValues(sim: ChatbotSimulator): string[] {
    const out = [sim.token];
    for (const c of sim.listConnections()) {
        if (c.token) out.push(c.token);
        if (c.headers) out.push(...Object.values(c.headers));
        if (c.auth) out.push(c.auth.password);
    }
    for (const w of sim.listLegacyWebhooks()) {
        if (w.token) out.push(w.token);
        if (w.headers) out.push(...w.headers.map((h) => h.value));
        if (w.auth) out.push(w.auth.password);
    }
    return out;
}

function assertNoSecret(text: string, secrets: string[], where: string): void {
    for (const s of secrets) assert.ok(!text.includes(s), `${where} shows a secret value`);
}

/** 25 connections and 5 legacy webhooks with every kind of field, repeated and awkward names. */
function seed(sim: ChatbotSimulator): { connections: StoredConnection[]; legacy: StoredLegacyWebhook[] } {
    const connections: StoredConnection[] = [];
    for (let i = 0; i < 25; i++) {
        const story = STORIES[i % 2];
        connections.push(
            sim.addConnection({
                story: { id: story, name: i % 2 ? "Support" : "Shop" },
                // Repeats ("Orders" four times) and characters no resource name may hold.
                name: i < 4 ? "Orders" : i === 4 ? "Ünïcode / it's \u2028 odd" : i === 5 ? "42 answers" : `hook ${i}`,
                url: `https://backend-${i}.example.com/chatbot?x=${i}`,
                ...(i % 3 !== 0 ? { token: `conn-token-${i}-'quoted' $HOME \`x\`` } : {}),
                ...(i % 4 === 1 ? { headers: { "X-Api-Key": `conn-header-${i}`, "x-env": `conn-env-${i}` } } : {}),
                ...(i % 5 === 2 ? { auth: { username: `user${i}`, password: `conn-pass-${i}\nline2` } } : {}),
            }),
        );
    }
    const legacy: StoredLegacyWebhook[] = [];
    for (let i = 0; i < 5; i++) {
        legacy.push(
            sim.addLegacyWebhook({
                name: i < 2 ? "Legacy" : `legacy ${i}`,
                url: `https://legacy-${i}.example.org/hook`,
                token: `legacy-token-${i}`,
                ...(i % 2 === 0 ? { headers: [{ name: "X-Sig", value: `legacy-header-${i}` }] } : {}),
                ...(i === 3 ? { auth: { username: "old", password: `legacy-pass-${i}` } } : {}),
            }),
        );
    }
    return { connections, legacy };
}

/**
 * A program's declaration of a stored connection or legacy webhook exactly as it is, adopted
 * (`adoptId`), so that managing it writes nothing. Its secrets go in secret stack config (`config`):
 * the dynamic provider's default provider records the whole stack config in state, so a secret
 * written in plain config would be stored in plain text.
 */
function adopting(
    name: string,
    stored: StoredConnection | StoredLegacyWebhook,
    config: Record<string, ConfigValue>,
): Declared {
    const { id, token, headers, auth } = stored;
    const args: Record<string, unknown> = { name: stored.name, url: stored.url, adoptId: id };
    for (const [key, value] of Object.entries({ token, headers, auth })) {
        if (value === undefined) continue;
        config[`${name}-${key}`] = { secret: typeof value === "string" ? value : JSON.stringify(value) };
        args[key] = { secretConfig: `${name}-${key}`, json: typeof value !== "string" };
    }
    if ("story" in stored) return { kind: "WebhookConnection", name, args: { ...args, storyId: stored.story.id } };
    return { kind: "LegacyWebhook", name, args };
}

/** Each op the engine took, counted. */
function summarize(steps: Array<{ op: string }>): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of steps) out[s.op] = (out[s.op] ?? 0) + 1;
    return out;
}

/** The changes of a run other than "same". */
function changed(r: RunResult): Record<string, number> {
    return Object.fromEntries(Object.entries(r.changes).filter(([op, n]) => op !== "same" && n > 0));
}

/** A project folder for a program: Pulumi.yaml, package.json, tsconfig, and the root's
 *  node_modules (the installed package) linked in. */
function makeProject(dir: string, name: string, program: string, language: "typescript" | "javascript"): void {
    fs.mkdirSync(dir, { recursive: true });
    const main = language === "typescript" ? "index.ts" : "index.js";
    fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        `name: ${name}\nruntime:\n    name: nodejs\n    options:\n        typescript: ${language === "typescript"}\n`,
    );
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, main }));
    fs.writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
            compilerOptions: {
                strict: true,
                target: "ES2022",
                module: "node16",
                moduleResolution: "node16",
                esModuleInterop: true,
                skipLibCheck: true,
            },
            files: [main],
        }),
    );
    fs.writeFileSync(path.join(dir, main), program);
    fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
}

/**
 * Runs a `--with-secrets` file as a shell script with a `pulumi` on PATH that records its
 * arguments: the stack config it sets, as the shell quoting delivers it.
 */
function configFromSecretsFile(file: string, dir: string): Record<string, ConfigValue> {
    const bin = path.join(dir, "fake-bin");
    const log = path.join(dir, "pulumi-calls.jsonl");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(
        path.join(bin, "pulumi"),
        `#!${process.execPath}\nrequire("fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + "\\n");\n`,
        { mode: 0o755 },
    );
    const { execFileSync } = require("child_process") as typeof import("child_process");
    execFileSync("sh", [file], { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` } });
    const config: Record<string, ConfigValue> = {};
    if (!fs.existsSync(log)) return config;
    for (const line of fs.readFileSync(log, "utf8").split("\n").filter(Boolean)) {
        const args = JSON.parse(line) as string[];
        assert.deepEqual(args.slice(0, 3), ["config", "set", "--secret"]);
        assert.equal(args[4], "--");
        assert.equal(args.length, 6);
        config[args[3]] = { secret: args[5] };
    }
    return config;
}

describe("pulumi-chatbot discover", function () {
    this.timeout(240_000);
    let sim: ChatbotSimulator;
    let dir: string;
    let seeded: ReturnType<typeof seed>;
    let env: Record<string, string>;
    let fixtureFile: string;
    let managedIds: string[];

    before(async () => {
        const { ChatbotSimulator } = installedTesting();
        sim = await ChatbotSimulator.start();
        seeded = seed(sim);
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-"));
        env = { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url };
        // The stack manages two connections and one legacy webhook; it also reads a fourth with
        // `.get()` (external): that one is not managed.
        const shop = await declareStack(sim, { env: { CHATBOT_RETRY_BASE_MS: "2" } });
        try {
            const secretConfig: Record<string, ConfigValue> = {};
            await shop.declare([
                adopting("orders", seeded.connections[0], secretConfig),
                adopting("seven", seeded.connections[7], secretConfig),
                adopting("legacy-four", seeded.legacy[4], secretConfig),
                { kind: "WebhookConnection", name: "looked-up", get: seeded.connections[8].id },
            ]);
            await shop.stack.setConfig(secretConfig);
            sim.resetRequests();
            ok(await shop.stack.run("up"));
            assert.deepEqual(
                sim.requests.filter((r) => r.method !== "GET"),
                [],
                "the managing stack adopts without a write",
            );
            managedIds = [seeded.connections[0].id, seeded.connections[7].id, seeded.legacy[4].id];
            fixtureFile = path.join(dir, "prod-export.json");
            const exported = await shop.stack.pulumi(["stack", "export", "--file", fixtureFile]);
            assert.equal(exported.code, 0, exported.stderr);
            assertNoSecret(fs.readFileSync(fixtureFile, "utf8"), secretValues(sim), "the stack's export");
        } finally {
            shop.dispose();
        }
    });

    after(async () => {
        await sim?.close();
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** A new stack of an adopting program, with the config its --with-secrets file sets. */
    const adoptingStack = (programDir: string, config: Record<string, ConfigValue>) =>
        PulumiStack.create({
            projectDir: programDir,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token }, ...config },
            env: { CHATBOT_RETRY_BASE_MS: "2" },
        });

    it("writes a program for the 27 unmanaged, adopts them with reads only, and then finds nothing", async () => {
        const secrets = secretValues(sim);
        let newExport: string;
        const programDir = path.join(dir, "adopted");
        const secretsFile = path.join(dir, "secrets.sh");
        fs.mkdirSync(programDir);
        const out = path.join(programDir, "index.ts");

        sim.resetRequests();
        const first = await runCli(["--stack-export", fixtureFile, "--out", out, "--with-secrets", secretsFile], env);
        assert.equal(first.code, 0, first.stderr);
        assert.match(
            first.stderr,
            /25 webhook connections and 5 legacy webhooks .*; 3 managed by the given stacks, 27 not/,
        );
        // Discover reads: the two lists and the 27 single reads.
        assert.ok(sim.requests.every((r) => r.method === "GET"));
        assert.equal(sim.requests.length, 2 + 27);
        const program = fs.readFileSync(out, "utf8");
        assert.equal((program.match(/^new chatbot\.WebhookConnection\(/gm) ?? []).length, 23);
        assert.equal((program.match(/^new chatbot\.LegacyWebhook\(/gm) ?? []).length, 4);
        assert.equal((program.match(/\{ protect: true \}/g) ?? []).length, 27);
        for (const id of managedIds) assert.ok(!program.includes(id), "a managed connection is declared again");
        assert.ok(program.includes(seeded.connections[8].id), "a connection the stack only reads is unmanaged");
        assertNoSecret(program, secrets, "the program");
        assertNoSecret(first.stdout + first.stderr, secrets, "discover's output");
        // The header lists the config commands, without values.
        assert.match(program, /^\/\/ {3}pulumi config set --secret \w+ <value>$/m);
        assert.equal(fs.statSync(secretsFile).mode & 0o777, 0o600);

        const json = await runCli(["--stack-export", fixtureFile, "--json", "--check"], env);
        assert.equal(json.code, 1, "--check fails while anything is unmanaged");
        const summary = JSON.parse(json.stdout) as {
            managed: string[];
            unmanaged: Array<{ id: string; kind: string; resourceName: string; name: string; url: string }>;
        };
        assert.deepEqual(summary.managed, [...managedIds].sort());
        assert.equal(summary.unmanaged.length, 27);
        const names = summary.unmanaged.map((u) => u.resourceName);
        assert.equal(new Set(names).size, 27, "resource names are unique");
        for (const n of names) assert.match(n, /^[a-z0-9][a-z0-9-]*$/);
        assert.ok(names.includes("orders-2") && names.includes("orders-3") && names.includes("42-answers"));
        assertNoSecret(json.stdout + json.stderr, secrets, "--json output");

        // Config from the --with-secrets file, as a shell runs it; then up adopts every one.
        const config = configFromSecretsFile(secretsFile, dir);
        makeProject(programDir, "adopted", program, "typescript");
        const stack = await adoptingStack(programDir, config);
        try {
            sim.resetRequests();
            const up = ok(await stack.run("up"));
            const adopted = up.steps.filter((s) => s.type === CONNECTION_TYPE || s.type === LEGACY_TYPE);
            assert.deepEqual(summarize(adopted), { create: 27 });
            const writes = sim.requests.filter((r) => r.method !== "GET");
            assert.deepEqual(writes, [], "adopting an unchanged account writes nothing");
            assert.equal(sim.listConnections().length, 25);
            assert.equal(sim.listLegacyWebhooks().length, 5);
            assertNoSecret(up.stdout + up.stderr, secrets, "the up's output");
            assertNoSecret(JSON.stringify(await stack.export()), secrets, "the new stack's export");

            const preview = await stack.run("preview", { expectNoChanges: true });
            assert.equal(preview.code, 0, preview.stdout + preview.stderr);
            assert.deepEqual(changed(preview), {});

            // The old stack and the new one together manage everything.
            newExport = JSON.stringify(await stack.export());
        } finally {
            stack.dispose();
        }
        // The old stack and the new one together manage everything.
        const rerun = await runCli(
            ["--stack-export", fixtureFile, "--stack-export", "-", "--check", "--json"],
            env,
            newExport,
        );
        assert.equal(rerun.code, 0, rerun.stderr);
        assert.deepEqual((JSON.parse(rerun.stdout) as { unmanaged: unknown[] }).unmanaged, []);
        assert.match(rerun.stderr, /30 managed by the given stacks, 0 not/);
        assertNoSecret(rerun.stdout + rerun.stderr, secrets, "the rerun's output");
    });

    it("gives an adopted connection that differs from the program exactly one PUT", async () => {
        const programDir = path.join(dir, "drifted");
        const secretsFile = path.join(dir, "drifted-secrets.sh");
        const r = await runCli(
            ["--stack-export", fixtureFile, "--language", "javascript", "--with-secrets", secretsFile],
            env,
        );
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^const chatbot = require\("pulumi-chatbot"\);$/m);
        const config = configFromSecretsFile(secretsFile, dir);
        makeProject(programDir, "drifted", r.stdout, "javascript");
        // Changed by hand after discover wrote the program.
        const changed = seeded.connections[3];
        sim.editConnection(changed.id, { url: "https://changed.example.com/by-hand" });
        sim.resetRequests();
        const stack = await adoptingStack(programDir, config);
        try {
            ok(await stack.run("up"));
        } finally {
            stack.dispose();
        }
        const writes = sim.requests.filter((x) => x.method !== "GET");
        assert.deepEqual(
            writes.map((w) => `${w.method} ${w.path}`),
            [`PUT /v2/integrations/webhook/${changed.id}`],
        );
        assert.equal(sim.getConnection(changed.id)?.url, changed.url, "the program's url is put back");
    });

    describe("errors", () => {
        it("says what is wrong with an export file, without showing its content", async () => {
            const bad = path.join(dir, "bad.json");
            fs.writeFileSync(bad, '{"version": 3, "deployment": {"resources": [ "plaintext-secret-xyz" ');
            const notJson = await runCli(["--stack-export", bad], env);
            assert.equal(notJson.code, 2);
            assert.match(notJson.stderr, /bad\.json is not valid JSON/);
            assert.ok(!notJson.stderr.includes("plaintext-secret-xyz"));

            fs.writeFileSync(bad, JSON.stringify({ resources: [] }));
            const shape = await runCli(["--stack-export", bad], env);
            assert.equal(shape.code, 2);
            assert.match(shape.stderr, /is not the output of `pulumi stack export`: it has no "deployment"/);

            const missing = await runCli(["--stack-export", path.join(dir, "nope.json")], env);
            assert.equal(missing.code, 2);
            assert.match(missing.stderr, /cannot read the stack export .*nope\.json: ENOENT/);
        });

        it("says the token was rejected, without showing it", async () => {
            const r = await runCli([], { ...env, CHATBOT_TOKEN: "wrong-token-abc123" });
            assert.equal(r.code, 2);
            assert.match(
                r.stderr,
                /rejected the developer access token \(HTTP 401\)\. Set a valid one in CHATBOT_TOKEN/,
            );
            assert.ok(!r.stderr.includes("wrong-token-abc123"));
            assert.equal(r.stdout, "");

            const none = await runCli([], { ...env, CHATBOT_TOKEN: undefined });
            assert.equal(none.code, 2);
            assert.match(none.stderr, /no ChatBot developer access token: set CHATBOT_TOKEN/);
        });

        it("says the API cannot be reached", async () => {
            const { ChatbotSimulator } = installedTesting();
            const gone = await ChatbotSimulator.start();
            const url = gone.url;
            await gone.close();
            const r = await runCli(["--api-url", url], { ...env, CHATBOT_RETRY_MAX_ATTEMPTS: "1" });
            assert.equal(r.code, 2);
            assert.match(r.stderr, /cannot reach the ChatBot API: .*ECONNREFUSED.* Check CHATBOT_API_URL or --api-url/);
        });

        it("refuses unknown options and languages", async () => {
            const r = await runCli(["--language", "cobol"], env);
            assert.equal(r.code, 2);
            assert.match(r.stderr, /--language must be typescript, javascript, python, go, java, yaml, not "cobol"/);
            const folder = await runCli(["--language", "go"], env);
            assert.equal(folder.code, 2);
            assert.match(folder.stderr, /--language go needs --out DIR/);
            const u = await runCli(["--token", "x"], env);
            assert.equal(u.code, 2);
            assert.match(u.stderr, /Unknown option '--token'/);
        });

        it("writes over no file it did not write: an existing --out, --with-secrets or --import-file is refused before any request unless --force (issue 65)", async () => {
            const existing = path.join(dir, "existing.ts");
            fs.writeFileSync(existing, "// the user's own program\n");
            sim.resetRequests();
            for (const args of [
                ["--out", existing],
                ["--with-secrets", existing],
                ["--native", "--import-file", existing],
            ]) {
                const r = await runCli(args, env);
                assert.equal(r.code, 2);
                assert.match(
                    r.stderr,
                    new RegExp(`${args.at(-2)} .*existing\\.ts exists: give --force to write over it\\.`),
                );
            }
            assert.deepEqual(sim.requests, [], "refused before any request");
            assert.equal(fs.readFileSync(existing, "utf8"), "// the user's own program\n");
            const forced = await runCli(["--stack-export", fixtureFile, "--out", existing, "--force"], env);
            assert.equal(forced.code, 0, forced.stderr);
            assert.match(forced.stderr, /--force: replaced .*existing\.ts\./);
            assert.match(fs.readFileSync(existing, "utf8"), /^\/\/ Generated by `pulumi-chatbot discover`/);
        });
    });
});

/**
 * Each language's program, from one account of three connections (one with a token, headers and
 * basic auth) and a legacy webhook: discover writes it (PCL through `pulumi convert` but for
 * TypeScript), the --with-secrets file sets its secrets, then the first preview sends nothing but
 * reads, `up` adopts all four with reads only, and `preview --expect-no-changes` passes. One
 * lifecycle per language; what a language needs beside the program (its SDK, a virtual
 * environment, a Maven repository) is set up as that language's other tests do.
 */
describe("pulumi-chatbot discover --language: the program in each language adopts with no write", function () {
    this.timeout(600_000);
    let sim: ChatbotSimulator;
    let dir: string;
    let pwned: string;
    let env: Record<string, string>;

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start();
        sim.addConnection({
            story: { id: STORIES[0], name: "Shop" },
            // `${` is a template in PCL and Pulumi YAML: it must arrive as written.
            name: "Orders (prod) ${env}",
            url: "https://orders.example.com/chatbot?x=1",
            token: "lang-token-'1' $HOME",
            headers: { "X-Api-Key": "lang-header-1", "x-env": "lang-env-1" },
            auth: { username: "ops", password: "lang-pass-1" },
        });
        sim.addConnection({ story: { id: STORIES[0], name: "Shop" }, name: "plain", url: "https://plain.example.com" });
        sim.addConnection({
            story: { id: STORIES[1], name: "Support" },
            name: 'Support "desk"',
            url: "https://support.example.com/hook",
            token: "lang-token-3",
        });
        sim.addLegacyWebhook({
            name: "Legacy",
            url: "https://legacy.example.org/hook",
            token: "lang-legacy-token",
            headers: [{ name: "X-Sig", value: "lang-legacy-sig" }],
        });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-lang-"));
        // What an attacker with the account's dashboard wrote (issue 65): each program must adopt
        // these as they are, run nothing and declare nothing more. The payloads would create
        // `pwned`, which the test watches.
        pwned = path.join(dir, "pwned");
        const run = `touch ${pwned}`;
        sim.addConnection({
            story: { id: STORIES[1], name: 'Support"""\u0085x' },
            name: `x\n""" + str(__import__("os").system(${JSON.stringify(run)})) + """`,
            url: "https://h.example.com/a$${x}/%{y}/'q'?u=\\u0022",
            auth: { username: `u\n0\u2028`, password: "lang-pass-4" },
        });
        sim.addLegacyWebhook({
            name: `n\u0085  evil:\n    type: pulumi:providers:chatbot\n    properties: {token: {fn::readFile: ${pwned}}}$\${x}`,
            url: "https://legacy.example.org/\u001b[2K\r ok",
            token: "lang-legacy-token-2",
        });
        sim.addConnection({
            story: { id: STORIES[1], name: "Support" },
            name: "null",
            url: "https://null.example.com",
        });
        sim.addConnection({
            story: { id: STORIES[1], name: "Support" },
            name: "class \\u000a\\u0022); System.exit(1); //\u202e\ufeff\u007f\u009b\ufffe 😀",
            url: "https://java.example.com/`raw`*/",
        });
        fs.mkdirSync(path.join(dir, "home"));
        // `pulumi convert` from the pinned CLI, in a PULUMI_HOME of its own.
        env = {
            CHATBOT_TOKEN: sim.token,
            CHATBOT_API_URL: sim.url,
            PATH: `${path.dirname(pulumiCli())}${path.delimiter}${process.env.PATH ?? ""}`,
            PULUMI_HOME: path.join(dir, "home"),
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        };
    });

    after(async () => {
        await sim?.close();
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /**
     * discover --language `language` into a new folder, `prepare` makes it runnable here (the
     * plugin, the SDK), then the lifecycle. Returns the program's folder.
     */
    async function adoptsWithNoWrite(
        language: string,
        prepare: (programDir: string) => Promise<Record<string, string | undefined> | void>,
        args: string[] = [],
    ): Promise<string> {
        const secrets = secretValues(sim);
        const programDir = path.join(dir, `adopted-${language}`);
        const secretsFile = path.join(dir, `${language}-secrets.sh`);
        // TypeScript's program is a file; the other languages' a project folder.
        const typescript = language === "typescript";
        if (typescript) fs.mkdirSync(programDir);
        const out = typescript ? path.join(programDir, "index.ts") : programDir;
        sim.resetRequests();
        const r = await runCli(["--language", language, "--out", out, "--with-secrets", secretsFile, ...args], env);
        assert.equal(r.code, 0, r.stderr);
        assert.ok(
            sim.requests.every((x) => x.method === "GET"),
            "discover reads",
        );
        assertNoSecret(r.stdout + r.stderr, secrets, "discover's output");
        assert.doesNotMatch(r.stdout + r.stderr, /(?!\n)[\p{Cc}\p{Cf}]/u, "no account text reaches the terminal raw");
        for (const file of fs.readdirSync(programDir, { recursive: true }) as string[]) {
            const full = path.join(programDir, file);
            if (fs.statSync(full).isFile()) assertNoSecret(fs.readFileSync(full, "utf8"), secrets, file);
        }
        if (!typescript) assert.doesNotMatch(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"), /plugins/);
        const config = configFromSecretsFile(secretsFile, dir);
        assert.equal(
            Object.keys(config).length,
            9,
            "token, two headers, password; a token; the legacy token and header; a password; a token",
        );
        const extraEnv = (await prepare(programDir)) ?? {};
        const stack = await PulumiStack.create({
            projectDir: programDir,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token }, ...config },
            env: { CHATBOT_RETRY_BASE_MS: "2", ...extraEnv },
        });
        try {
            sim.resetRequests();
            const preview = ok(await stack.run("preview"));
            assert.deepEqual(
                sim.requests.filter((x) => x.method !== "GET"),
                [],
                "the first preview sends no write",
            );
            const up = ok(await stack.run("up"));
            const adopted = up.steps.filter(
                (s) => s.type.startsWith("chatbot:index:") && !s.type.includes("providers"),
            );
            // Adopting reads each connection and writes only where it differs from the program: no
            // write means every field, the hostile ones included, is exactly the account's.
            assert.deepEqual(summarize(adopted), { create: 8 }, preview.stdout);
            assert.deepEqual(
                sim.requests.filter((x) => x.method !== "GET"),
                [],
                "up adopts with reads only",
            );
            assert.ok(!fs.existsSync(pwned), "nothing in the account ran");
            const ids = (await stack.resources()).filter((x) => x.type.startsWith("chatbot:index:"));
            assert.deepEqual(
                ids.map((x) => x.id).sort(),
                [...sim.listConnections().map((c) => c.id), ...sim.listLegacyWebhooks().map((w) => w.id)].sort(),
            );
            assert.ok(ids.every((x) => x.protect));
            assertNoSecret(JSON.stringify(await stack.export()), secrets, "the stack's export");
            ok(await stack.run("preview", { expectNoChanges: true }));
        } finally {
            stack.dispose();
        }
        return programDir;
    }

    /** The generated Pulumi.yaml given the installed package's plugin, as the other language tests do. */
    const withPlugin = (programDir: string) => fs.appendFileSync(path.join(programDir, "Pulumi.yaml"), PLUGIN_YAML);

    it("yaml; and a folder that holds a project is not written over without --force (issue 65)", async () => {
        const programDir = await adoptsWithNoWrite("yaml", async (programDir) => withPlugin(programDir));
        const project = path.join(programDir, "Pulumi.yaml");
        const before = fs.readFileSync(project, "utf8");
        const refused = await runCli(["--language", "yaml", "--out", programDir], env);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /--out .* is not empty \(.*Pulumi\.yaml.*\): .*give --force/);
        assert.equal(fs.readFileSync(project, "utf8"), before, "nothing written");
        const forced = await runCli(["--language", "yaml", "--out", programDir, "--force"], env);
        assert.equal(forced.code, 0, forced.stderr);
        assert.match(forced.stderr, /--force: replaced .*Pulumi\.yaml\./);
        assert.notEqual(fs.readFileSync(project, "utf8"), before, "the plugin line this test added is gone");
    });

    it("python", async function () {
        if (!python()) this.skip();
        const venv = pythonVenv();
        await adoptsWithNoWrite("python", async (programDir) => {
            const yaml = path.join(programDir, "Pulumi.yaml");
            const text = fs.readFileSync(yaml, "utf8");
            assert.match(text, /^runtime: python$/m);
            assert.match(fs.readFileSync(path.join(programDir, "requirements.txt"), "utf8"), /^pulumi_chatbot==/m);
            // The virtual environment of examples/python: pulumi and this checkout's SDK.
            fs.writeFileSync(
                yaml,
                text.replace(/^runtime: python$/m, `runtime:\n  name: python\n  options:\n    virtualenv: ${venv}`),
            );
            withPlugin(programDir);
            return { PYTHONDONTWRITEBYTECODE: "1" };
        });
    });

    it("go", async function () {
        if (spawnSync("go", ["version"]).status !== 0) this.skip();
        await adoptsWithNoWrite("go", async (programDir) => {
            // This checkout's SDK in place of the published module, as examples/go is used here.
            const gomod = { GOWORK: "off" };
            await go(
                ["mod", "edit", `-require=${GO_SDK_MODULE}@v0.0.0`, `-replace=${GO_SDK_MODULE}=${GO_SDK}`],
                programDir,
                gomod,
            );
            await go(["mod", "tidy"], programDir, gomod);
            // Built once per run as goProgram.test.ts builds its program, in the same Go build
            // cache, and run through the host's `binary` option: no preview or up compiles it.
            runGoBinary(programDir, goProgramBinary(programDir));
            withPlugin(programDir);
        });
    });

    it("typescript, the native plugin's classes (--native)", async () => {
        await adoptsWithNoWrite(
            "typescript",
            async (programDir) => {
                const program = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
                assert.match(program, /^import \* as chatbot from "pulumi-chatbot\/native";$/m);
                makeProject(programDir, "adopted-typescript", program, "typescript");
                withPlugin(programDir);
            },
            ["--native"],
        );
    });

    it("java", async function () {
        if (spawnSync("mvn", ["--version"]).status !== 0) this.skip();
        let localRepository = "";
        try {
            await adoptsWithNoWrite("java", async (programDir) => {
                assert.match(
                    fs.readFileSync(path.join(programDir, "pom.xml"), "utf8"),
                    /<artifactId>chatbot<\/artifactId>/,
                );
                // The SDK from its Maven repository, and the program packaged once and run from its
                // jar, as examples/java's test has it (javaProgram.test.ts runs one from source).
                localRepository = useSdkRepository(programDir, dir);
                packageAndRunFromJar(programDir);
                assert.match(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"), /binary: .*\.jar$/m);
                withPlugin(programDir);
                // The Java host beside the pinned CLI (the CLI bundles none).
                return { PATH: env.PATH };
            });
        } finally {
            if (localRepository) linkFiles(localRepository, MAVEN_REPO);
        }
    });
});
