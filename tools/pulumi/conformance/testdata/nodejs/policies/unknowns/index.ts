// policy-unknowns: reading a value unknown in a preview makes the policy SDK report that the policy
// could not run; secret values reach the policy unwrapped.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("unknowns", {
    policies: [
        {
            name: "report",
            description: "Reports the value of each simple resource",
            enforcementLevel: "advisory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource") {
                    reportViolation(`value is ${args.props.value}`);
                }
            },
        },
    ],
});
