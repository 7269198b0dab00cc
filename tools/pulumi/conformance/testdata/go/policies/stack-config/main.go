// The policy pack of the policy-stack-config conformance test: the pack reads the stack's config
// (the program's "value") when the engine configures it, and names its one policy after it, so
// the suite sees the stack's config reach the pack (ConfigureStack).
package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(pctx *pulumi.Context) (policyx.PolicyPack, error) {
		want, err := strconv.ParseBool(config.Require(pctx, "value"))
		if err != nil {
			return nil, fmt.Errorf("the stack's config value: %w", err)
		}
		return policyx.NewPolicyPack("stack-config", semver.MustParse("2.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy(fmt.Sprintf("validate-%t", want), policyx.ResourceValidationPolicyArgs{
				Description:      fmt.Sprintf("Verifies property is %t", want),
				EnforcementLevel: policyx.EnforcementLevelMandatory,
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					if args.Resource.Type != "simple:index:Resource" {
						return nil
					}
					if v, ok := args.Resource.Properties.GetOk("value"); ok && v.IsBool() && v.AsBool() != want {
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
