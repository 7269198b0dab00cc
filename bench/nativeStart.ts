/**
 * How soon the native plugin serves (figure 7, issue 47). Every `pulumi preview`, `up`, `refresh`
 * and `destroy` of a program that uses it starts `pulumi-resource-chatbot` and waits for the port
 * it prints.
 *
 * - Start to port: this machine's release executable (`node scripts/plugin.js`, unpacked into the
 *   bench's scratch folder), started `runs` times with a pipe on stdin as the engine starts it,
 *   beside a provider-style Go program measured in the same rounds: Pulumi YAML's language host
 *   (`pulumi-language-yaml`, beside the pulumi CLI), which also prints its port and serves gRPC.
 *   The order alternates every round. Then each answers its first call, over gRPC as the engine
 *   makes it: the plugin the engine's Handshake, the Go host (which has no Handshake) GetPluginInfo.
 *   The plugin's stdin is then closed and it must end by itself (the engine watch); the Go host is
 *   killed.
 * - `pulumi preview` of the quickstart's two connections, written in Pulumi YAML (the plugin's
 *   types, so the engine starts the executable), deployed once and unchanged, beside the preview
 *   of an empty YAML program: the difference is what the plugin costs a command.
 */
import * as grpc from "@grpc/grpc-js";
import { LanguageRuntimeClient } from "@pulumi/pulumi/proto/language_grpc_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { ProviderHandshakeRequest } from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { PulumiStack, pulumiCli } from "../scripts/pulumiStack";
import { median, since } from "./measure";
import * as report from "./report";
import { expectChanges, root, simulator, timed, type Pass } from "./steps";

/** The start to port the issue asks of the plugin. */
const GOAL_MS = 150;
/** How long the plugin may take to end once its stdin has ended. */
const END_LIMIT_MS = 5000;
const NAME = "pulumi-resource-chatbot";

export interface NativeStartFigures {
    rows: report.Row[];
    setup: string[];
    details: string[];
}

interface Start {
    /** To the port printed. */
    ms: number;
    /** To the first call answered (`FirstCall`). */
    answeredMs: number;
    /** Whether it ended by itself after its stdin ended (undefined: not asked, it was killed). */
    endedOnItsOwn?: boolean;
}

/** A program's first call once it serves, given its port; resolves when answered. */
type FirstCall = (port: string) => Promise<void>;

const CALL_DEADLINE_MS = 10_000;

/** One unary call on a fresh connection, as the engine dials a plugin it starts. */
function answered(client: grpc.Client, call: (done: (e: grpc.ServiceError | null) => void) => void) {
    return new Promise<void>((resolve, reject) =>
        call((e) => {
            client.close();
            if (e) reject(e);
            else resolve();
        }),
    );
}

const deadline = () => ({ deadline: Date.now() + CALL_DEADLINE_MS });

/** The engine's Handshake, as NewProvider sends it (sdk/go/common/resource/plugin/provider_plugin.go). */
const handshake =
    (pluginDir: string): FirstCall =>
    (port) => {
        const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
        const request = new ProviderHandshakeRequest()
            .setEngineAddress("127.0.0.1:1")
            .setRootDirectory(pluginDir)
            .setProgramDirectory(pluginDir)
            .setConfigureWithUrn(true)
            .setSupportsRefreshBeforeUpdate(true);
        return answered(client, (done) => client.handshake(request, new grpc.Metadata(), deadline(), done));
    };

/** The Go host answers Handshake UNIMPLEMENTED: GetPluginInfo is its first call that does work. */
const getPluginInfo: FirstCall = (port) => {
    const client = new LanguageRuntimeClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return answered(client, (done) => client.getPluginInfo(new Empty(), new grpc.Metadata(), deadline(), done));
};

/** Starts `exe` with a pipe on stdin; the time to its first line (the port), then to `firstCall`
 *  answered. `endByStdin`: then closes its stdin and waits for it to end by itself, killing it
 *  after END_LIMIT_MS. */
function startToPort(exe: string, endByStdin: boolean, firstCall: FirstCall): Promise<Start> {
    return new Promise((resolve, reject) => {
        const t0 = performance.now();
        const child = spawn(exe, [], { stdio: ["pipe", "pipe", "pipe"] });
        let out = "";
        let err = "";
        let ms: number | undefined;
        let answeredMs: number | undefined;
        let failed: unknown;
        let limit: NodeJS.Timeout | undefined;
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("error", reject);
        child.on("exit", (code, signal) => {
            clearTimeout(limit);
            if (ms === undefined) return reject(new Error(`${exe} exited ${code ?? signal} before a port:\n${err}`));
            if (failed !== undefined) return reject(failed);
            if (answeredMs === undefined)
                return reject(new Error(`${exe} exited ${code ?? signal} before it answered:\n${err}`));
            if (err.trim() !== "") return reject(new Error(`${exe} wrote on stderr:\n${err}`));
            resolve({ ms, answeredMs, ...(endByStdin ? { endedOnItsOwn: signal === null } : {}) });
        });
        child.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            const port = /^(\d+)\s*\n/.exec(out)?.[1];
            if (ms !== undefined || port === undefined) return;
            ms = since(t0);
            firstCall(port).then(
                () => {
                    answeredMs = since(t0);
                    if (!endByStdin) {
                        child.kill("SIGKILL");
                        return;
                    }
                    child.stdin.end();
                    limit = setTimeout(() => child.kill("SIGKILL"), END_LIMIT_MS);
                },
                (e: unknown) => {
                    failed = e;
                    child.kill("SIGKILL");
                },
            );
        });
    });
}

/** This machine's plugin executable, as the release archives it, unpacked into `dir`. */
function pluginExecutable(dir: string): { exe: string; archive: string } {
    const out = execFileSync(process.execPath, [path.join(root, "scripts", "plugin.js")], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
    });
    const archive = out.trim().split("\n").pop() as string;
    const into = path.join(dir, "native-plugin");
    fs.rmSync(into, { recursive: true, force: true });
    fs.mkdirSync(into, { recursive: true });
    tar.x({ file: archive, cwd: into, sync: true });
    return { exe: path.join(into, process.platform === "win32" ? `${NAME}.exe` : NAME), archive };
}

/** The quickstart's two connections (examples/quickstart/index.ts) in Pulumi YAML. */
function quickstartYaml(pluginDir: string): string {
    return `name: native-quickstart
runtime: yaml
plugins:
  providers:
    - name: chatbot
      path: ${pluginDir}
config:
  storyId:
    type: string
  webhookToken:
    type: string
    secret: true
  basicPassword:
    type: string
    secret: true
resources:
  orders:
    type: chatbot:index:WebhookConnection
    properties:
      storyId: \${storyId}
      url: https://bot-backend.example.com/chatbot/orders
      token: \${webhookToken}
      headers:
        X-Environment: production
  support:
    type: chatbot:index:WebhookConnection
    properties:
      storyId: \${storyId}
      url: https://bot-backend.example.com/chatbot/support
      auth:
        username: chatbot
        password: \${basicPassword}
      headers:
        X-Environment: production
        X-Orders-Connection: \${orders.id}
`;
}

/** Figure 7: the plugin's start to port beside the Go host, and a preview through it beside an
 *  empty program's; `dir` is the bench's scratch folder. */
export async function measureNativeStart(
    dir: string,
    runs: number,
    log: (msg: string) => void,
    met: (ok: boolean | undefined) => string,
): Promise<NativeStartFigures> {
    log("the native plugin: this machine's executable (node scripts/plugin.js)");
    const { exe, archive } = pluginExecutable(dir);
    const goHost = path.join(path.dirname(pulumiCli()), "pulumi-language-yaml");
    const haveGo = fs.existsSync(goHost);

    log(
        `its start to port and to its first call answered, ${runs} times${haveGo ? ", beside pulumi-language-yaml's" : ""}, alternating`,
    );
    const plugin: Start[] = [];
    const go: Start[] = [];
    for (let rep = 0; rep < runs; rep++) {
        for (const which of rep % 2 === 0 ? ["plugin", "go"] : ["go", "plugin"]) {
            if (which === "plugin") plugin.push(await startToPort(exe, true, handshake(path.dirname(exe))));
            else if (haveGo) go.push(await startToPort(goHost, false, getPluginInfo));
        }
    }
    const ended = plugin.filter((s) => s.endedOnItsOwn).length;
    if (ended !== plugin.length)
        throw new Error(`the plugin outlived its stdin in ${plugin.length - ended} of ${plugin.length} starts`);
    const pluginMs = median(plugin.map((s) => s.ms));
    const goMs = haveGo ? median(go.map((s) => s.ms)) : undefined;
    const pluginAnsweredMs = median(plugin.map((s) => s.answeredMs));
    const goAnsweredMs = haveGo ? median(go.map((s) => s.answeredMs)) : undefined;

    log(
        `pulumi preview of the quickstart in YAML through the plugin and of an empty program, ${runs} each, alternating`,
    );
    const api = simulator();
    const stacks: PulumiStack[] = [];
    const project = (name: string, yaml: string) => {
        const projectDir = path.join(dir, name);
        fs.rmSync(projectDir, { recursive: true, force: true });
        fs.mkdirSync(projectDir, { recursive: true });
        fs.writeFileSync(path.join(projectDir, "Pulumi.yaml"), yaml);
        return projectDir;
    };
    const withPlugin: Pass[] = [];
    const empty: Pass[] = [];
    try {
        const quickstart = await PulumiStack.create({
            projectDir: project("native-quickstart", quickstartYaml(path.dirname(exe))),
            config: {
                storyId: "5f3c0d1e2a4b6c8d9e0f1a2b",
                webhookToken: { secret: "wt-native-quickstart" },
                basicPassword: { secret: "bp-native-quickstart" },
                "chatbot:apiUrl": api.url,
                "chatbot:token": { secret: api.token },
            },
        });
        stacks.push(quickstart);
        const nothing = await PulumiStack.create({
            projectDir: project("empty-program", "name: empty-program\nruntime: yaml\n"),
        });
        stacks.push(nothing);
        expectChanges(await timed(quickstart, "up", 2, undefined), "create");
        expectChanges(await timed(nothing, "up", 0, undefined), "create");
        for (let rep = 0; rep < runs; rep++) {
            for (const which of rep % 2 === 0 ? [quickstart, nothing] : [nothing, quickstart]) {
                const p = await timed(which, "preview", which === quickstart ? 2 : 0, undefined);
                expectChanges(p, "same");
                (which === quickstart ? withPlugin : empty).push(p);
            }
        }
    } finally {
        for (const s of stacks) s.dispose();
    }
    const wall = (ps: Pass[]) => ps.map((p) => p.wallMs);
    const previewMs = median(wall(withPlugin));
    const emptyMs = median(wall(empty));
    const pluginCpu = withPlugin.map((p) => p.pluginCpuMs).filter((x): x is number => x !== undefined);
    const archiveSize = fs.statSync(archive).size;
    const exeSize = fs.statSync(exe).size;

    return {
        rows: [
            {
                n: "7",
                figure: `the native plugin (${path
                    .basename(archive)
                    .replace(/^.*-v[^-]+-/, "")
                    .replace(/\.tar\.gz$/, "")} executable): start to port`,
                value: `${report.spread(
                    plugin.map((s) => s.ms),
                    report.ms,
                )}${goMs === undefined ? "" : `; ${report.ratio(pluginMs / goMs)} × the Go host`}`,
                reference: haveGo
                    ? `pulumi-language-yaml (Go): ${report.spread(
                          go.map((s) => s.ms),
                          report.ms,
                      )}`
                    : "no pulumi-language-yaml beside the CLI",
                goal: `≤ ${GOAL_MS} ms`,
                met: met(pluginMs <= GOAL_MS),
            },
            {
                n: "",
                figure: "the native plugin: start to the engine's Handshake answered (gRPC, a fresh connection)",
                value: `${report.spread(
                    plugin.map((s) => s.answeredMs),
                    report.ms,
                )}${goAnsweredMs === undefined ? "" : `; ${report.ratio(pluginAnsweredMs / goAnsweredMs)} × the Go host`}`,
                reference: haveGo
                    ? `pulumi-language-yaml (Go), to GetPluginInfo answered (it has no Handshake): ${report.spread(
                          go.map((s) => s.answeredMs),
                          report.ms,
                      )}`
                    : "no pulumi-language-yaml beside the CLI",
                goal: "",
                met: "–",
            },
            {
                n: "",
                figure: "pulumi preview of the quickstart's 2 connections in YAML through the native plugin, unchanged: wall time",
                value: `${report.spread(wall(withPlugin), report.ms)}; +${report.ms(previewMs - emptyMs)} over an empty program`,
                reference: `an empty YAML program: ${report.spread(wall(empty), report.ms)}`,
                goal: "",
                met: "–",
            },
        ],
        setup: [
            `Native plugin (7): this machine's release executable (\`node scripts/plugin.js\`: Node.js with the bundle injected${process.platform === "linux" && process.arch === "x64" ? " and its V8 code cache" : ""}), started ${runs} times with a pipe on stdin as the engine starts it, the time to the port it prints, then to its first call answered over a fresh gRPC connection (the engine's Handshake); beside Pulumi YAML's language host, a Go program that also prints its port and serves gRPC (\`pulumi-language-yaml\` beside the CLI; its first call GetPluginInfo, as it answers Handshake UNIMPLEMENTED), in the same rounds, alternating. After the answer the plugin's stdin is closed and it must end by itself (the engine watch). The previews: the quickstart's two connections written in Pulumi YAML (the plugin's types, so the engine starts the executable), deployed once, then \`pulumi preview\` unchanged ${runs} times, alternating with an empty YAML program's.`,
        ],
        details: [
            `native plugin: ${path.basename(archive)} ${report.mib(archiveSize)}, the executable ${report.mib(exeSize)}; it ended by itself when its stdin ended in ${ended} of ${plugin.length} starts; the plugin's CPU in a preview (sampled): ${pluginCpu.length ? report.ms(median(pluginCpu)) : "n/a"}`,
        ],
    };
}
