// policy-dryrun: the pack is told whether the engine previews (the host sets PULUMI_NODEJS_DRY_RUN
// from the stack's configuration), and this policy only fails a preview.
import * as pulumi from "@pulumi/pulumi";
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("dryrun", {
    policies: [
        {
            name: "dry",
            description: "Verifies properties are true on dryrun",
            enforcementLevel: "mandatory",
            validateResource: (args, reportViolation) => {
                if (args.type === "simple:index:Resource" && pulumi.runtime.isDryRun() && !args.props.value) {
                    reportViolation("This is a test error");
                }
            },
        },
    ],
});
