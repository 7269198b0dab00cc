// Command pulumi-language-nodejs is a small Node.js language host for the pulumi CLI built in
// this module. The real host (module github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3)
// has no release tags and the Go module proxy does not serve it, so this one does what the CLI
// needs of a host to run a TypeScript or JavaScript project (`pulumi preview`, `up`, `refresh`,
// `destroy`, `import`, with the program `import` prints: codegen.go): it serves
// pulumirpc.LanguageRuntime on the SDK's own gRPC stubs and runs the program with the SDK's own
// runner, `@pulumi/pulumi/cmd/run`, from the program's node_modules, as the real host does
// (sdk/nodejs/cmd/pulumi-language-nodejs/main.go, Run and constructArguments). What it leaves out:
// plugin discovery from node_modules (GetRequiredPackages answers UNIMPLEMENTED, which the CLI
// takes as "none": the only plugin these programs use is the bundled pulumi-nodejs), dependency
// installation, SDK generation, synchronous invokes and debugging. What it adds, as this module's
// Python and Go hosts do (internal/langhost): when the engine is gone (its CLI killed), it kills
// the program it runs and exits within a second, not at the next of the 5-minute health checks
// plugins use.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
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
	runner, err := resolveRunner(ctx, node, info.GetProgramDirectory())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	options := info.GetOptions().AsMap()
	env := os.Environ()
	cfg, err := programConfig(req.GetConfig())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	secretKeys, err := json.Marshal(nonNil(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, err
	}
	env = append(env, "PULUMI_CONFIG="+cfg, "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys))
	// `runtime.options.typescript` defaults to true, as in the real host.
	if ts, ok := options["typescript"].(bool); !ok || ts {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if tsconfig, ok := options["tsconfig"].(string); ok && tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}
	var args []string
	if nodeargs, ok := options["nodeargs"].(string); ok && nodeargs != "" {
		args = append(args, strings.Fields(nodeargs)...)
	}
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

// resolveRunner finds the SDK's program runner in the program's own node_modules.
func resolveRunner(ctx context.Context, node, programDir string) (string, error) {
	script := `try { console.log(require.resolve("@pulumi/pulumi/cmd/run")) } catch (e) { ` +
		`console.error("The Pulumi SDK (@pulumi/pulumi) is not installed for this program: run npm install"); process.exit(1) }`
	cmd := exec.CommandContext(ctx, node, "-e", script)
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
