// The policy pack of the policy-stack-tags conformance test: a policy that compares a resource's
// value with the stack's "value" tag, so the suite sees the stack's tags reach the pack.
package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("stack-tags", semver.MustParse("2.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("allowed", policyx.ResourceValidationPolicyArgs{
				Description:      "Verifies property equals the stack tag value",
				EnforcementLevel: policyx.EnforcementLevelMandatory,
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					tag, tagged := args.StackTags["value"]
					v, has := args.Resource.Properties.GetOk("value")
					if args.Resource.Type != "simple:index:Resource" || !tagged || !has || !v.IsBool() {
						return nil
					}
					if strconv.FormatBool(v.AsBool()) != tag {
						args.Manager.ReportViolation(fmt.Sprintf("Property was %t", v.AsBool()), "")
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
