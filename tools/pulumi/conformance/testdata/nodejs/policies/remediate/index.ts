// policy-remediate: a remediation sets `value` to the configured one; it runs only at the
// remediate level (the test lowers it to advisory and disables it too).
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("remediate", {
    policies: [
        {
            name: "fixup",
            description: "Sets value to the configured value",
            enforcementLevel: "remediate",
            configSchema: { properties: { value: { type: "boolean" } }, required: ["value"] },
            remediateResource: (args) => {
                const { value } = args.getConfig<{ value: boolean }>();
                if (args.type === "simple:index:Resource" && args.props.value !== value) {
                    return { ...args.props, value };
                }
                return undefined;
            },
        },
    ],
});
