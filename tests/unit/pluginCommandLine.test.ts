/**
 * The plugin as the command line (provider/native/commandLine.ts): which starts serve the provider
 * protocol (the engine's, with its address; a bare start) and which run the `pulumi-chatbot`
 * command; and the npm package's plugin script, given a command, answers as the npm bin, byte for
 * byte. The release executable's is proven through the real CLI (tests/cli/release.test.ts,
 * stateBackends.test.ts, javaProgram.test.ts).
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as path from "path";
import { commandArgs } from "../../provider/native/commandLine";
import { root } from "../helpers/support";

describe("the plugin's start: the provider, or the command line", () => {
    it("serves the provider when the engine starts it (its address, after Pulumi's logging flags) or when started bare", () => {
        for (const argv of [
            ["127.0.0.1:40123"],
            ["--logtostderr", "-v=9", "127.0.0.1:40123"],
            ["--tracing", "127.0.0.1:4317", "localhost:40123"],
            ["[::1]:40123"],
            [],
        ]) {
            assert.equal(commandArgs(argv, {}), undefined, argv.join(" "));
        }
    });

    it("runs the command line for anything else, Pulumi's own flags left out; bare under `pulumi plugin run`, the usage", () => {
        assert.deepEqual(commandArgs(["recover", "--stack", "prod"], {}), ["recover", "--stack", "prod"]);
        assert.deepEqual(commandArgs(["--logtostderr", "-v=3", "probe", "--stack", "a:1"], {}), [
            "probe",
            "--stack",
            "a:1",
        ]);
        assert.deepEqual(commandArgs(["--help"], {}), ["--help"]);
        assert.deepEqual(commandArgs(["frob"], {}), ["frob"]);
        // An address with more after it is no engine's start.
        assert.deepEqual(commandArgs(["127.0.0.1:1", "recover"], {}), ["127.0.0.1:1", "recover"]);
        assert.deepEqual(commandArgs([], { PULUMI_RPC_TARGET: "127.0.0.1:40124" }), []);
    });

    it("the npm package's plugin script, given a command, answers as the npm bin: help, an unknown command, an unknown option", () => {
        const pkg = path.join(root, "node_modules", "pulumi-chatbot");
        for (const args of [["--help"], ["frob"], ["sweep", "--frob"]]) {
            const run = (command: string, argv: string[]) => {
                const r = spawnSync(command, argv, { encoding: "utf8", timeout: 60_000 });
                return { code: r.status, stdout: r.stdout, stderr: r.stderr };
            };
            const script = run(path.join(pkg, "plugin", "pulumi-resource-chatbot"), args);
            const bin = run(process.execPath, [path.join(pkg, "dist", "cli", "index.js"), ...args]);
            assert.deepEqual(script, bin, args.join(" "));
            assert.equal(script.code, args[0] === "--help" ? 0 : 2);
        }
    });
});
