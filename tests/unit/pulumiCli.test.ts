/**
 * How `recover` and `discover` run `pulumi` (provider/cli/pulumiCli.ts), against a stand-in on
 * PATH: a shell script, no pulumi CLI.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pulumiOnPath } from "../../provider/cli/pulumiCli";

describe("pulumi runs of recover and discover", function () {
    let bin: string;
    let oldPath: string | undefined;

    before(() => {
        bin = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-fake-pulumi-"));
        // A pulumi that fails at once, reading none of its input: what `stack import` does when the
        // backend is gone. Seen in npm test as an EPIPE that ended recover with a stack trace.
        fs.writeFileSync(
            path.join(bin, "pulumi"),
            '#!/bin/sh\necho "error: the backend cannot be written" >&2\nexit 1\n',
            {
                mode: 0o755,
            },
        );
        oldPath = process.env.PATH;
        process.env.PATH = `${bin}${path.delimiter}${oldPath ?? ""}`;
    });
    after(() => {
        process.env.PATH = oldPath;
        fs.rmSync(bin, { recursive: true, force: true });
    });

    it("a pulumi that exits before reading its input: its exit code and message, not an EPIPE", async () => {
        // More than a pipe holds, so the write is still going when the script has exited.
        const stdin = "x".repeat(4 * 1024 * 1024);
        const r = await pulumiOnPath()(["stack", "import"], { stdin });
        assert.equal(r.code, 1);
        assert.match(r.stderr, /the backend cannot be written/);
    });
});
