# policy-config-schema: the engine checks the policy's config against this schema (the test's first
# runs leave `names` out, then give it empty); a valid config names the resources to check.
from pulumi_policy import EnforcementLevel, PolicyConfigSchema, PolicyPack, ResourceValidationPolicy


def validate(args, report_violation):
    config = args.get_config()
    if args.resource_type == "simple:index:Resource" and args.name in config["names"]:
        value = args.props["value"]
        if value != config["value"]:
            report_violation(f"Property was {str(value).lower()}")


PolicyPack(
    name="config-schema",
    policies=[
        ResourceValidationPolicy(
            name="validator",
            description="Verifies property matches config",
            enforcement_level=EnforcementLevel.ADVISORY,
            config_schema=PolicyConfigSchema(
                properties={
                    "value": {"type": "boolean"},
                    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
                required=["value", "names"],
            ),
            validate=validate,
        ),
    ],
)
