// The policy pack of the policy-remediate conformance test: a remediation that sets a resource's
// value to the one its config names, so the suite sees the properties before and after.
package main

import (
	"context"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("remediate", semver.MustParse("3.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceRemediationPolicy("fixup", policyx.ResourceRemediationPolicyArgs{
				Description: "Sets value to the configured value",
				ConfigSchema: &policyx.ConfigSchema{
					Properties: map[string]map[string]any{"value": {"type": "boolean"}},
				},
				RemediateResource: func(_ context.Context, args policyx.ResourceRemediationArgs) (*property.Map, error) {
					want, ok := args.Config["value"].(bool)
					v, has := args.Resource.Properties.GetOk("value")
					// Nothing to change is no remediation at all (nil), not the same properties.
					if args.Resource.Type != "simple:index:Resource" || !ok || !has || !v.IsBool() || v.AsBool() == want {
						return nil, nil
					}
					fixed := args.Resource.Properties.Set("value", property.New(want))
					return &fixed, nil
				},
			}),
		})
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}
