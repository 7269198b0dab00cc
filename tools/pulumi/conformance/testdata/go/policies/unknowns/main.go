// The policy pack of the policy-unknowns conformance test: one advisory policy that reports each
// resource's value, secret or not, and says it can't run where the value is unknown in a preview.
// The Go SDK leaves unknowns to the policy (the Node.js and Python SDKs skip the policy and say
// so), so the pack says it in the words the suite looks for.
package main

import (
	"context"
	"fmt"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("unknowns", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("report", policyx.ResourceValidationPolicyArgs{
				Description:      "Reports the value of each simple:index:Resource",
				EnforcementLevel: policyx.EnforcementLevelAdvisory,
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					v, has := args.Resource.Properties.GetOk("value")
					if args.Resource.Type != "simple:index:Resource" || !has {
						return nil
					}
					// A secret is a flag on the value: IsComputed and IsBool see through it.
					switch {
					case v.IsComputed():
						args.Manager.ReportViolation(
							"can't run policy 'report' during preview: value can't be known during preview", "")
					case v.IsBool():
						args.Manager.ReportViolation(fmt.Sprintf("value is %t", v.AsBool()), "")
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
