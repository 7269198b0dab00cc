// policy-resource-metadata: each policy looks for one piece of what the engine tells a policy about
// a resource besides its properties, and reports the one resource of the program that has it, so
// that each fires exactly once. Dependencies are only given to stack policies.
import {
    PolicyPack,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    StackValidationArgs,
} from "@pulumi/policy";

const simple = "simple:index:Resource";

/** A resource policy that reports the resource for which `has` holds. */
function resourcePolicy(name: string, has: (args: ResourceValidationArgs) => boolean) {
    return {
        name,
        description: `Reports the resource with ${name}`,
        enforcementLevel: "advisory" as const,
        validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
            if (args.type === simple && has(args)) {
                reportViolation(`${args.name} has ${name}`);
            }
        },
    };
}

/** A stack policy that reports the resource named `target` when `has` holds of it. */
function stackPolicy(name: string, target: string, has: (resource: PolicyResource) => boolean) {
    return {
        name,
        description: `Reports the resource with ${name}`,
        enforcementLevel: "advisory" as const,
        validateStack: (args: StackValidationArgs, reportViolation: ReportViolation) => {
            for (const r of args.resources) {
                if (r.name === target && has(r)) {
                    reportViolation(`${r.name} has ${name}`, r.urn);
                }
            }
        },
    };
}

const dependsOnDependency = (list: PolicyResource[] | undefined) => (list ?? []).some((d) => d.name === "dependency");

new PolicyPack("resource-metadata", {
    policies: [
        resourcePolicy(
            "name-type-urn-props",
            (args) =>
                args.name === "identity" && args.urn.endsWith(`::${simple}::identity`) && args.props.value === true,
        ),
        resourcePolicy("protect", (args) => args.opts.protect),
        resourcePolicy("ignore-changes", (args) => args.opts.ignoreChanges.includes("value")),
        resourcePolicy("delete-before-replace", (args) => args.opts.deleteBeforeReplace === true),
        resourcePolicy("additional-secret-outputs", (args) => args.opts.additionalSecretOutputs.includes("value")),
        resourcePolicy("custom-timeouts", (args) => args.opts.customTimeouts.createSeconds === 300),
        resourcePolicy("provider", (args) => args.provider?.name === "prov"),
        resourcePolicy("parent", (args) => args.opts.parent?.endsWith(`::${simple}::parent`) ?? false),
        stackPolicy("dependencies", "dependsOn", (r) => dependsOnDependency(r.dependencies)),
        stackPolicy("property-dependencies", "propertyDependency", (r) =>
            dependsOnDependency(r.propertyDependencies["value"]),
        ),
    ],
});
