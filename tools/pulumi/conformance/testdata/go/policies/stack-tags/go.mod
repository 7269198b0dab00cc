module conformance/policies/stack-tags

go 1.26.6

require (
	github.com/blang/semver v3.5.1+incompatible
	github.com/pulumi/pulumi/sdk/v3 v3.274.1
)
