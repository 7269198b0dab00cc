// The policy pack of the policy-enforcement-config conformance test: an advisory policy whose
// level the suite changes through the config's "enforcementLevel" (the SDK applies it).
package main

import (
	"context"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("enforcement-config", semver.MustParse("3.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("false", policyx.ResourceValidationPolicyArgs{
				Description:      "Verifies property is false",
				EnforcementLevel: policyx.EnforcementLevelAdvisory,
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					if args.Resource.Type != "simple:index:Resource" {
						return nil
					}
					if v, ok := args.Resource.Properties.GetOk("value"); ok && v.IsBool() && v.AsBool() {
						args.Manager.ReportViolation("Property was true", "")
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
