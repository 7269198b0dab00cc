/**
 * A deployment-engine stand-in over one dynamic-provider plugin: it holds resource state the way
 * the Pulumi engine does and plans and runs each step the way the engine's step generator and
 * step executor do, so tests can drive resource lifecycles (up, preview, refresh, destroy, get,
 * import) against the REAL plugin.
 *
 * Every rule modelled here is listed, with the engine file and function it was read from and the
 * pulumi/pulumi commit that was read, in ./ENGINE-RULES.md; comments below cite a rule as
 * "R<n>" together with the file and function. Measured facts about the plugin are the "M" entries
 * of the same file.
 *
 * Concurrency (R4.1-R4.3): Check and Diff run one registration at a time, as the step generator
 * runs them on its one event loop; the steps that call the provider to change or read something
 * (Create, Update, Delete, Read, the import's Read, a refresh) run on a pool of `parallel`
 * workers. Callers may therefore call register/refresh/get concurrently, as the resource monitor
 * receives registrations concurrently.
 *
 * Not modelled: aliases, targets, plans, transforms, hooks, provider resources other than the
 * default one, dependent replacements (a delete-before-replace of a resource others depend on),
 * unknown provider config, import-replacement of a managed resource.
 */
import * as os from "node:os";
import {
    containsSecrets,
    dropUndefined,
    isRecord,
    isSecret,
    PluginError,
    secret,
    stripSecrets,
    UNKNOWN,
    urnFor,
    DEFAULT_PROJECT,
    DEFAULT_STACK,
    type CheckFailure,
    type DiffResult,
    type PropertyMap,
    type ProviderPlugin,
} from "./plugin";

export interface ResourceState {
    urn: string;
    type: string;
    name: string;
    id: string;
    /** Checked inputs, with the secret marks the engine keeps (see annotateSecrets). */
    inputs: PropertyMap;
    /** Outputs, secret-marked like the engine stores them. */
    outputs: PropertyMap;
    additionalSecretOutputs: string[];
    /** A read resource (`Resource.get`): not managed, never deleted (engine: State.External). */
    external: boolean;
    /** The id the `import` option imported (engine: State.ImportID); while the program keeps it, no re-import. */
    importId?: string;
    /** Reasons from a partial failure (engine: State.InitErrors); the next registration retries with an Update. */
    initErrors?: string[];
    /** The `protect` option (R5.5). */
    protect?: boolean;
    /** The `retainOnDelete` option (R5.4). */
    retainOnDelete?: boolean;
    /** The `ignoreChanges` option, kept for refresh's diff (R2.3). */
    ignoreChanges?: string[];
    /** The `replaceOnChanges` option (R5.3). */
    replaceOnChanges?: string[];
    /** Parent URN ("" or absent for a top-level resource); deletes wait for children (R4.5). */
    parent?: string;
    /** URNs this resource depends on; deletes wait for dependents (R4.5). */
    dependencies?: string[];
}

export type StepOp =
    "create" | "same" | "update" | "replace" | "import" | "preview-create" | "preview-update" | "preview-replace";

export interface StepResult {
    op: StepOp;
    /** "" for a resource that would be created in a preview. */
    id: string;
    /** Outputs as the engine hands them back to the SDK: secret-marked values stay wrapped (use stripSecrets). */
    outputs: PropertyMap;
    /** The provider's diff as it crossed the plugin (before "unknown" is resolved); absent for new resources. */
    diff?: DiffResult;
    /** Set when the `import` option imported the resource first (R1.2): `op` is then what followed the import. */
    imported?: boolean;
}

export interface RegisterOptions {
    /** `pulumi preview`: nothing is created, updated or deleted, and state is not changed. */
    preview?: boolean;
    /** The `additionalSecretOutputs` resource option. */
    additionalSecretOutputs?: string[];
    /** The `import` resource option: adopt an existing resource with this id. */
    importId?: string;
    /** The `deleteBeforeReplace` resource option; when set (true OR false) it overrides the provider's diff (R5.1). */
    deleteBeforeReplace?: boolean;
    /** The `ignoreChanges` resource option: top-level property names, or paths into objects ("a.b"). */
    ignoreChanges?: string[];
    /** The `replaceOnChanges` resource option. */
    replaceOnChanges?: string[];
    protect?: boolean;
    retainOnDelete?: boolean;
    parent?: string;
    dependencies?: string[];
    /** The URN the resource monitor computed (a child's URN carries its parent's type chain); default: a top-level URN. */
    urn?: string;
    /**
     * The engine deletes the old half of a create-before-delete replacement after all program
     * steps (R4.6). A single register call without this models a deployment of that one
     * registration, so the delete follows at once; a whole-program run sets it and calls
     * deletePending() once the program is done.
     */
    deferReplacedDelete?: boolean;
}

export type RefreshKind = "same" | "drift" | "deleted";

export interface RefreshResult {
    kind: RefreshKind;
    /** Outputs before the refresh, secrets stripped. */
    before?: PropertyMap;
    /** Outputs after the refresh, secrets stripped (absent when deleted). */
    after?: PropertyMap;
    /** The refresh diff (R2.3): Diff(olds = refreshed outputs, news = the old inputs). Absent for external or deleted resources. */
    diff?: DiffResult;
    /** Keys the refresh diff names (the engine's own comparison when the provider's diff was "unknown"). */
    changedKeys?: string[];
}

/** One resource of a `pulumi import --file` (R1.3). */
export interface ImportFileEntry {
    type: string;
    name: string;
    id: string;
    /** Inputs, `__provider` included for a dynamic resource. */
    inputs?: PropertyMap;
    /** The resource's whole state; when given, the provider's Read is skipped (3.254+). */
    outputs?: PropertyMap;
    /** `properties` of the entry: the input names to keep (default: all). */
    properties?: string[];
}

/** Check returned failures: the engine reports them and fails the step without any further call. */
export class CheckFailedError extends Error {
    override readonly name = "CheckFailedError";
    constructor(
        readonly urn: string,
        readonly failures: CheckFailure[],
    ) {
        super(
            `${urn}: one or more inputs failed to validate: ${failures.map((f) => `${f.property || "(resource)"}: ${f.reason}`).join("; ")}`,
        );
    }
}

/** The deployment was cancelled after a failed step: steps not yet started never run (R4.2). */
export class DeploymentCancelledError extends Error {
    override readonly name = "DeploymentCancelledError";
    constructor() {
        super("the deployment was cancelled after an earlier error");
    }
}

export interface EngineOptions {
    project?: string;
    stack?: string;
    /** Skip the Diff that a modern refresh makes after each Read (PULUMI_ENABLE_LEGACY_REFRESH_DIFF=true, R2.3). */
    legacyRefreshDiff?: boolean;
    /** `--parallel`: how many steps run at once. Default defaultParallelism() (R4.1). */
    parallel?: number;
    /** PULUMI_PARALLEL_DIFF=true: diffs run on the workers instead of one at a time (R4.2). */
    parallelDiff?: boolean;
}

/**
 * The CLI's default `--parallel` (R4.1, pkg/cmd/pulumi/operations/up.go defaultParallel):
 * PULUMI_PARALLEL when it is a positive integer, else 4 × GOMAXPROCS(0). Go 1.25 (the engine's
 * toolchain) sizes GOMAXPROCS by the CPUs the process may use; os.availableParallelism() is the
 * closest Node measure (it does not see a container's CPU quota).
 */
export function defaultParallelism(env: NodeJS.ProcessEnv = process.env): number {
    const raw = env.PULUMI_PARALLEL?.trim() ?? "";
    const p = /^\d+$/.test(raw) ? Number(raw) : 0;
    if (p > 0) return Math.min(p, 2 ** 31 - 1);
    return 4 * os.availableParallelism();
}

/** A bounded pool: at most `limit` tasks at once (the step executor's workers, R4.2). */
export class WorkerPool {
    private active = 0;
    private readonly waiting: { start: () => void; cancel: (e: Error) => void }[] = [];
    private cancelled: Error | undefined;
    /** The most tasks ever running at once (for tests of the stand-in). */
    peak = 0;

    constructor(readonly limit: number) {
        if (!Number.isInteger(limit) || limit < 1)
            throw new Error(`parallelism must be a positive integer, not ${limit}`);
    }

    async run<T>(task: () => Promise<T>): Promise<T> {
        await this.acquire();
        try {
            return await task();
        } finally {
            this.release();
        }
    }

    /** Tasks not yet started fail with `error`; running ones finish (engine: stepExecutor.cancelDueToError). */
    cancel(error: Error): void {
        this.cancelled ??= error;
        for (const w of this.waiting.splice(0)) w.cancel(error);
    }

    private acquire(): Promise<void> {
        if (this.cancelled) return Promise.reject(this.cancelled);
        if (this.active < this.limit) {
            this.active++;
            this.peak = Math.max(this.peak, this.active);
            return Promise.resolve();
        }
        return new Promise<void>((resolve, reject) =>
            this.waiting.push({
                start: () => {
                    this.active++;
                    this.peak = Math.max(this.peak, this.active);
                    resolve();
                },
                cancel: reject,
            }),
        );
    }

    private release(): void {
        this.active--;
        this.waiting.shift()?.start();
    }
}

/** One task at a time, in call order (the step generator's single event loop, R4.2). */
class SerialQueue {
    private tail: Promise<unknown> = Promise.resolve();
    run<T>(task: () => Promise<T>): Promise<T> {
        const p = this.tail.then(task);
        this.tail = p.catch(() => undefined);
        return p;
    }
}

/** What the step generator decided for one registration. */
type Planned =
    | { kind: "same"; old: ResourceState; inputs: PropertyMap; diff: DiffResult }
    | { kind: "create"; inputs: PropertyMap; replacingExternal?: ResourceState }
    | { kind: "update"; old: ResourceState; inputs: PropertyMap; diff: DiffResult }
    | { kind: "replace"; old: ResourceState; inputs: PropertyMap; diff: DiffResult; deleteBeforeReplace: boolean };

export class Engine {
    /** Resource state by URN, in registration order (the order destroyAll reverses). */
    readonly state = new Map<string, ResourceState>();
    /**
     * Resources the engine still has to delete (engine: State.Delete = true): the old halves of
     * create-before-delete replacements until the end of the deployment, or whose Delete failed.
     */
    readonly pendingDeletes: ResourceState[] = [];
    readonly project: string;
    readonly stack: string;
    readonly parallel: number;
    /** The step executor's workers; `workers.peak` shows how many steps ever ran at once. */
    readonly workers: WorkerPool;
    private readonly generator = new SerialQueue();
    private readonly legacyRefreshDiff: boolean;
    private readonly parallelDiff: boolean;
    private configuring: Promise<unknown> | undefined;

    constructor(
        readonly plugin: ProviderPlugin,
        opts: EngineOptions = {},
    ) {
        this.project = opts.project ?? DEFAULT_PROJECT;
        this.stack = opts.stack ?? DEFAULT_STACK;
        this.legacyRefreshDiff = opts.legacyRefreshDiff ?? false;
        this.parallelDiff = opts.parallelDiff ?? false;
        this.parallel = opts.parallel ?? defaultParallelism();
        this.workers = new WorkerPool(this.parallel);
    }

    urn(type: string, name: string): string {
        return urnFor(type, name, { project: this.project, stack: this.stack });
    }

    /** Steps not yet started fail; running ones finish (R4.2: a failed step cancels an update). */
    cancel(): void {
        this.workers.cancel(new DeploymentCancelledError());
    }

    /**
     * What `pulumi up` (or `preview`) does for one resource registration.
     * @param inputs as the SDK sends them: values possibly wrapped with secret(), `__provider`
     * included, unknowns (preview only) as UNKNOWN.
     */
    async register(type: string, name: string, inputs: PropertyMap, opts: RegisterOptions = {}): Promise<StepResult> {
        await this.ensureConfigured();
        const urn = opts.urn ?? this.urn(type, name);
        const preview = opts.preview ?? false;
        const news = clone(inputs);
        if (!preview && JSON.stringify(news).includes(UNKNOWN)) {
            // The SDK only registers with unknown values during a preview.
            throw new Error(`${urn}: unknown input values can only be registered in a preview`);
        }
        let old = this.state.get(urn);

        // R1.1 step_generator.go continueStepsFromRefresh: an import happens when the goal has an id
        // and there is no old resource, or it was external, or it was imported under another id.
        let imported = false;
        if (opts.importId !== undefined && (!old || old.external || (old.importId ?? old.id) !== opts.importId)) {
            if (old && !old.external) {
                throw new Error(`${urn}: import-replacement of a managed resource is not modelled by the stand-in`);
            }
            // step.go ImportStep.Apply runs on a worker, in preview as well: Read(id) and nothing else.
            old = await this.workers.run(() => this.importRead(urn, type, name, opts));
            imported = true;
            if (!preview) this.state.set(urn, old);
        }

        // The step generator: Check and Diff, one registration at a time (R4.2), unless diffs run
        // on the workers (PULUMI_PARALLEL_DIFF).
        const planned = await this.generator.run(() => this.plan(urn, news, old, opts));
        return this.workers.run(() => this.apply(urn, type, name, planned, opts, imported));
    }

    /**
     * `pulumi refresh` for one resource (R2, step.go RefreshStep.Apply), on a worker. Read(id, old
     * outputs, old inputs); id "" removes it from state; otherwise the read outputs, and the read
     * inputs when there are any, replace the stored ones. For a managed resource the engine then
     * diffs the refreshed state against the old inputs and reports a change only when that diff does.
     * A read that failed leaves the state as it was. A preview's refresh changes the state too:
     * the preview plans against it (R3); the program-level runner does not save it.
     */
    async refresh(urn: string): Promise<RefreshResult> {
        await this.ensureConfigured();
        return this.workers.run(async () => {
            const old = this.mustGet(urn);
            const before = stripSecrets(old.outputs);
            let id: string;
            let properties: PropertyMap;
            let readInputs: PropertyMap | undefined;
            let initErrors: string[] | undefined;
            try {
                const read = await this.plugin.read(urn, old.id, old.outputs, old.inputs);
                ({ id, properties, inputs: readInputs } = read);
            } catch (e) {
                // R2.4: a partial failure does not fail the refresh; its reasons become init errors.
                const failure = e instanceof PluginError ? e.initFailures[0] : undefined;
                if (!failure) throw e;
                ({ id, properties, reasons: initErrors } = failure);
            }
            if (id === "") {
                this.state.delete(urn);
                return { kind: "deleted", before };
            }
            // R2.5 provider_plugin.go Read: secret marks copied from what was sent, key by key.
            const inputs = readInputs ? annotateSecrets(readInputs, old.inputs) : old.inputs;
            const outputs = finalizeOutputs(
                annotateSecrets(properties, old.outputs),
                inputs,
                old.additionalSecretOutputs,
            );
            const refreshed: ResourceState = { ...old, id, inputs, outputs };
            // R2.4: a good read clears init errors (they are set from this read only).
            delete refreshed.initErrors;
            if (initErrors?.length) refreshed.initErrors = initErrors;
            this.state.set(urn, refreshed);

            const after = stripSecrets(outputs);
            if (old.external || this.legacyRefreshDiff) {
                // R2.3 RefreshStep.ResultOp: outputs only.
                return { kind: deepEqual(before, after) ? "same" : "drift", before, after };
            }
            // R2.3: Diff(oldInputs = refreshed inputs, olds = refreshed outputs, news = OLD inputs).
            const diff = await this.plugin.diff(urn, id, outputs, old.inputs, inputs);
            const resolved = resolveUnknown(diff, inputs, old.inputs, old.ignoreChanges ?? []);
            return {
                kind: resolved.changes === "none" ? "same" : "drift",
                before,
                after,
                diff,
                ...(resolved.changedKeys.length ? { changedKeys: resolved.changedKeys } : {}),
            };
        });
    }

    /**
     * `pulumi destroy`, or removing the resource from the program (R5, step.go DeleteStep.Apply):
     * a protected resource is refused; an external or retained one is only dropped from state;
     * otherwise Delete(id, outputs, inputs), then drop it.
     */
    async destroy(urn: string, opts: { preview?: boolean } = {}): Promise<void> {
        await this.ensureConfigured();
        await this.workers.run(async () => {
            const old = this.mustGet(urn);
            await this.deleteStep(old, { replacing: false, preview: opts.preview ?? false });
            if (!opts.preview) this.state.delete(urn);
        });
    }

    /**
     * `Resource.get(name, id)` (R7, step.go ReadStep.Apply): Read with the id and the program's
     * inputs sent as BOTH inputs and state; no Check, no Diff. Recorded as external: not managed,
     * never deleted. "does not exist" only when the provider answers with no properties at all,
     * which the dynamic-provider plugin never does (it always adds `__provider`): a missing id
     * succeeds, keeps the requested id, and the outputs hold nothing but `__provider`.
     */
    async get(
        type: string,
        name: string,
        id: string,
        inputs: PropertyMap,
        opts: { additionalSecretOutputs?: string[]; urn?: string; preview?: boolean; parent?: string } = {},
    ): Promise<ResourceState> {
        await this.ensureConfigured();
        const urn = opts.urn ?? this.urn(type, name);
        const old = this.state.get(urn);
        if (old && !old.external) {
            throw new Error(`${urn}: read-replacement of a managed resource is not modelled by the stand-in`);
        }
        return this.workers.run(async () => {
            const sent = clone(inputs);
            const read = await this.plugin.readWithReply(urn, id, sent, sent);
            if (read.properties === undefined) throw new Error(`resource '${id}' does not exist`);
            const aso = opts.additionalSecretOutputs ?? [];
            const state: ResourceState = {
                urn,
                type,
                name,
                id: read.id !== "" ? read.id : id,
                inputs: sent,
                outputs: finalizeOutputs(annotateSecrets(read.properties, sent), sent, aso),
                additionalSecretOutputs: aso,
                external: true,
                ...(opts.parent ? { parent: opts.parent } : {}),
            };
            if (!opts.preview) this.state.set(urn, state);
            return clone(state);
        });
    }

    /**
     * `pulumi import --file` for one entry (R1.3, step.go ImportStep.Apply with planned = true).
     * With `outputs` (3.254+) the supplied state is taken as is and no Read is made; without, the
     * Read carries the id only, which the dynamic-provider plugin cannot serve. Then Check(olds =
     * the imported inputs, news = the same inputs, or only `properties` of them): its failures are
     * warnings, returned here. The resource is recorded without an import id.
     */
    async importFromFile(
        entry: ImportFileEntry,
        opts: { preview?: boolean } = {},
    ): Promise<{ state: ResourceState; checkFailures: CheckFailure[] }> {
        await this.ensureConfigured();
        const urn = this.urn(entry.type, entry.name);
        if (this.state.has(urn)) throw new Error(`resource '${urn}' already exists`);
        return this.workers.run(async () => {
            let inputs: PropertyMap;
            let outputs: PropertyMap;
            let id = entry.id;
            if (entry.outputs && Object.keys(entry.outputs).length > 0) {
                inputs = clone(entry.inputs ?? {});
                outputs = clone(entry.outputs);
            } else {
                const read = await this.plugin.readWithReply(urn, entry.id);
                if (read.properties === undefined) throw new Error(`resource '${entry.id}' does not exist`);
                if (!read.inputs) throw new Error(noImportSupport());
                if (read.id !== "") id = read.id;
                inputs = mergeSuppliedProperties(read.inputs, clone(entry.inputs ?? {}));
                outputs = read.properties;
            }
            const news = entry.properties?.length
                ? Object.fromEntries(entry.properties.filter((k) => k in inputs).map((k) => [k, inputs[k]]))
                : { ...inputs };
            const check = await this.plugin.check(urn, inputs, news);
            const state: ResourceState = {
                urn,
                type: entry.type,
                name: entry.name,
                id,
                inputs: news,
                outputs: finalizeOutputs(outputs, news, []),
                additionalSecretOutputs: [],
                external: false,
            };
            if (!opts.preview) this.state.set(urn, state);
            return { state: clone(state), checkFailures: check.failures };
        });
    }

    /**
     * Deletes the resources still pending delete (old halves of replacements), as the engine does
     * after all program steps (R4.6); a failed delete stays pending.
     */
    async deletePending(): Promise<void> {
        await this.ensureConfigured();
        const pending = this.pendingDeletes.splice(0);
        const levels = scheduleDeletes(pending, pending);
        let first: unknown;
        for (const level of levels) {
            const results = await Promise.allSettled(
                level.map((res) => this.workers.run(() => this.deleteStep(res, { replacing: true, preview: false }))),
            );
            results.forEach((r, i) => {
                if (r.status === "rejected") {
                    this.pendingDeletes.push(level[i]);
                    first ??= r.reason;
                }
            });
            if (first !== undefined) {
                this.pendingDeletes.push(...levels.slice(levels.indexOf(level) + 1).flat());
                throw first;
            }
        }
    }

    /** `pulumi destroy`: pending deletes, then every resource, dependents first, a level at a time in parallel (R4.5). */
    async destroyAll(): Promise<void> {
        await this.deletePending();
        const all = [...this.state.values()];
        for (const level of scheduleDeletes(all, all)) {
            const results = await Promise.allSettled(level.map((r) => this.destroy(r.urn)));
            const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
            if (failed) throw failed.reason;
        }
    }

    /** A resource's outputs with every secret mark removed. */
    plainState(urn: string): PropertyMap {
        return stripSecrets(this.mustGet(urn).outputs);
    }

    /**
     * The whole state (resources and pending deletes) as JSON, with every secret-marked value
     * replaced by "[secret]": what would sit in a checkpoint without its encrypted parts. A secret
     * found in this text was stored unmarked.
     */
    unmarkedStateText(): string {
        return JSON.stringify(
            { resources: [...this.state.values()], pendingDeletes: this.pendingDeletes },
            (_key, value: unknown) => (isSecret(value) ? "[secret]" : value),
            2,
        );
    }

    // -----------------------------------------------------------------------------------------

    /** The engine configures every provider before using it; with no stack config, with {}. */
    private async ensureConfigured(): Promise<void> {
        if (this.plugin.configured) return;
        this.configuring ??= this.plugin.configure({});
        await this.configuring;
    }

    private mustGet(urn: string): ResourceState {
        const s = this.state.get(urn);
        if (!s) throw new Error(`no resource ${urn} in state`);
        return s;
    }

    /** R1.1 ImportStep.Apply: Read with the id only; no inputs, no state. */
    private async importRead(urn: string, type: string, name: string, opts: RegisterOptions): Promise<ResourceState> {
        const importId = opts.importId ?? "";
        const read = await this.plugin.readWithReply(urn, importId);
        if (read.properties === undefined) throw new Error(`resource '${importId}' does not exist`);
        if (!read.inputs) throw new Error(noImportSupport());
        // No secret marks can be copied: nothing was sent to copy them from.
        return {
            urn,
            type,
            name,
            id: read.id !== "" ? read.id : importId,
            inputs: read.inputs,
            outputs: read.properties,
            additionalSecretOutputs: [],
            external: false,
            importId,
            ...(opts.protect ? { protect: true } : {}),
            ...(opts.retainOnDelete ? { retainOnDelete: true } : {}),
        };
    }

    /** The step generator (R5, R6: step_generator.go continueStepsFromImport and continueStepsFromDiff). */
    private async plan(
        urn: string,
        news: PropertyMap,
        old: ResourceState | undefined,
        opts: RegisterOptions,
    ): Promise<Planned> {
        const ignoreChanges = opts.ignoreChanges ?? [];
        // R5.2 processIgnoreChanges: old values put back before Check.
        const inputs = old ? processIgnoreChanges(news, old.inputs, ignoreChanges) : news;
        const wasExternal = old?.external ?? false;
        if (!old || wasExternal) {
            // New, or taking over a read resource: Check without olds, on the program's inputs.
            const checked = await this.checkOrThrow(urn, {}, news);
            return { kind: "create", inputs: checked, ...(old ? { replacingExternal: old } : {}) };
        }
        // R6.3: Check(olds = the old inputs, news).
        const checked = await this.checkOrThrow(urn, old.inputs, inputs);

        const diff = this.parallelDiff
            ? await this.workers.run(() => this.plugin.diff(urn, old.id, old.outputs, checked, old.inputs))
            : await this.plugin.diff(urn, old.id, old.outputs, checked, old.inputs);
        const resolved = resolveUnknown(diff, old.inputs, checked, ignoreChanges);
        const hasInitErrors = (old.initErrors?.length ?? 0) > 0;
        // R5.3 applyReplaceOnChanges: only keys the diff names can turn into replacements, and the
        // plugin never sends changed keys; only an "unknown" answer, settled by the engine, has them.
        const replaces = [...diff.replaces];
        for (const key of resolved.changedKeys) {
            if (!replaces.includes(key) && (opts.replaceOnChanges ?? []).some((p) => p === "*" || p === key)) {
                replaces.push(key);
            }
        }
        let changes = resolved.changes;
        if (hasInitErrors && (opts.replaceOnChanges ?? []).some((p) => p === "*" || p === "#initerror")) {
            replaces.push("#initerror");
            changes = "some";
        }

        if (changes === "some" && replaces.length > 0) {
            if (opts.protect && old.protect) {
                // R5.5 continueStepsFromDiff: a protected resource is never replaced.
                throw new Error(
                    `unable to replace resource "${urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
                );
            }
            if (opts.importId !== undefined && !opts.preview) {
                throw new Error(
                    "previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program",
                );
            }
            // R6.4: the replacement is a new resource: Check again with no olds.
            const replacementInputs = await this.checkOrThrow(urn, {}, news);
            // R5.1: the option, when set, overrides the provider's answer.
            const deleteBeforeReplace = opts.deleteBeforeReplace ?? diff.deleteBeforeReplace;
            return { kind: "replace", old, inputs: replacementInputs, diff, deleteBeforeReplace };
        }
        // R6.2: unchanged but with init errors, an empty update retries initialisation.
        if (changes === "some" || hasInitErrors) return { kind: "update", old, inputs: checked, diff };
        return { kind: "same", old, inputs: checked, diff };
    }

    /** The step executor (R4.2): one planned step, on a worker. */
    private async apply(
        urn: string,
        type: string,
        name: string,
        planned: Planned,
        opts: RegisterOptions,
        imported: boolean,
    ): Promise<StepResult> {
        const preview = opts.preview ?? false;
        const aso = opts.additionalSecretOutputs ?? [];
        const record = (s: ResourceState): ResourceState => {
            const options: Partial<ResourceState> = {
                ...(opts.protect ? { protect: true } : {}),
                ...(opts.retainOnDelete ? { retainOnDelete: true } : {}),
                ...(opts.ignoreChanges?.length ? { ignoreChanges: opts.ignoreChanges } : {}),
                ...(opts.replaceOnChanges?.length ? { replaceOnChanges: opts.replaceOnChanges } : {}),
                ...(opts.parent ? { parent: opts.parent } : {}),
                ...(opts.dependencies?.length ? { dependencies: opts.dependencies } : {}),
                ...(opts.importId !== undefined ? { importId: opts.importId } : {}),
            };
            const out: ResourceState = { ...s, ...options, additionalSecretOutputs: aso };
            for (const k of ["protect", "retainOnDelete", "ignoreChanges", "replaceOnChanges"] as const) {
                if (!(k in options)) delete out[k];
            }
            return out;
        };
        const base = { urn, type, name, external: false, additionalSecretOutputs: aso };
        const extra = imported ? { imported: true } : {};

        switch (planned.kind) {
            case "same": {
                const { old } = planned;
                // R1.2: an import whose inputs match ends as the import step, nothing more.
                const outputs = finalizeOutputs(old.outputs, planned.inputs, aso);
                if (!preview) this.state.set(urn, record({ ...old, inputs: planned.inputs, outputs }));
                return { op: imported ? "import" : "same", id: old.id, outputs, diff: planned.diff };
            }
            case "create": {
                if (preview)
                    return {
                        op: "preview-create",
                        id: "",
                        outputs: finalizeOutputs(planned.inputs, planned.inputs, aso),
                    };
                // An old external resource is dropped from state once its replacement exists
                // (CreateReplacement + pending delete of a read resource: no Delete call).
                const created = await this.createStep(
                    urn,
                    record({ ...base, id: "", inputs: planned.inputs, outputs: {} }),
                );
                return { op: "create", id: created.id, outputs: created.outputs };
            }
            case "update": {
                const { old } = planned;
                if (preview) {
                    // provider_plugin.go Update: without supportsPreview, a preview returns the new
                    // inputs as outputs and does not call the plugin.
                    return {
                        op: "preview-update",
                        id: old.id,
                        outputs: finalizeOutputs(planned.inputs, planned.inputs, aso),
                        diff: planned.diff,
                        ...extra,
                    };
                }
                const outputs = await this.updateStep(old, record({ ...old, inputs: planned.inputs }));
                return { op: "update", id: old.id, outputs, diff: planned.diff, ...extra };
            }
            case "replace": {
                const { old } = planned;
                if (preview) {
                    return {
                        op: "preview-replace",
                        id: "",
                        outputs: finalizeOutputs(planned.inputs, planned.inputs, aso),
                        diff: planned.diff,
                    };
                }
                const fresh = record({ ...base, id: "", inputs: planned.inputs, outputs: {} });
                if (planned.deleteBeforeReplace) {
                    // One chain on one worker: DeleteReplacement, then CreateReplacement.
                    await this.deleteStep(old, { replacing: true, preview: false });
                    this.state.delete(urn);
                    const created = await this.createStep(urn, fresh);
                    return { op: "replace", id: created.id, outputs: created.outputs, diff: planned.diff };
                }
                // Create-before-delete: the old half is pending delete (R4.6).
                const created = await this.createStep(urn, fresh, old);
                if (!opts.deferReplacedDelete) {
                    // Already on a worker: delete here rather than through deletePending's pool.
                    this.pendingDeletes.splice(this.pendingDeletes.indexOf(old), 1);
                    try {
                        await this.deleteStep(old, { replacing: true, preview: false });
                    } catch (e) {
                        this.pendingDeletes.push(old);
                        throw e;
                    }
                }
                return { op: "replace", id: created.id, outputs: created.outputs, diff: planned.diff };
            }
        }
    }

    /** Check, then carry the secret marks of `news` over to the checked inputs (provider_plugin.go Check). */
    private async checkOrThrow(urn: string, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
        const res = await this.plugin.check(urn, olds, news);
        if (res.failures.length > 0) throw new CheckFailedError(urn, res.failures);
        return annotateSecrets(res.inputs, news);
    }

    /**
     * step.go CreateStep.Apply. A partial failure (PluginError with initFailures) records the
     * resource with the failure's id and properties and its reasons as init errors, then rethrows.
     * `replacing` is the old resource of a create-before-delete replacement: once the create got
     * as far as an id it is pending delete; if the create fails outright it stays untouched.
     */
    private async createStep(
        urn: string,
        next: ResourceState,
        replacing?: ResourceState,
    ): Promise<{ id: string; outputs: PropertyMap }> {
        let result;
        try {
            result = await this.plugin.create(urn, next.inputs);
        } catch (e) {
            const failure = e instanceof PluginError ? e.initFailures[0] : undefined;
            if (failure) {
                if (replacing) this.pendingDeletes.push(replacing);
                const outputs = finalizeOutputs(
                    annotateSecrets(failure.properties, next.inputs),
                    next.inputs,
                    next.additionalSecretOutputs,
                );
                this.state.set(urn, { ...next, id: failure.id, outputs, initErrors: failure.reasons });
            }
            throw e;
        }
        if (result.id === "") {
            // provider_plugin.go Create: an empty id fails the step and nothing is recorded,
            // although the provider did create something. M: a numeric id arrives as "".
            throw new Error(`plugin for package 'pulumi-nodejs' returned empty resource.ID from create '${urn}'`);
        }
        if (replacing) this.pendingDeletes.push(replacing);
        const outputs = finalizeOutputs(
            annotateSecrets(result.properties, next.inputs),
            next.inputs,
            next.additionalSecretOutputs,
        );
        const state = { ...next, id: result.id, outputs };
        delete state.initErrors;
        this.state.set(urn, state);
        return { id: result.id, outputs };
    }

    /**
     * step.go UpdateStep.Apply. A partial failure keeps the OLD inputs (R6.1, engine/update.go
     * OnResourceStepPost), takes the failure's properties as outputs and its reasons as init
     * errors, then rethrows; any other failure changes nothing.
     */
    private async updateStep(old: ResourceState, next: ResourceState): Promise<PropertyMap> {
        let result;
        try {
            result = await this.plugin.update(old.urn, old.id, old.outputs, next.inputs, old.inputs);
        } catch (e) {
            const failure = e instanceof PluginError ? e.initFailures[0] : undefined;
            if (failure) {
                const outputs = finalizeOutputs(
                    annotateSecrets(failure.properties, next.inputs),
                    old.inputs,
                    next.additionalSecretOutputs,
                );
                this.state.set(old.urn, { ...next, inputs: old.inputs, outputs, initErrors: failure.reasons });
            }
            throw e;
        }
        const outputs = finalizeOutputs(
            annotateSecrets(result.properties, next.inputs),
            next.inputs,
            next.additionalSecretOutputs,
        );
        const state = { ...next, outputs };
        delete state.initErrors;
        this.state.set(old.urn, state);
        return outputs;
    }

    /** step.go DeleteStep.Apply (R5.4, R5.5). */
    private async deleteStep(old: ResourceState, opts: { replacing: boolean; preview: boolean }): Promise<void> {
        if (!opts.replacing && old.protect) {
            throw new Error(
                `resource "${old.urn}" cannot be deleted\nbecause it is protected. To unprotect the resource, either remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\`, or use the command:\n\`pulumi state unprotect '${old.urn}'\``,
            );
        }
        if (opts.preview || old.external || old.retainOnDelete) return;
        await this.plugin.delete(old.urn, old.id, old.outputs, old.inputs);
    }
}

// ---------------------------------------------------------------------------------------------
// Engine-side property helpers
// ---------------------------------------------------------------------------------------------

function noImportSupport(): string {
    return "provider does not support importing resources; please try updating the 'pulumi-nodejs' plugin";
}

/**
 * provider_plugin.go annotateSecrets: for a provider that does not accept secrets, copy the
 * secretness of `ins` onto `outs` key by key: where both are objects recurse, otherwise if the
 * input contains a secret anywhere the whole output value is marked secret. Values the provider
 * itself returned secret-wrapped stay secret (the engine unmarshals results with KeepSecrets).
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
    const result: PropertyMap = { ...outs };
    for (const [key, inValue] of Object.entries(ins)) {
        if (!(key in result)) continue;
        const outValue = result[key];
        if (isPlainObject(outValue) && isPlainObject(inValue)) {
            result[key] = annotateSecrets(outValue, inValue);
        } else if (!isSecret(outValue) && containsSecrets(inValue)) {
            result[key] = secret(outValue);
        }
    }
    return result;
}

/**
 * step_executor.go continueExecuteStep, after every step with a new state (refreshes and reads
 * included): outputs named in additionalSecretOutputs are marked secret, and so is every
 * top-level output whose input of the same name is secret.
 */
export function finalizeOutputs(outputs: PropertyMap, inputs: PropertyMap, aso: string[]): PropertyMap {
    const result: PropertyMap = { ...outputs };
    for (const key of aso) {
        if (key !== "id" && key in result && !isSecret(result[key])) result[key] = secret(result[key]);
    }
    for (const [key, value] of Object.entries(result)) {
        if (!isSecret(value) && isSecret(inputs[key])) result[key] = secret(value);
    }
    return result;
}

/**
 * step.go mergeSuppliedProperties: a supplied value fills a gap (missing or null) in what was
 * read; a value supplied as secret keeps the read value secret.
 */
function mergeSuppliedProperties(read: PropertyMap, supplied: PropertyMap): PropertyMap {
    const merged: PropertyMap = { ...read };
    for (const [k, v] of Object.entries(supplied)) {
        const r = read[k];
        if (r === undefined || r === null) merged[k] = v;
        else if (isSecret(v) && !isSecret(r)) merged[k] = secret(r);
    }
    return merged;
}

/**
 * step_generator.go processIgnoreChanges: for each ignored path, the old value is put back (or the
 * property removed when it had none). Paths are top-level names or dotted paths into objects.
 */
export function processIgnoreChanges(inputs: PropertyMap, oldInputs: PropertyMap, paths: string[]): PropertyMap {
    const result = structuredClone(inputs);
    for (const p of paths) {
        const keys = p.split(".");
        let src: unknown = oldInputs;
        let dst: unknown = result;
        for (let i = 0; i < keys.length - 1; i++) {
            src = isRecord(src) ? src[keys[i]] : undefined;
            dst = isRecord(dst) ? dst[keys[i]] : undefined;
        }
        const last = keys[keys.length - 1];
        if (!isRecord(dst)) continue; // "cannot ignore changes in added or removed elements of the path"
        if (isRecord(src) && last in src) dst[last] = structuredClone(src[last]);
        else delete dst[last];
    }
    return result;
}

/**
 * step_generator.go diffResource: a DIFF_UNKNOWN answer (the plugin's answer when the provider has
 * no diff, or its diff returns `changes: undefined`) is settled by the engine comparing old and
 * new inputs (after ignoreChanges, secrets unwrapped); only then are changed keys known.
 */
function resolveUnknown(
    diff: DiffResult,
    oldInputs: PropertyMap,
    newInputs: PropertyMap,
    ignoreChanges: string[],
): { changes: "none" | "some"; changedKeys: string[] } {
    if (diff.changes !== "unknown") return { changes: diff.changes, changedKeys: [] };
    const a = stripSecrets(oldInputs);
    const b = stripSecrets(processIgnoreChanges(newInputs, oldInputs, ignoreChanges));
    const changedKeys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
        .filter((k) => !deepEqual(a[k] ?? null, b[k] ?? null))
        .sort();
    return { changes: changedKeys.length > 0 ? "some" : "none", changedKeys };
}

/**
 * step_generator.go ScheduleDeletes: the resources to delete in levels; each level may run in
 * parallel, and a resource is deleted only after every resource that depends on it (or is its
 * child) in the condemned set. `all` supplies the dependency edges of resources not condemned.
 */
export function scheduleDeletes<T extends Pick<ResourceState, "urn" | "parent" | "dependencies">>(
    condemned: T[],
    all: T[],
): T[][] {
    void all;
    const remaining = new Set(condemned);
    const levels: T[][] = [];
    // Bounded: every round removes at least one resource, or stops on a cycle.
    for (let round = 0; round < condemned.length && remaining.size > 0; round++) {
        const level: T[] = [];
        for (const res of remaining) {
            const dependents = [...remaining].some(
                (other) =>
                    other !== res &&
                    other.urn !== res.urn &&
                    ((other.dependencies ?? []).includes(res.urn) || other.parent === res.urn),
            );
            if (!dependents) level.push(res);
        }
        if (level.length === 0) {
            levels.push([...remaining]); // a cycle cannot happen in a valid state; do not loop forever
            break;
        }
        for (const r of level) remaining.delete(r);
        levels.push(level);
    }
    return levels;
}

/** An object that is neither an array nor a secret wrapper (engine: PropertyValue.IsObject). */
function isPlainObject(v: unknown): v is PropertyMap {
    return isRecord(v) && !isSecret(v);
}

/** Structural equality of JSON-like values, ignoring key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
    return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
    return JSON.stringify(v, (_k, x: unknown) =>
        isRecord(x)
            ? Object.fromEntries(
                  Object.keys(x)
                      .sort()
                      .map((k) => [k, x[k]]),
              )
            : x,
    );
}

function clone<T>(v: T): T {
    return structuredClone(dropUndefined(v)) as T;
}
