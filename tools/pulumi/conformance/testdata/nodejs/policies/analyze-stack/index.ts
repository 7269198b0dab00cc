// policy-analyze-stack: a stack policy, which sees every resource at once.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("analyze-stack", {
    policies: [
        {
            name: "stack-size",
            description: "Stack must contain at most one simple:index:Resource",
            enforcementLevel: "mandatory",
            validateStack: (args, reportViolation) => {
                const simple = args.resources.filter((r) => r.type === "simple:index:Resource");
                if (simple.length > 1) {
                    reportViolation("Found an extra simple:index:Resource");
                }
            },
        },
    ],
});
