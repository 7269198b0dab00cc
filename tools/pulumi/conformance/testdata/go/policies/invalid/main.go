// The policy pack of the policy-invalid conformance test: a policy named "all", which the SDK
// reserves, so the pack fails to load and the suite sees the update fail.
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
		return policyx.NewPolicyPack("invalid", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewResourceValidationPolicy("all", policyx.ResourceValidationPolicyArgs{
				Description:      "Has a reserved name",
				EnforcementLevel: policyx.EnforcementLevelAdvisory,
				ValidateResource: func(context.Context, policyx.ResourceValidationArgs) error { return nil },
			}),
		})
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}
