# policy-stack-config: the pack reads the stack's own config (not the policy's) when it starts, from
# the environment the host gives it (PULUMI_CONFIG); the policy's very name comes from it.
import pulumi
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy

expected = pulumi.Config().require_bool("value")
word = str(expected).lower()


def validate(args, report_violation):
    if args.resource_type != "simple:index:Resource":
        return
    value = args.props["value"]
    if value != expected:
        report_violation(f"Property was {str(value).lower()}")


PolicyPack(
    name="stack-config",
    policies=[
        ResourceValidationPolicy(
            name=f"validate-{word}",
            description=f"Verifies property is {word}",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=validate,
        ),
    ],
)
