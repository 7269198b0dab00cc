/**
 * What the tests of Python, Go and Java programs share about setting one up: the Python virtual
 * environment of examples/python, `go` in a folder, a copy of examples/go pointed at this
 * checkout's SDK and plugin, a PATH of a language's commands only, and a stand-in for the GitHub
 * releases the engine downloads the plugin from. Test tooling: not published.
 */
import { strict as assert } from "assert";
import { execFile, execFileSync, spawnSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import type * as http from "http";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import { filesKey, oncePerRun, runFolder } from "./oncePerRun";
import { runRelease } from "./release";
import { PACKAGE_VERSION, root } from "./support";
import {
    CHANGES_EXIT_CODE,
    isSecret,
    ok,
    OTHER_STORY,
    plain,
    pulumiCli,
    pulumiRuns,
    STORY,
    type ConfigValue,
    type PulumiStack,
} from "./pulumi";

/** The installed package's plugin folder (`pulumi-resource-chatbot`), for a project's Pulumi.yaml. */
export const PLUGIN_DIR = path.join(root, "node_modules", "pulumi-chatbot", "plugin");

/** A Pulumi.yaml's lines that give the native plugin of the installed package. */
export const PLUGIN_YAML = `plugins:\n  providers:\n    - name: chatbot\n      path: ${PLUGIN_DIR}\n`;

const PYTHON_EXAMPLE = path.join(root, "examples", "python");
const GO_EXAMPLE = path.join(root, "examples", "go");
/** This checkout's Go SDK module and its path, for a `replace` in a program's go.mod. */
export const GO_SDK = path.join(root, "sdk");
export const GO_SDK_MODULE = "github.com/pulumi-chatbot/pulumi-chatbot/sdk";

/** python3 on PATH, or undefined. */
export function python(): string | undefined {
    const found = spawnSync("python3", ["--version"], { encoding: "utf8" });
    return found.status === 0 ? "python3" : undefined;
}

/** This machine's platform as the plugin archives name it (scripts/plugin.js: linux-amd64, ...). */
const HOST = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;

/** This machine's plugin archive, as `npm run plugin` makes it (scripts/plugin.js): the run's
 *  release's (the same bytes: it is made by the same script, this machine's with the code cache),
 *  built once per run for every file that installs it. */
export function pluginArchive(): string {
    const archive = path.join(runRelease(), `pulumi-resource-chatbot-v${PACKAGE_VERSION}-${HOST}.tar.gz`);
    if (!fs.existsSync(archive)) throw new Error(`the release has no plugin archive for ${HOST}: ${archive}`);
    return archive;
}

/** This machine's plugin executable, unpacked once per run from its archive (pluginArchive). */
export function pluginExecutable(): string {
    return oncePerRun("plugin-executable", () => {
        const dir = fs.mkdtempSync(path.join(runFolder(), "plugin-"));
        execFileSync("tar", ["-xzf", pluginArchive(), "-C", dir]);
        return path.join(dir, process.platform === "win32" ? "pulumi-resource-chatbot.exe" : "pulumi-resource-chatbot");
    });
}

/** The virtual environment of examples/python/requirements.txt for this checkout, made when it is
 *  not there yet (by one worker of a parallel run: the others wait for it). */
export function pythonVenv(): string {
    return oncePerRun("python-venv", () => makePythonVenv(path.join(PYTHON_EXAMPLE, "requirements.txt")));
}

/** The virtual environment of another requirements file (pip run in its folder), alike. */
export function pythonVenvOf(requirements: string): string {
    const key = filesKey(path.dirname(requirements), [path.basename(requirements)]);
    return oncePerRun(`python-venv-${key}`, () => makePythonVenv(requirements));
}

function makePythonVenv(requirements: string): string {
    const version = execFileSync("python3", ["--version"], { encoding: "utf8" }).trim();
    const key = crypto
        .createHash("sha256")
        .update(fs.readFileSync(requirements))
        .update(version)
        // The SDK is installed editable, from this checkout: another checkout sharing .pulumi-cli
        // (a worktree) needs its own.
        .update(root)
        .digest("hex")
        .slice(0, 16);
    const venv = path.join(root, ".pulumi-cli", "python-venv", key);
    const done = path.join(venv, ".complete");
    if (fs.existsSync(done)) return venv;
    fs.rmSync(venv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", venv], { stdio: "inherit" });
    // From the requirements' folder: examples/python's relative path to sdk/python is from there.
    execFileSync(path.join(venv, "bin", "python"), ["-m", "pip", "install", "--quiet", "-r", requirements], {
        cwd: path.dirname(requirements),
        stdio: "inherit",
    });
    fs.writeFileSync(done, `${version}\n`);
    return venv;
}

/** `go <args>` in `cwd`; rejects with go's own output. Builds share the default GOCACHE. */
export async function go(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
    try {
        const { stdout, stderr } = await promisify(execFile)("go", args, {
            cwd,
            env: { ...process.env, ...env },
            maxBuffer: 16 * 1024 * 1024,
            timeout: 900_000,
        });
        return stdout + stderr;
    } catch (e) {
        const { stdout, stderr } = e as { stdout?: string; stderr?: string };
        throw new Error(`go ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`, { cause: e });
    }
}

/** A copy of examples/go in a temporary folder, pointed at this checkout's SDK and plugin, as its
 *  README says to use it elsewhere. */
export async function copyGoExample(): Promise<string> {
    const project = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-go-")), "go");
    fs.cpSync(GO_EXAMPLE, project, { recursive: true });
    await go(["mod", "edit", `-replace=${GO_SDK_MODULE}=${GO_SDK}`], project);
    const yaml = path.join(project, "Pulumi.yaml");
    const text = fs.readFileSync(yaml, "utf8");
    assert.match(text, /path: \.\.\/\.\.\/node_modules\/pulumi-chatbot\/plugin/);
    fs.writeFileSync(yaml, text.replace("../../node_modules/pulumi-chatbot/plugin", PLUGIN_DIR));
    return project;
}

/** The `go build` arguments the Go host compiles a program with (tools/pulumi/cmd/pulumi-language-go). */
const goBuildArgs = (binary: string) => ["build", "-buildvcs=false", "-o", binary, "-trimpath", "-ldflags", "-w -s"];

/** Builds a Go program as the host does, with its flags, into `binary`: a cold cache compiles the
 *  Pulumi SDK here (minutes), not under the CLI's time limit. */
export async function buildGoProgram(project: string, binary: string): Promise<void> {
    await go(goBuildArgs(binary), project);
}

/**
 * The Go program in `project`, built as the host builds it (its flags) once per run for each
 * distinct program (a hash of its sources names it), by whichever worker asks first. Run through
 * the host's `binary` option (runGoBinary), previews and ups run it as it is: none compiles.
 */
export function goProgramBinary(project: string): string {
    // What goes into the build from its folder: its .go files, go.mod and go.sum (the SDK its
    // go.mod replaces to is this checkout's, which a run does not change).
    const key = filesKey(
        project,
        fs.readdirSync(project).filter((f) => f.endsWith(".go") || f === "go.mod" || f === "go.sum"),
    );
    return oncePerRun(`go-program-${key}`, () => {
        const binary = path.join(runFolder(), `go-program-${key}`);
        const built = spawnSync("go", goBuildArgs(binary), {
            cwd: project,
            encoding: "utf8",
            maxBuffer: 16 * 1024 * 1024,
            timeout: 900_000,
        });
        if (built.status !== 0) {
            throw new Error(
                `go build failed in ${project}:\n${built.stdout ?? ""}${built.stderr ?? ""}${built.error ?? ""}`,
            );
        }
        return binary;
    });
}

/** Points a Go project's Pulumi.yaml at `binary` (`runtime: { name: go, options: { binary } }`):
 *  the host runs it in the program's folder and builds nothing. A second call switches binaries. */
export function runGoBinary(project: string, binary: string): void {
    const yaml = path.join(project, "Pulumi.yaml");
    const text = fs.readFileSync(yaml, "utf8");
    const switched = /^runtime: go$/m.test(text)
        ? text.replace(/^runtime: go$/m, `runtime:\n  name: go\n  options:\n    binary: ${binary}`)
        : text.replace(/^( {4}binary: ).*$/m, `$1${binary}`);
    assert.ok(switched.includes(`binary: ${binary}\n`), `no runtime: go to point at ${binary} in:\n${text}`);
    fs.writeFileSync(yaml, switched);
}

/** The stack config examples/python and examples/go read, their two accounts being `sim` and
 *  `partnerSim` (the examples name the second account's settings differently). */
export function exampleConfig(
    language: "python" | "go",
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    secrets: { webhookToken: string; basicPassword: string },
    backendUrl: string,
): Record<string, ConfigValue> {
    const partner: Record<string, ConfigValue> =
        language === "python"
            ? {
                  "partner:apiUrl": partnerSim.url,
                  "partner:token": { secret: partnerSim.token },
                  "partner:storyId": OTHER_STORY,
              }
            : {
                  partnerApiUrl: partnerSim.url,
                  partnerToken: { secret: partnerSim.token },
                  partnerStoryId: OTHER_STORY,
              };
    return {
        "chatbot:apiUrl": sim.url,
        "chatbot:token": { secret: sim.token },
        storyId: STORY,
        backendUrl,
        webhookToken: { secret: secrets.webhookToken },
        basicPassword: { secret: secrets.basicPassword },
        ...partner,
    };
}

/** A folder holding only the given commands (name to executable), for a PATH with nothing of this
 *  checkout on it (no `node`): what a user of that language has. */
export function pathOnly(folder: string, commands: Record<string, string>): string {
    fs.mkdirSync(folder, { recursive: true });
    for (const [name, target] of Object.entries(commands)) fs.symlinkSync(target, path.join(folder, name));
    return folder;
}

/**
 * `pulumi plugin run --kind resource chatbot@<version> -- <args>` in the stack's project, with its
 * environment and `env` on top: the plugin the engine installed in the stack's PULUMI_HOME (or the
 * executable at `plugin`, a path), run as the `pulumi-chatbot` command line, as a user of any
 * language runs it (docs/parity.md). The plugin's own output and exit code, which the CLI passes
 * through.
 */
export function pluginCommand(
    stack: PulumiStack,
    args: string[],
    env: Record<string, string | undefined> = {},
    plugin = `chatbot@${PACKAGE_VERSION}`,
): Promise<{ code: number; stdout: string; stderr: string }> {
    const cli = ["plugin", "run", "--kind", "resource", plugin, "--", ...args];
    pulumiRuns.commands++;
    return new Promise((resolve) => {
        execFile(
            pulumiCli(),
            cli,
            { cwd: stack.projectDir, env: stack.environment(env), timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
            (error, stdout, stderr) =>
                resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
        );
    });
}

/** The repository whose releases the schema's pluginDownloadURL names. */
export const REPOSITORY = "pulumi-chatbot/pulumi-chatbot";

/** GitHub's download address of a release asset, as a path: the stand-in below serves these. */
export const releaseAsset = (repository: string, version: string, asset: string) =>
    `/${repository}/releases/download/v${version}/${asset}`;

/** A stand-in for GitHub's release downloads, serving on loopback the files `assets` names by
 *  path (releaseAsset) and recording each request in `served`; and the environment that points
 *  the engine's github:// download addresses at it (the engine puts each plugin's version in
 *  place of ${VERSION}), with automatic plugin acquisition on, as a user's stack has it. */
export async function githubReleases(
    servers: { listen(listener: http.RequestListener): Promise<string> },
    assets: Record<string, string>,
    served: string[],
): Promise<Record<string, string | undefined>> {
    const url = await servers.listen((req, res) => {
        served.push(`${req.method} ${req.url}`);
        const file = assets[decodeURIComponent(req.url ?? "")];
        if (req.method !== "GET" || !file) {
            res.writeHead(404).end();
            return;
        }
        const body = fs.readFileSync(file);
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length }).end(body);
    });
    return {
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: undefined,
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api\\.github\\.com/(?P<org>[^/]+)/(?P<repo>[^/]+)$=${url}/\${org}/\${repo}/releases/download/v\${VERSION}`,
    };
}

/** What examples/go and examples/java both declare, checked on a stack of either from its first
 *  up: two connections in the stack's account (`sim`), one in a second through an explicit
 *  provider (`partnerSim`), the outputs, every secret sealed in state (`given`, and both
 *  accounts' tokens), a preview with no changes, then a change by hand in each account found
 *  by the drift check and put back by `up --refresh`. Returns the connections made. */
export async function twoAccountExample(
    s: PulumiStack,
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    given: { webhookToken: string; basicPassword: string },
): Promise<{ orders: StoredConnection | undefined; partners: StoredConnection[] }> {
    const WEBHOOK_TOKEN = given.webhookToken;
    const BASIC_PASSWORD = given.basicPassword;
    const secrets = [WEBHOOK_TOKEN, BASIC_PASSWORD, sim.token, partnerSim.token];
    const writes = (a: ChatbotSimulator) =>
        a.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    ok(await s.run("up"));
    const mine = sim.listConnections();
    assert.deepEqual(mine.map((c) => c.name).sort(), ["orders", "support"]);
    const orders = mine.find((c) => c.name === "orders");
    const support = mine.find((c) => c.name === "support");
    assert.equal(orders?.token, WEBHOOK_TOKEN);
    assert.deepEqual(orders?.headers, { "X-Environment": "production" });
    assert.deepEqual(support?.auth, { username: "chatbot", password: BASIC_PASSWORD });
    assert.equal(support?.headers?.["X-Orders-Connection"], orders?.id, "an output of one, input of the other");
    const partners = partnerSim.listConnections();
    assert.deepEqual(
        partners.map((c) => [c.name, c.story.id, c.url]),
        [["orders", OTHER_STORY, "https://bot.example.com/chatbot/partner/orders"]],
        "the explicit provider's connection is in the second account",
    );
    assert.ok(
        mine.every((c) => c.story.id === STORY),
        "and only there",
    );
    const outputs = await s.outputs();
    assert.deepEqual(outputs, {
        ordersConnectionId: orders?.id,
        supportConnectionId: support?.id,
        partnerConnectionId: partners[0].id,
        storyName: "Shop",
    });

    const exported = await s.pulumi(["stack", "export"]);
    for (const secret of secrets) assert.ok(!exported.stdout.includes(secret), "no secret in plain text in state");
    const states = await s.resources("chatbot:index:WebhookConnection");
    for (const state of states) {
        for (const key of ["token", "headers", "auth"]) {
            const value = (state.outputs as Record<string, unknown>)[key];
            if (value !== undefined) assert.ok(isSecret(value), `${state.urn} ${key} is secret`);
        }
    }
    const providers = (await s.export(true)).deployment.resources?.filter((r) => r.type === "pulumi:providers:chatbot");
    // The default provider is named after the version and download URL the SDK asks for.
    assert.deepEqual(
        providers?.map((p) => (p.urn.split("::").pop() as string).replace(/^default_.*/, "default")).sort(),
        ["default", "partner"],
    );
    for (const p of providers ?? []) assert.ok(isSecret(p.inputs?.token), `${p.urn}: the token is secret`);
    assert.equal(plain(providers?.find((p) => p.urn.endsWith("::partner"))?.inputs?.token), partnerSim.token);
    ok(await s.run("preview", { expectNoChanges: true }));

    // By hand: a new url in the main account, a new token in the second.
    sim.editConnection(orders?.id as string, { url: "https://changed.example.com/by-hand" });
    partnerSim.editConnection(partners[0].id, { token: "changed-by-hand" });
    sim.resetRequests();
    partnerSim.resetRequests();
    const drift = await s.run("preview", { refresh: true, expectNoChanges: true });
    assert.equal(drift.code, CHANGES_EXIT_CODE, "the drift check fails");
    assert.deepEqual([...writes(sim), ...writes(partnerSim)], [], "and writes nothing");
    ok(await s.run("up", { refresh: true }));
    assert.deepEqual(writes(sim), [`PUT /v2/integrations/webhook/${orders?.id}`]);
    assert.deepEqual(writes(partnerSim), [`PUT /v2/integrations/webhook/${partners[0].id}`]);
    assert.equal(sim.getConnection(orders?.id as string)?.url, "https://bot.example.com/chatbot/orders");
    assert.equal(partnerSim.getConnection(partners[0].id)?.token, WEBHOOK_TOKEN);
    ok(await s.run("preview", { refresh: true, expectNoChanges: true }));
    return { orders, partners };
}

/** `pulumi import` of a connection made by hand in the stack's account (`secrets`: its token and
 *  basic-auth password), the code the CLI prints written to `out`: the import succeeds and writes
 *  nothing to either account. Returns the connection and the code. */
export async function importMadeByHand(
    s: PulumiStack,
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    secrets: { token: string; password: string },
    out: string,
): Promise<{ made: StoredConnection; generated: string }> {
    const made = sim.addConnection({
        story: { id: STORY, name: "Shop" },
        name: "made-by-hand",
        url: "https://hand.example.com/hook",
        token: secrets.token,
        auth: { username: "ops", password: secrets.password },
    });
    sim.resetRequests();
    partnerSim.resetRequests();
    const imported = await s.pulumi([
        "import",
        "chatbot:index:WebhookConnection",
        "made-by-hand",
        made.id,
        "--yes",
        "--protect=false",
        "--out",
        out,
    ]);
    assert.equal(imported.code, 0, imported.stderr + imported.stdout);
    const writes = [...sim.requests, ...partnerSim.requests].filter((r) => r.method !== "GET");
    assert.deepEqual(writes, [], "the import writes nothing");
    return { made, generated: fs.readFileSync(out, "utf8") };
}

const javaDist = require("../../scripts/java-dist.js") as { build(outDir: string): string[]; MAVEN_REPO: string };

/** The Maven local repository the Java SDK's build fills (.maven/repository), kept between runs. */
export const MAVEN_REPO = javaDist.MAVEN_REPO;

/** This package's Maven group, as a folder of a repository. */
export const GROUP_DIR = path.join("com", "pulumichatbot");

/** The Java SDK as a Maven repository: the run's release's (its step scripts/java-dist.js), built
 *  once per run. */
export function sdkRepository(): string {
    return path.join(runRelease(), "maven");
}

/** Every file under `dir` (relative paths), but this package's own. */
function repositoryFiles(dir: string): string[] {
    if (!fs.existsSync(dir)) return [];
    return (fs.readdirSync(dir, { recursive: true }) as string[]).filter(
        (f) => !f.startsWith(GROUP_DIR) && fs.statSync(path.join(dir, f)).isFile(),
    );
}

/** Hard links of `from`'s files (this package's left out) in `to`, where `to` has none yet. */
export function linkFiles(from: string, to: string): void {
    for (const file of repositoryFiles(from)) {
        const target = path.join(to, file);
        if (fs.existsSync(target)) continue;
        fs.mkdirSync(path.dirname(target), { recursive: true });
        try {
            fs.linkSync(path.join(from, file), target);
        } catch {
            fs.copyFileSync(path.join(from, file), target);
        }
    }
}

/**
 * A Maven project (`project`) that finds the Java SDK as a user names a repository other than
 * Maven Central: the SDK's repository in settings, and a local repository of its own in `scratch`
 * (hard links of what earlier runs downloaded, this package's left out, so the SDK is always this
 * run's). Returns that local repository: `linkFiles(it, MAVEN_REPO)` keeps its downloads.
 */
export function useSdkRepository(project: string, scratch: string): string {
    const repository = sdkRepository();
    const localRepository = fs.mkdtempSync(path.join(scratch, "m2-"));
    linkFiles(MAVEN_REPO, localRepository);
    const settings = path.join(project, "..", `${path.basename(project)}-settings.xml`);
    fs.writeFileSync(
        settings,
        `<settings><profiles><profile><id>chatbot</id><repositories><repository><id>chatbot-sdk</id>` +
            `<url>file://${repository}</url></repository></repositories></profile></profiles>` +
            `<activeProfiles><activeProfile>chatbot</activeProfile></activeProfiles></settings>\n`,
    );
    fs.mkdirSync(path.join(project, ".mvn"), { recursive: true });
    fs.writeFileSync(
        path.join(project, ".mvn", "maven.config"),
        `--settings=${settings}\n-Dmaven.repo.local=${localRepository}\n`,
    );
    return localRepository;
}
