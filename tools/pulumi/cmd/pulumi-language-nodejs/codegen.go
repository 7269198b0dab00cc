package main

import (
	"context"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
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
