# policy-simple: an advisory and a mandatory policy, each firing on one of the program's two
# resources (value true, value false), so the test sees both levels reported.
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy


def reports_when(value, message):
    def validate(args, report_violation):
        # The providers and the stack are analyzed too: only the test's resources count.
        if args.resource_type == "simple:index:Resource" and args.props["value"] == value:
            report_violation(message)

    return validate


PolicyPack(
    name="simple",
    policies=[
        ResourceValidationPolicy(
            name="truthiness",
            description="Verifies properties are true",
            enforcement_level=EnforcementLevel.ADVISORY,
            validate=reports_when(True, "This is a test warning"),
        ),
        ResourceValidationPolicy(
            name="falsiness",
            description="Verifies properties are false",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=reports_when(False, "This is a test error"),
        ),
    ],
)
