// The policy pack of the policy-resource-metadata conformance test: one policy for each piece of a
// resource's metadata the program sets (its name, type, URN and properties, each option, its
// provider, parent and dependencies). Each looks at the resource the program set it on and reports
// what it sees there, so a piece lost on the way to the pack is a violation missing.
package main

import (
	"context"
	"slices"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

const simple = "simple:index:Resource"

// seen is a policy that reports on the simple:index:Resource called name when saw holds for it.
func seen(policy, name string, saw func(policyx.AnalyzerResource) bool) policyx.Policy {
	return policyx.NewResourceValidationPolicy(policy, policyx.ResourceValidationPolicyArgs{
		Description:      "Reports the " + policy + " of " + name,
		EnforcementLevel: policyx.EnforcementLevelAdvisory,
		ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
			if args.Resource.Type == simple && args.Resource.Name == name && saw(args.Resource) {
				args.Manager.ReportViolation("seen", "")
			}
			return nil
		},
	})
}

// seenInStack is seen for what only the whole stack's resources carry (AnalyzeStack): dependencies.
func seenInStack(policy, name string, saw func(r policyx.AnalyzerResource, urns map[string]string) bool) policyx.Policy {
	return policyx.NewStackValidationPolicy(policy, policyx.StackValidationPolicyArgs{
		Description:      "Reports the " + policy + " of " + name,
		EnforcementLevel: policyx.EnforcementLevelAdvisory,
		ValidateStack: func(_ context.Context, args policyx.StackValidationArgs) error {
			urns := map[string]string{}
			for _, r := range args.Resources {
				urns[r.Name] = r.URN
			}
			for _, r := range args.Resources {
				if r.Type == simple && r.Name == name && saw(r, urns) {
					args.Manager.ReportViolation("seen", r.URN)
				}
			}
			return nil
		},
	})
}

func main() {
	err := policyx.Main(func(*pulumi.Context) (policyx.PolicyPack, error) {
		return policyx.NewPolicyPack("resource-metadata", semver.MustParse("1.0.0"), policyx.EnforcementLevelAdvisory, []policyx.Policy{
			seen("name-type-urn-props", "identity", func(r policyx.AnalyzerResource) bool {
				v, ok := r.Properties.GetOk("value")
				return strings.HasSuffix(r.URN, "::"+simple+"::identity") && ok && v.IsBool() && v.AsBool()
			}),
			seen("protect", "protected", func(r policyx.AnalyzerResource) bool { return r.Options.Protect }),
			seen("ignore-changes", "ignoreChanges", func(r policyx.AnalyzerResource) bool {
				return slices.Contains(r.Options.IgnoreChanges, "value")
			}),
			seen("delete-before-replace", "deleteBeforeReplace", func(r policyx.AnalyzerResource) bool {
				return r.Options.DeleteBeforeReplace
			}),
			seen("additional-secret-outputs", "secretOutput", func(r policyx.AnalyzerResource) bool {
				return slices.Contains(r.Options.AdditionalSecretOutputs, "value")
			}),
			seen("custom-timeouts", "customTimeouts", func(r policyx.AnalyzerResource) bool {
				// The SDK gives the timeout back as a Go duration.
				return r.Options.CustomTimeouts != nil && r.Options.CustomTimeouts.Create == "5m0s"
			}),
			seen("provider", "explicitProvider", func(r policyx.AnalyzerResource) bool {
				return r.Provider.Type == "pulumi:providers:simple" && r.Provider.Name == "prov"
			}),
			seen("parent", "child", func(r policyx.AnalyzerResource) bool {
				return strings.HasSuffix(r.Parent, "::"+simple+"::parent")
			}),
			seenInStack("dependencies", "dependsOn", func(r policyx.AnalyzerResource, urns map[string]string) bool {
				return slices.Contains(r.Dependencies, urns["dependency"])
			}),
			seenInStack("property-dependencies", "propertyDependency", func(r policyx.AnalyzerResource, urns map[string]string) bool {
				return slices.Contains(r.PropertyDependencies["value"], urns["dependency"])
			}),
		})
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}
