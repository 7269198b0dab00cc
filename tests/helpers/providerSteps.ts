/**
 * A named test double (issue 18): the steps of one resource, sent to the provider module in this
 * process as the dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`) calls it for the
 * engine: check, then diff, then create, update or a create-before-delete replace; read on refresh;
 * delete on destroy. It holds that one resource's inputs and outputs between steps, as state does.
 *
 * It models nothing else of the engine: no program, no secrets in state, no parallelism, no
 * partial-failure bookkeeping beyond keeping what a failed create or update reports. What only
 * the engine shows runs through the real pulumi CLI (tests/cli/program.test.ts). This double is for
 * what the provider itself does under each fault of the API: hundreds of cases that would take an
 * hour of CLI runs.
 */
import type * as ProviderModule from "pulumi-chatbot/providers/webhookConnection";
import { installedRequire } from "./support";

type Plain = Record<string, unknown>;
export type Provider = typeof ProviderModule;
export type Step = "create" | "same" | "update" | "replace";

/** The provider module of a resource, as the package installs it. */
export function providerModule(module: "webhookConnection" | "legacyWebhook"): Provider {
    return installedRequire(`pulumi-chatbot/providers/${module}`);
}

/** The engine's wrapper for a secret (sdk/nodejs/runtime/rpc.ts): the plugin unwraps it before
 *  the provider sees a value again, so this double does too. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
function unwrap(v: unknown): unknown {
    if (Array.isArray(v)) return v.map(unwrap);
    if (v && typeof v === "object") {
        const o = v as Plain;
        if (o[SIG_KEY] !== undefined) return unwrap(o.value);
        return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrap(x)]));
    }
    return v;
}

export class CheckFailed extends Error {
    constructor(readonly failures: Array<{ property: string; reason: string }>) {
        super(failures.map((f) => f.reason).join("; "));
    }
}

export class ResourceSteps {
    state?: { id: string; inputs: Plain; outputs: Plain };

    constructor(readonly provider: Provider) {}

    /** `pulumi up` of the resource declared with `news`. */
    async up(news: Plain): Promise<Step> {
        const checked = await this.check(this.state?.inputs ?? {}, news);
        if (!this.state) {
            await this.create(checked);
            return "create";
        }
        const diff = await this.provider.diff(this.state.id, this.state.outputs, checked);
        if (!diff.changes) return "same";
        if (diff.replaces.length === 0) {
            const { id, outputs } = this.state;
            try {
                const { outs } = await this.provider.update(id, outputs, checked);
                this.state = { id, inputs: checked, outputs: unwrap(outs) as Plain };
            } catch (e) {
                this.keepReported(e, checked);
                throw e;
            }
            return "update";
        }
        // A replacement is checked again with no old inputs, created, and then the old one deleted.
        const old = this.state;
        this.state = undefined;
        try {
            await this.create(await this.check({}, news));
        } catch (e) {
            this.state ??= old;
            throw e;
        }
        await this.provider.delete(old.id, old.outputs);
        return "replace";
    }

    /** `pulumi refresh`: the resource is dropped when the provider answers an empty id. */
    async refresh(): Promise<void> {
        if (!this.state) return;
        const read = await this.provider.read(this.state.id, this.state.outputs);
        this.state = read.id
            ? {
                  id: read.id,
                  inputs: unwrap(read.inputs ?? this.state.inputs) as Plain,
                  outputs: unwrap(read.props) as Plain,
              }
            : undefined;
    }

    /** `pulumi destroy`. */
    async destroy(): Promise<void> {
        if (!this.state) return;
        await this.provider.delete(this.state.id, this.state.outputs);
        this.state = undefined;
    }

    private async check(olds: Plain, news: Plain): Promise<Plain> {
        const { inputs, failures } = await this.provider.check(olds, news);
        if (failures.length > 0) throw new CheckFailed(failures);
        return inputs;
    }

    private async create(inputs: Plain): Promise<void> {
        try {
            const { id, outs } = await this.provider.create(inputs);
            this.state = { id, inputs, outputs: unwrap(outs) as Plain };
        } catch (e) {
            this.keepReported(e, inputs);
            throw e;
        }
    }

    /** A partial failure (an error with `id` and `properties`): the engine records them. */
    private keepReported(e: unknown, inputs: Plain): void {
        const { id, properties } = (e ?? {}) as { id?: string; properties?: Plain };
        if (id) this.state = { id, inputs, outputs: unwrap(properties ?? {}) as Plain };
    }
}
