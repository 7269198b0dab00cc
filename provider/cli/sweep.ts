/**
 * `pulumi-chatbot sweep`: deletes the v2 connections and legacy webhooks of an account whose names
 * start with a prefix: what a killed test run left behind (the acceptance tier, tests/live, names
 * everything it makes `pcb-acc-<run id>-...`), as Terraform providers' sweepers do. Nothing else
 * is read beyond the list reads, and nothing else is changed. Settings as `discover` reads them.
 * Names and ids are the account's, anyone's with its dashboard: they print through `shown` and
 * `printable`, with nothing a terminal acts on.
 */
import { parseArgs } from "util";
import { ChatbotClient } from "../client/client";
import { AuthenticationError, ChatbotApiError } from "../client/errors";
import { printable, shown } from "../client/redact";
import { envVars } from "../config";
import { commandClient } from "./apiClient";
import { listAll } from "../resources/lookup";
import { resources } from "../resources/registry";
import { deleteVerified } from "../resources/writes";
import type { Io } from "./discover";
import { EXIT } from "./discover";

export const SWEEP_USAGE = `Usage: pulumi-chatbot sweep --prefix <prefix> [options]

Deletes every webhook connection and legacy webhook whose name starts with <prefix>, and prints
each. It refuses to run without a prefix. The developer access token is read from ${envVars.token};
the API address from ${envVars.apiUrl} or --api-url (default https://api.chatbot.com).

Options:
  --prefix PREFIX          required, not empty: only names that start with it
  --older-than DURATION    only those created longer ago than DURATION (30s, 15m, 6h, 7d), by
                           the API's createdAt. Legacy webhooks have none in the list read: with
                           this option they are left alone, and each is named as skipped.
  --dry-run                print what would be deleted; delete nothing
  --api-url URL            the ChatBot API address
  -h, --help               show this help

Exit codes: 0 done, 2 failed.
`;

export interface SweepOptions {
    /** Names that start with it; never empty. */
    prefix: string;
    /** Only items created longer ago than this (ms), by the API's clock. */
    olderThanMs?: number;
    dryRun?: boolean;
}

/** One item of the account, as the list read names it. */
export interface SweepItem {
    noun: string;
    id: string;
    name: string;
}

/** Lists every resource of the account, and deletes (or with `dryRun`, names) those `options`
 *  select, one at a time, each delete verified by a read. `say` gets one line per item. */
export async function sweepAccount(
    client: ChatbotClient,
    options: SweepOptions,
    say: (line: string) => void,
): Promise<{ deleted: SweepItem[]; skipped: SweepItem[] }> {
    if (options.prefix === "") throw new Error("sweep needs a prefix that is not empty");
    const deleted: SweepItem[] = [];
    const skipped: SweepItem[] = [];
    for (const spec of resources) {
        const listed = (await listAll(client, spec)) as Array<{ id: string; name: string }>;
        for (const item of listed.filter((i) => i.name.startsWith(options.prefix))) {
            const found = { noun: spec.noun, id: item.id, name: item.name };
            const label = `${spec.noun} ${shown(item.name)} (${printable(item.id)})`;
            if (options.olderThanMs !== undefined) {
                const createdAt = spec.created.createdAt?.(item);
                if (createdAt === undefined) {
                    skipped.push(found);
                    say(`skipped ${label}: the list read gives no createdAt, and --older-than was given`);
                    continue;
                }
                // The API's clock, as the client learnt it from the answers' Date header.
                if (Date.now() + client.clockOffsetMs - Date.parse(createdAt) < options.olderThanMs) continue;
            }
            if (!options.dryRun) {
                const path = `${spec.path}/${encodeURIComponent(item.id)}`;
                await deleteVerified(path, `delete ${label}`, [], spec.envelopes.delete, client);
            }
            deleted.push(found);
            say(`${options.dryRun ? "would delete" : "deleted"} ${label}`);
        }
    }
    return { deleted, skipped };
}

/** `30s`, `15m`, `6h`, `7d` in ms; undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
    const m = /^(\d+)(s|m|h|d)$/.exec(text);
    if (!m) return undefined;
    return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"];
}

export async function sweep(argv: string[], io: Pick<Io, "stdout" | "stderr" | "env">): Promise<number> {
    const fail = (message: string) => {
        io.stderr(`pulumi-chatbot sweep: ${message}\n`);
        return EXIT.failed;
    };
    let values;
    try {
        ({ values } = parseArgs({
            args: argv,
            strict: true,
            allowPositionals: false,
            options: {
                prefix: { type: "string" },
                "older-than": { type: "string" },
                "dry-run": { type: "boolean" },
                "api-url": { type: "string" },
                help: { type: "boolean", short: "h" },
            },
        }));
    } catch (e) {
        return fail(`${e instanceof Error ? e.message : String(e)}\n\n${SWEEP_USAGE}`);
    }
    if (values.help) {
        io.stdout(SWEEP_USAGE);
        return EXIT.ok;
    }
    // Without a prefix every connection of the account would match.
    if (values.prefix === undefined || values.prefix.trim() === "") {
        return fail("refusing to run without --prefix (not empty): it would delete every connection of the account.");
    }
    let olderThanMs: number | undefined;
    if (values["older-than"] !== undefined) {
        olderThanMs = parseDuration(values["older-than"]);
        if (olderThanMs === undefined)
            return fail(
                `--older-than must be a whole number and s, m, h or d (15m, 7d), not ${JSON.stringify(values["older-than"])}.`,
            );
    }
    const client = commandClient(io.env, values["api-url"]);
    if (!(client instanceof ChatbotClient)) return fail(client.error);
    try {
        const { deleted, skipped } = await sweepAccount(
            client,
            { prefix: values.prefix, olderThanMs, dryRun: values["dry-run"] },
            (line) => io.stdout(`${line}\n`),
        );
        const verb = values["dry-run"] ? "would delete" : "deleted";
        io.stderr(
            `sweep: ${verb} ${deleted.length} named ${JSON.stringify(values.prefix)}...` +
                `${skipped.length > 0 ? `, skipped ${skipped.length}` : ""} at ${client.apiUrl}.\n`,
        );
        return EXIT.ok;
    } catch (e) {
        if (e instanceof AuthenticationError)
            return fail(`the ChatBot API at ${client.apiUrl} rejected the developer access token (HTTP 401).`);
        if (e instanceof ChatbotApiError) return fail(e.message);
        throw e;
    }
}
