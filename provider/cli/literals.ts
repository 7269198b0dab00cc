/**
 * A string from a ChatBot account written into a program, one writer per language `discover`
 * writes: what an account holds is data, never code. Whoever has an account's dashboard writes its
 * names, urls and headers (the API limits their length, not their characters), so each writer
 * escapes every character its language's parser could read as anything but that character, and
 * no generator's own quoting is trusted (Pulumi v3.274.1's Python program generator writes a
 * multi-line string as `"""…"""` and leaves quotes inside it raw: pulumi/pulumi,
 * pkg/codegen/python/gen_program_expressions.go). Each writer is read back by its language's own
 * parser in tests/unit/discoverLiterals.test.ts.
 */
import { UNPRINTABLE_CHAR, utf16Escapes } from "../client/redact";

export type LiteralLanguage = "typescript" | "python" | "go" | "java" | "yaml";

/** Why `s` cannot be written exactly into any program, or undefined when it can: a lone surrogate
 *  is not Unicode text (Go and YAML sources cannot hold one; Python's cannot be sent to the
 *  engine), and a NUL cannot pass through a command line (the `--with-secrets` script's
 *  `pulumi config set`) or a C string. */
export function unwritable(s: string): string | undefined {
    if (s.includes("\0")) return "holds a NUL character";
    if (/\p{Cs}/u.test(s)) return "holds a lone surrogate (not Unicode text)";
    return undefined;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** A code point as `\uXXXX` (BMP) or, beyond it, `astral` of its hex. */
const codePointEscape = (c: string, astral: (h: string) => string) => {
    const cp = c.codePointAt(0) as number;
    return cp > 0xffff ? astral(hex(cp, 8)) : `\\u${hex(cp, 4)}`;
};

/** Escapes every character named in `named`, then every unprintable one with `other`. */
function escaped(s: string, named: Record<string, string>, other: (c: string) => string): string {
    let out = "";
    for (const c of s) {
        if (named[c] !== undefined) out += named[c];
        else if (UNPRINTABLE_CHAR.test(c)) out += other(c);
        else out += c;
    }
    return out;
}

const COMMON: Record<string, string> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const WRITERS: Record<LiteralLanguage, (s: string) => string> = {
    // JSON's escapes, and no raw line or paragraph separator, bidirectional control or other
    // invisible character a reader of the program would not see.
    typescript: (s) => `"${escaped(s, COMMON, (c) => codePointEscape(c, (h) => `\\u{${h}}`))}"`,
    python: (s) => `"${escaped(s, COMMON, (c) => codePointEscape(c, (h) => `\\U${h}`))}"`,
    // Go's \x writes a byte, not a character: \u and \U only.
    go: (s) => `"${escaped(s, COMMON, (c) => codePointEscape(c, (h) => `\\U${h}`))}"`,
    // javac turns \uXXXX into its character before it reads a literal: only characters that are
    // neither a quote, a backslash nor a line end may take that form, so those have named escapes.
    // Every other non-ASCII character is escaped too, so the source is ASCII whatever the
    // compiler's encoding.
    java: (s) => {
        let out = "";
        for (const c of s) {
            out += COMMON[c] ?? (/^[\x20-\x7e]$/.test(c) ? c : utf16Escapes(c));
        }
        return `"${out}"`;
    },
    // A YAML double-quoted scalar (\u, \U, no raw NEL, which YAML reads as a line break), then
    // Pulumi YAML's interpolation: it reads `$$` as `$` and `${` as a reference, so every `$` is
    // doubled (pulumi-yaml v1.25.0, pkg/pulumiyaml/ast/interpolation.go).
    yaml: (s) => `"${escaped(s, COMMON, (c) => codePointEscape(c, (h) => `\\U${h}`)).replace(/\$/g, "$$$$")}"`,
};

/** `s` as a string literal of `language` that its parser reads back as exactly `s`. The caller
 *  has refused what `unwritable` names. */
export function literal(language: LiteralLanguage, s: string): string {
    return WRITERS[language](s);
}

/** `s` for a comment of any language: printable ASCII only, every other character (and `\`, which
 *  javac reads in comments too) as `?`. A comment then cannot end early or hold an escape. */
export function commentText(s: string): string {
    return s.replace(/[^\x20-\x5b\x5d-\x7e]/gu, "?");
}
