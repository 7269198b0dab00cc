# provider-builtin-info-component: a component whose outputs are the organization, project and stack
# the provider's SDK was told of when the engine asked it to construct the component.
from typing import Optional, TypedDict

import pulumi
from pulumi.provider.experimental import component_provider_host


class BuiltinInfoArgs(TypedDict):
    pass


class BuiltinInfo(pulumi.ComponentResource):
    organization: pulumi.Output[str]
    project: pulumi.Output[str]
    stack: pulumi.Output[str]

    def __init__(self, name: str, args: BuiltinInfoArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("builtin-info-component:index:BuiltinInfo", name, {}, opts)
        self.organization = pulumi.Output.from_input(pulumi.get_organization())
        self.project = pulumi.Output.from_input(pulumi.get_project())
        self.stack = pulumi.Output.from_input(pulumi.get_stack())
        self.register_outputs(
            {"organization": self.organization, "project": self.project, "stack": self.stack}
        )


if __name__ == "__main__":
    component_provider_host([BuiltinInfo], "builtin-info-component", version="37.0.0")
