// The policy pack of the policy-config conformance test: a policy that reads its own config (the
// value a resource must have), so that the suite sees the config it passes reach the pack.
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
		return policyx.NewPolicyPack("config", semver.MustParse("2.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("allowed", policyx.ResourceValidationPolicyArgs{
				Description:      "Verifies properties",
				EnforcementLevel: policyx.EnforcementLevelMandatory,
				ConfigSchema: &policyx.ConfigSchema{
					Properties: map[string]map[string]any{"value": {"type": "boolean"}},
				},
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					allowed, ok := args.Config["value"].(bool)
					v, has := args.Resource.Properties.GetOk("value")
					if args.Resource.Type != "simple:index:Resource" || !ok || !has || !v.IsBool() {
						return nil
					}
					if v.AsBool() != allowed {
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
