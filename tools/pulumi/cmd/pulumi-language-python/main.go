// Command pulumi-language-python is a small Python language host for the pulumi CLI built in this
// module. The real host (module github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3)
// has no release tags and the Go module proxy does not serve it, so this one is written on the
// pinned sdk/v3 and pkg/v3 modules and does what the real host does with the same code where that
// code lives in them:
//   - Run starts the SDK's own `pulumi-language-python-exec` (sdk/v3 python/cmd, copied beside this
//     host by scripts/pulumi-path.js) with the project's python, through the SDK's toolchain
//     package (pip, poetry or uv, `runtime.options.virtualenv`), the real host's arguments
//     (--monitor --engine --project --root_directory --stack --pwd --dry_run --parallel --tracing
//     --organization, the entry point) and environment (PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS);
//     exit code 32 means the error was already shown;
//   - GetRequiredPackages creates the virtual environment when it is missing and reports the
//     installed Pulumi packages' plugins (pulumi-plugin.json); InstallDependencies, About and
//     GetProgramDependencies go to the toolchain as in the real host;
//   - GeneratePackage (`pulumi package gen-sdk`, `package add`), GenerateProgram (what `pulumi
//     import` prints) and GenerateProject (`pulumi convert`) call Pulumi's Python code generator
//     (pkg/v3/codegen/python): codegen.go;
//   - RunPlugin runs policy packs with the SDK's `pulumi.policy` runner behind the SDK's policy
//     proxy, and component providers (PulumiPlugin.yaml `runtime: python`) from their __main__.py or
//     as a package: plugin.go.
//
// Where it differs: pulumi-plugin.json files are found by asking the project's python for each
// installed distribution's package folder (the toolchain package of v3.274.1 lists names and
// versions only); Link adds the SDK's folder to the project's dependencies with the toolchain
// (requirements.txt, pyproject.toml) and prints the import, written here from the LinkRequest
// alone; Pack (pack.go) builds the wheel with `pip wheel` rather than `build`; the program runs in a process group of its own (python and what it starts), killed when
// its request ends early and when the engine is gone (its CLI killed: stdin ends, the host's
// parent changes, or a 2 s health check fails), after which the host exits within a second, where
// the real one waits for its 5-minute health check (internal/langhost, shared with this module's
// Node.js and Go hosts). It leaves out the typechecker option (mypy, pyright), debugging (attach),
// RuntimeOptionsPrompts and Template (`pulumi new`), and tracing spans.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The SDK's program runner, beside this host (the real host's default executor).
const execName = "pulumi-language-python-exec"

func main() {
	executor := flag.String("use-executor", "", "Use the given program as the executor instead of the one beside this host")
	// Flags the CLI may pass that the real host keeps only for compatibility.
	flag.String("virtualenv", "", "[obsolete] Virtual environment path to use")
	flag.String("root", "", "[obsolete] Project root path to use")
	flag.String("typechecker", "", "[obsolete] Use a typechecker to type check")
	flag.String("toolchain", "pip", "[obsolete] Select the package manager to use for dependency management")
	engineAddress, tracing := langhost.ParseArgs()

	runner := *executor
	if runner == "" {
		self, err := os.Executable()
		if err != nil {
			langhost.Fail(fmt.Errorf("could not find this executable: %w", err))
		}
		runner = filepath.Join(filepath.Dir(self), execName)
		if _, err := os.Stat(runner); err != nil {
			langhost.Fail(fmt.Errorf("missing executor %s: %w", runner, err))
		}
	}
	langhost.Serve(&host{Server: langhost.NewServer(engineAddress), exec: runner, tracing: tracing})
}

type host struct {
	langhost.Server
	exec    string
	tracing string
}

// options reads `runtime.options` of Pulumi.yaml as the real host does: virtualenv and toolchain.
func options(info *pulumirpc.ProgramInfo) (toolchain.PythonOptions, error) {
	opts := toolchain.PythonOptions{Root: info.GetRootDirectory(), ProgramDir: info.GetProgramDirectory()}
	given := info.GetOptions().AsMap()
	if v, ok := given["virtualenv"]; ok {
		s, isString := v.(string)
		if !isString {
			return opts, errors.New("virtualenv option must be a string")
		}
		opts.Virtualenv = s
	}
	if v, ok := given["toolchain"]; ok {
		switch v {
		case "pip":
			opts.Toolchain = toolchain.Pip
		case "poetry":
			opts.Toolchain = toolchain.Poetry
		case "uv":
			opts.Toolchain = toolchain.Uv
		default:
			return opts, fmt.Errorf("unsupported toolchain option: %v", v)
		}
	}
	if v, ok := given["typechecker"]; ok && v != "" {
		return opts, fmt.Errorf("the typechecker option (%v) is not supported by this language host", v)
	}
	return opts, nil
}

func toolchainOf(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, toolchain.PythonOptions, error) {
	opts, err := options(info)
	if err != nil {
		return nil, opts, err
	}
	tc, err := toolchain.ResolveToolchain(opts)
	return tc, opts, err
}

// engineWriters log to the engine as ephemeral messages, as the real host shows the output of
// creating a virtual environment.
func (h *host) engineWriters(ctx context.Context) (io.Writer, io.Writer, io.Closer, error) {
	conn, err := grpc.NewClient(h.EngineAddress,
		grpc.WithTransportCredentials(insecure.NewCredentials()), rpcutil.GrpcChannelOptions())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("language host could not make connection to engine: %w", err)
	}
	engine := pulumirpc.NewEngineClient(conn)
	streamID := int32(time.Now().UnixNano() & 0x7fffffff) //nolint:gosec // a stream id, not a secret
	writer := func(severity pulumirpc.LogSeverity) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			_, err := engine.Log(ctx, &pulumirpc.LogRequest{
				Message: strings.ToValidUTF8(string(p), "\uFFFD"), Ephemeral: true, StreamId: streamID, Severity: severity,
			})
			if err != nil {
				return 0, err
			}
			return len(p), nil
		})
	}
	return writer(pulumirpc.LogSeverity_INFO), writer(pulumirpc.LogSeverity_ERROR), conn, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// GetRequiredPackages makes sure the virtual environment exists (creating it and installing the
// requirements when it does not), then names the plugin of each installed Pulumi package.
func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	tc, _, err := toolchainOf(req.GetInfo())
	if err != nil {
		return nil, err
	}
	stdout, stderr, closer, err := h.engineWriters(ctx)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	if err := tc.EnsureVenv(ctx, req.GetInfo().GetProgramDirectory(), false, true, stdout, stderr); err != nil {
		return nil, err
	}
	installed, err := installedPackages(ctx, tc)
	if err != nil {
		return nil, err
	}
	packages := []*pulumirpc.PackageDependency{}
	for _, pkg := range installed {
		if dep := pkg.dependency(); dep != nil {
			packages = append(packages, dep)
		}
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// An installed distribution, and the pulumi-plugin.json of its package folder if it has one.
type pythonPackage struct {
	Name    string                   `json:"name"`
	Version string                   `json:"version"`
	Plugin  *plugin.PulumiPluginJSON `json:"plugin"`
}

// Packages known to have no plugin although their names say Pulumi (as in the real host).
var withoutPlugin = map[string]bool{"pulumi-policy": true, "pulumi-esc-sdk": true}

// Each installed distribution with the pulumi-plugin.json beside its package's __init__.py, found
// by import machinery (so editable installs count) without importing the packages.
const listPackagesScript = `
import importlib.metadata, importlib.util, json, os, sys
found = []
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"]
    plugin = None
    try:
        spec = importlib.util.find_spec(name.replace("-", "_"))
    except Exception:
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "pulumi-plugin.json")
        if os.path.isfile(path):
            with open(path) as f:
                plugin = json.load(f)
            break
    found.append({"name": name, "version": dist.version, "plugin": plugin})
json.dump(found, sys.stdout)
`

func installedPackages(ctx context.Context, tc toolchain.Toolchain) ([]pythonPackage, error) {
	cmd, err := tc.Command(ctx, "-c", listPackagesScript)
	if err != nil {
		return nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("listing the installed Python packages: %w: %s", err, exit.Stderr)
		}
		return nil, fmt.Errorf("listing the installed Python packages: %w", err)
	}
	var packages []pythonPackage
	if err := json.Unmarshal(out, &packages); err != nil {
		return nil, fmt.Errorf("reading the installed Python packages: %w", err)
	}
	return packages, nil
}

// dependency is the plugin a Python package needs, as the real host's determinePackageDependency
// says: from its pulumi-plugin.json, else from a `pulumi-<name>` package's own name and version.
func (p pythonPackage) dependency() *pulumirpc.PackageDependency {
	normalized := strings.ReplaceAll(strings.ToLower(p.Name), "_", "-")
	if withoutPlugin[normalized] {
		return nil
	}
	if p.Plugin == nil && !strings.HasPrefix(normalized, "pulumi-") {
		return nil
	}
	dep := &pulumirpc.PackageDependency{Kind: "resource"}
	if p.Plugin != nil {
		if !p.Plugin.Resource {
			return nil
		}
		dep = langhost.PackageDependency(*p.Plugin, p.Plugin.Name, p.Plugin.Version)
	}
	if dep.Name == "" {
		dep.Name = strings.TrimPrefix(normalized, "pulumi-")
	}
	if dep.Version == "" {
		v, ok := pluginVersion(p.Version)
		if !ok {
			// As the real host: a version that cannot be turned into the plugin's is skipped.
			return nil
		}
		dep.Version = v
	}
	if !strings.HasPrefix(dep.Version, "v") {
		dep.Version = "v" + dep.Version
	}
	return dep
}

var pep440 = regexp.MustCompile(`^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?$`)

// pluginVersion turns a PEP 440 release (`1.2`, `1.2.3rc4`) into the plugin's semantic version
// (`1.2.0`, `1.2.3-rc.4`); the post and dev releases the real host also translates are skipped.
func pluginVersion(v string) (string, bool) {
	m := pep440.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	segments := strings.Split(m[1], ".")
	for len(segments) < 3 {
		segments = append(segments, "0")
	}
	out := strings.Join(segments, ".")
	switch m[2] {
	case "a":
		out += "-alpha." + m[3]
	case "b":
		out += "-beta." + m[3]
	case "rc":
		out += "-rc." + m[3]
	}
	return out, true
}

// Run runs the program to completion with the SDK's runner: the program registers its resources
// with the engine's monitor itself, and its exit tells how the run went.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if req.GetAttachDebugger() {
		return &pulumirpc.RunResponse{Error: "this language host does not attach debuggers"}, nil
	}
	tc, _, err := toolchainOf(req.GetInfo())
	if err != nil {
		return nil, err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return nil, err
	}
	args := []string{h.exec}
	flag := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flag("monitor", req.GetMonitorAddress())
	flag("engine", h.EngineAddress)
	flag("project", req.GetProject())
	flag("root_directory", req.GetInfo().GetRootDirectory())
	flag("stack", req.GetStack())
	flag("pwd", req.GetPwd())
	flag("dry_run", strconv.FormatBool(req.GetDryRun()))
	flag("parallel", strconv.Itoa(int(req.GetParallel())))
	flag("tracing", h.tracing)
	flag("organization", req.GetOrganization())
	args = append(args, req.GetInfo().GetEntryPoint())
	args = append(args, req.GetArgs()...)

	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	// The real host passes the config as the engine gives it (`<project>:<key>`): the Python SDK
	// reads that form.
	cfg, keys, err := langhost.ConfigJSON(req)
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if cfg != "" {
		cmd.Env = append(cmd.Env, "PULUMI_CONFIG="+cfg)
	}
	cmd.Env = append(cmd.Env, "PULUMI_CONFIG_SECRET_KEYS="+keys)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	response := h.Programs.Run(cmd)
	if response.GetBail() || response.GetError() != "" {
		// Python does not flush its output when it exits abnormally: make sure the engine sees it.
		_ = os.Stdout.Sync()
		_ = os.Stderr.Sync()
	}
	return response, nil
}

// InstallDependencies creates the virtual environment and installs the project's requirements
// (`pulumi install`, `pulumi package add`).
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	opts, err := options(req.GetInfo())
	if err != nil {
		return err
	}
	// As the real host: a plugin never runs in the ambient environment.
	if req.GetIsPlugin() && (opts.Toolchain == toolchain.Auto || opts.Toolchain == toolchain.Pip) && opts.Virtualenv == "" {
		opts.Virtualenv = "venv"
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return err
	}
	return langhost.InstallDependencies(server, req.GetIsTerminal(), func(ctx context.Context, stdout, stderr io.Writer) error {
		return tc.InstallDependencies(ctx, req.GetInfo().GetProgramDirectory(),
			req.GetUseLanguageVersionTools(), true, stdout, stderr)
	})
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	opts := toolchain.PythonOptions{Toolchain: toolchain.Pip}
	if req.GetInfo() != nil {
		var err error
		if opts, err = options(req.GetInfo()); err != nil {
			return nil, err
		}
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return nil, err
	}
	info, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: info.PythonExecutable, Version: info.PythonVersion.String()}, nil
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	tc, _, err := toolchainOf(req.GetInfo())
	if err != nil {
		return nil, err
	}
	found, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, fmt.Errorf("failed to get python dependencies: %w", err)
	}
	return langhost.ProgramDependencies(found), nil
}

func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}
