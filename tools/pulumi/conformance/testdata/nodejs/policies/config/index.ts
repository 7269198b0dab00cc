// policy-config: the policy's settings come from the policy config file the engine is given.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("config", {
    policies: [
        {
            name: "allowed",
            description: "Verifies properties",
            enforcementLevel: "mandatory",
            configSchema: { properties: { value: { type: "boolean" } }, required: ["value"] },
            validateResource: (args, reportViolation) => {
                const { value } = args.getConfig<{ value: boolean }>();
                if (args.type === "simple:index:Resource" && args.props.value !== value) {
                    reportViolation(`Property was ${args.props.value}`);
                }
            },
        },
    ],
});
