package langhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"

	sdk "github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// PluginStreams are a RunPlugin call's stdout and stderr, which a plugin's output is copied to on
// the call's stream (rpcutil.MakeRunPluginStreams), and the server to send its exit on. The two are
// copied by two goroutines, and a gRPC stream must not be sent on by two at once: sends are taken
// one at a time.
func PluginStreams(
	server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) (serial grpc.ServerStreamingServer[pulumirpc.RunPluginResponse], closer io.Closer, stdout, stderr io.Writer, err error) {
	serial = &serialSends{ServerStreamingServer: server}
	closer, stdout, stderr, err = rpcutil.MakeRunPluginStreams(serial, false)
	return serial, closer, stdout, stderr, err
}

type serialSends struct {
	grpc.ServerStreamingServer[pulumirpc.RunPluginResponse]
	mu sync.Mutex
}

func (s *serialSends) Send(response *pulumirpc.RunPluginResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ServerStreamingServer.Send(response)
}

// StackEnv names the environment variables a language's policy library reads the analyzed stack's
// settings from (PULUMI_NODEJS_* for Node.js, PULUMI_* for Python); PULUMI_CONFIG is the same in all.
type StackEnv struct{ Organization, Project, Stack, DryRun string }

// RunPolicyPack runs cmd, a policy pack, as the real Node.js and Python hosts do (their RunPlugin,
// analyzer kind): policy libraries read the stack's settings from their environment, while the engine
// sends them in a ConfigureStack call, so the SDK's policy proxy (sdk.PolicyProxy) takes the engine's
// Handshake and ConfigureStack first, then the pack is started with the settings in its environment
// (names) and the proxy forwards every other call to it. stdout is where the engine reads the
// proxy's port; cmd's stderr and its environment but the settings are the caller's. It returns when
// the pack has ended, as Exec does.
func (p *Programs) RunPolicyPack(ctx context.Context, cmd *exec.Cmd, stdout io.Writer, names StackEnv) error {
	proxy, stdout, err := sdk.NewPolicyProxy(ctx, stdout)
	if err != nil {
		return fmt.Errorf("could not start the policy pack proxy: %w", err)
	}
	stack, err := proxy.AwaitConfiguration(ctx)
	if err != nil {
		return fmt.Errorf("could not get the stack's configuration: %w", err)
	}
	if stack != nil {
		setting := func(name, value string) {
			if value != "" {
				cmd.Env = append(cmd.Env, name+"="+value)
			}
		}
		setting(names.Organization, stack.GetOrganization())
		setting(names.Project, stack.GetProject())
		setting(names.Stack, stack.GetStack())
		setting(names.DryRun, strconv.FormatBool(stack.GetDryRun()))
		if cfg := stack.GetConfig(); cfg != nil {
			text, err := json.Marshal(cfg)
			if err != nil {
				return err
			}
			setting("PULUMI_CONFIG", string(text))
		}
	}
	cmd.Stdout = stdout
	ended, err := p.Start(cmd)
	if err != nil {
		proxy.Abort(err)
		return err
	}
	defer ended()
	// The proxy waits for cmd.
	if err := proxy.Attach(ctx, cmd); err != nil {
		return fmt.Errorf("policy pack: %w", err)
	}
	return nil
}

// PluginExit ends a RunPlugin call once the plugin has ended (err from running it), as the real
// Python host does: a plugin that exited with a code of its own sends that code to the engine, which
// tells the user; a plugin that could not be run is the call's error.
func PluginExit(server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse], err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return server.Send(&pulumirpc.RunPluginResponse{
			Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(exit.ExitCode())}, //nolint:gosec // an exit code
		})
	}
	return err
}
