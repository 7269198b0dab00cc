package main

import (
	"fmt"
	"os/exec"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RunPlugin runs a policy pack written in Go as the real host runs a Go plugin (its RunPlugin): the
// pack's folder built as Run builds a program, then the binary with the engine's arguments and
// environment in the engine's folder. The pack serves the analyzer protocol itself (the SDK's
// policyx.Main answers Handshake and ConfigureStack), so unlike the Node.js and Python hosts no
// policy proxy stands in front of it. Its output, the build's included, goes to the engine on the
// stream, and an exit that is not 0 as the stream's exit code.
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	// Other kinds would run the same way, but nothing here proves them.
	if req.GetKind() != string(apitype.AnalyzerPlugin) {
		return status.Errorf(codes.Unimplemented, "this host runs policy packs only, not %s plugins", req.GetKind())
	}
	ctx := server.Context()
	server, closer, stdout, stderr, err := langhost.PluginStreams(server)
	if err != nil {
		return err
	}
	defer closer.Close()

	binary, remove, err := h.temporaryBinary()
	if err != nil {
		return err
	}
	defer remove()
	if err := h.compileProgram(ctx, req.GetInfo().GetProgramDirectory(), binary, stderr); err != nil {
		return fmt.Errorf("error in compiling Go: %w", err)
	}

	cmd := exec.CommandContext(ctx, binary, req.GetArgs()...)
	cmd.Dir = req.GetPwd()
	cmd.Env = req.GetEnv()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = h.Programs.Exec(cmd)
	if err := closer.Close(); err != nil {
		return err
	}
	return langhost.PluginExit(server, err)
}
