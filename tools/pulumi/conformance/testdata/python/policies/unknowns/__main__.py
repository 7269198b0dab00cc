# policy-unknowns: reports every simple resource's value. Reading a value that is unknown during
# preview raises in the library, which then reports that the policy can't run; secrets arrive
# unwrapped.
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    if args.resource_type == "simple:index:Resource":
        report_violation(f"value is {str(args.props['value']).lower()}")


PolicyPack(
    name="unknowns",
    policies=[
        ResourceValidationPolicy(
            name="report",
            description="Reports the resource's value",
            enforcement_level=EnforcementLevel.ADVISORY,
            validate=validate,
        ),
    ],
)
