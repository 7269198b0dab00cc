# policy-invalid: "all" is reserved for the whole pack in policy config, so the library refuses it
# and the pack fails to start: the test expects the update to fail.
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy

PolicyPack(
    name="invalid",
    policies=[
        ResourceValidationPolicy(
            name="all",
            description="Never runs",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=lambda args, report_violation: None,
        ),
    ],
)
