/**
 * A `pulumi up` or `pulumi destroy` killed with SIGKILL leaves no process behind: the provider
 * (the dynamic-provider plugin with this package loaded, and the native plugin
 * `pulumi-resource-chatbot`), the language host (Node.js, Python or Go) and the program it runs
 * all stop within a few seconds, and ChatBot gets no request after that. Through the real pulumi
 * CLI, against the simulator answering late, so that writes are in flight when the CLI is killed.
 *
 * A run's processes are found by /proc (Linux): the plugins, the host and the program are started
 * in the project's folder (pkg/resource/plugin/plugin.go sets their working directory) and inherit
 * the run's PULUMI_HOME.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { emptySimulator, installedTesting, root } from "../helpers/support";
import { declareStack, jsProjectYaml, ok, PulumiStack, STORY, tempProject, type Declared } from "../helpers/pulumi";
import {
    copyGoExample,
    goProgramBinary,
    PLUGIN_YAML,
    python,
    pythonVenv,
    runGoBinary,
} from "../helpers/languagePrograms";

const COUNT = 20;
/** Each answer of the simulator comes this late, so a create or delete is a few hundred ms long. */
const LATENCY_MS = 300;
/** Steps at once (`--parallel`): the run lasts seconds, long enough to be killed midway. */
const PARALLEL = 4;
/** How soon after the kill every process of the run must be gone. */
const GONE_WITHIN_MS = 8_000;
/** How long the simulator is watched for a late request once they are gone. */
const QUIET_MS = 1_500;
/** A request that arrives this long after the kill was sent after it (loopback; less than LATENCY_MS). */
const SENT_BEFORE_KILL_MS = 150;

/** A JavaScript program of the native classes: `count` connections. */
const NATIVE_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const chatbot = require("pulumi-chatbot/native");
const config = new pulumi.Config();
for (let i = 0; i < Number(config.require("count")); i++) {
    new chatbot.WebhookConnection(\`c-\${i}\`, { storyId: config.require("storyId"), url: \`https://bulk.example.com/\${i}\` });
}
`;

/** The same in Python, with the SDK of sdk/python. */
const PYTHON_PROGRAM = `import pulumi
import pulumi_chatbot as chatbot

config = pulumi.Config()
for i in range(int(config.require("count"))):
    chatbot.WebhookConnection(f"c-{i}", story_id=config.require("storyId"), url=f"https://bulk.example.com/{i}")
`;

/** The same in Go, with the SDK of sdk/go. */
const GO_PROGRAM = `package main

import (
	"fmt"
	"strconv"

	"github.com/pulumi-chatbot/pulumi-chatbot/sdk/go/chatbot"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		count, err := strconv.Atoi(cfg.Require("count"))
		if err != nil {
			return err
		}
		for i := 0; i < count; i++ {
			_, err := chatbot.NewWebhookConnection(ctx, fmt.Sprintf("c-%d", i), &chatbot.WebhookConnectionArgs{
				StoryId: pulumi.String(cfg.Require("storyId")),
				Url:     pulumi.String(fmt.Sprintf("https://bulk.example.com/%d", i)),
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
`;

interface TestStack {
    stack: PulumiStack;
    dispose(): void;
}

interface RunProcess {
    pid: number;
    command: string;
    /** `pulumi-language-nodejs`, or the script node runs: `native/server.js`, `run/index.js`, ... */
    name: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The live processes of `stack`'s runs: working in its project folder, or with its PULUMI_HOME. */
function processesOf(stack: PulumiStack): RunProcess[] {
    const home = `PULUMI_HOME=${path.join(stack.scratch, "home")}\0`;
    const found: RunProcess[] = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
        try {
            const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
            if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue; // exited, not yet reaped
            const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
            const environ = fs.readFileSync(`/proc/${entry}/environ`, "latin1");
            if (cwd !== stack.projectDir && !environ.includes(home)) continue;
            const argv = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
            const runner = /^(node|sh|bash)$/.test(path.basename(argv[0] ?? ""));
            const program = (runner ? argv[1] : argv[0]) ?? "";
            const name = program.endsWith(".js") ? program.split(/[\\/]/).slice(-2).join("/") : path.basename(program);
            found.push({ pid: Number(entry), command: argv.join(" "), name });
        } catch {
            // gone meanwhile, or not ours to read
        }
    }
    return found;
}

describe("a pulumi run killed with SIGKILL leaves no process behind", function () {
    this.timeout(120_000);
    let sim: ChatbotSimulator;
    const stacks: TestStack[] = [];

    /** Requests the simulator has received so far: answered, and still being answered. */
    const arrivals = () => sim.requests.length + sim.inFlight;
    const answered = (method: string) => sim.requests.filter((r) => r.method === method).length;

    const dynamicStack = async (env: Record<string, string> = {}): Promise<TestStack> => {
        const e = await declareStack(sim, { env });
        const resources: Declared[] = Array.from({ length: COUNT }, (_, i) => ({
            kind: "WebhookConnection",
            name: `c-${i}`,
            args: { storyId: STORY, url: `https://bulk.example.com/${i}` },
        }));
        await e.declare(resources);
        return e;
    };

    /** A stack of `project` (a folder in a temporary one) that creates COUNT connections through the
     *  native plugin. */
    const programStack = async (project: string, env: Record<string, string> = {}): Promise<TestStack> => {
        const stack = await PulumiStack.create({
            projectDir: project,
            config: {
                "chatbot:apiUrl": sim.url,
                "chatbot:token": { secret: sim.token },
                storyId: STORY,
                count: String(COUNT),
            },
            env: { CHATBOT_RETRY_BASE_MS: "5", ...env },
        });
        return {
            stack,
            dispose() {
                stack.dispose();
                fs.rmSync(path.dirname(project), { recursive: true, force: true });
            },
        };
    };

    /** The native plugin, installed as tests/cli/nativeProvider.test.ts installs it. */
    const nativeStack = (): Promise<TestStack> =>
        programStack(
            tempProject("native", {
                "Pulumi.yaml": jsProjectYaml("native") + PLUGIN_YAML,
                "index.js": NATIVE_PROGRAM,
            }),
        );

    /** PYTHON_PROGRAM, in the virtual environment tests/cli/pythonProgram.test.ts uses. */
    const pythonStack = (): Promise<TestStack> =>
        programStack(
            tempProject("pykilled", {
                "Pulumi.yaml":
                    "name: pykilled\nruntime:\n  name: python\n  options:\n    toolchain: pip\n" +
                    `    virtualenv: ${pythonVenv()}\n` +
                    PLUGIN_YAML,
                "__main__.py": PYTHON_PROGRAM,
            }),
            // No bytecode next to the checkout's SDK.
            { PYTHONDONTWRITEBYTECODE: "1" },
        );

    /** GO_PROGRAM, in a copy of examples/go (its go.mod, the SDK of this checkout), built once per
     *  run and run by the host from that binary (what the killed run leaves is the same). */
    const goStack = async (): Promise<TestStack> => {
        const project = await copyGoExample();
        fs.writeFileSync(path.join(project, "main.go"), GO_PROGRAM);
        runGoBinary(project, goProgramBinary(project));
        return programStack(project);
    };

    /**
     * Starts `pulumi <command>`, and SIGKILLs it once the simulator has answered a few `method`
     * writes, each followed by its read (a create's read-back, a delete's check that it is gone),
     * and a new write has just arrived: its answer comes LATENCY_MS after the kill, so the read a
     * process that outlived the CLI would send next comes later than SENT_BEFORE_KILL_MS. Then
     * checks that every process of the run is gone within GONE_WITHIN_MS and that the simulator
     * heard nothing sent after the kill. Resolves to the run's processes under the CLI before the kill.
     */
    const killMidway = async (stack: PulumiStack, command: "up" | "destroy", method: string): Promise<RunProcess[]> => {
        sim.latencyMs = LATENCY_MS;
        let pid: number | undefined;
        let finished = false;
        const run = stack.run(command, { parallel: PARALLEL, onStart: (p) => (pid = p) });
        void run.then(() => (finished = true));
        const deadline = Date.now() + 60_000;
        // Every write answered has had its read answered: what arrives now is a new write.
        const allRead = () => answered(method) >= 3 && answered("GET") === answered(method);
        let seen: number | undefined;
        while (!finished && Date.now() < deadline) {
            if (!allRead()) seen = undefined;
            else if (seen === undefined) seen = arrivals();
            else if (arrivals() > seen) break;
            await sleep(1);
        }
        assert.ok(!finished, `pulumi ${command} ended before it could be killed`);
        assert.ok(allRead() && sim.inFlight > 0, `no ${method} in flight to kill the run at`);
        assert.ok(pid !== undefined);
        const inFlight = sim.inFlight;
        const before = processesOf(stack).filter((p) => p.pid !== pid);
        process.kill(pid, "SIGKILL");
        const killedAt = Date.now();
        // Requests sent before the kill have arrived by then (loopback).
        const sentBeforeKill = new Promise<number>((resolve) =>
            setTimeout(() => resolve(arrivals()), SENT_BEFORE_KILL_MS),
        );
        await run;

        let left = processesOf(stack);
        while (left.length > 0 && Date.now() - killedAt < GONE_WITHIN_MS) {
            await sleep(100);
            left = processesOf(stack);
        }
        const goneAfterMs = Date.now() - killedAt;
        assert.deepEqual(
            left.map((p) => `${p.pid} ${p.command}`),
            [],
            `${left.length} of the run's ${before.length} processes under the CLI still there ${GONE_WITHIN_MS} ms after the kill`,
        );
        // What was in flight is answered; nothing else comes, then or later.
        await sim.idle();
        await sleep(QUIET_MS);
        assert.equal(sim.inFlight, 0);
        assert.equal(
            arrivals(),
            await sentBeforeKill,
            `the simulator got ${arrivals() - (await sentBeforeKill)} requests sent after the kill`,
        );
        console.log(
            `        killed with ${inFlight} requests in flight and ${before.length} processes under the CLI ` +
                `(${before.map((p) => p.name).join(", ")}); all gone ${goneAfterMs} ms after the kill`,
        );
        return before;
    };

    before(async function () {
        if (!fs.existsSync("/proc/self/cwd")) this.skip(); // finds a run's processes through /proc
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
    });
    beforeEach(() => {
        if (sim) emptySimulator(sim);
        if (sim) sim.latencyMs = 0;
    });
    afterEach(() => {
        for (const s of stacks.splice(0)) {
            // A failed case leaves nothing running: every process of its runs is ended, by id.
            for (const p of processesOf(s.stack)) {
                try {
                    process.kill(p.pid, "SIGKILL");
                } catch {
                    // already gone
                }
            }
            s.dispose();
        }
    });
    after(async () => {
        await sim?.close();
    });

    for (const [delivery, makeStack] of [
        ["the dynamic provider", dynamicStack],
        ["the native plugin", nativeStack],
    ] as const) {
        describe(delivery, () => {
            it(`\`pulumi up\` killed while ${COUNT} creates are in flight`, async () => {
                const s = await makeStack();
                stacks.push(s);
                await killMidway(s.stack, "up", "POST");
            });

            it(`\`pulumi destroy\` of ${COUNT} connections killed while deletes are in flight`, async () => {
                const s = await makeStack();
                stacks.push(s);
                ok(await s.stack.run("up"));
                assert.equal(sim.listConnections().length, COUNT);
                sim.resetRequests();
                await killMidway(s.stack, "destroy", "DELETE");
            });
        });
    }

    // Pulumi's own pulumi-resource-pulumi-nodejs (its release archives' and the npm SDK's) runs node
    // under a shell without `exec`: node's parent is that shell, which the kill does not change, so
    // only its stdin ending tells the plugin that the engine is gone. (The CLI built here execs
    // node, and so do the cases above.) The CLI takes a plugin on PATH before the one beside it.
    describe("the dynamic provider started by Pulumi's own pulumi-resource-pulumi-nodejs (a shell without exec)", () => {
        it(`\`pulumi up\` killed while ${COUNT} creates are in flight`, async () => {
            const bin = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-release-plugin-"));
            fs.symlinkSync(
                path.join(root, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs"),
                path.join(bin, "pulumi-resource-pulumi-nodejs"),
            );
            const s = await dynamicStack({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` });
            stacks.push({
                stack: s.stack,
                dispose() {
                    s.dispose();
                    fs.rmSync(bin, { recursive: true, force: true });
                },
            });
            const before = await killMidway(s.stack, "up", "POST");
            assert.ok(
                before.some(
                    (p) =>
                        path.basename(p.command.split(" ")[0]) === "sh" && p.name === "pulumi-resource-pulumi-nodejs",
                ),
                `the shell of Pulumi's script ran the plugin:\n${before.map((p) => p.command).join("\n")}`,
            );
        });
    });

    // Programs in other languages, through the native plugin: their hosts (tools/pulumi/cmd) and
    // what they run (python with pulumi-language-python-exec, the built Go binary) end too.
    for (const [language, makeStack, available] of [
        ["a Python program", pythonStack, () => python() !== undefined],
        ["a Go program", goStack, () => true],
    ] as const) {
        describe(language, () => {
            before(function () {
                if (!available()) this.skip();
            });

            it(`\`pulumi up\` killed while ${COUNT} creates are in flight`, async function () {
                this.timeout(600_000); // a virtual environment or Go build cache made first
                const s = await makeStack();
                stacks.push(s);
                this.timeout(120_000);
                await killMidway(s.stack, "up", "POST");
            });
        });
    }
});
