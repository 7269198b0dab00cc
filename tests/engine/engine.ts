/**
 * A deployment-engine stand-in over one dynamic-provider plugin: it holds resource state the way
 * the Pulumi engine does and plans each step the way the engine's step generator does, so tests
 * can drive resource lifecycles (up, preview, refresh, destroy, get, import) one registration at a
 * time against the REAL plugin.
 *
 * Sources for the behaviour reproduced here:
 * - NOTES: /work/shared/reference/pulumi-engine-standin/NOTES.md (measured facts).
 * - engine: Pulumi's Go sources, pkg/resource/deploy/step_generator.go, step.go and
 *   sdk/go/common/resource/plugin/provider_plugin.go (read for this file).
 *
 * Not modelled: parents/dependencies (so no dependent replacements), aliases, ignoreChanges,
 * replaceOnChanges, protect, targets, parallelism, unknown provider config, plans.
 */
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
    /** Set when the resource came in through `import`; while the program keeps the same import id it is not re-imported. */
    importId?: string;
    /** Reasons from a partial failure (engine: State.InitErrors); the next registration retries with an Update. */
    initErrors?: string[];
}

export type StepOp =
    "create" | "same" | "update" | "replace" | "import" | "preview-create" | "preview-update" | "preview-replace";

export interface StepResult {
    op: StepOp;
    /** "" for a resource that would be created in a preview. */
    id: string;
    /** Outputs as the engine hands them back to the SDK: secret-marked values stay wrapped (use stripSecrets). */
    outputs: PropertyMap;
    /** Never set on success: Check failures throw CheckFailedError (the engine fails the step). */
    failures?: CheckFailure[];
    /** The provider's diff as it crossed the plugin (before "unknown" is resolved); absent for new resources. */
    diff?: DiffResult;
}

export interface RegisterOptions {
    /** `pulumi preview`: nothing is created, updated or deleted, and state is not changed. */
    preview?: boolean;
    /** The `additionalSecretOutputs` resource option. */
    additionalSecretOutputs?: string[];
    /** The `import` resource option: adopt an existing resource with this id. */
    importId?: string;
    /** The `deleteBeforeReplace` resource option; when set (true OR false) it overrides the provider's diff. */
    deleteBeforeReplace?: boolean;
    /** The URN the resource monitor computed (a child's URN carries its parent's type chain); default: a top-level URN. */
    urn?: string;
}

export interface RefreshResult {
    kind: "same" | "drift" | "deleted";
    /** Outputs before the refresh, secrets stripped. */
    before?: PropertyMap;
    /** Outputs after the refresh, secrets stripped (absent when deleted). */
    after?: PropertyMap;
    /**
     * The refresh diff the engine computes for a managed resource (engine: RefreshStep.Apply calls the
     * provider's Diff with olds = refreshed outputs, news = the old inputs, oldInputs = refreshed inputs,
     * unless PULUMI_ENABLE_LEGACY_REFRESH_DIFF is set). Absent for external or deleted resources.
     */
    diff?: DiffResult;
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

/** An import whose inputs do not match the resource read from the provider (the CLI's error). */
export class ImportMismatchError extends Error {
    override readonly name = "ImportMismatchError";
    constructor(
        readonly urn: string,
        readonly diff: DiffResult,
    ) {
        // engine (ImportStep.Apply): "inputs to import do not match the existing resource: <changed keys>";
        // the dynamic provider reports no changed keys, so the list is always empty.
        super("inputs to import do not match the existing resource: []");
    }
}

export interface EngineOptions {
    project?: string;
    stack?: string;
    /** Skip the Diff that a modern refresh makes after each Read (PULUMI_ENABLE_LEGACY_REFRESH_DIFF=true). */
    legacyRefreshDiff?: boolean;
}

export class Engine {
    /** Resource state by URN, in registration order (the order destroyAll reverses). */
    readonly state = new Map<string, ResourceState>();
    /**
     * Resources the engine still has to delete (engine: State.Delete = true), e.g. the old half of a
     * create-before-delete replacement whose Delete failed. destroyAll deletes them first.
     */
    readonly pendingDeletes: ResourceState[] = [];
    readonly project: string;
    readonly stack: string;
    private readonly legacyRefreshDiff: boolean;

    constructor(
        readonly plugin: ProviderPlugin,
        opts: EngineOptions = {},
    ) {
        this.project = opts.project ?? DEFAULT_PROJECT;
        this.stack = opts.stack ?? DEFAULT_STACK;
        this.legacyRefreshDiff = opts.legacyRefreshDiff ?? false;
    }

    urn(type: string, name: string): string {
        return urnFor(type, name, { project: this.project, stack: this.stack });
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
        const aso = opts.additionalSecretOutputs ?? [];
        const news = clone(inputs);
        if (!preview && JSON.stringify(news).includes(UNKNOWN)) {
            // The SDK only registers with unknown values during a preview.
            throw new Error(`${urn}: unknown input values can only be registered in a preview`);
        }
        const old = this.state.get(urn);

        // engine (step_generator.go): an import happens when the goal has an id and there is no old
        // resource, or it was external, or it was imported under a different id. Import skips the
        // step generator's Check: the ImportStep does its own Read/Check/Diff.
        if (opts.importId !== undefined && (!old || old.external || (old.importId ?? old.id) !== opts.importId)) {
            if (old && !old.external) {
                throw new Error(`${urn}: import-replacement of a managed resource is not modelled by the stand-in`);
            }
            return this.importResource(urn, type, name, news, opts.importId, aso, preview);
        }

        // Check(olds = prior inputs, or nothing for a new resource, news). A resource that was
        // external is created anew, so its old inputs are not considered (engine: wasExternal).
        const managedOld = old && !old.external ? old : undefined;
        const checked = await this.checkOrThrow(urn, managedOld?.inputs ?? {}, news);

        if (!managedOld) {
            if (preview) return { op: "preview-create", id: "", outputs: markOutputs(checked, aso) };
            // An old external resource is just dropped from state once its replacement exists
            // (engine: CreateReplacement + pending delete of a read resource = discard, no Delete call).
            const created = await this.createResource(urn, type, name, checked, aso, opts.importId);
            return { op: "create", id: created.id, outputs: created.outputs };
        }

        // Diff(id, olds = prior OUTPUTS, news = checked inputs, oldInputs = prior inputs).
        const diff = await this.plugin.diff(urn, managedOld.id, managedOld.outputs, checked, managedOld.inputs);
        const changes = resolveUnknown(diff, managedOld.inputs, checked);

        if (changes === "none" && !managedOld.initErrors?.length) {
            // engine (SameStep): keep id and outputs, take the new inputs. Nothing else is called.
            const outputs = markOutputs(managedOld.outputs, aso);
            if (!preview) {
                this.state.set(urn, { ...managedOld, inputs: checked, outputs, additionalSecretOutputs: aso });
            }
            return { op: "same", id: managedOld.id, outputs, diff };
        }

        if (changes === "none" || diff.replaces.length === 0) {
            // In-place update. Also taken with no changes when the old state has init errors: the
            // engine issues an empty update to retry initialisation (continueStepsFromDiff).
            if (preview) {
                // engine (provider_plugin.go Update): without supportsPreview, a preview returns the
                // new inputs as outputs and does not call the plugin.
                return { op: "preview-update", id: managedOld.id, outputs: markOutputs(checked, aso), diff };
            }
            const outputs = await this.updateResource(managedOld, checked, aso);
            return { op: "update", id: managedOld.id, outputs, diff };
        }

        // Replacement.
        if (opts.importId !== undefined && !preview) {
            throw new Error(
                `${urn}: previously-imported resources that still specify an ID may not be replaced; please remove the \`import\` declaration from your program`,
            );
        }
        // engine (continueStepsFromDiff): the replacement is a new resource, so Check runs again
        // with no olds to recompute defaults.
        const replacementInputs = await this.checkOrThrow(urn, {}, news);
        if (preview) return { op: "preview-replace", id: "", outputs: markOutputs(replacementInputs, aso), diff };

        const deleteBeforeReplace = opts.deleteBeforeReplace ?? diff.deleteBeforeReplace;
        if (deleteBeforeReplace) {
            await this.deleteResource(managedOld);
            this.state.delete(urn);
            const created = await this.createResource(urn, type, name, replacementInputs, aso, opts.importId);
            return { op: "replace", id: created.id, outputs: created.outputs, diff };
        }
        // Create-before-delete (the default). The engine deletes the old resource at the end of the
        // deployment; the stand-in does it right after the replacement exists.
        const created = await this.createResource(urn, type, name, replacementInputs, aso, opts.importId, managedOld);
        await this.deleteReplaced(managedOld);
        return { op: "replace", id: created.id, outputs: created.outputs, diff };
    }

    /**
     * `pulumi refresh` for one resource: Read(id, old outputs, old inputs). Id "" removes it from
     * state; otherwise outputs (and inputs, when read returns them) are replaced. For a managed
     * resource the engine then diffs the refreshed state against the old inputs (see RefreshResult.diff).
     */
    async refresh(urn: string): Promise<RefreshResult> {
        await this.ensureConfigured();
        const old = this.mustGet(urn);
        const before = stripSecrets(old.outputs);
        const read = await this.plugin.read(urn, old.id, old.outputs, old.inputs);
        if (read.id === "") {
            this.state.delete(urn);
            return { kind: "deleted", before };
        }
        // engine (provider_plugin.go Read): secretness is copied from what was sent.
        const outputs = markOutputs(annotateSecrets(read.properties, old.outputs), old.additionalSecretOutputs);
        const inputs = read.inputs ? annotateSecrets(read.inputs, old.inputs) : old.inputs;
        const refreshed: ResourceState = { ...old, id: read.id, inputs, outputs };
        delete refreshed.initErrors; // engine (RefreshStep.Apply): a successful read clears init errors
        this.state.set(urn, refreshed);

        let diff: DiffResult | undefined;
        if (!old.external && !this.legacyRefreshDiff) {
            diff = await this.plugin.diff(urn, refreshed.id, refreshed.outputs, old.inputs, refreshed.inputs);
        }
        const after = stripSecrets(outputs);
        return { kind: deepEqual(before, after) ? "same" : "drift", before, after, ...(diff ? { diff } : {}) };
    }

    /**
     * `pulumi destroy`, or removing the resource from the program: Delete(id, outputs, inputs), then
     * drop it from state. A read (external) resource is only dropped: the engine never deletes it.
     */
    async destroy(urn: string): Promise<void> {
        await this.ensureConfigured();
        const old = this.mustGet(urn);
        if (!old.external) await this.deleteResource(old);
        this.state.delete(urn);
    }

    /**
     * `Resource.get(name, id)`: Read with the id and only `inputs` (no properties), as the engine
     * does for a read resource; no Check, no Diff. Recorded as external: not managed, never deleted.
     * engine (ReadStep.Apply): no outputs back means "resource '<id>' does not exist". The engine
     * sources we read send the inputs as both `inputs` and `properties`; for the plugin that is the
     * same request, since it falls back to `inputs` only when `properties` is empty.
     */
    async get(
        type: string,
        name: string,
        id: string,
        inputs: PropertyMap,
        opts: { additionalSecretOutputs?: string[]; urn?: string } = {},
    ): Promise<ResourceState> {
        await this.ensureConfigured();
        const urn = opts.urn ?? this.urn(type, name);
        const old = this.state.get(urn);
        if (old && !old.external) {
            throw new Error(`${urn}: read-replacement of a managed resource is not modelled by the stand-in`);
        }
        const sent = clone(inputs);
        const read = await this.plugin.read(urn, id, undefined, sent);
        if (read.id === "") throw new Error(`resource '${id}' does not exist`);
        const aso = opts.additionalSecretOutputs ?? [];
        const state: ResourceState = {
            urn,
            type,
            name,
            id: read.id,
            inputs: sent,
            outputs: markOutputs(annotateSecrets(read.properties, sent), aso),
            additionalSecretOutputs: aso,
            external: true,
        };
        this.state.set(urn, state);
        return clone(state);
    }

    /** Deletes every managed resource, pending deletes first, then in reverse registration order; external ones are just dropped. */
    async destroyAll(): Promise<void> {
        await this.ensureConfigured();
        while (this.pendingDeletes.length > 0) {
            const res = this.pendingDeletes[this.pendingDeletes.length - 1];
            await this.deleteResource(res);
            this.pendingDeletes.pop();
        }
        for (const urn of [...this.state.keys()].reverse()) {
            await this.destroy(urn);
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
        if (!this.plugin.configured) await this.plugin.configure({});
    }

    private mustGet(urn: string): ResourceState {
        const s = this.state.get(urn);
        if (!s) throw new Error(`no resource ${urn} in state`);
        return s;
    }

    /** Check, then carry the secret marks of `news` over to the checked inputs (engine: Check with acceptSecrets=false). */
    private async checkOrThrow(urn: string, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
        const res = await this.plugin.check(urn, olds, news);
        if (res.failures.length > 0) throw new CheckFailedError(urn, res.failures);
        return annotateSecrets(res.inputs, news);
    }

    /**
     * Create and record. A partial failure (PluginError with initFailures) records the resource with
     * the id and properties of the failure, then rethrows (engine: CreateStep.Apply keeps the state
     * of a StatusPartialFailure). `replacing` is the old resource of a create-before-delete
     * replacement: if the create fails outright, it stays in state untouched.
     */
    private async createResource(
        urn: string,
        type: string,
        name: string,
        inputs: PropertyMap,
        aso: string[],
        importId: string | undefined,
        replacing?: ResourceState,
    ): Promise<{ id: string; outputs: PropertyMap }> {
        const base = {
            urn,
            type,
            name,
            inputs,
            additionalSecretOutputs: aso,
            external: false,
            ...(importId !== undefined ? { importId } : {}),
        };
        let result;
        try {
            result = await this.plugin.create(urn, inputs);
        } catch (e) {
            const failure = e instanceof PluginError ? e.initFailures[0] : undefined;
            if (failure) {
                if (replacing) this.pendingDeletes.push(replacing);
                const outputs = markOutputs(annotateSecrets(failure.properties, inputs), aso);
                this.state.set(urn, { ...base, id: failure.id, outputs, initErrors: failure.reasons });
            }
            throw e;
        }
        if (result.id === "") {
            // engine (provider_plugin.go Create): an empty id fails the step and nothing is recorded,
            // although the provider did create something. NOTES "outputs": a numeric id arrives as "".
            throw new Error(`plugin for package 'pulumi-nodejs' returned empty resource.ID from create '${urn}'`);
        }
        const outputs = markOutputs(annotateSecrets(result.properties, inputs), aso);
        this.state.set(urn, { ...base, id: result.id, outputs });
        return { id: result.id, outputs };
    }

    /** Update and record; a partial failure records the failure's properties, then rethrows. */
    private async updateResource(old: ResourceState, inputs: PropertyMap, aso: string[]): Promise<PropertyMap> {
        // A successful update clears old init errors; a partial failure replaces them.
        const next = (outputs: PropertyMap, initErrors?: string[]): ResourceState => {
            const state: ResourceState = { ...old, inputs, outputs, additionalSecretOutputs: aso };
            delete state.initErrors;
            return initErrors ? { ...state, initErrors } : state;
        };
        let result;
        try {
            result = await this.plugin.update(old.urn, old.id, old.outputs, inputs, old.inputs);
        } catch (e) {
            const failure = e instanceof PluginError ? e.initFailures[0] : undefined;
            if (failure) {
                this.state.set(
                    old.urn,
                    next(markOutputs(annotateSecrets(failure.properties, inputs), aso), failure.reasons),
                );
            }
            throw e;
        }
        const outputs = markOutputs(annotateSecrets(result.properties, inputs), aso);
        this.state.set(old.urn, next(outputs));
        return outputs;
    }

    private async deleteResource(res: ResourceState): Promise<void> {
        await this.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
    }

    /** Deletes the old half of a create-before-delete replacement; on failure it stays pending delete. */
    private async deleteReplaced(old: ResourceState): Promise<void> {
        try {
            await this.deleteResource(old);
        } catch (e) {
            this.pendingDeletes.push(old);
            throw e;
        }
    }

    /**
     * engine (ImportStep.Apply): Read(id) → Check(olds = read inputs, news) → Diff(olds = read outputs,
     * news = checked inputs, oldInputs = read inputs); any change fails the import (a warning in preview).
     *
     * The Read carries the program's inputs and no properties. The engine sources we could read
     * (step.go) send neither inputs nor properties, which the plugin cannot serve (it finds no
     * `__provider`: see the engine.test.ts "measured" case); SDK 3.268's fallback to `inputs` in
     * the plugin's read (NOTES "read") implies engines that send the inputs, modelled here.
     */
    private async importResource(
        urn: string,
        type: string,
        name: string,
        news: PropertyMap,
        importId: string,
        aso: string[],
        preview: boolean,
    ): Promise<StepResult> {
        const read = await this.plugin.read(urn, importId, undefined, news);
        if (read.id === "") throw new Error(`resource '${importId}' does not exist`);
        if (!read.inputs) {
            throw new Error(
                "provider does not support importing resources; please try updating the 'pulumi-nodejs' plugin",
            );
        }
        const id = read.id;
        const readInputs = annotateSecrets(read.inputs, news);
        // No secretness is copied onto the read outputs: the engine sent no state to copy it from.
        const readOutputs = read.properties;
        const checked = await this.checkOrThrow(urn, readInputs, news);
        const diff = await this.plugin.diff(urn, id, readOutputs, checked, readInputs);
        const changes = resolveUnknown(diff, readInputs, checked);
        if (changes !== "none" && !preview) throw new ImportMismatchError(urn, diff);
        const outputs = markOutputs(readOutputs, aso);
        if (!preview) {
            this.state.set(urn, {
                urn,
                type,
                name,
                id,
                inputs: checked,
                outputs,
                additionalSecretOutputs: aso,
                external: false,
                importId,
            });
        }
        return { op: "import", id, outputs, diff };
    }
}

// ---------------------------------------------------------------------------------------------
// Engine-side property helpers
// ---------------------------------------------------------------------------------------------

/**
 * engine (provider_plugin.go annotateSecrets): for a provider that does not accept secrets, copy
 * the secretness of `ins` onto `outs` key by key: where both are objects recurse, otherwise if the
 * input contains a secret anywhere the whole output value is marked secret.
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

/** engine (step executor): outputs named in additionalSecretOutputs are marked secret before they are stored. */
function markOutputs(outputs: PropertyMap, aso: string[]): PropertyMap {
    const result: PropertyMap = { ...outputs };
    for (const key of aso) {
        if (key in result && !isSecret(result[key])) result[key] = secret(result[key]);
    }
    return result;
}

/**
 * engine (step_generator.go diffResource): a DIFF_UNKNOWN answer (the plugin's answer when the
 * provider has no diff, or its diff returns `changes: undefined`) is settled by comparing old and
 * new inputs: any change means "some", none means "none".
 */
function resolveUnknown(diff: DiffResult, oldInputs: PropertyMap, newInputs: PropertyMap): "none" | "some" {
    if (diff.changes !== "unknown") return diff.changes;
    return deepEqual(oldInputs, newInputs) ? "none" : "some";
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
