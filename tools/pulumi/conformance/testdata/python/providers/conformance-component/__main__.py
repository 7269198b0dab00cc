# The component the provider-*-component tests construct: conformance-component:index:Simple, with
# a simple:index:Resource child whose value is the opposite of the component's.
from typing import Optional, TypedDict

import pulumi
from pulumi.provider.experimental import component_provider_host


class SimpleArgs(TypedDict):
    value: pulumi.Input[bool]


class Simple(pulumi.ComponentResource):
    value: pulumi.Output[bool]

    def __init__(self, name: str, args: SimpleArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("conformance-component:index:Simple", name, args, opts)
        self.value = pulumi.Output.from_input(args["value"])
        # Registered by its type rather than through a generated SDK of `simple`, with the version
        # the program's own simple resource uses, so both share the one default provider.
        pulumi.CustomResource(
            "simple:index:Resource",
            f"{name}-child",
            {"value": self.value.apply(lambda v: not v)},
            pulumi.ResourceOptions(parent=self, version="2.0.0"),
        )
        self.register_outputs({"value": self.value})


if __name__ == "__main__":
    component_provider_host([Simple], "conformance-component", version="22.0.0")
