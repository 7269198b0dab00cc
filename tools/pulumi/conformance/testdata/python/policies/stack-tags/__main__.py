# policy-stack-tags: the value a resource must have is the stack's `value` tag, which reaches the
# pack through the engine's ConfigureStack call (forwarded by the host's policy proxy).
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    if args.resource_type != "simple:index:Resource":
        return
    value = str(args.props["value"]).lower()
    if value != args.stack_tags.get("value"):
        report_violation(f"Property was {value}")


PolicyPack(
    name="stack-tags",
    policies=[
        ResourceValidationPolicy(
            name="allowed",
            description="Verifies property equals the stack tag value",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=validate,
        ),
    ],
)
