/**
 * The optional peer dependencies (pg, @aws-sdk/client-s3, @pulumi/policy) as a user without them
 * meets them: the installed package copied into a project whose node_modules holds only what every
 * user has (@pulumi/pulumi, undici). Each feature that needs one fails with an error naming the
 * package and the command that installs it; nothing else loads any of them.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { root } from "../helpers/support";

const peers = (
    JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
        peerDependencies: Record<string, string>;
    }
).peerDependencies;

describe("a project without the optional packages", function () {
    this.timeout(60_000);
    let project: string;
    before(() => {
        project = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-optional-"));
        const modules = path.join(project, "node_modules");
        fs.cpSync(path.join(root, "node_modules", "pulumi-chatbot"), path.join(modules, "pulumi-chatbot"), {
            recursive: true,
        });
        for (const name of ["@pulumi/pulumi", "undici"]) {
            fs.mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
            fs.symlinkSync(path.join(root, "node_modules", name), path.join(modules, name), "dir");
        }
    });
    after(() => fs.rmSync(project, { recursive: true, force: true }));

    /** What `script` prints (stdout), run by Node.js in the project. */
    const run = (script: string) =>
        execFileSync(process.execPath, ["-e", script], { cwd: project, encoding: "utf8", stdio: "pipe" }).trim();
    /** The message of what `call` throws, in the project; `file` names one of the package's files
     *  (the package's `exports` leave them out). */
    const file = (relative: string) => JSON.stringify(path.join(project, "node_modules", "pulumi-chatbot", relative));
    const thrown = (call: string) =>
        run(`try { ${call}; console.log("no error"); } catch (e) { console.log(e.message); }`);

    for (const name of ["pg", "@aws-sdk/client-s3", "@pulumi/policy"]) {
        it(`has no ${name}`, () => {
            assert.match(thrown(`require.resolve(${JSON.stringify(name)})`), /Cannot find module/);
        });
    }

    it("loads the main entry, the webhook kit and the native classes, and with them none of the three", () => {
        const loaded = run(
            `require("pulumi-chatbot"); require("pulumi-chatbot/webhook"); require("pulumi-chatbot/native");
             console.log(Object.keys(require.cache).filter((f) => /node_modules[\\\\/](pg|@aws-sdk|@pulumi[\\\\/]policy)[\\\\/]/.test(f)).length)`,
        );
        assert.equal(loaded, "0");
    });

    it("recover on a postgres:// backend: names pg and its install command", () => {
        assert.equal(
            thrown(`require(${file("dist/cli/state/open.js")}).openStateBackend("postgres://u@127.0.0.1/db", ".", {})`),
            `recover on postgres:// state needs pg: npm install pg@${peers.pg}`,
        );
    });

    it("recover on an s3:// backend: names @aws-sdk/client-s3 and its install command", () => {
        assert.equal(
            thrown(`require(${file("dist/cli/state/open.js")}).openStateBackend("s3://bucket", ".", {})`),
            `recover on s3:// state needs @aws-sdk/client-s3: npm install @aws-sdk/client-s3@${peers["@aws-sdk/client-s3"]}`,
        );
    });

    it("a file:// backend needs neither", () => {
        assert.equal(
            thrown(`require(${file("dist/cli/state/open.js")}).openStateBackend("file://" + process.cwd(), ".", {})`),
            "no error",
        );
    });

    it("the ready policy pack: names @pulumi/policy and its install command", () => {
        assert.equal(
            thrown(`require(${file("policy-pack/index.js")})`),
            `the policy pack needs @pulumi/policy: npm install @pulumi/policy@${peers["@pulumi/policy"]}`,
        );
    });
});
