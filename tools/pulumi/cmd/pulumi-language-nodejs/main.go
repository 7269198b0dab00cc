// Command pulumi-language-nodejs is a small Node.js language host for the pulumi CLI built in
// this module. The real host (module github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3)
// has no release tags and the Go module proxy does not serve it, so this one does what the CLI
// needs of a host to run a TypeScript or JavaScript project (`pulumi preview`, `up`, `refresh`,
// `destroy`, `import`, with the program `import` prints) and what Pulumi's conformance suite asks of
// a host (codegen.go: GenerateProgram, GeneratePackage, GenerateProject; deps.go: InstallDependencies,
// GetRequiredPackages, GetProgramDependencies, Pack): it serves pulumirpc.LanguageRuntime on the
// SDK's own gRPC stubs and runs the program with the SDK's own runner, `@pulumi/pulumi/cmd/run`,
// from the program's node_modules, as the real host does (sdk/nodejs/cmd/pulumi-language-nodejs/
// main.go, Run and constructArguments), and plugins written in TypeScript, policy packs
// (`pulumi preview --policy-pack <dir>`) and component providers, which it runs as the real host
// does (RunPlugin, deps.go: Link). What it leaves out: synchronous invokes, debugging, the tsc build
// of the real host's conformance mode, and RunPlugin for the other kinds of plugin (converters,
// tools). What it adds, as this module's Python and Go hosts do (internal/langhost): when the
// engine is gone (its CLI killed), it kills the program it runs and exits within a second, not at
// the next of the 5-minute health checks plugins use.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func main() {
	// The CLI starts a host as `pulumi-language-nodejs [flags] <engine address>`.
	engineAddress, _ := langhost.ParseArgs()
	langhost.Serve(&host{Server: langhost.NewServer(engineAddress)})
}

type host struct {
	langhost.Server
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out))}, nil
}

// Run runs the program to completion: the program registers its resources with the engine's
// monitor itself, and its exit tells how the run went.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on the PATH: " + err.Error()}, nil
	}
	info := req.GetInfo()
	runner, err := resolveModule(ctx, node, info.GetProgramDirectory(), "@pulumi/pulumi/cmd/run")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	optionEnv, args := nodeOptions(info.GetOptions().AsMap())
	env := append(os.Environ(), optionEnv...)
	cfg, err := programConfig(req.GetConfig())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	secretKeys, err := json.Marshal(nonNil(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, err
	}
	env = append(env, "PULUMI_CONFIG="+cfg, "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys))
	args = append(args, runner)
	flag := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flag("monitor", req.GetMonitorAddress())
	flag("engine", h.EngineAddress)
	flag("organization", req.GetOrganization())
	flag("project", req.GetProject())
	flag("root-directory", info.GetRootDirectory())
	flag("stack", req.GetStack())
	flag("pwd", info.GetProgramDirectory())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	flag("parallel", strconv.Itoa(int(req.GetParallel())))
	args = append(args, info.GetEntryPoint())
	args = append(args, req.GetArgs()...)

	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = env
	cmd.Dir = req.GetPwd()
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	return h.Programs.Run(cmd), nil
}

// RunPlugin runs a plugin written in TypeScript or JavaScript as the real host does (its RunPlugin).
// A component provider (resource kind): the SDK's `@pulumi/pulumi/cmd/run-plugin` from the
// provider's own node_modules, with the provider's folder and then the engine's arguments, in the
// engine's working directory; it serves the components the folder's package exports. A policy pack
// (analyzer kind): the SDK's `@pulumi/pulumi/cmd/run-policy-pack` in the pack's folder, with the
// folder as its last argument, behind the SDK's policy proxy (langhost RunPolicyPack), which
// takes the engine's Handshake and ConfigureStack, starts the pack with the stack's settings in its
// environment (PULUMI_NODEJS_*, PULUMI_CONFIG) and forwards every other call to it.
func (h *host) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	kind := apitype.PluginKind(req.GetKind())
	if kind != apitype.AnalyzerPlugin && kind != apitype.ResourcePlugin {
		return status.Errorf(codes.Unimplemented, "this host runs policy packs and providers only, not %s plugins", kind)
	}
	ctx := server.Context()
	server, closer, stdout, stderr, err := langhost.PluginStreams(server)
	if err != nil {
		return err
	}
	defer closer.Close()
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("could not find node on the PATH: %w", err)
	}
	dir := req.GetInfo().GetProgramDirectory()
	env, args := nodeOptions(req.GetInfo().GetOptions().AsMap())
	env = append(req.GetEnv(), env...)

	if kind == apitype.ResourcePlugin {
		runner, err := resolveModule(ctx, node, dir, "@pulumi/pulumi/cmd/run-plugin")
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, node, append(append(args, runner, dir), req.GetArgs()...)...)
		cmd.Dir = req.GetPwd()
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = stdout, stderr
		err = h.Programs.Exec(cmd)
		if err := closer.Close(); err != nil {
			return err
		}
		return langhost.PluginExit(server, err)
	}

	runner, err := resolveModule(ctx, node, dir, "@pulumi/pulumi/cmd/run-policy-pack")
	if err != nil {
		return err
	}
	args = append(append(append(args, runner), req.GetArgs()...), dir)

	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stderr = stderr
	names := langhost.StackEnv{
		Organization: "PULUMI_NODEJS_ORGANIZATION", Project: "PULUMI_NODEJS_PROJECT",
		Stack: "PULUMI_NODEJS_STACK", DryRun: "PULUMI_NODEJS_DRY_RUN",
	}
	err = h.Programs.RunPolicyPack(ctx, cmd, stdout, names)
	if err := closer.Close(); err != nil {
		return err
	}
	return langhost.PluginExit(server, err)
}

// nodeOptions is what a project's `runtime.options` add to node's environment and command line.
func nodeOptions(options map[string]any) (env, args []string) {
	// `typescript` defaults to true, as in the real host.
	if ts, ok := options["typescript"].(bool); !ok || ts {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if tsconfig, ok := options["tsconfig"].(string); ok && tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}
	if nodeargs, ok := options["nodeargs"].(string); ok && nodeargs != "" {
		args = strings.Fields(nodeargs)
	}
	return env, args
}

// resolveModule finds one of the SDK's runners (module) in the program's own node_modules.
func resolveModule(ctx context.Context, node, programDir, module string) (string, error) {
	script := `try { console.log(require.resolve(process.argv[1])) } catch (e) { ` +
		`console.error("The Pulumi SDK (@pulumi/pulumi) is not installed for this program: run npm install"); process.exit(1) }`
	cmd := exec.CommandContext(ctx, node, "-e", script, module)
	cmd.Dir = programDir
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "", errors.New(strings.TrimSpace(string(exit.Stderr)))
	}
	return strings.TrimSpace(string(out)), err
}

// programConfig is PULUMI_CONFIG: keys in the `<namespace>:config:<name>` form every SDK version
// reads (the real host's constructConfig).
func programConfig(cfg map[string]string) (string, error) {
	out := make(map[string]string, len(cfg))
	for k, v := range cfg {
		key, err := config.ParseKey(k)
		if err != nil {
			return "", err
		}
		out[key.Namespace()+":config:"+key.Name()] = v
	}
	text, err := json.Marshal(out)
	return string(text), err
}

func nonNil(keys []string) []string {
	if keys == nil {
		return []string{}
	}
	return keys
}
