/**
 * Keeping secrets out of messages: every error the client builds, and every problem the backend
 * kit's probe reports, passes through these. Pure; imports nothing.
 */

/** Shows every http(s) URL in `text` without what may be a secret: the password of its user
 *  info and the values of its query, each as `***` (`https://name:***@host/hook?token=***`). */
export function redactUrls(text: string): string {
    return text.replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (url) =>
        url.replace(/^([a-z]+:\/\/[^/?#@:]*):[^/?#@]*@/i, "$1:***@").replace(/([?&][^=&#]*=)[^&#]*/g, "$1***"),
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
