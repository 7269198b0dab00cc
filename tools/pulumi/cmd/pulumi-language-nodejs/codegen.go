package main

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// GenerateProgram turns a PCL program (what `pulumi import` writes) into TypeScript, with the
// Node.js code generator of the pinned pulumi module, reading the packages' schemas through the
// engine's loader, as the real host does: `pulumi import` prints its result.
func (h *host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	return langhost.GenerateProgram(req, nodejs.GenerateProgram)
}

// GeneratePackage writes the TypeScript SDK of a package schema into the request's folder
// (`pulumi package gen-sdk`, `pulumi package add`).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return langhost.GeneratePackage(req, func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
		return nodejs.GeneratePackage("pulumi-language-nodejs", pkg, req.GetExtraFiles(),
			req.GetLocalDependencies(), req.GetLocal(), loader)
	})
}

// GenerateProject writes a whole TypeScript project (Pulumi.yaml, index.ts, package.json,
// tsconfig.json) for a PCL folder (`pulumi convert`), run with ts-node as the real host's default.
func (h *host) GenerateProject(
	_ context.Context, req *pulumirpc.GenerateProjectRequest,
) (*pulumirpc.GenerateProjectResponse, error) {
	return langhost.GenerateProject(req, func(program *pcl.Program, project workspace.Project) (hcl.Diagnostics, error) {
		return nil, nodejs.GenerateProject(req.GetTargetDirectory(), project, program, req.GetLocalDependencies(), false, "nodejs")
	})
}
