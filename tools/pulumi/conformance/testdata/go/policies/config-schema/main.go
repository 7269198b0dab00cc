// The policy pack of the policy-config-schema conformance test: a policy with a config schema (a
// required bool and a required list of at least one resource name), which the engine validates
// the config against before the pack sees it.
package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("config-schema", semver.MustParse("3.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("validator", policyx.ResourceValidationPolicyArgs{
				Description:      "Verifies property matches config",
				EnforcementLevel: policyx.EnforcementLevelAdvisory,
				ConfigSchema: &policyx.ConfigSchema{
					Properties: map[string]map[string]any{
						"value": {"type": "boolean"},
						"names": {"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1},
					},
					Required: []string{"value", "names"},
				},
				ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
					want, _ := args.Config["value"].(bool)
					names, _ := args.Config["names"].([]any)
					v, has := args.Resource.Properties.GetOk("value")
					// Only the resources the config names are checked.
					if !slices.Contains(names, any(args.Resource.Name)) || !has || !v.IsBool() {
						return nil
					}
					if v.AsBool() != want {
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
