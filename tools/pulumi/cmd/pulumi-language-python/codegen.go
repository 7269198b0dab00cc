package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

// GeneratePackage writes the Python SDK of a package schema into the request's directory with
// Pulumi's Python code generator, reading referenced packages through the engine's loader, as the
// real host does (`pulumi package gen-sdk`, `pulumi package add`).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return langhost.GeneratePackage(req, func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
		return codegen.GeneratePackage("pulumi-language-python", pkg, req.GetExtraFiles(), loader)
	})
}

// GenerateProgram turns a PCL program (what `pulumi import` writes) into Python, with the
// packages' schemas read through the engine's loader: `pulumi import` prints the result.
func (h *host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	return langhost.GenerateProgram(req, codegen.GenerateProgram)
}

// GenerateProject writes a whole Python project (Pulumi.yaml, __main__.py, requirements.txt) for
// a PCL folder (`pulumi convert`).
func (h *host) GenerateProject(
	_ context.Context, req *pulumirpc.GenerateProjectRequest,
) (*pulumirpc.GenerateProjectResponse, error) {
	return langhost.GenerateProject(req, func(program *pcl.Program, project workspace.Project) (hcl.Diagnostics, error) {
		return nil, codegen.GenerateProject(req.GetTargetDirectory(), project, program, req.GetLocalDependencies(), "", "")
	})
}

// Link adds generated SDKs (folders holding a pyproject.toml) to the project's dependencies with
// the project's toolchain (a line of requirements.txt for pip), and says how to import each.
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	tc, _, err := toolchainOf(req.GetInfo())
	if err != nil {
		return nil, err
	}
	packages := map[string]string{}
	var instructions []string
	for _, dep := range req.GetPackages() {
		// The core SDK (a wheel, or its folder) takes the place of the `pulumi` requirement, as in the
		// real host: the conformance suite links it into its policy packs and component providers.
		if dep.GetPackage().GetName() == "pulumi" {
			packages["pulumi"] = dep.GetPath()
			continue
		}
		dir := dep.GetPath()
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(req.GetInfo().GetRootDirectory(), dir)
		}
		pyproject, err := toolchain.LoadPyproject(dir)
		if err != nil {
			return nil, fmt.Errorf("linking %s: %w", dep.GetPath(), err)
		}
		name := pyproject.Project.Name
		if name == "" {
			return nil, fmt.Errorf("linking %s: its pyproject.toml names no project", dep.GetPath())
		}
		packages[name] = dep.GetPath()
		alias := codegen.PyName(dep.GetPackage().GetName())
		instructions = append(instructions, fmt.Sprintf("import %s as %s", name, alias))
	}
	if err := tc.LinkPackages(ctx, packages); err != nil {
		return nil, err
	}
	sort.Strings(instructions)
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can then import the SDK in your Python code with:\n\n  " +
			strings.Join(instructions, "\n  ") + "\n",
	}, nil
}
