/**
 * The engine's wrapper for a secret value, in its two forms: the one place it is made, read and
 * taken apart. In memory (what a provider is handed and returns) it is `{sig, value}`; in a
 * checkpoint that `pulumi stack export --show-secrets` prints, and `stack import` reads, it is
 * `{sig, plaintext: JSON text}` (sdk/nodejs/runtime/rpc.ts `specialSigKey`; apitype secrets).
 */
import { isPlain, type Plain } from "./spec";

export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** `value` in the in-memory wrapper. */
export function asSecret(value: unknown): Plain {
    return { [SECRET_SIG_KEY]: SECRET_SIG, value };
}

/** `value` in the checkpoint's wrapper, for `pulumi stack import`. */
export function asStateSecret(value: unknown): Plain {
    return { [SECRET_SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/** Whether `value` is a secret in either wrapper. */
export function isSecretValue(value: unknown): value is Plain {
    return isPlain(value) && value[SECRET_SIG_KEY] === SECRET_SIG;
}

/** What a wrapper holds, in either form. */
function inside(secret: Plain): unknown {
    return typeof secret.plaintext === "string" ? JSON.parse(secret.plaintext) : secret.value;
}

/** `value` without the secret wrappers (either form), at any depth. */
export function revealed(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(revealed);
    if (!isPlain(value)) return value;
    if (isSecretValue(value)) return revealed(inside(value));
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, revealed(x)]));
}

/** `props` with the listed keys wrapped as secrets (in memory). */
export function markSecret(props: Plain, keys: ReadonlyArray<string>): Plain {
    const out: Plain = { ...props };
    for (const k of keys) if (out[k] !== undefined) out[k] = asSecret(out[k]);
    return out;
}

/** Every string in `value`, at any depth: what a secret holds, kept out of messages. */
export function stringsIn(value: unknown): string[] {
    if (typeof value === "string") return [value];
    if (Array.isArray(value)) return value.flatMap(stringsIn);
    return isPlain(value) ? Object.values(value).flatMap(stringsIn) : [];
}

/** Every string inside a secret wrapper in `value` (and a checkpoint wrapper's JSON text). */
export function secretStringsIn(value: unknown): string[] {
    if (Array.isArray(value)) return value.flatMap((x) => secretStringsIn(x));
    if (!isPlain(value)) return [];
    if (isSecretValue(value)) {
        const text = typeof value.plaintext === "string" ? [value.plaintext] : [];
        return [...text, ...stringsIn(revealed(value))];
    }
    return Object.values(value).flatMap((x) => secretStringsIn(x));
}
