// policy-stack-tags: the stack's tags reach the policy.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("stack-tags", {
    policies: [
        {
            name: "allowed",
            description: "Verifies property equals the stack tag value",
            enforcementLevel: "mandatory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && String(args.props.value) !== args.stackTags.get("value")) {
                    reportViolation(`Property was ${args.props.value}`);
                }
            },
        },
    ],
});
