# policy-analyze-stack: a stack policy only (AnalyzeStack), which fires once, on the stack, when the
# program made more than one simple resource.
from pulumi_policy import EnforcementLevel, PolicyPack, StackValidationPolicy

RESOURCE = "simple:index:Resource"


def validate(args, report_violation):
    if sum(1 for r in args.resources if r.resource_type == RESOURCE) > 1:
        report_violation(f"Found an extra {RESOURCE}")


PolicyPack(
    name="analyze-stack",
    policies=[
        StackValidationPolicy(
            name="stack-size",
            description=f"Stack must contain at most one {RESOURCE}",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=validate,
        ),
    ],
)
