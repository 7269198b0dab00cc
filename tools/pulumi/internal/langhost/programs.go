package langhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

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
	// How long a program's output is still copied once it has ended (exec.Cmd.WaitDelay).
	waitDelay = 5 * time.Second
)

// Programs are the programs a host runs now, each the leader of a process group of its own, and
// the temporary files the host removes when it stops.
type Programs struct {
	mu        sync.Mutex
	running   map[*exec.Cmd]struct{}
	temporary map[string]struct{}
	stopping  bool
}

// Start returns the programs of a host whose engine is at engineAddress (none yet when empty).
// When the engine is gone (its CLI killed: stdin ends, the host's parent changes, or the health
// check fails), nothing waits for them: they are killed and the host exits, within a second, not
// at the next of the 5-minute health checks plugins use. On SIGINT or SIGTERM, they are
// interrupted and given a few seconds first.
func Start(engineAddress string) *Programs {
	p := &Programs{running: map[*exec.Cmd]struct{}{}, temporary: map[string]struct{}{}}
	if engineAddress != "" {
		engineGone, gone := context.WithCancel(context.Background())
		if err := rpcutil.Healthcheck(engineGone, engineAddress, healthCheckInterval, gone); err != nil {
			Fail(fmt.Errorf("could not start the health check: %w", err))
		}
		watchParent(gone)
		watchStdin(gone)
		go func() {
			<-engineGone.Done()
			p.stop(0)
		}()
	}
	p.stopOnSignal()
	return p
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

// Run runs a program to its end and tells the engine how it ended (see Exec). cmd is made with
// exec.CommandContext and the request's context.
func (p *Programs) Run(cmd *exec.Cmd) *pulumirpc.RunResponse {
	return runResponse(p.Exec(cmd))
}

// Exec runs cmd to its end, unless the host is stopping, in a process group of its own, so that
// ending it ends what it started too (cmdutil's child_unix.go; a new process group on Windows).
// The group is killed when cmd's context ends (the request is cancelled, or its connection to the
// CLI is gone) and when the host stops. For a program, and for what a host runs to make one (Go's
// build). cmd is made with exec.CommandContext.
func (p *Programs) Exec(cmd *exec.Cmd) error {
	ended, err := p.Start(cmd)
	if err != nil {
		return err
	}
	defer ended()
	return cmd.Wait()
}

// Start starts cmd as Exec does, for a caller that waits for it in its own way (a policy pack is
// waited for by the SDK's policy proxy) and calls ended once it has.
func (p *Programs) Start(cmd *exec.Cmd) (ended func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return nil, errors.New("the language host is stopping")
	}
	cmdutil.RegisterProcessGroup(cmd)
	cmd.Cancel = func() error { return kill(cmd.Process) }
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.running[cmd] = struct{}{}
	return func() {
		p.mu.Lock()
		delete(p.running, cmd)
		p.mu.Unlock()
	}, nil
}

// Temporary has the host remove the file at path when it stops; the function returned removes it
// now (for a deferred call once the file has served).
func (p *Programs) Temporary(path string) (remove func()) {
	p.mu.Lock()
	p.temporary[path] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.temporary, path)
		p.mu.Unlock()
		_ = os.Remove(path)
	}
}

// stop starts no more programs, gives the running ones `grace` to end, kills what is left, removes
// the temporary files and exits the host.
func (p *Programs) stop(grace time.Duration) {
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
		_ = kill(cmd.Process)
	}
	for path := range p.temporary {
		_ = os.Remove(path)
	}
	os.Exit(1)
}

// stopOnSignal: the CLI stops a plugin by interrupting its process group, and kills the group if
// it is still there 5 s later (ExecPlugin's kill). The programs are in groups of their own, so the
// host passes the interrupt on to them and stops.
func (p *Programs) stopOnSignal() {
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

// kill ends a program and what it started: its process group on Unix (cmdutil.KillChildren
// signals the group), its children on Windows, then the program itself.
func kill(program *os.Process) error {
	_ = cmdutil.KillChildren(program.Pid)
	if err := program.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
