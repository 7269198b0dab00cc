package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

// GeneratePackage writes the Python SDK of a package schema into the request's directory with
// Pulumi's Python code generator, reading referenced packages through the engine's loader, as the
// real host does (`pulumi package gen-sdk`, `pulumi package add`).
func (h *host) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, err
	}
	cached := schema.NewCachedLoader(loader)
	pkg, bound, err := schema.BindSpec(spec, cached, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(bound)
	if bound.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: diagnostics}, nil
	}
	files, err := codegen.GeneratePackage("pulumi-language-python", pkg, req.GetExtraFiles(), cached)
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		out := filepath.Join(req.GetDirectory(), name)
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return nil, fmt.Errorf("could not create output directory %s: %w", filepath.Dir(name), err)
		}
		if err := os.WriteFile(out, data, 0o600); err != nil {
			return nil, fmt.Errorf("could not write output file %s: %w", name, err)
		}
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: diagnostics}, nil
}

// GenerateProgram turns a PCL program (what `pulumi import` writes) into Python, with the
// packages' schemas read through the engine's loader: `pulumi import` prints the result.
func (h *host) GenerateProgram(
	ctx context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	parser := syntax.NewParser()
	names := make([]string, 0, len(req.GetSource()))
	for name := range req.GetSource() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := parser.ParseFile(strings.NewReader(req.GetSource()[name]), name); err != nil {
			return nil, err
		}
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(parser.Diagnostics)
	if parser.Diagnostics.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: diagnostics}, nil
	}
	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.GetStrict() {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, bound, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), options...)
	diagnostics = append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(bound)...)
	if bound.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: diagnostics}, nil
	}
	if err != nil {
		return nil, err
	}
	if program == nil {
		return nil, errors.New("binding the program gave nothing")
	}
	files, generated, err := codegen.GenerateProgram(program)
	if err != nil {
		return nil, err
	}
	diagnostics = append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(generated)...)
	return &pulumirpc.GenerateProgramResponse{Source: files, Diagnostics: diagnostics}, nil
}

// GenerateProject writes a whole Python project (Pulumi.yaml, __main__.py, requirements.txt) for
// a PCL folder (`pulumi convert`).
func (h *host) GenerateProject(
	ctx context.Context, req *pulumirpc.GenerateProjectRequest,
) (*pulumirpc.GenerateProjectResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.GetStrict() {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, bound, err := pcl.BindDirectory(req.GetSourceDirectory(), schema.NewCachedLoader(loader), options...)
	if err != nil {
		return nil, err
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(bound)
	if bound.HasErrors() {
		return &pulumirpc.GenerateProjectResponse{Diagnostics: diagnostics}, nil
	}
	var project workspace.Project
	if err := json.Unmarshal([]byte(req.GetProject()), &project); err != nil {
		return nil, err
	}
	if err := codegen.GenerateProject(
		req.GetTargetDirectory(), project, program, req.GetLocalDependencies(), "", "",
	); err != nil {
		return nil, err
	}
	return &pulumirpc.GenerateProjectResponse{Diagnostics: diagnostics}, nil
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
