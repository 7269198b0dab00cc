/**
 * The one scrubber (provider/client/redact.ts): every form of credential the three old ones
 * handled (the client's http(s) URLs with user info and query values, the CLI runner's URLs of any
 * scheme with user info, the state backends' URL password), query secrets in postgres:// and s3://
 * URLs, known secret values; and the message paths of `recover` and `discover` that quote a
 * `pulumi` failure print what it quotes scrubbed.
 */
import { strict as assert } from "node:assert";
import { printable, printableJson, redact, redactUrls, scrub, secretsOfUrl, shown } from "../../provider/client/redact";
import { checkedRun, PulumiFailed, type PulumiRun } from "../../provider/cli/pulumiCli";
import { discover } from "../../provider/cli/discover";
import { recover } from "../../provider/cli/recover";

/** Each line: text with a credential, and what a message may show of it. */
const FORMS: Array<[string, string]> = [
    // http(s): user info and query values (the client's and the probe's old rule)
    ["GET https://bot:hunter2@hooks.example.com/x failed", "GET https://bot:***@hooks.example.com/x failed"],
    ["https://hooks.example.com/x?token=abc&v=2#top", "https://hooks.example.com/x?token=***&v=***#top"],
    ["HTTP://A:B@h/p?q=1", "HTTP://A:***@h/p?q=***"],
    // any scheme, user info, inside quotes and backticks (the CLI runner's old rule)
    [
        'unable to open postgres database "postgres://user:pa55@db.example.com:5432/state": refused',
        'unable to open postgres database "postgres://user:***@db.example.com:5432/state": refused',
    ],
    ["`s3://key:secret@bucket/folder`", "`s3://key:***@bucket/folder`"],
    ["'azblob://acct:k3y@container'", "'azblob://acct:***@container'"],
    // query secrets in postgres:// and s3:// URLs
    [
        "postgres://db.example.com/state?sslmode=disable&password=hunter2",
        "postgres://db.example.com/state?sslmode=***&password=***",
    ],
    [
        "s3://bucket/folder?region=eu-west-1&endpoint=127.0.0.1:9000&secret=s3cr3t&token=t0k",
        "s3://bucket/folder?region=***&endpoint=***&secret=***&token=***",
    ],
    // no credential: unchanged
    ["see https://hooks.example.com/x and file:///tmp/state", "see https://hooks.example.com/x and file:///tmp/state"],
    ["user@example.com at 12:30", "user@example.com at 12:30"],
];

describe("the one scrubber of credentials", () => {
    for (const [text, shown] of FORMS) {
        it(`scrubs ${JSON.stringify(text)}`, () => {
            assert.equal(redactUrls(text), shown);
            assert.equal(scrub(text), shown);
        });
    }

    it("known secret values, longest first, and a URL password quoted apart from its URL (the state backends' old rule)", () => {
        assert.equal(redact("token abc, header abcdef", ["abc", "abcdef"]), "token [secret], header [secret]");
        const url = "postgres://user:p%40ss@db/state";
        assert.deepEqual(secretsOfUrl(url), ["p%40ss", "p@ss"]);
        assert.equal(
            scrub(`password "p@ss" refused for ${url}`, secretsOfUrl(url)),
            'password "[secret]" refused for postgres://user:***@db/state',
        );
        assert.deepEqual(
            secretsOfUrl("s3://bucket?secret=x"),
            [],
            "query values are scrubbed in place, not everywhere",
        );
        assert.deepEqual(secretsOfUrl("not a url"), []);
    });

    it("a secret echoed encoded (form, URL, inside a JSON string) is scrubbed too (issue 65)", () => {
        const secret = 'a b"c/d';
        for (const echoed of ["a+b%22c%2Fd", "a%20b%22c%2Fd", "a%20b%22c/d", 'a b\\"c/d', secret]) {
            assert.equal(redact(`backend said: ${echoed}!`, [secret]), "backend said: [secret]!", echoed);
        }
        // A lone surrogate cannot be URL-encoded: the other spellings still go.
        assert.equal(redact("x\ud800y", ["\ud800y"]), "x[secret]");
    });

    it("what an account holds prints with nothing a terminal acts on, and two strings never print alike (issue 65)", () => {
        const hostile = "ok\u001b[2K\r\u009b31m\u0085\u2028\u202e\ufeff\ufffe\ud800\u007f\\u{1b}";
        const line = shown(hostile);
        assert.equal(
            line,
            '"ok\\u{1b}[2K\\u{d}\\u{9b}31m\\u{85}\\u{2028}\\u{202e}\\u{feff}\\u{fffe}\\u{d800}\\u{7f}\\\\u{1b}"',
        );
        assert.match(line, /^[\x20-\x7e]+$/);
        assert.notEqual(printable("\u001b"), printable("\\u{1b}"));
        assert.equal(shown('say "hi" – née 😀'), '"say \\"hi\\" – née 😀"', "printable text is left as it is");
        const json = printableJson({ name: hostile, "\u009b": 1 });
        assert.match(json, /^[\x20-\x7e\n]+$/);
        assert.deepEqual(JSON.parse(json), { name: hostile, "\u009b": 1 }, "the same JSON value");
    });

    const failing =
        (stderr: string): PulumiRun =>
        async () => ({ code: 255, stdout: "", stderr });
    const QUOTED =
        'error: unable to open "postgres://user:pa55@db:5432/state?password=pa56" (pa57) and s3://b?secret=s3x\n';

    it("a failed `pulumi` run quotes its output scrubbed (the runner recover and discover share)", async () => {
        const run = checkedRun(failing(QUOTED), ["pa57"]);
        const e = await run(["stack", "ls"], "stack ls").then(
            () => assert.fail("no failure"),
            (x: unknown) => x,
        );
        assert.ok(e instanceof PulumiFailed);
        assert.match(
            e.message,
            /^`pulumi stack ls` failed \(exit 255\):\nerror: unable to open "postgres:\/\/user:\*\*\*@db:5432\/state\?password=\*\*\*" \(\[secret\]\) and s3:\/\/b\?secret=\*\*\*$/,
        );
    });

    it("`recover` and `discover` print a failed `pulumi` run scrubbed, the backend URL's password included", async () => {
        const env = { PULUMI_BACKEND_URL: "postgres://user:pa57@db:5432/state", CHATBOT_TOKEN: "t" };
        for (const command of ["recover", "discover"] as const) {
            let err = "";
            const io = {
                stdout: () => undefined,
                stderr: (t: string) => (err += t),
                env,
                cwd: "/nonexistent",
                pulumi: failing(QUOTED),
                readStdin: () => "",
            };
            const code =
                command === "recover"
                    ? await recover(["--stack", "dev"], io)
                    : await discover(["--all-stacks"], io as unknown as Parameters<typeof discover>[1]);
            assert.notEqual(code, 0, command);
            for (const secret of ["pa55", "pa56", "pa57", "s3x"])
                assert.ok(!err.includes(secret), `${command}: ${err}`);
            assert.match(err, /postgres:\/\/user:\*\*\*@db/, command);
        }
    });
});
