// The policy pack of the policy-simple conformance test: one advisory and one mandatory resource
// policy, so that the suite sees a warning and an error from the same pack.
package main

import (
	"context"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

// whenValue is a policy that reports message for each simple:index:Resource whose value is want.
func whenValue(name, description string, level policyx.EnforcementLevel, want bool, message string) policyx.Policy {
	return policyx.NewResourceValidationPolicy(name, policyx.ResourceValidationPolicyArgs{
		Description:      description,
		EnforcementLevel: level,
		ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
			if args.Resource.Type != "simple:index:Resource" {
				return nil
			}
			if v, ok := args.Resource.Properties.GetOk("value"); ok && v.IsBool() && v.AsBool() == want {
				args.Manager.ReportViolation(message, "")
			}
			return nil
		},
	})
}

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("simple", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			whenValue("truthiness", "Verifies properties are true", policyx.EnforcementLevelAdvisory, true, "This is a test warning"),
			whenValue("falsiness", "Verifies properties are false", policyx.EnforcementLevelMandatory, false, "This is a test error"),
		})
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}
