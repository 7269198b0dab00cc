/**
 * Keeping credentials out of messages: the one place they are scrubbed from text. Every error the
 * client builds, every problem the backend kit's probe reports, and every failure of a `pulumi`
 * run that `recover` and `discover` quote passes through here. Pure; imports nothing.
 */

/** A URL of any scheme (http, postgres, s3, ...) as it appears in running text. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi;

/** Shows every URL in `text` without what may be a secret: the password of its user info and the
 *  values of its query, each as `***` (`postgres://name:***@host/db?password=***`). */
export function redactUrls(text: string): string {
    return text.replace(URL_IN_TEXT, (url) =>
        url
            .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, "$1:***@")
            .replace(/([?&][^=&#]*=)[^&#]*/g, "$1***"),
    );
}

/** Replaces every occurrence of each secret in `text` by `[secret]`, in each spelling a server or
 *  runtime may echo it in (as written, URL-encoded, form-encoded, inside a JSON string). Longest
 *  first, so a secret that contains another is replaced whole. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
    const given = secrets.filter((s): s is string => typeof s === "string" && s.length > 0);
    const list = [...new Set(given.flatMap(spellings))].filter((s) => s.length > 0);
    list.sort((a, b) => b.length - a.length);
    let out = text;
    for (const s of list) out = out.split(s).join("[secret]");
    return out;
}

/** A secret as written and as it reads once encoded: `a b"c` echoed in a query (`a+b%22c`), a path
 *  (`a%20b%22c`) or a JSON string (`a b\\"c`). */
function spellings(secret: string): string[] {
    const out = [secret, JSON.stringify(secret).slice(1, -1)];
    try {
        out.push(encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), encodeURI(secret));
    } catch {
        // A lone surrogate cannot be URL-encoded, so it is not echoed that way either.
    }
    return out;
}

/** A character a terminal may act on or that do not show: controls (ESC, C1's CSI), format
 *  characters (bidirectional overrides, zero widths, U+FEFF), line and paragraph separators,
 *  private use, unassigned code points and noncharacters, lone surrogates. */
export const UNPRINTABLE_CHAR = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u;
const UNPRINTABLE = new RegExp(UNPRINTABLE_CHAR.source, "gu");

/** `text` (a name or url from an account, a key of a backend's answer) safe to print on a terminal
 *  line: backslashes doubled and each character of UNPRINTABLE as `\u{...}`, so nothing in it is
 *  acted on and two different strings never print alike. */
export function printable(text: string): string {
    return text.replace(/\\/g, "\\\\").replace(UNPRINTABLE, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`);
}

/** `text` printable and in double quotes (a `"` inside as `\"`): how a command names what an
 *  account holds. */
export function shown(text: string): string {
    return `"${printable(text).replace(/"/g, '\\"')}"`;
}

/** Each UTF-16 unit of `c` as `\uXXXX` (an astral character as its surrogate pair): the escape
 *  JSON, JavaScript and Java all read. */
export function utf16Escapes(c: string): string {
    return [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");
}

/** `value` as JSON (indented) a terminal shows as it is: each character of UNPRINTABLE as its
 *  `\uXXXX` escape, which JSON reads back as the same string. */
export function printableJson(value: unknown): string {
    // A raw line break is the indentation's: JSON has already escaped those inside strings.
    return JSON.stringify(value, null, 2).replace(UNPRINTABLE, (c) => (c === "\n" ? c : utf16Escapes(c)));
}

/** `text` with its URLs scrubbed and each of `secrets` replaced: what a message may show. */
export function scrub(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
    return redact(redactUrls(text), secrets);
}

/** The password of a URL's user info, as written and decoded, for `redact`: runtimes and `pulumi`
 *  quote it apart from the URL too. Its query values are not returned: they are scrubbed where
 *  the URL is quoted, and alone many are plain words (`true`, a region) that must stay readable. */
export function secretsOfUrl(url: string): string[] {
    const password = URL.canParse(url) ? new URL(url).password : "";
    if (password === "") return [];
    try {
        return [password, decodeURIComponent(password)];
    } catch {
        return [password]; // not valid percent-encoding: only as written
    }
}
