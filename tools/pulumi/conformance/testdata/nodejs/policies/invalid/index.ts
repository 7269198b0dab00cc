// policy-invalid: "all" is a name the policy SDK reserves, so the pack refuses to start.
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("invalid", {
    policies: [
        {
            name: "all",
            description: "Cannot be named all",
            enforcementLevel: "advisory",
            validateResource: () => {},
        },
    ],
});
