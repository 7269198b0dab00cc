// The component provider of the provider-*-component tests: `Simple` takes a boolean and makes one
// simple:index:Resource with its negation as a child. The SDK's run-plugin serves the components
// this module exports, with a schema read from their TypeScript types (package.json names the
// package and its version).
import * as pulumi from "@pulumi/pulumi";

/** simple:index:Resource without an SDK for it: at the version of the program's own, so that both
 *  share one default provider. */
class SimpleResource extends pulumi.CustomResource {
    constructor(name: string, props: { value: pulumi.Input<boolean> }, opts: pulumi.CustomResourceOptions) {
        super("simple:index:Resource", name, props, { ...opts, version: "2.0.0" });
    }
}

export interface SimpleArgs {
    value: pulumi.Input<boolean>;
}

export class Simple extends pulumi.ComponentResource {
    public readonly value: pulumi.Output<boolean>;

    constructor(name: string, args: SimpleArgs, opts?: pulumi.ComponentResourceOptions) {
        super("conformance-component:index:Simple", name, args, opts);
        this.value = pulumi.output(args.value);
        new SimpleResource(`${name}-child`, { value: this.value.apply((v) => !v) }, { parent: this });
        this.registerOutputs({ value: this.value });
    }
}
