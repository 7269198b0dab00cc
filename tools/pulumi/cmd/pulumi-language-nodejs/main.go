// Command pulumi-language-nodejs is a small Node.js language host for the pulumi CLI built in
// this module. The real host (module github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3)
// has no release tags and the Go module proxy does not serve it, so this one does what the CLI
// needs of a host to run a TypeScript or JavaScript project (`pulumi preview`, `up`, `refresh`,
// `destroy`, `import`, with the program `import` prints: codegen.go): it serves pulumirpc.LanguageRuntime on the SDK's own gRPC stubs and runs
// the program with the SDK's own runner, `@pulumi/pulumi/cmd/run`, from the program's
// node_modules, as the real host does (sdk/nodejs/cmd/pulumi-language-nodejs/main.go, Run and
// constructArguments). What it leaves out: plugin discovery from node_modules (GetRequiredPackages
// answers UNIMPLEMENTED, which the CLI takes as "none": the only plugin these programs use is the
// bundled pulumi-nodejs), dependency installation, SDK generation, synchronous invokes and
// debugging. What it adds: when the engine is gone (its CLI killed), it ends the program it runs
// and exits within a second, not at the next of the 5-minute health checks plugins use.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The runner's exit code for "the error was already shown to the user" (cmd/run/index.js).
const exitAfterUserActionableMessage = 32

const (
	// How often the host looks whether it was re-parented (see watchParent).
	parentCheckInterval = 500 * time.Millisecond
	// How often it asks the engine whether it is alive. Plugins ask every 5 minutes
	// (sdk/go/pulumi/provider/main.go); where neither stdin nor the parent tells (a process is
	// never re-parented on Windows), a program must not run on for that long after its engine.
	healthCheckInterval = 2 * time.Second
	// How long programs get to end after an interrupt the host passes on, before they are killed:
	// less than the 5 s the CLI gives the host itself (pkg/resource/plugin/plugin.go, ExecPlugin).
	interruptGrace = 3 * time.Second
)

func main() {
	// The CLI starts a host as `pulumi-language-nodejs [flags] <engine address>`.
	var engineAddress string
	for _, arg := range os.Args[1:] {
		if !strings.HasPrefix(arg, "-") {
			engineAddress = arg
		}
	}
	programs := &programs{running: map[*exec.Cmd]struct{}{}}
	if engineAddress != "" {
		// When the engine is gone, nothing waits for the program: end it, and exit.
		engineGone, gone := context.WithCancel(context.Background())
		if err := rpcutil.Healthcheck(engineGone, engineAddress, healthCheckInterval, gone); err != nil {
			fail(fmt.Errorf("could not start the health check: %w", err))
		}
		watchParent(gone)
		watchStdin(gone)
		go func() {
			<-engineGone.Done()
			programs.stop(0)
		}()
	}
	programs.stopOnSignal()
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engineAddress: engineAddress, programs: programs})
			return nil
		},
	})
	if err != nil {
		fail(fmt.Errorf("could not start the language host: %w", err))
	}
	// The CLI reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
	os.Exit(1)
}

// watchParent calls gone once the host is re-parented: the CLI that started it as its child
// (pkg/resource/plugin/plugin.go, ExecPlugin) has died.
func watchParent(gone context.CancelFunc) {
	parent := os.Getppid()
	go func() {
		ticker := time.NewTicker(parentCheckInterval)
		defer ticker.Stop()
		for range ticker.C {
			if os.Getppid() != parent {
				gone()
				return
			}
		}
	}()
}

// watchStdin calls gone once stdin ends: the CLI starts a plugin with a pipe on its stdin that only
// the CLI holds (ExecPlugin, StdinPipe), so it ends when the CLI does. Nothing is sent on it. A
// terminal or a file on stdin (a host started by hand) is not watched.
func watchStdin(gone context.CancelFunc) {
	info, err := os.Stdin.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		gone()
	}()
}

// programs are the programs the host runs now, each the leader of a process group of its own.
type programs struct {
	mu       sync.Mutex
	running  map[*exec.Cmd]struct{}
	stopping bool
}

// run runs cmd to its end, unless the host is stopping.
func (p *programs) run(cmd *exec.Cmd) error {
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		return errors.New("the language host is stopping")
	}
	// A group of its own, so that ending the program ends what it started too (cmdutil's
	// child_unix.go; a new process group on Windows).
	cmdutil.RegisterProcessGroup(cmd)
	cmd.Cancel = func() error { return killProgram(cmd.Process) }
	err := cmd.Start()
	if err == nil {
		p.running[cmd] = struct{}{}
	}
	p.mu.Unlock()
	if err != nil {
		return err
	}
	err = cmd.Wait()
	p.mu.Lock()
	delete(p.running, cmd)
	p.mu.Unlock()
	return err
}

// stop starts no more programs, gives the running ones `grace` to end, kills what is left, and
// exits the host.
func (p *programs) stop(grace time.Duration) {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p.mu.Lock()
		left := len(p.running)
		p.mu.Unlock()
		if left == 0 {
			break
		}
	}
	p.mu.Lock()
	for cmd := range p.running {
		_ = killProgram(cmd.Process)
	}
	os.Exit(1)
}

// stopOnSignal: the CLI stops a plugin by interrupting its process group, and kills the group if
// it is still there 5 s later (ExecPlugin's kill). The programs are in groups of their own, so the
// host passes the interrupt on to them and stops.
func (p *programs) stopOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		p.mu.Lock()
		p.stopping = true
		for cmd := range p.running {
			cmdutil.InterruptChildren(cmd.Process.Pid)
		}
		p.mu.Unlock()
		p.stop(interruptGrace)
	}()
}

// killProgram ends a program and what it started: its process group on Unix (cmdutil.KillChildren
// signals the group), its children on Windows, then the program itself.
func killProgram(program *os.Process) error {
	_ = cmdutil.KillChildren(program.Pid)
	if err := program.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	programs      *programs
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
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
	flag("engine", h.engineAddress)
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
	cmd.WaitDelay = 5 * time.Second
	err = h.programs.run(cmd)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exit) && exit.ExitCode() == exitAfterUserActionableMessage:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exit):
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode())}, nil
	default:
		return &pulumirpc.RunResponse{Error: "could not run the program: " + err.Error()}, nil
	}
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
