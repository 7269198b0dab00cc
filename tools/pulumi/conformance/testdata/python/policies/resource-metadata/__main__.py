# policy-resource-metadata: one policy per piece of metadata the engine gives a policy, each firing
# only on the one resource of the program that sets it, and only when the pack sees it set: the test
# expects each policy to fire exactly once.
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy

RESOURCE = "simple:index:Resource"


def on(name, holds):
    """A resource policy that fires on the resource `name` when `holds(args)`."""

    def validate(args, report_violation):
        if args.resource_type == RESOURCE and args.name == name and holds(args):
            report_violation(f"{name} has the metadata")

    return validate


def on_stack(name, holds):
    """A stack policy that fires on the resource `name` when `holds(resource)`: the dependencies
    between resources are given to stack policies only."""

    def validate(args, report_violation):
        for r in args.resources:
            if r.resource_type == RESOURCE and r.name == name and holds(r):
                report_violation(f"{name} has the metadata", r.urn)

    return validate


def names(resources):
    return [r.name for r in resources]


checks = {
    "name-type-urn-props": on(
        "identity", lambda a: a.urn.endswith(f"::{RESOURCE}::identity") and a.props["value"] is True
    ),
    "protect": on("protected", lambda a: a.opts.protect),
    "ignore-changes": on("ignoreChanges", lambda a: list(a.opts.ignore_changes) == ["value"]),
    "delete-before-replace": on("deleteBeforeReplace", lambda a: a.opts.delete_before_replace is True),
    "additional-secret-outputs": on(
        "secretOutput", lambda a: list(a.opts.additional_secret_outputs) == ["value"]
    ),
    # create = "5m" in the program.
    "custom-timeouts": on("customTimeouts", lambda a: a.opts.custom_timeouts.create_seconds == 300),
    "provider": on(
        "explicitProvider",
        lambda a: a.provider is not None
        and a.provider.name == "prov"
        and a.provider.resource_type == "pulumi:providers:simple",
    ),
    "parent": on("child", lambda a: (a.opts.parent or "").endswith(f"::{RESOURCE}::parent")),
}

stack_checks = {
    "dependencies": on_stack("dependsOn", lambda r: names(r.dependencies) == ["dependency"]),
    "property-dependencies": on_stack(
        "propertyDependency", lambda r: names(r.property_dependencies.get("value", [])) == ["dependency"]
    ),
}

PolicyPack(
    name="resource-metadata",
    policies=[
        ResourceValidationPolicy(
            name=name,
            description=f"Reports the resource that has the metadata ({name})",
            enforcement_level=EnforcementLevel.ADVISORY,
            validate=validate,
        )
        for name, validate in checks.items()
    ]
    + [
        StackValidationPolicy(
            name=name,
            description=f"Reports the resource that has the metadata ({name})",
            enforcement_level=EnforcementLevel.ADVISORY,
            validate=validate,
        )
        for name, validate in stack_checks.items()
    ],
)
