# policy-dryrun: fires during preview only, which the pack knows from the SDK's settings (the host
# passes the stack's dry run to it as PULUMI_DRY_RUN).
import pulumi
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    if args.resource_type == "simple:index:Resource" and pulumi.runtime.is_dry_run() and not args.props["value"]:
        report_violation("This is a test error")


PolicyPack(
    name="dryrun",
    policies=[
        ResourceValidationPolicy(
            name="dry",
            description="Verifies properties are true on dryrun",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=validate,
        ),
    ],
)
