# policy-remediate: rewrites the resource's value to the one the policy's config gives, and only
# when they differ, so an unchanged resource shows no remediation.
from pulumi_policy import EnforcementLevel, PolicyConfigSchema, PolicyPack, ResourceValidationPolicy


def remediate(args):
    if args.resource_type != "simple:index:Resource":
        return None
    want = args.get_config()["value"]
    if args.props["value"] == want:
        return None
    return {**args.props, "value": want}


PolicyPack(
    name="remediate",
    policies=[
        ResourceValidationPolicy(
            name="fixup",
            description="Sets the value the config gives",
            enforcement_level=EnforcementLevel.REMEDIATE,
            config_schema=PolicyConfigSchema(properties={"value": {"type": "boolean"}}, required=["value"]),
            remediate=remediate,
        ),
    ],
)
