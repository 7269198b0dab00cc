// Command pulumi-language-go is a small Go language host for the pulumi CLI built in this module.
// The real host (module github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3) has no release tags
// and the Go module proxy does not serve it, so this one does, on the SDK's own gRPC stubs and
// with the code generator of the pinned pkg/v3, what the CLI asks of a Go host, as the real one
// does it (sdk/go/pulumi-language-go/main.go, read at v3.260):
//
//   - Run: `go build -buildvcs=false -o <temporary file> -trimpath -ldflags "-w -s"` in the
//     program's folder (or into runtime.options.buildTarget; runtime.options.binary is run as it
//     is), then that binary in the program's folder with the environment the SDK reads
//     (sdk/v3 go/pulumi/run.go): PULUMI_MONITOR, PULUMI_ENGINE, PULUMI_PROJECT, PULUMI_STACK,
//     PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS, PULUMI_DRY_RUN, PULUMI_PARALLEL,
//     PULUMI_ORGANIZATION and PULUMI_ROOT_DIRECTORY; exit 32 means the error was already shown.
//   - GeneratePackage (`pulumi package gen-sdk`, `pulumi package add`), GenerateProgram (the code
//     `pulumi import` prints) and GenerateProject, with pkg/v3/codegen/go; Link (`pulumi package
//     add`: a replace line in the program's go.mod), InstallDependencies (`go mod tidy`) and Pack
//     (a copy of the module) (codegen.go).
//   - GetRequiredPackages (the plugins named by the pulumi-plugin.json of the modules go.mod
//     requires) and GetProgramDependencies (go.mod's requirements) (deps.go).
//   - RunPlugin for a policy pack (`pulumi preview --policy-pack <dir>`): built as a program is,
//     then run with the engine's arguments and environment (plugin.go).
//
// Where it differs: Link prints the schema's importBasePath where it has one (the real host prints
// a path derived from the package's name), and GetRequiredPackages does not look in a vendor
// folder. The build and the program run in a process group of their own, killed when their
// request ends early (the real host interrupts the program) and when the engine is gone (its CLI
// killed: stdin ends, the host's parent changes, or a 2 s health check fails), after which the
// host exits within a second, where the real one waits for its 5-minute health check
// (internal/langhost, shared with this module's Node.js and Python hosts). Left out: the
// "Compiling the program ..." lines the real host logs through the engine, PULUMI_GO_USE_RUN (`go
// run`), attachDebugger, RunPlugin for any plugin but a policy pack (the real host runs every kind
// the same way), tracing, the minimum Go version check, and the Cancel RPC (a run ends with its
// request). `npm run conformance` judges it with the
// conformance suite of the pinned pkg/v3 (docs/conformance.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	// The CLI starts a host as `pulumi-language-go [-tracing <endpoint>] <engine address>`.
	showVersion := flag.Bool("version", false, "print the version and exit")
	engineAddress, _ := langhost.ParseArgs()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}
	langhost.Serve(&host{Server: langhost.NewServer(engineAddress)})
}

type host struct {
	langhost.Server
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("could not find go on the PATH: %w", err)
	}
	out, err := exec.CommandContext(ctx, gobin, "version").Output()
	if err != nil {
		return nil, fmt.Errorf("go version: %w", err)
	}
	return &pulumirpc.AboutResponse{Executable: gobin, Version: strings.TrimSpace(string(out))}, nil
}

// Run builds the program and runs it to completion: the program registers its resources with the
// engine's monitor itself, and its exit tells how the run went.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if h.EngineAddress == "" {
		return nil, errors.New("no engine address: start the host with one, or call Handshake before Run")
	}
	info := req.GetInfo()
	options := info.GetOptions().AsMap()
	binary, _ := options["binary"].(string)
	buildTarget, _ := options["buildTarget"].(string)
	if binary != "" && buildTarget != "" {
		return nil, errors.New("binary and buildTarget cannot both be specified")
	}
	env, err := h.programEnv(req)
	if err != nil {
		return nil, fmt.Errorf("failed to prepare environment: %w", err)
	}

	program := binary
	if binary != "" {
		if program, err = exec.LookPath(binary); err != nil {
			return nil, fmt.Errorf("unable to find '%s' executable: %w", binary, err)
		}
	} else {
		if program = buildTarget; program == "" {
			var remove func()
			if program, remove, err = h.temporaryBinary(); err != nil {
				return nil, err
			}
			defer remove()
		}
		if err := h.compileProgram(ctx, info.GetProgramDirectory(), program, os.Stderr); err != nil {
			return nil, fmt.Errorf("error in compiling Go: %w", err)
		}
	}

	cmd := exec.CommandContext(ctx, program)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return h.Programs.Run(cmd), nil
}

// temporaryBinary is a file for a build's binary, which remove removes once the binary has run (or
// the host, when it stops first).
func (h *host) temporaryBinary() (path string, remove func(), err error) {
	f, err := os.CreateTemp("", "pulumi-go.*")
	if err != nil {
		return "", nil, fmt.Errorf("unable to create go program temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	return f.Name(), h.Programs.Temporary(f.Name()), nil
}

// compileProgram builds the program's folder into outfile as the real host does, go's own messages
// (compile errors) to output. The build ends with the host, as a program does.
func (h *host) compileProgram(ctx context.Context, programDir, outfile string, output io.Writer) error {
	if matches, _ := filepath.Glob(filepath.Join(programDir, "*.go")); len(matches) == 0 {
		return fmt.Errorf("Failed to find go files for 'go build' matching %s/*.go", programDir)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("unable to find 'go' executable: %w", err)
	}
	build := exec.CommandContext(ctx, gobin, "build", "-buildvcs=false", "-o", outfile, "-trimpath", "-ldflags", "-w -s")
	build.Dir = programDir
	build.Stdout, build.Stderr = output, output
	if err := h.Programs.Exec(build); err != nil {
		return fmt.Errorf("unable to run `go build`: %w", err)
	}
	return nil
}

// programEnv is the host's environment and the run's settings, in the variables the Go SDK reads
// (sdk/v3 go/pulumi/run.go, getEnvInfo); empty values are left out, as the real host does.
func (h *host) programEnv(req *pulumirpc.RunRequest) ([]string, error) {
	// The Go SDK takes the config keys as the engine sends them (`<namespace>:<name>`).
	config, secretKeysJSON, err := langhost.ConfigJSON(req)
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	set := func(name, value string) {
		if value != "" {
			env = append(env, name+"="+value)
		}
	}
	set(pulumi.EnvOrganization, req.GetOrganization())
	set(pulumi.EnvProject, req.GetProject())
	set(pulumi.EnvPulumiRootDirectory, req.GetInfo().GetRootDirectory())
	set(pulumi.EnvStack, req.GetStack())
	set(pulumi.EnvConfig, config)
	set(pulumi.EnvConfigSecretKeys, secretKeysJSON)
	set(pulumi.EnvDryRun, strconv.FormatBool(req.GetDryRun()))
	set(pulumi.EnvParallel, strconv.Itoa(int(req.GetParallel())))
	set(pulumi.EnvMonitor, req.GetMonitorAddress())
	set(pulumi.EnvEngine, h.EngineAddress)
	return env, nil
}
