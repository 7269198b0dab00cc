/**
 * The webhook contract's JSON Schema as the installed package ships it
 * (`pulumi-chatbot/webhook/schema/request.json`, `response.json`), judged by ajv (draft 2020-12,
 * strict): what a backend in another language gets from its own validator, for the tests that hold
 * it to the kit's zod schemas. Test tooling: not published.
 */
import { Ajv2020 } from "ajv/dist/2020";
import type { ValidateFunction } from "ajv";
import { installedRequire } from "./support";

export type ContractPart = "request" | "response";

/** The export path of each part. */
export const CONTRACT_PATHS: Record<ContractPart, string> = {
    request: "pulumi-chatbot/webhook/schema/request.json",
    response: "pulumi-chatbot/webhook/schema/response.json",
};

/** A part's schema, read through the package's `exports` as a user's require() reads it. */
export function contractSchema(part: ContractPart): Record<string, unknown> {
    return installedRequire(CONTRACT_PATHS[part]) as Record<string, unknown>;
}

const compiled = new Map<ContractPart, ValidateFunction>();

/** ajv's verdict on `value` (as JSON would carry it), with its messages when it refuses. */
export function contractVerdict(part: ContractPart, value: unknown): { ok: boolean; errors: string[] } {
    let check = compiled.get(part);
    if (!check) {
        // strict: a keyword ajv does not know, or a type a keyword cannot apply to, fails the compile.
        check = new Ajv2020({ strict: true, allErrors: true }).compile(contractSchema(part));
        compiled.set(part, check);
    }
    const ok = check(value);
    return { ok, errors: (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`) };
}
