package main

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// GenerateProgram turns a PCL program (what `pulumi import` writes) into TypeScript, with the
// Node.js code generator of the pinned pulumi module, reading the packages' schemas through the
// engine's loader, as the real host does: `pulumi import` prints its result.
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

	files, generated, err := nodejs.GenerateProgram(program)
	if err != nil {
		return nil, err
	}
	diagnostics = append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(generated)...)
	return &pulumirpc.GenerateProgramResponse{Source: files, Diagnostics: diagnostics}, nil
}
