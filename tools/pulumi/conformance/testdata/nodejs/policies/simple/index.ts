// policy-simple: one advisory and one mandatory policy on the program's two resources.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("simple", {
    policies: [
        {
            name: "truthiness",
            description: "Verifies properties are true",
            enforcementLevel: "advisory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && args.props.value) {
                    reportViolation("This is a test warning");
                }
            },
        },
        {
            name: "falsiness",
            description: "Verifies properties are false",
            enforcementLevel: "mandatory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && !args.props.value) {
                    reportViolation("This is a test error");
                }
            },
        },
    ],
});
