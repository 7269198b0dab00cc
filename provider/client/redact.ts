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

/** Replaces every occurrence of each secret in `text` by `[secret]`. Longest first, so a secret
 *  that contains another is replaced whole. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
    const list = secrets.filter((s): s is string => typeof s === "string" && s.length > 0);
    list.sort((a, b) => b.length - a.length);
    let out = text;
    for (const s of list) out = out.split(s).join("[secret]");
    return out;
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
