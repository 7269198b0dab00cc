// Package langhost is what the language hosts of this module (cmd/pulumi-language-nodejs,
// -python and -go) share, so that each host's folder holds only what is its language's own: the
// command line the CLI starts a host with, serving pulumirpc.LanguageRuntime, running programs so
// that none outlives the engine (programs.go), how a program's exit is told to the engine, and the
// plumbing around Pulumi's code generators (codegen.go).
package langhost

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
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/constant"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// ParseArgs parses the command line the CLI starts a host with, `<host> [flags] <engine address>`
// (pkg/resource/plugin/plugin.go, buildPluginArguments): the host's own flags, defined on
// flag.CommandLine before the call, and those the CLI may pass any plugin: --tracing, defined here,
// and --logtostderr and -v (with --logflow), which glog, imported through the SDK, defines. It
// returns the engine's address, empty for a host started without one (by hand, or by a harness
// that calls Handshake), and the tracing endpoint.
func ParseArgs() (engineAddress, tracing string) {
	tracingFlag := flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	flag.Parse()
	return flag.Arg(0), *tracingFlag
}

// Server is what each host's pulumirpc.LanguageRuntime server embeds: the engine's address, the
// programs it runs, and the calls that are the same in every language.
type Server struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	EngineAddress string
	Programs      *Programs
}

// NewServer is the Server of a host whose engine is at engineAddress (see Start).
func NewServer(engineAddress string) Server {
	return Server{EngineAddress: engineAddress, Programs: Start(engineAddress)}
}

// GetPluginInfo answers the version of the pinned CLI, which the hosts are built with.
func (s *Server) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// Handshake gives a host started without an engine address (attached to, or started by a test
// harness) the engine's. Such a host does not watch the engine.
func (s *Server) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() == "" {
		return nil, errors.New("the handshake carries no engine address")
	}
	s.EngineAddress = req.GetEngineAddress()
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// Serve serves server as the host's pulumirpc.LanguageRuntime, writes its port on the first line of
// stdout (the CLI reads it there) and returns when the server has ended. A failure ends the host.
func Serve(server pulumirpc.LanguageRuntimeServer) {
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, server)
			return nil
		},
	})
	if err != nil {
		Fail(fmt.Errorf("could not start the language host: %w", err))
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		Fail(err)
	}
}

// Fail ends the host with err, after the host's name, on stderr.
func Fail(err error) {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}

// runResponse tells the engine how a program ended (err from running it): exit 0 is success;
// constant.ExitStatusLoggedError (32, the exit of every SDK's runner after an error it has shown
// through the engine) is a bail, which the CLI shows nothing more for; any other end is an error.
func runResponse(err error) *pulumirpc.RunResponse {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}
	case errors.As(err, &exit) && exit.ExitCode() == constant.ExitStatusLoggedError:
		return &pulumirpc.RunResponse{Bail: true}
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return &pulumirpc.RunResponse{
			Error: fmt.Sprintf("program exited with non-zero exit code: %d", exit.ExitCode()),
		}
	case errors.As(err, &exit):
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("program exited unexpectedly: %v", exit)}
	default:
		return &pulumirpc.RunResponse{Error: "could not run the program: " + err.Error()}
	}
}

// InstallDependencies answers an InstallDependencies call as every host does: install (the
// language's own step) writes to the streams the CLI shows, between the lines the real hosts print.
func InstallDependencies(
	server pulumirpc.LanguageRuntime_InstallDependenciesServer, isTerminal bool,
	install func(ctx context.Context, stdout, stderr io.Writer) error,
) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, isTerminal)
	if err != nil {
		return err
	}
	defer closer.Close()
	fmt.Fprint(stdout, "Installing dependencies...\n\n")
	if err := install(server.Context(), stdout, stderr); err != nil {
		return err
	}
	fmt.Fprint(stdout, "Finished installing dependencies\n\n")
	return closer.Close()
}

// ProgramDependencies is the GetProgramDependencies answer of the packages a language's tools list.
func ProgramDependencies(found []plugin.DependencyInfo) *pulumirpc.GetProgramDependenciesResponse {
	deps := make([]*pulumirpc.DependencyInfo, len(found))
	for i, d := range found {
		deps[i] = &pulumirpc.DependencyInfo{Name: d.Name, Version: d.Version}
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}
}

// ConfigJSON is a run's config and its secret keys as the SDKs read them from PULUMI_CONFIG and
// PULUMI_CONFIG_SECRET_KEYS: the engine's map as JSON, keys as it sends them (`<namespace>:<name>`;
// "" when the run has none), and the list of secret keys as JSON ("[]" when there are none).
func ConfigJSON(req *pulumirpc.RunRequest) (config, secretKeys string, err error) {
	if cfg := req.GetConfig(); cfg != nil {
		text, err := json.Marshal(cfg)
		if err != nil {
			return "", "", err
		}
		config = string(text)
	}
	keys := req.GetConfigSecretKeys()
	if keys == nil {
		keys = []string{}
	}
	text, err := json.Marshal(keys)
	if err != nil {
		return "", "", err
	}
	return config, string(text), nil
}

// PackageDependency is the plugin a package's pulumi-plugin.json (or package.json's "pulumi"
// section) names, as every host answers GetRequiredPackages: the base plugin, with the package as a
// replacement or as an extension of it in the matching slot.
func PackageDependency(info plugin.PulumiPluginJSON, name, version string) *pulumirpc.PackageDependency {
	parameterization := func(p *plugin.PulumiParameterizationJSON) *pulumirpc.PackageParameterization {
		if p == nil {
			return nil
		}
		return &pulumirpc.PackageParameterization{Name: p.Name, Version: p.Version, Value: p.Value}
	}
	return &pulumirpc.PackageDependency{
		Name:             name,
		Kind:             "resource",
		Version:          version,
		Server:           info.Server,
		Parameterization: parameterization(info.Parameterization),
		Extension:        parameterization(info.ExtensionParameterization),
	}
}
