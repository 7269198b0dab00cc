// Command conformance runs Pulumi's language conformance suite (pkg/v3
// testing/pulumi-test-language, the runner and tests of the pinned module, in this process) against
// one language host binary of this module, as the real host's language_test.go drives it: the suite's
// server, which is also the engine the host is started with, then PrepareLanguageTests for the host and
// RunLanguageTest for each test. It prints one JSON line per test; scripts/conformance.js makes the
// table of them. The real host's snapshots of generated code are not in the module, so they are written
// (PULUMI_ACCEPT) into the temporary folder rather than compared.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/pkg/v3/testing/pulumi-test-language/runner"
	"github.com/pulumi/pulumi/pkg/v3/testing/pulumi-test-language/tests"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	testingrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/testing"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// result is one test's line of output.
type result struct {
	Test     string   `json:"test"`
	Status   string   `json:"status"` // pass, fail, skip
	Seconds  float64  `json:"seconds"`
	Messages []string `json:"messages,omitempty"`
	Log      string   `json:"log,omitempty"`
}

func main() {
	language := flag.String("language", "", "the language plugin's name (nodejs, python, go)")
	hostBinary := flag.String("host", "", "the language host to judge")
	root := flag.String("root", "", "an empty temporary folder for the projects, artifacts and logs")
	coreSDK := flag.String("core-sdk", "", "the folder of the core SDK that the host packs (empty: none)")
	coreVersion := flag.String("core-version", "", "the version of the core SDK the programs must get")
	runOnly := flag.String("run", "", "run only the tests whose names match this regular expression")
	skipList := flag.String("skip", "", "a JSON object of test name to the reason it is not run")
	parallel := flag.Int("parallel", 2, "tests run at once (the suite itself runs at most one per CPU)")
	flag.DurationVar(&testTimeout, "timeout", 15*time.Minute, "how long one test may run before it counts as failed")
	policyPacks := flag.String("policy-packs", "", "the folder of the policy packs the policy-* tests name, written in the host's language")
	providers := flag.String("providers", "", "the folder of the component providers the provider-* tests name, written in the host's language")
	list := flag.Bool("list", false, "list the suite's tests and exit")
	flag.Parse()
	dirs := testdata{policyPacks: *policyPacks, providers: *providers}
	if err := run(*language, *hostBinary, *root, *coreSDK, *coreVersion, *runOnly, *skipList, *parallel, *list, dirs); err != nil {
		fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
		os.Exit(1)
	}
}

// testdata is what a real host's test gives the suite from its own testdata folder: programs in the
// host's language that the suite runs beside the generated ones.
type testdata struct{ policyPacks, providers string }

func run(language, hostBinary, root, coreSDK, coreVersion, runOnly, skipList string, parallel int, list bool, dirs testdata) error {
	ctx := context.Background()
	server, err := runner.Start(ctx, tests.LanguageTestdata, tests.LanguageTests)
	if err != nil {
		return fmt.Errorf("start the suite: %w", err)
	}
	// The channel options of the real hosts' tests: a result may carry far more than gRPC's default
	// 4 MB (l2-large-string's program prints 200 MB).
	conn, err := grpc.NewClient(server.Address(),
		grpc.WithTransportCredentials(insecure.NewCredentials()), rpcutil.GrpcChannelOptions())
	if err != nil {
		return err
	}
	suite := testingrpc.NewLanguageTestClient(conn)
	all, err := suite.GetLanguageTests(ctx, &testingrpc.GetLanguageTestsRequest{})
	if err != nil {
		return err
	}
	if list {
		for _, name := range all.GetTests() {
			fmt.Println(name)
		}
		return nil
	}
	if language == "" || hostBinary == "" || root == "" {
		return fmt.Errorf("-language, -host and -root are required")
	}
	filter, err := regexp.Compile(runOnly)
	if err != nil {
		return err
	}
	skips := map[string]string{}
	if skipList != "" {
		if err := json.Unmarshal([]byte(skipList), &skips); err != nil {
			return fmt.Errorf("-skip: %w", err)
		}
	}
	// Snapshots of the real host are not in the module: write them here instead of comparing.
	if err := os.Setenv("PULUMI_ACCEPT", "true"); err != nil {
		return err
	}
	logs := filepath.Join(root, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}

	target, stop, err := startHost(hostBinary, server.Address(), filepath.Join(logs, "host.log"))
	if err != nil {
		return err
	}
	defer stop()

	prepare, err := suite.PrepareLanguageTests(ctx, &testingrpc.PrepareLanguageTestsRequest{
		LanguagePluginName:   language,
		LanguagePluginTarget: target,
		TemporaryDirectory:   filepath.Join(root, "projects"),
		SnapshotDirectory:    filepath.Join(root, "snapshots"),
		CoreSdkDirectory:     coreSDK,
		CoreSdkVersion:       coreVersion,
		PolicyPackDirectory:  dirs.policyPacks,
		ProvidersDirectory:   dirs.providers,
	})
	if err != nil {
		return fmt.Errorf("prepare the tests: %w", err)
	}

	out := json.NewEncoder(os.Stdout)
	var mu sync.Mutex
	emit := func(r result) {
		mu.Lock()
		defer mu.Unlock()
		_ = out.Encode(r)
	}
	slots := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for _, name := range all.GetTests() {
		if !filter.MatchString(name) {
			continue
		}
		if reason, ok := skips[name]; ok {
			emit(result{Test: name, Status: "skip", Messages: []string{reason}})
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			emit(runTest(ctx, suite, prepare.GetToken(), name, logs))
		}()
	}
	wg.Wait()
	return nil
}

// testTimeout bounds a test: a generated program that never ends (Python's l3-deferred-outputs,
// which the real host does not run: it fails its typechecker first) would otherwise hold the run.
var testTimeout time.Duration

// runTest runs one test and keeps its whole output in a log file beside the others.
func runTest(ctx context.Context, suite testingrpc.LanguageTestClient, token, name, logs string) result {
	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	res, err := suite.RunLanguageTest(ctx, &testingrpc.RunLanguageTestRequest{Token: token, Test: name})
	r := result{Test: name, Status: "fail", Seconds: time.Since(started).Seconds()}
	if ctx.Err() != nil {
		r.Messages = []string{fmt.Sprintf("did not end within %v", testTimeout)}
		return r
	}
	if err != nil {
		r.Messages = []string{err.Error()}
		return r
	}
	if res.GetSuccess() {
		r.Status = "pass"
	}
	r.Messages = res.GetMessages()
	logFile := filepath.Join(logs, name+".log")
	text := strings.Join(res.GetMessages(), "\n") + "\n--- stdout\n" + res.GetStdout() + "\n--- stderr\n" + res.GetStderr()
	if os.WriteFile(logFile, []byte(text), 0o644) == nil {
		r.Log = logFile
	}
	return r
}

// startHost starts the host as the CLI does, `<host> <engine address>`, with a pipe on its stdin that
// only this process holds, and returns the address it serves on (the first line of its stdout). Its
// output goes to logFile. stop closes the pipe (the host then exits) and kills it.
func startHost(binary, engine, logFile string) (target string, stop func(), err error) {
	log, err := os.Create(logFile)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(binary, engine)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = log.Close()
	}
	reader := bufio.NewReader(stdout)
	port, err := reader.ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("%s printed no port: %w (see %s)", binary, err, logFile)
	}
	// The programs the host runs write to its stdout: keep reading it into the log.
	go func() { _, _ = reader.WriteTo(log) }()
	return "127.0.0.1:" + strings.TrimSpace(port), stop, nil
}
