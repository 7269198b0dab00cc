package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
)

// The variables the Python SDK's policy runner (`python -m pulumi.policy`) reads the stack from.
var pythonStackEnv = langhost.StackEnv{
	Organization: "PULUMI_ORGANIZATION", Project: "PULUMI_PROJECT", Stack: "PULUMI_STACK", DryRun: "PULUMI_DRY_RUN",
}

// RunPlugin runs a plugin written in Python as the real host does (its RunPlugin):
//   - a policy pack (analyzer kind, `pulumi preview --policy-pack <dir>`) with the SDK's policy
//     runner, `python -u -m pulumi.policy <args> <pack folder>`, in the pack's folder, behind the
//     policy proxy (langhost.RunPolicyPack);
//   - any other plugin (a component provider, PulumiPlugin.yaml `runtime: python`) as
//     `python <folder> <args>` when the folder has a __main__.py, else a buildable package as
//     `python -m pulumi.run.plugin <its name> <args>`, in the engine's working directory.
//
// Every plugin runs with the python of its `runtime.options` (toolchain, virtualenv); a plugin that
// is not a policy pack gets the `venv` virtualenv when it names none, as `pulumi install` made it
// (InstallDependencies), for plugins never run in the ambient Python. Its exit code goes to the
// engine.
func (h *host) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	if req.GetAttachDebugger() {
		return errors.New("this language host does not attach debuggers")
	}
	ctx := server.Context()
	info := req.GetInfo()
	analyzer := req.GetKind() == string(apitype.AnalyzerPlugin)
	opts, err := options(info)
	if err != nil {
		return err
	}
	if !analyzer && (opts.Toolchain == toolchain.Auto || opts.Toolchain == toolchain.Pip) && opts.Virtualenv == "" {
		opts.Virtualenv = "venv"
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return err
	}

	dir := info.GetProgramDirectory()
	cmd, err := pluginCommand(ctx, tc, req, analyzer)
	if err != nil {
		return err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, req.GetEnv()...)
	// Policy packs have always run in their own folder.
	cmd.Dir = req.GetPwd()
	if analyzer {
		cmd.Dir = dir
	}

	server, closer, stdout, stderr, err := langhost.PluginStreams(server)
	if err != nil {
		return err
	}
	defer closer.Close()
	cmd.Stderr = stderr
	if analyzer {
		err = h.Programs.RunPolicyPack(ctx, cmd, stdout, pythonStackEnv)
	} else {
		cmd.Stdout = stdout
		err = h.Programs.Exec(cmd)
	}
	if err := closer.Close(); err != nil {
		return err
	}
	return langhost.PluginExit(server, err)
}

// pluginCommand is the python command line of a plugin (see RunPlugin).
func pluginCommand(
	ctx context.Context, tc toolchain.Toolchain, req *pulumirpc.RunPluginRequest, analyzer bool,
) (*exec.Cmd, error) {
	root, dir := req.GetInfo().GetRootDirectory(), req.GetInfo().GetProgramDirectory()
	if analyzer {
		return tc.Command(ctx, append(append([]string{"-u", "-m", "pulumi.policy"}, req.GetArgs()...), dir)...)
	}
	if _, err := os.Stat(filepath.Join(root, "__main__.py")); err == nil {
		return tc.Command(ctx, append([]string{dir}, req.GetArgs()...)...)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("looking for __main__.py: %w", err)
	}
	buildable, err := toolchain.IsBuildablePackage(root)
	if err != nil {
		return nil, fmt.Errorf("checking if plugin is a buildable package: %w", err)
	}
	if !buildable {
		return nil, errors.New("plugin is not runnable, it provides neither __main__.py nor a buildable pyproject.toml")
	}
	pyproject, err := toolchain.LoadPyproject(root)
	if err != nil {
		return nil, err
	}
	return tc.ModuleCommand(ctx, "pulumi.run.plugin", append([]string{pyproject.Project.Name}, req.GetArgs()...)...)
}
