// The component provider of provider-builtin-info-component: its outputs are the organization,
// project and stack that the engine's Construct call gives the provider.
import * as pulumi from "@pulumi/pulumi";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the component takes no inputs
export interface BuiltinInfoArgs {}

export class BuiltinInfo extends pulumi.ComponentResource {
    public readonly organization: pulumi.Output<string>;
    public readonly project: pulumi.Output<string>;
    public readonly stack: pulumi.Output<string>;

    constructor(name: string, args: BuiltinInfoArgs, opts?: pulumi.ComponentResourceOptions) {
        super("builtin-info-component:index:BuiltinInfo", name, args, opts);
        this.organization = pulumi.output(pulumi.getOrganization());
        this.project = pulumi.output(pulumi.getProject());
        this.stack = pulumi.output(pulumi.getStack());
        this.registerOutputs({ organization: this.organization, project: this.project, stack: this.stack });
    }
}
