/**
 * `pulumi-chatbot recover`: brings a stack whose `pulumi up`, `destroy` or `refresh` was killed
 * back to what ChatBot holds, so the next `pulumi up` makes every declared connection once.
 * See docs/killed-runs.md.
 *
 * Why it exists (read in pulumi/pulumi v3.274.1, and tried): a killed run leaves its creates as
 * `pending_operations` of type `creating` in the checkpoint, with their whole inputs and no id
 * (pkg/backend/snapshot.go, doCreate). Nothing repairs them: a non-interactive `pulumi refresh`
 * keeps them, `pulumi up` creates them again (a second connection), and
 * `refresh --import-pending-creates` only drops them (pkg/cmd/pulumi/operations/refresh.go).
 *
 * What it does, in this order, and writes nothing until every read has succeeded:
 * 1. The lock, read from the state backend (a folder, PostgreSQL or S3: state/): a lock
 *    whose process is gone (on this machine) is removed with `pulumi cancel`, as Pulumi's own
 *    message says; a lock whose run may still be going (alive here, or from another machine
 *    without --cancel-lock) stops it.
 * 2. Each pending create of this package's types: the connections of its account that hold all
 *    its inputs (secrets included), made since the run that left them began (brokenRunBegan;
 *    where the API tells a creation time), and that no stack of the backend records, are its
 *    candidates. One candidate (or as many as there are pending creates with the same inputs,
 *    which are interchangeable): adopted. None: the create made nothing, and it is cleared.
 *    More: nothing is written, and the candidates are listed with how to choose
 *    (--adopt URN=ID, or --discard URN).
 * 3. The state is written with `pulumi stack import` (Pulumi's documented way to repair a stack),
 *    from memory through standard input: an adopted connection becomes a resource with its id;
 *    `stack import` drops every pending operation (cmd/pulumi/stack/io.go, SaveSnapshot).
 * 4. `pulumi refresh` reads every resource, the adopted ones and those an interrupted update or
 *    delete touched, so the state equals the API.
 * On a stack with no pending operation and no lock it does nothing: safe before every `up`.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseArgs } from "util";
import { ChatbotClient } from "../client/client";
import { printable, scrub, secretsOfUrl } from "../client/redact";
import { configKeys, resolveSettings, SettingsError } from "../config";
import { listAll, readOne } from "../resources/lookup";
import { differingKeys, inputKeys, isPlain, keysWhere, type AnySpec, type Plain } from "../resources/spec";
import { asStateSecret, revealed, secretStringsIn } from "../resources/secretWrapper";
import {
    checkedRun,
    idsOfStacks,
    PulumiFailed,
    pulumiOnPath,
    stackConfig,
    type CheckedRun,
    type PulumiRun,
} from "./pulumiCli";
import { managedResources, providerSettings, specOfType } from "./stackExport";
import { readLocks, type Lock, type StateBackend } from "./state";
import { openStateBackend } from "./state/open";

/** Exit codes: 0 done (or nothing to do); 1 a run may still hold the stack; 2 failed; 3 a
 *  pending create has several candidates and one must be chosen. Nothing is written on 1 and 3;
 *  on 2, what was written before the failure is printed (see Written). */
export const RECOVER_EXIT = { ok: 0, locked: 1, failed: 2, choose: 3 } as const;

export const RECOVER_USAGE = `Usage: pulumi-chatbot recover [options]

Repairs a stack after a killed \`pulumi up\`, \`destroy\` or \`refresh\`: adopts what each
interrupted create made in ChatBot (so the next up makes no second one), clears the creates that
made nothing, then runs \`pulumi refresh\`. Does nothing on a healthy stack: run it before every
\`pulumi up\` in a pipeline. Run it in the project's folder, with the \`pulumi\` on PATH.

Options:
  --stack NAME        the stack (default: the selected one)
  --cancel-lock       remove a lock left by a run on another machine (a cancelled CI job): only
                      when no other run of this stack can be going (one job at a time per stack)
  --adopt URN=ID      adopt connection ID for the pending create URN (when several candidates)
  --discard URN       clear the pending create URN without adopting anything
  --dry-run           say what would be done; write nothing
  -h, --help          show this help

The ChatBot token is the stack's (chatbot:token, or the explicit provider's), else CHATBOT_TOKEN.
Exit codes: 0 done or nothing to do; 1 the stack is locked by a run that may still be going
(nothing written); 2 failed: it prints what it wrote before failing (nothing; the dead run's lock
removed; or the state imported, with what was adopted and cleared) and the next step, and running
it again once the cause is fixed finishes the job; 3 a choice is needed (the candidates are
listed; nothing written).
`;

export interface RecoverIo {
    stdout(text: string): void;
    stderr(text: string): void;
    env: NodeJS.ProcessEnv;
    cwd: string;
    /** Runs `pulumi` (in cwd, with env). */
    pulumi: PulumiRun;
}

/** A resource state in a deployment (apitype.ResourceV3): the fields this command reads. */
type ResourceState = Plain & { urn: string; type: string; id?: string; inputs?: Plain; outputs?: Plain };
interface PendingOperation {
    resource: ResourceState;
    type: string;
}
interface Deployment extends Plain {
    resources?: ResourceState[];
    pending_operations?: PendingOperation[];
}

class RecoverError extends Error {
    constructor(
        message: string,
        readonly code: number = RECOVER_EXIT.failed,
    ) {
        super(message);
    }
}

interface Options {
    stack?: string;
    cancelLock: boolean;
    /** URN to the id --adopt chose. */
    chosen: Map<string, string>;
    discarded: Set<string>;
    dryRun: boolean;
    help: boolean;
}

/** The stack being recovered, and how to reach it. */
interface Target {
    project: string;
    stack: string;
    onStack: string[];
    run: CheckedRun;
    /** Undefined: the backend's locks cannot be read (Pulumi Cloud, Azure, Google Cloud Storage). */
    backend: StateBackend | undefined;
}

/** What the stack's state holds, read before anything is written. */
interface StackState {
    exported: { deployment?: Deployment };
    deployment: Deployment;
    pending: PendingOperation[];
    /** Undefined: the backend's locks cannot be read. */
    locks: Lock[] | undefined;
    fromConfig(key: string): string | undefined;
}

/** What this run has written so far, in order: printed after a failure, so that no one redoes
 *  it by hand, with the step that finishes the job. */
class Written {
    readonly lines: string[] = [];
    /** `stack import` succeeded: no pending operation is left, only the refresh is owed. */
    imported = false;

    add(line: string): void {
        this.lines.push(line);
    }

    afterFailure(stack: string): string {
        if (this.lines.length === 0) return "Nothing was changed.\n";
        const done = `Written before the failure:\n${this.lines.map((l) => `  ${l}\n`).join("")}`;
        if (this.imported) {
            return (
                `${done}The refresh did not finish: resources an interrupted update or delete touched may still ` +
                `show what they held before. Next, once the cause is fixed: \`pulumi refresh --stack ${stack} --yes\`, ` +
                `then \`pulumi up\` (\`pulumi-chatbot recover\` finds nothing left to repair, and exits 0).\n`
            );
        }
        return (
            `${done}The state is not repaired yet: its pending operations are as they were. Next, once the cause ` +
            `is fixed: \`pulumi-chatbot recover --stack ${stack}\` again (the removed lock is not needed again).\n`
        );
    }
}

export async function recover(argv: string[], io: RecoverIo): Promise<number> {
    /** Secret values the state and config hold: kept out of what other commands print (this
     *  command's own lines hold ids and URNs, never values, each through `printable`). */
    const secrets: string[] = secretsOfUrl(io.env.PULUMI_BACKEND_URL ?? "");
    const written = new Written();
    let target: Target | undefined;
    try {
        const options = parseOptions(argv);
        if (options.help) {
            io.stdout(RECOVER_USAGE);
            return RECOVER_EXIT.ok;
        }
        target = await openTarget(io, options, secrets);
        const locks = await readTheLock(target, options);
        await repairMetadata(target, io, written);
        const state = await readState(target, locks, secrets);
        if (state.pending.length === 0 && !locks?.length) {
            io.stdout(
                `pulumi-chatbot recover: stack ${target.stack} has no pending operation and no lock: nothing to do.\n`,
            );
            return RECOVER_EXIT.ok;
        }
        const { plan, others } = await planTheCreates(target, state, options, io.env);
        if (plan.window) io.stdout(`${plan.window}\n`);
        if (plan.choose.length > 0) {
            printChoices(plan, io);
            io.stdout(written.afterFailure(target.stack));
            return RECOVER_EXIT.choose;
        }
        printPlan(plan, others, io);
        if (options.dryRun) {
            // A cut-short metadata file (above) had to go for the state to be read at all.
            io.stdout(`--dry-run: nothing ${written.lines.length > 0 ? "else " : ""}was changed.\n`);
            return RECOVER_EXIT.ok;
        }
        await removeTheLock(target, state, options, io, written);
        if (state.pending.length > 0) {
            await importTheState(target, state, plan, options, written);
            await refresh(target);
        }
        io.stdout(
            `pulumi-chatbot recover: stack ${target.stack} recovered (${plan.adopt.length} adopted, ${plan.clear.length} cleared, ` +
                `${others.length} other pending operations left to refresh). Run \`pulumi up\` now.\n`,
        );
        return RECOVER_EXIT.ok;
    } catch (e) {
        const code = e instanceof RecoverError ? e.code : RECOVER_EXIT.failed;
        const message = e instanceof Error ? e.message : String(e);
        io.stderr(`pulumi-chatbot recover: ${scrub(message, secrets)}\n`);
        io.stderr(written.afterFailure(target?.stack ?? "<stack>"));
        return code;
    } finally {
        await target?.backend?.close();
    }
}

function parseOptions(argv: string[]): Options {
    const { values } = parseArgs({
        args: argv,
        options: {
            stack: { type: "string" },
            "cancel-lock": { type: "boolean" },
            adopt: { type: "string", multiple: true },
            discard: { type: "string", multiple: true },
            "dry-run": { type: "boolean" },
            help: { type: "boolean", short: "h" },
        },
        strict: true,
    });
    const chosen = new Map<string, string>();
    for (const pair of values.adopt ?? []) {
        const at = pair.lastIndexOf("=");
        if (at <= 0 || at === pair.length - 1) throw new RecoverError(`--adopt takes URN=ID, not ${pair}.`);
        chosen.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return {
        stack: values.stack,
        cancelLock: values["cancel-lock"] === true,
        chosen,
        discarded: new Set(values.discard ?? []),
        dryRun: values["dry-run"] === true,
        help: values.help === true,
    };
}

/** The project, the backend and the stack, found without loading the stack's checkpoint: a kill
 *  can leave it unloadable ("failed to load checkpoint: EOF") until repairMetadata. */
async function openTarget(io: RecoverIo, options: Options, secrets: string[]): Promise<Target> {
    const run = checkedRun(io.pulumi, secrets);
    const projectFile = readProjectFile(io.cwd);
    const project = /^name:\s*["']?([^"'\s#]+)/m.exec(projectFile.text)?.[1] ?? "";
    // `whoami` does not load the stack.
    const { url: backendUrl = "" } = JSON.parse(await run(["whoami", "--json"], "whoami")) as { url?: string };
    secrets.push(...secretsOfUrl(backendUrl));
    const stack = options.stack ?? selectedStack(io, { project, file: projectFile.file }, backendUrl);
    return { project, stack, onStack: ["--stack", stack], run, backend: openStateBackend(backendUrl, io.cwd, io.env) };
}

/** The lock, read first: a run that is still going must not be raced. */
async function readTheLock({ backend, project, stack }: Target, options: Options): Promise<Lock[] | undefined> {
    const locks = backend && (await readLocksOf(backend, project, stack));
    const live = locks?.find((l) => l.here && !l.gone);
    if (live) {
        throw new RecoverError(
            `The stack ${stack} is locked by a pulumi run of ${holder(live)}, started at ${printable(live.startedAt)}, ` +
                "which is still running on this machine: wait for it to end, then run this again " +
                "(--cancel-lock does not remove the lock of a live process).",
            RECOVER_EXIT.locked,
        );
    }
    const elsewhere = locks?.find((l) => !l.here);
    if (elsewhere && !options.cancelLock) {
        throw new RecoverError(
            `The stack ${stack} is locked by a pulumi run of ${holder(elsewhere)}, started at ${printable(elsewhere.startedAt)}, ` +
                "on another machine, which may still be going: nothing here can tell. Once you know it is gone (its CI job was cancelled or lost), " +
                "run this again with --cancel-lock. Never while that run is going.",
            RECOVER_EXIT.locked,
        );
    }
    return locks;
}

/** The one write before reading: without it the state cannot be read at all. */
async function repairMetadata({ backend, project, stack }: Target, io: RecoverIo, written: Written): Promise<void> {
    for (const file of backend ? await backend.repairMetadata(project, stack) : []) {
        io.stdout(
            `removed ${file}: a metadata file of the state that the kill left cut short (the state itself is whole)\n`,
        );
        written.add(`removed ${file}, a metadata file the kill left cut short`);
    }
}

/** The state's deployment, secrets in plaintext (kept in memory, never printed), and its config. */
async function readState({ run, onStack }: Target, locks: Lock[] | undefined, secrets: string[]): Promise<StackState> {
    const exported = JSON.parse(await run(["stack", "export", "--show-secrets", ...onStack], "stack export")) as {
        deployment?: Deployment;
    };
    const deployment: Deployment = exported.deployment ?? {};
    secrets.push(...secretStringsIn(deployment));
    const pending = deployment.pending_operations ?? [];
    const fromConfig = pending.length > 0 || locks?.length ? await stackConfig(run, onStack) : () => undefined;
    secrets.push(...[fromConfig(configKeys.token)].filter((s): s is string => s !== undefined));
    return { exported, deployment, pending, locks, fromConfig };
}

/** Decides each pending create of this package's types (reads only); the other pending
 *  operations are left to the refresh. */
async function planTheCreates(
    { run, onStack, project, stack }: Target,
    { deployment, pending, locks, fromConfig }: StackState,
    options: Options,
    env: NodeJS.ProcessEnv,
): Promise<{ plan: Plan; others: PendingOperation[] }> {
    const creates = pending.filter((op) => op.type === "creating" && specOf(op.resource) !== undefined);
    for (const urn of [...options.chosen.keys(), ...options.discarded]) {
        if (!creates.some((op) => op.resource.urn === urn)) {
            throw new RecoverError(
                `${printable(urn)} is not a pending create of this package's resources in stack ${stack}.`,
            );
        }
    }
    const plan: Plan = { adopt: [], clear: [], choose: [] };
    if (creates.length > 0) {
        const broken = await brokenRun(run, onStack, locks ?? [], deployment);
        plan.window = broken
            ? `the run that left the pending creates ${broken.from}: what ChatBot made since then can be theirs`
            : "when the run that left the pending creates began is not known: a connection with their inputs made before it can be taken for theirs";
        const since = broken?.began;
        const owned = await ownedIds(run, env, project, stack, deployment);
        const { chosen, discarded } = options;
        await planCreates({ creates, deployment, since, owned, chosen, discarded, fromConfig, env }, plan);
    }
    return { plan, others: pending.filter((op) => !creates.includes(op)) };
}

/** Who holds a lock, as its file says (another machine wrote it): printable. */
function holder(l: Lock): string {
    return `${printable(l.owner)} (pid ${printable(String(l.pid))})`;
}

/** An adopted connection as printed: its URN and id, printable. */
function adopted(a: Plan["adopt"][number]): string {
    return `${printable(a.op.resource.urn)} = ${printable(a.id)}`;
}

function printChoices(plan: Plan, io: RecoverIo): void {
    for (const c of plan.choose) {
        const urn = printable(c.urn);
        io.stdout(
            `${urn}: ${c.candidates.length} connections could be what this interrupted create made:\n` +
                c.candidates.map((id) => `  ${printable(id)}\n`).join("") +
                `Choose with --adopt ${urn}=<id> (and delete the others in the ChatBot dashboard if they are not yours), ` +
                `or --discard ${urn} to adopt none (the next up makes a new one).\n`,
        );
    }
}

function printPlan(plan: Plan, others: PendingOperation[], io: RecoverIo): void {
    for (const a of plan.adopt) io.stdout(`adopt ${adopted(a)}${a.why ? ` (${a.why})` : ""}\n`);
    for (const op of plan.clear) io.stdout(`clear ${printable(op.resource.urn)}: its create made nothing in ChatBot\n`);
    for (const op of others) {
        const note = specOf(op.resource)
            ? "refresh reads what it did"
            : "not a ChatBot resource: `pulumi stack import` drops it, and Pulumi keeps no record of what it made; check it by hand";
        io.stdout(`${printable(op.type)} ${printable(op.resource.urn)}: ${note}\n`);
    }
}

/** The first write: a dead run's lock, or one the caller vouched for with --cancel-lock. */
async function removeTheLock(
    { run, onStack }: Target,
    { locks, pending }: StackState,
    options: Options,
    io: RecoverIo,
    written: Written,
): Promise<void> {
    if (locks?.length) {
        await run(["cancel", "--yes", ...onStack], "cancel");
        for (const l of locks) {
            const line = `removed the lock of the run of ${holder(l)} started at ${printable(l.startedAt)}`;
            io.stdout(`${line}\n`);
            written.add(line);
        }
    } else if (locks === undefined && options.cancelLock && pending.length > 0) {
        // Pulumi Cloud, Azure, GCS: the lock cannot be read, and the caller vouched no run is going.
        await run(["cancel", "--yes", ...onStack], "cancel");
        io.stdout(
            "ran `pulumi cancel`: the backend's lock cannot be read here, and --cancel-lock says no run is going\n",
        );
        written.add("ran `pulumi cancel` (--cancel-lock)");
    }
}

/** The repaired state, written with `pulumi stack import` from memory: no pending operation is
 *  left in it. */
async function importTheState(
    { run, onStack }: Target,
    { exported, deployment, locks }: StackState,
    plan: Plan,
    options: Options,
    written: Written,
): Promise<void> {
    const repaired = { ...exported, deployment: withAdopted(deployment, plan) };
    try {
        await run(["stack", "import", ...onStack], "stack import", JSON.stringify(repaired));
    } catch (e) {
        if (!(e instanceof PulumiFailed) || locks !== undefined || options.cancelLock) throw e;
        throw new RecoverError(
            `${e.message}\nThis backend's lock cannot be read here, so a run that still holds the stack cannot be told ` +
                "from one that is gone. Once you know the interrupted run is gone, run this again with --cancel-lock.",
        );
    }
    written.imported = true;
    written.add(
        `imported the repaired state (${plan.adopt.length} adopted: ${plan.adopt.map(adopted).join(", ") || "none"}; ` +
            `${plan.clear.length} cleared): no pending operation is left`,
    );
}

/** The last step: `pulumi refresh` reads every resource, so the state equals the API. */
async function refresh({ run, onStack }: Target): Promise<void> {
    await run(["refresh", "--yes", "--skip-preview", ...onStack], "refresh");
}

/** The stack's locks; a backend that cannot be read fails the command (a run may be going). */
async function readLocksOf(backend: StateBackend, project: string, stack: string): Promise<Lock[]> {
    try {
        return await readLocks(backend, project, stack);
    } catch (e) {
        throw new RecoverError(
            `cannot read the stack's lock in the state backend: ${e instanceof Error ? e.message : String(e)}`,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Deciding

interface Plan {
    adopt: { op: PendingOperation; id: string; outputs: Plain; why?: string }[];
    clear: PendingOperation[];
    choose: { urn: string; candidates: string[] }[];
    /** When the run that left the pending creates began, as printed, where there are creates. */
    window?: string;
}

interface PlanInput {
    creates: PendingOperation[];
    deployment: Deployment;
    /** When the interrupted run began (ms), where known: what it made is not older. */
    since: number | undefined;
    /** Ids every stack of the backend records: never adopted. */
    owned: Set<string>;
    chosen: Map<string, string>;
    discarded: Set<string>;
    fromConfig(key: string): string | undefined;
    env: NodeJS.ProcessEnv;
}

/** The spec of a resource of this package's types (dynamic or native), else undefined. */
function specOf(r: ResourceState): AnySpec | undefined {
    return specOfType(r.type);
}

/** Decides each pending create; reads only. Creates with the same account, type and inputs are
 *  interchangeable, so they are decided together. */
async function planCreates(p: PlanInput, plan: Plan): Promise<void> {
    const groups = new Map<
        string,
        { spec: AnySpec; account: string; client: ChatbotClient; desired: Plain; ops: PendingOperation[] }
    >();
    const clients = new Map<string, ChatbotClient>();
    for (const op of p.creates) {
        if (p.discarded.has(op.resource.urn)) {
            plan.clear.push(op);
            continue;
        }
        const spec = specOf(op.resource) as AnySpec;
        const account = accountOf(op.resource, p);
        const key = JSON.stringify(account);
        let client = clients.get(key);
        if (!client) clients.set(key, (client = new ChatbotClient(account)));
        const desired = revealed(op.resource.inputs ?? {}) as Plain;
        const groupKey = JSON.stringify([key, spec.type, inputKeys(spec).map((k) => desired[k])]);
        const group = groups.get(groupKey) ?? { spec, account: key, client, desired, ops: [] };
        group.ops.push(op);
        groups.set(groupKey, group);
    }
    const lists = new Map<string, Promise<unknown[]>>();
    for (const { spec, account, client, desired, ops } of groups.values()) {
        const listKey = `${spec.type} ${account}`;
        if (!lists.has(listKey)) lists.set(listKey, listAll(client, spec));
        const listed = await lists.get(listKey)!;
        // On the API's clock (learnt from its Date header by the list just read), with its slack.
        const since = p.since === undefined ? undefined : p.since + client.clockOffsetMs - 2_000;
        const adoptIdOf = (op: PendingOperation) => revealed(op.resource.inputs?.adoptId) as string | undefined;
        const candidates: { id: string; outputs: Plain }[] = [];
        for (const item of listed) {
            const id = isPlain(item) && typeof item.id === "string" ? item.id : "";
            if (!id || p.owned.has(id) || !spec.created.matches(item, desired)) continue;
            const madeAt = spec.created.createdAt ? Date.parse(spec.created.createdAt(item)) : NaN;
            // A create with adoptId made nothing: its candidate is that id, whenever it was made.
            const adopting = ops.some((op) => adoptIdOf(op) === id);
            if (!adopting && since !== undefined && Number.isFinite(madeAt) && madeAt < since) continue;
            const outputs = await readOne(client, spec, id);
            if (outputs && differingKeys(spec, inputKeys(spec), outputs, desired).length === 0) {
                candidates.push({ id, outputs });
            }
        }
        const open: PendingOperation[] = [];
        for (const op of ops) {
            const id = p.chosen.get(op.resource.urn) ?? adoptIdOf(op);
            if (id === undefined) {
                open.push(op);
                continue;
            }
            const found = candidates.find((c) => c.id === id);
            const outputs = found?.outputs ?? (await readOne(client, spec, id));
            if (!outputs)
                throw new RecoverError(
                    `${printable(op.resource.urn)}: no ${spec.noun} ${printable(id)} exists in its account.`,
                );
            if (p.owned.has(id))
                throw new RecoverError(
                    `${printable(op.resource.urn)}: ${spec.noun} ${printable(id)} is managed by a stack.`,
                );
            if (found) candidates.splice(candidates.indexOf(found), 1);
            plan.adopt.push({ op, id, outputs, why: p.chosen.has(op.resource.urn) ? "chosen" : "its adoptId" });
        }
        if (candidates.length > open.length) {
            for (const op of open) plan.choose.push({ urn: op.resource.urn, candidates: candidates.map((c) => c.id) });
            continue;
        }
        open.forEach((op, i) => (candidates[i] ? plan.adopt.push({ op, ...candidates[i] }) : plan.clear.push(op)));
    }
}

/** The account a pending create wrote to (stackExport.ts, providerSettings), resolved. */
function accountOf(r: ResourceState, p: PlanInput) {
    const provider = typeof r.provider === "string" ? r.provider : "";
    try {
        return resolveSettings(p.env, providerSettings(provider, p.deployment.resources ?? [], p.fromConfig));
    } catch (e) {
        if (e instanceof SettingsError) throw new RecoverError(`${printable(r.urn)}: ${e.message}`);
        throw e;
    }
}

/** A run as `pulumi stack history --json` lists it (updateInfoJSON, pkg/cmd/pulumi/stack/stack_history.go). */
export interface HistoryEntry {
    kind?: string;
    startTime?: string;
    endTime?: string;
    result?: string;
}

/** What tells when the run that left the pending creates began. */
export interface RunEvidence {
    /** When each lock left on the stack was taken. */
    lockStarts: string[];
    /** The stack's history, in any order. */
    history: HistoryEntry[];
    /** The checkpoint's `manifest.time`: when it was last written. */
    lastWrite: string | undefined;
}

/** When the run that left the pending creates began (ms), and what says so (printed). */
export interface BrokenRun {
    began: number;
    from: string;
}

/** History times are whole seconds, rounded down: compared with the checkpoint's, this slack. */
const HISTORY_SLACK_MS = 1_000;

/**
 * The one rule for which run left the pending creates; what it made is adopted from its start.
 * Read in pulumi v3.274.1:
 * - a create stays pending only when its run stopped writing the checkpoint before the create
 *   ended: a run killed (no history entry; a DIY backend keeps its lock until `pulumi cancel`,
 *   Pulumi Cloud its update "in-progress"), or one whose checkpoint writes the backend refused,
 *   past the CLI's retries (pkg/backend/diy/state.go, saveCheckpoint): that run ends by itself,
 *   writes its history entry, "failed", with its start, and removes its lock
 *   (pkg/backend/diy/backend.go, apply);
 * - every later run carries pending creates over unchanged, whatever its result
 *   (SnapshotManager.Snap, pkg/backend/snapshot.go): later entries, even succeeded ones, do not
 *   clear them;
 * - the run that recorded them wrote the checkpoint after it began; one that began after its last
 *   write (`manifest.time`) did not (a second run whose writes were refused too).
 * So: the newest run that began by the last write and did not succeed, a lock's or an `update`
 * whose entry is not "succeeded"; else a killed run whose lock was removed by hand, which began
 * after the newest entry that ended before the last write; else unknown.
 */
export function brokenRunBegan({ lockStarts, history, lastWrite }: RunEvidence): BrokenRun | undefined {
    const written = Date.parse(lastWrite ?? "");
    const last = Number.isFinite(written) ? written : Infinity;
    const wrote = (began: number) => Number.isFinite(began) && began <= last + HISTORY_SLACK_MS;
    const at = (ms: number) => new Date(ms).toISOString();
    const locked = lockStarts.map((t) => Date.parse(t)).filter(wrote);
    if (locked.length > 0) {
        const began = Math.min(...locked); // two runs at once leave two locks: the earlier
        return { began, from: `began at ${at(began)} (its lock)` };
    }
    const started = (h: HistoryEntry) => Date.parse(h.startTime ?? "");
    const [failed] = history
        .filter((h) => h.kind === "update" && h.result !== "succeeded" && wrote(started(h)))
        .sort((x, y) => started(y) - started(x));
    if (failed) {
        const why = `its history entry: update ${printable(failed.result ?? "")}`;
        return { began: started(failed), from: `began at ${at(started(failed))} (${why})` };
    }
    const ends = history.map((h) => Date.parse(h.endTime ?? "")).filter((end) => end + HISTORY_SLACK_MS <= last);
    if (ends.length === 0) return undefined;
    const after = Math.max(...ends);
    return { began: after, from: `began after ${at(after)} (the end of the run before it; its lock was removed)` };
}

/** The evidence of the run that left the pending creates, read (`pulumi stack history`). */
async function brokenRun(
    run: CheckedRun,
    onStack: string[],
    locks: Lock[],
    deployment: Deployment,
): Promise<BrokenRun | undefined> {
    const history = JSON.parse(
        (await run(["stack", "history", "--json", ...onStack], "stack history")) || "[]",
    ) as HistoryEntry[];
    const manifest = isPlain(deployment.manifest) ? deployment.manifest : {};
    const lastWrite = typeof manifest.time === "string" ? manifest.time : undefined;
    return brokenRunBegan({ lockStarts: locks.map((l) => l.startedAt), history, lastWrite });
}

/** The ids of this package's resources that any stack of the backend records (this stack's and
 *  every other's): another stack's connection is never adopted. */
async function ownedIds(
    run: CheckedRun,
    env: NodeJS.ProcessEnv,
    project: string,
    stack: string,
    deployment: Deployment,
): Promise<Set<string>> {
    const owned = new Set(managedResources(JSON.stringify({ deployment }), `stack ${stack}`).map((r) => r.id));
    const others = await idsOfStacks(
        run,
        env,
        // `stack ls --all` names stacks of other projects `<org>/<project>/<stack>`, this project's by name.
        (name) => name === stack || name.endsWith(`/${project}/${stack}`),
    );
    for (const id of others) owned.add(id);
    return owned;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** `deployment` with each adopted connection as a resource with its id and outputs (secrets as
 *  secrets). A pending create that replaced a resource of the same URN marks the old one for
 *  deletion, as the engine does when a replacement is made, so the next up deletes it. */
function withAdopted(deployment: Deployment, plan: Plan): Deployment {
    const out: ResourceState[] = (deployment.resources ?? []).map((r) => ({ ...r }));
    for (const { op, id, outputs } of plan.adopt) {
        const spec = specOf(op.resource) as AnySpec;
        for (const old of out) if (old.urn === op.resource.urn && old.delete !== true) old.delete = true;
        const secretKeys = keysWhere(spec, "secret");
        const outs: Plain = {};
        for (const [k, v] of Object.entries(outputs)) outs[k] = secretKeys.includes(k) ? asStateSecret(v) : v;
        const provider = op.resource.inputs?.__provider;
        if (provider !== undefined) outs.__provider = provider;
        out.push({ ...op.resource, id, outputs: outs });
    }
    return { ...deployment, resources: out, pending_operations: [] };
}

// ---------------------------------------------------------------------------------------------
// The project and the stack

function readProjectFile(cwd: string): { file?: string; text: string } {
    for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
        const file = path.join(cwd, name);
        if (fs.existsSync(file)) return { file, text: fs.readFileSync(file, "utf8") };
    }
    return { text: "" };
}

/**
 * The stack `pulumi` would pick with no `--stack`, found as the CLI finds it but without loading
 * the stack (`pulumi stack --show-name` loads its checkpoint, which a kill may have left
 * unloadable until the repair): `PULUMI_STACK`, else the workspace file that `pulumi stack select`
 * writes, `<PULUMI_HOME>/workspaces/<project>-<sha1 of the project file's real path>-workspace.json`,
 * its `stacks[<backend URL>]`, or its older single `stack` (read in pkg/v3 v3.274.1:
 * backend/state/stacks.go getCurrentStackName, workspace/workspace.go settingsPath).
 */
function selectedStack(
    io: RecoverIo,
    { project, file }: { project: string; file?: string },
    backendUrl: string,
): string {
    const fromEnv = io.env.PULUMI_STACK;
    if (fromEnv) return fromEnv;
    const home = io.env.PULUMI_HOME || path.join(os.homedir(), ".pulumi");
    const settings: { stack?: string; stacks?: Record<string, string> } = {};
    for (const projectFile of file ? [realPath(file), file] : []) {
        const hash = createHash("sha1").update(projectFile).digest("hex");
        const at = path.join(home, "workspaces", `${project}-${hash}-workspace.json`);
        if (!fs.existsSync(at)) continue;
        Object.assign(settings, JSON.parse(fs.readFileSync(at, "utf8")));
        break;
    }
    const entries = settings.stacks ?? {};
    const name = Object.keys(entries).length > 0 ? entries[backendUrl] : settings.stack;
    if (!name) {
        throw new RecoverError(
            "No stack is selected for this project and backend: pass --stack NAME (or select one with `pulumi stack select`).",
        );
    }
    return name;
}

function realPath(file: string): string {
    try {
        return fs.realpathSync(file);
    } catch {
        return file;
    }
}

/** The real command's I/O: `pulumi` from PATH, in the current folder. */
export function processIo(): RecoverIo {
    return {
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
        env: process.env,
        cwd: process.cwd(),
        pulumi: pulumiOnPath(),
    };
}
