package langhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// The plumbing of GenerateProgram, GenerateProject and GeneratePackage, as the real hosts have it:
// the packages' schemas read through the engine's loader (req.LoaderTarget), the sources parsed and
// bound, binding errors answered as diagnostics; the language's code generator does the rest.

// GenerateProgram parses and binds a PCL program (what `pulumi import` writes) and turns it into
// the language's code with generate (nodejs.GenerateProgram, ...): `pulumi import` prints it.
func GenerateProgram(
	req *pulumirpc.GenerateProgramRequest, generate func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error),
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
	program, bound, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), bindOptions(req.GetStrict())...)
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
	files, generated, err := generate(program)
	if err != nil {
		return nil, err
	}
	diagnostics = append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(generated)...)
	return &pulumirpc.GenerateProgramResponse{Source: files, Diagnostics: diagnostics}, nil
}

// GenerateProject binds a folder of PCL (`pulumi convert`) and has generate write the whole
// project (Pulumi.yaml, the program, the language's dependency files) into req's target folder;
// generate's error diagnostics (what the language's generator cannot write) are the answer's.
func GenerateProject(
	req *pulumirpc.GenerateProjectRequest, generate func(*pcl.Program, workspace.Project) (hcl.Diagnostics, error),
) (*pulumirpc.GenerateProjectResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	program, bound, err := pcl.BindDirectory(
		req.GetSourceDirectory(), schema.NewCachedLoader(loader), bindOptions(req.GetStrict())...)
	if err != nil {
		return nil, err
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(bound)
	if bound.HasErrors() {
		return &pulumirpc.GenerateProjectResponse{Diagnostics: diagnostics}, nil
	}
	if program == nil {
		return nil, errors.New("binding the program gave nothing")
	}
	var project workspace.Project
	if err := json.Unmarshal([]byte(req.GetProject()), &project); err != nil {
		return nil, err
	}
	generated, err := generate(program, project)
	if err != nil {
		return nil, err
	}
	diagnostics = append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(generated)...)
	return &pulumirpc.GenerateProjectResponse{Diagnostics: diagnostics}, nil
}

// GeneratePackage binds a package schema (`pulumi package gen-sdk`, `pulumi package add`) and
// writes the files generate makes of it (the language's SDK) into req's folder. generate reads
// referenced packages through loader.
func GeneratePackage(
	req *pulumirpc.GeneratePackageRequest,
	generate func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error),
) (*pulumirpc.GeneratePackageResponse, error) {
	client, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer client.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, err
	}
	loader := schema.NewCachedLoader(client)
	pkg, bound, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(bound)
	if bound.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: diagnostics}, nil
	}
	files, err := generate(pkg, loader)
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

// bindOptions are the real hosts' options for binding PCL: output-versioned invokes, and the
// non-strict options unless the request is strict.
func bindOptions(strict bool) []pcl.BindOption {
	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !strict {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	return options
}
