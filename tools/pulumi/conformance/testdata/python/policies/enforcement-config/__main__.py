# policy-enforcement-config: an advisory policy that always fires on the test's resource, so that the
# enforcement level its config gives (mandatory, disabled) shows in what is reported.
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    if args.resource_type == "simple:index:Resource" and args.props["value"]:
        report_violation("Property was true")


PolicyPack(
    name="enforcement-config",
    policies=[
        ResourceValidationPolicy(
            name="false",
            description="Verifies property is false",
            enforcement_level=EnforcementLevel.ADVISORY,
            validate=validate,
        ),
    ],
)
