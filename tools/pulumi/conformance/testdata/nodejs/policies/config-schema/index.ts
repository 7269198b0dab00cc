// policy-config-schema: the engine checks the policy config against this schema before the pack
// runs (`names` is required and must not be empty).
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("config-schema", {
    policies: [
        {
            name: "validator",
            description: "Verifies property matches config",
            enforcementLevel: "advisory",
            configSchema: {
                properties: {
                    value: { type: "boolean" },
                    names: { type: "array", items: { type: "string" }, minItems: 1 },
                },
                required: ["value", "names"],
            },
            validateResource: (args, reportViolation) => {
                const { value, names } = args.getConfig<{ value: boolean; names: string[] }>();
                if (args.type === "simple:index:Resource" && names.includes(args.name) && args.props.value !== value) {
                    reportViolation(`Property was ${args.props.value}`);
                }
            },
        },
    ],
});
