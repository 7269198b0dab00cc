/**
 * `recover` as the command runs it, with a `pulumi` of the test's own and the simulator in this
 * process, on the stack a run that ended by itself left (its history entry the newest): what
 * recover prints of a state and an account has nothing a terminal acts on (issue 65).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import type { PulumiRun } from "../../provider/cli/pulumiCli";
import { recover } from "../../provider/cli/recover";
import { emptySimulator, installedTesting } from "../helpers/support";

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

    it("what recover prints of the state and the account has nothing a terminal acts on (issue 65)", async () => {
        const r = await dryRun(pulumiOf(60_000, [pendingCreate("gone", "gone\u001b[2K\u009b31m")]));
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /^clear \S+::gone\\u\{1b\}\[2K\\u\{9b\}31m: /m);
        assert.match(r.stdout + r.stderr, /^[\n\x20-\x7e]*$/, "printable characters only");
    });
});
