/**
 * Which run left a stack's pending creates, and so from when what ChatBot made is taken for theirs
 * (issue 66): the rule itself (brokenRunBegan in provider/cli/recover.ts), on the evidence a
 * killed run, a run the state backend refused and the runs after them leave; then `recover` as the
 * command runs it, with a `pulumi` of the test's own and the simulator in this process, on the
 * stack a run that ended by itself left (its history entry the newest): what that run made is
 * adopted, a connection made before it is not. And what recover prints of a state and an account
 * has nothing a terminal acts on (issue 65).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import type { PulumiRun } from "../../provider/cli/pulumiCli";
import { brokenRunBegan, recover, type HistoryEntry } from "../../provider/cli/recover";
import { emptySimulator, installedTesting } from "../helpers/support";

const T0 = Date.parse("2026-12-01T10:00:00Z");
/** `offset` seconds after T0, as an ISO time (pulumi writes history times in whole seconds). */
const at = (offset: number) => new Date(T0 + offset * 1000).toISOString();
const span = (start: number, end: number) => ({ startTime: at(start), endTime: at(end) });
const update = (result: string, start: number, end?: number): HistoryEntry => ({
    kind: "update",
    result,
    startTime: at(start),
    ...(end === undefined ? {} : { endTime: at(end) }),
});

describe("which run left the pending creates (brokenRunBegan)", () => {
    const began = (e: Parameters<typeof brokenRunBegan>[0]) => brokenRunBegan(e)?.began;

    it("a killed run's lock: its start, whatever the history holds", () => {
        const history = [update("succeeded", 0, 30), update("failed", -600, -500)];
        assert.equal(began({ lockStarts: [at(100)], history, lastWrite: at(105) }), T0 + 100_000);
        assert.match(brokenRunBegan({ lockStarts: [at(100)], history, lastWrite: at(105) })!.from, /its lock/);
    });

    it("a run that ended by itself, its checkpoint writes refused: its own history entry, the newest, gives its start (issue 66)", () => {
        const history = [update("failed", 100, 160), update("succeeded", 0, 30)];
        const broken = brokenRunBegan({ lockStarts: [], history, lastWrite: at(104.6) });
        assert.equal(broken?.began, T0 + 100_000);
        assert.match(broken!.from, /history entry: update failed/);
    });

    it("a later run that succeeded carried them over: still the failed run's start", () => {
        // The later up wrote the checkpoint last; Pulumi keeps pending creates through it.
        const history = [update("succeeded", 300, 330), update("failed", 100, 160), update("succeeded", 0, 30)];
        assert.equal(began({ lockStarts: [], history, lastWrite: at(320) }), T0 + 100_000);
    });

    it("a second run refused from its first write wrote nothing: the run before it, which did", () => {
        const history = [update("failed", 200, 240), update("failed", 100, 160)];
        assert.equal(began({ lockStarts: [], history, lastWrite: at(104.6) }), T0 + 100_000);
    });

    it("a lock taken after the last write (killed before it wrote): the run that did write", () => {
        const history = [update("failed", 100, 160)];
        assert.equal(began({ lockStarts: [at(200)], history, lastWrite: at(104.6) }), T0 + 100_000);
    });

    it("killed and its lock removed by hand: after the end of the last run that ended before the checkpoint's last write", () => {
        const history = [update("succeeded", 0, 30), { kind: "refresh", result: "failed", ...span(-100, -90) }];
        const broken = brokenRunBegan({ lockStarts: [], history, lastWrite: at(104.6) });
        assert.equal(broken?.began, T0 + 30_000);
        assert.match(broken!.from, /^began after /, "a refresh or destroy leaves no pending create");
        // A run that ended after the last write carried them over: the one before it.
        const later = [update("succeeded", 200, 260), ...history];
        assert.equal(began({ lockStarts: [], history: later, lastWrite: at(230) }), T0 + 30_000);
    });

    it("Pulumi Cloud: a killed update stays in progress in the history, with its start", () => {
        const history = [update("in-progress", 100), update("succeeded", 0, 30)];
        assert.equal(began({ lockStarts: [], history, lastWrite: at(104.6) }), T0 + 100_000);
    });

    it("nothing to tell: unknown; a checkpoint without its time: every entry counts", () => {
        assert.equal(brokenRunBegan({ lockStarts: [], history: [], lastWrite: at(10) }), undefined);
        assert.equal(
            began({ lockStarts: [], history: [update("succeeded", 0, 30)], lastWrite: undefined }),
            T0 + 30_000,
        );
    });
});

describe("`recover` as the command runs it, on the stack a broken run left", () => {
    const STORY = { id: "5f3c0d1e2a4b6c8d9e0f1a2b", name: "Shop" };
    const TYPE = "pulumi-nodejs:dynamic/chatbot:WebhookConnection";
    let sim: ChatbotSimulator;
    let project: string;
    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY.id]: STORY.name } });
        project = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-recover-window-"));
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
        fs.mkdirSync(path.join(project, "state"));
    });
    after(async () => {
        await sim.close();
        fs.rmSync(project, { recursive: true, force: true });
    });
    beforeEach(() => emptySimulator(sim));

    /** A pending create of `name` (its urn's name: `resource`), as the checkpoint holds one. */
    const pendingCreate = (name: string, resource = name) => ({
        type: "creating",
        resource: {
            urn: `urn:pulumi:dev::shop::${TYPE}::${resource}`,
            custom: true,
            type: TYPE,
            inputs: { storyId: STORY.id, name, url: `https://hooks.example.com/${name}` },
        },
    });

    /** `pulumi` as recover calls it, answering from a stack whose last update began `began` ms
     *  ago, wrote its checkpoint last 5 s later, left `pending`, and failed 40 s after it began. */
    function pulumiOf(began: number, pending: unknown[]): PulumiRun {
        const start = Date.now() - began;
        const whole = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();
        const answers: Record<string, unknown> = {
            whoami: { url: `file://${path.join(project, "state")}` },
            "stack export": {
                version: 3,
                deployment: { manifest: { time: new Date(start + 5_000).toISOString() }, pending_operations: pending },
            },
            config: {
                "chatbot:apiUrl": { value: sim.url },
                "chatbot:token": { value: sim.token, secret: true },
            },
            "stack history": [
                { kind: "update", result: "failed", startTime: whole(start), endTime: whole(start + 40_000) },
            ],
            "stack ls": [{ name: "dev" }],
        };
        return async (args) => {
            const answer = answers[args[0]] ?? answers[`${args[0]} ${args[1]}`];
            if (answer === undefined) return { code: 1, stdout: "", stderr: `unexpected: pulumi ${args.join(" ")}` };
            return { code: 0, stdout: JSON.stringify(answer), stderr: "" };
        };
    }

    async function dryRun(pulumi: PulumiRun) {
        let stdout = "";
        let stderr = "";
        const io = {
            stdout: (t: string) => (stdout += t),
            stderr: (t: string) => (stderr += t),
            env: {},
            cwd: project,
            pulumi,
        };
        const code = await recover(["--stack", "dev", "--dry-run"], io);
        return { code, stdout, stderr };
    }

    it("what the run made before it failed is adopted; a connection the same but made before it began is not", async () => {
        const made = sim.addConnection({
            story: STORY,
            name: "made",
            url: "https://hooks.example.com/made",
            createdAt: new Date(Date.now() - 55_000).toISOString(),
        });
        sim.addConnection({
            story: STORY,
            name: "older",
            url: "https://hooks.example.com/older",
            createdAt: new Date(Date.now() - 3_600_000).toISOString(),
        });
        const r = await dryRun(pulumiOf(60_000, [pendingCreate("made"), pendingCreate("older")]));
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(
            r.stdout,
            /^the run that left the pending creates began at \S+ \(its history entry: update failed\)/m,
        );
        assert.match(r.stdout, new RegExp(`^adopt \\S+::made = ${made.id}$`, "m"));
        assert.match(r.stdout, /^clear \S+::older: its create made nothing in ChatBot$/m);
    });

    it("what recover prints of the state and the account has nothing a terminal acts on (issue 65)", async () => {
        const r = await dryRun(pulumiOf(60_000, [pendingCreate("gone", "gone\u001b[2K\u009b31m")]));
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /^clear \S+::gone\\u\{1b\}\[2K\\u\{9b\}31m: /m);
        assert.match(r.stdout + r.stderr, /^[\n\x20-\x7e]*$/, "printable characters only");
    });
});
