// policy-enforcement-config: advisory by default; the test raises or disables it through the
// policy config's `enforcementLevel`.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("enforcement-config", {
    policies: [
        {
            name: "false",
            description: "Verifies property is false",
            enforcementLevel: "advisory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && args.props.value) {
                    reportViolation("Property was true");
                }
            },
        },
    ],
});
