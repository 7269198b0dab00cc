# policy-config: the value a resource must have comes from the policy's config (the test's runs give
# it false, then true), so the violation shows the config reached the policy.
from pulumi_policy import EnforcementLevel, PolicyConfigSchema, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    if args.resource_type != "simple:index:Resource":
        return
    value = args.props["value"]
    if value != args.get_config()["value"]:
        report_violation(f"Property was {str(value).lower()}")


PolicyPack(
    name="config",
    policies=[
        ResourceValidationPolicy(
            name="allowed",
            description="Verifies properties",
            enforcement_level=EnforcementLevel.MANDATORY,
            config_schema=PolicyConfigSchema(properties={"value": {"type": "boolean"}}, required=["value"]),
            validate=validate,
        ),
    ],
)
