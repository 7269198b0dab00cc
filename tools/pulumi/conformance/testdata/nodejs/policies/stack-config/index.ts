// policy-stack-config: the pack reads the stack's own configuration (the host passes it in
// PULUMI_CONFIG), here to name and describe its policy.
import * as pulumi from "@pulumi/pulumi";
import { PolicyPack } from "@pulumi/policy";

const expected = new pulumi.Config().requireBoolean("value");

new PolicyPack("stack-config", {
    policies: [
        {
            name: `validate-${expected}`,
            description: `Verifies property is ${expected}`,
            enforcementLevel: "mandatory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && args.props.value !== expected) {
                    reportViolation(`Property was ${args.props.value}`);
                }
            },
        },
    ],
});
