// The policy pack of the policy-dryrun conformance test: a policy that only fires in a preview, so
// that the suite sees the stack's dry-run flag reach the pack (ConfigureStack).
package main

import (
	"context"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(pctx *pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("dryrun", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("dry", policyx.ResourceValidationPolicyArgs{
				Description:      "Verifies properties are true on dryrun",
				EnforcementLevel: policyx.EnforcementLevelMandatory,
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					if !pctx.DryRun() || args.Resource.Type != "simple:index:Resource" {
						return nil
					}
					if v, ok := args.Resource.Properties.GetOk("value"); ok && v.IsBool() && !v.AsBool() {
						args.Manager.ReportViolation("This is a test error", "")
					}
					return nil
				},
			}),
		})
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}
