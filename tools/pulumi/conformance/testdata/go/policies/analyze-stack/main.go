// The policy pack of the policy-analyze-stack conformance test: a stack policy only, so that the
// suite sees AnalyzeStack answered (one violation, on the stack, when the program makes two
// simple:index:Resource).
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
		return policyx.NewPolicyPack("analyze-stack", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			policyx.NewStackValidationPolicy("stack-size", policyx.StackValidationPolicyArgs{
				Description:      "Stack must contain at most one simple:index:Resource",
				EnforcementLevel: policyx.EnforcementLevelMandatory,
				ValidateStack: func(_ context.Context, args policyx.StackValidationArgs) error {
					stack, count := "", 0
					for _, r := range args.Resources {
						switch r.Type {
						case "pulumi:pulumi:Stack":
							stack = r.URN
						case "simple:index:Resource":
							count++
						}
					}
					// The violation is the stack's, not any one resource's.
					if count > 1 {
						args.Manager.ReportViolation("Found an extra simple:index:Resource", stack)
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
