// Command pulumi-language-java is a small Java language host for the pulumi CLI built in this
// module. The real host lives in the pulumi-java module (pkg/cmd/pulumi-language-java), which the
// Go module proxy does not serve here, so this one does what the CLI asks of a Java host the way the
// real one does it (read in pulumi-java's main.go and internal/executors):
//
//   - Run: a Maven project (pom.xml in the program's folder, or runtime.options.use-executor naming
//     mvn) runs as `mvn --no-transfer-progress compile exec:java`, with ./mvnw preferred to mvn;
//     runtime.options.binary naming a .jar runs as `java -jar <binary>`. The program runs in its
//     folder with the environment the Java SDK reads (PULUMI_MONITOR, PULUMI_ENGINE,
//     PULUMI_ORGANIZATION, PULUMI_PROJECT, PULUMI_STACK, PULUMI_PWD, PULUMI_DRY_RUN,
//     PULUMI_PARALLEL, PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS); exit 32 means the error was
//     already shown. Its output (Maven's, the program's) is shown only when the run fails.
//   - GetRequiredPackages: the SDK's own classpath scan, `mvn ... compile exec:java
//     -DmainClass=com.pulumi.bootstrap.internal.Main -DmainArgs=packages`, which prints the
//     plugin.json resources of the program's dependencies (com/<namespace>/<name>/plugin.json in
//     their jars) as JSON; as in the real host a failure means "none" (the engine then names the
//     missing plugin).
//   - InstallDependencies (`pulumi install`): `mvn --no-transfer-progress compile`.
//   - GeneratePackage (`pulumi package gen-sdk --language java`), GenerateProgram (the code
//     `pulumi import` prints) and GenerateProject (`pulumi convert`: a Maven project), with this
//     module's Java generator (sdkgen.go, programgen.go, project.go), since pulumi-java's is not
//     served either; Pack (`mvn package`, into a Maven repository) and GetProgramDependencies (the
//     pom.xml's), in project.go. Link answers a call with nothing to link (`pulumi convert` makes
//     one whatever the program uses) and refuses to add a local SDK to pom.xml, which the real host
//     does.
//
// Where it differs: Gradle (build.gradle, build.gradle.kts), JBang (a .java binary), Mill and sbt
// projects fail with an error that says so, where the real host runs them; the SDK it generates
// builds with Maven (a pom.xml) where pulumi-java writes Gradle files. The program runs in a
// process group of its own, killed when its request ends early and when the engine is gone (its
// CLI killed), after which the host exits within a second, where the real one waits for its
// 5-minute health check (internal/langhost, shared with this module's other hosts). Left out:
// RunPlugin (plugins written in Java), Link, debugging (mvnDebug) and tracing; the program
// generator writes a subset of PCL (programgen.go; docs/conformance.md shows which tests it fails).
package main

import (
	"bytes"
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

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	// The real host's flags, for a host started by hand; Pulumi.yaml's runtime.options reach it in
	// each request's program info and take precedence.
	binary := flag.String("binary", "", "JAR to execute")
	useExecutor := flag.String("use-executor", "", "run this program (mvn, ./mvnw) instead of probing the PATH")
	flag.String("root", "", "project root path (unused: each request names it)")
	showVersion := flag.Bool("version", false, "print the version and exit")
	engineAddress, _ := langhost.ParseArgs()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}
	langhost.Serve(&host{
		Server:   langhost.NewServer(engineAddress),
		defaults: executorOptions{binary: *binary, useExecutor: *useExecutor},
	})
}

type host struct {
	langhost.Server
	defaults executorOptions
}

// executorOptions are runtime.options.binary and runtime.options.use-executor.
type executorOptions struct {
	binary      string
	useExecutor string
}

// executor is how a program is built, run and asked for its plugins, as pulumi-java's
// internal/executors has it.
type executor struct {
	cmd        string
	dir        string
	buildArgs  []string // nil: nothing to build (a jar)
	runArgs    []string
	pluginArgs []string
}

// mavenExecutor runs a pom.xml project with mvn (./mvnw first when the project has one).
func mavenExecutor(dir, use string) (*executor, error) {
	cmd, err := lookPath(dir, use, "./mvnw", "mvn")
	if err != nil {
		return nil, err
	}
	return &executor{
		cmd:       cmd,
		dir:       dir,
		buildArgs: []string{"--no-transfer-progress", "compile"},
		runArgs:   []string{"--no-transfer-progress", "compile", "exec:java"},
		pluginArgs: []string{
			// Maven's own output to stderr, and quiet: stdout carries the JSON of the plugins.
			"-Dorg.slf4j.simpleLogger.logFile=System.err",
			"--batch-mode", "--quiet", "--no-transfer-progress", "compile", "exec:java",
			"-DmainClass=com.pulumi.bootstrap.internal.Main",
			"-DmainArgs=packages",
		},
	}, nil
}

// lookPath finds the first of names (or use, when set): a name with a slash in dir, else on PATH.
func lookPath(dir, use string, names ...string) (string, error) {
	if use != "" {
		names = []string{use}
	}
	for _, name := range names {
		if strings.Contains(name, "/") {
			candidate := name
			if !filepath.IsAbs(candidate) {
				candidate = filepath.Join(dir, name)
			}
			if info, err := os.Stat(candidate); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
				return candidate, nil
			}
			continue
		}
		if found, err := exec.LookPath(name); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("could not find %s on the PATH", strings.Join(names, " or "))
}

func exists(dir string, names ...string) string {
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	return ""
}

// newExecutor chooses how to run the program in dir, in the real host's order: a jar, Maven,
// then the build tools this host does not run, named in the error.
func (h *host) newExecutor(info *pulumirpc.ProgramInfo) (*executor, error) {
	opts := h.defaults
	if v, ok := info.GetOptions().AsMap()["binary"].(string); ok && v != "" {
		opts.binary = v
	}
	if v, ok := info.GetOptions().AsMap()["use-executor"].(string); ok && v != "" {
		opts.useExecutor = v
	}
	dir := info.GetProgramDirectory()
	switch {
	case strings.HasSuffix(opts.binary, ".jar"):
		java, err := lookPath(dir, "", "java")
		if err != nil {
			return nil, err
		}
		return &executor{cmd: java, dir: dir, runArgs: []string{"-jar", filepath.Clean(opts.binary)}}, nil
	case strings.Contains(opts.useExecutor, "mvn") || exists(dir, "pom.xml") != "":
		return mavenExecutor(dir, opts.useExecutor)
	}
	unsupported := func(what string) error {
		return fmt.Errorf("%s: this pulumi-language-java (built by pulumi-chatbot) runs Maven projects (pom.xml) "+
			"and jars (runtime.options.binary) only; the real pulumi-language-java runs this one", what)
	}
	if found := exists(dir, "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"); found != "" {
		return nil, unsupported("a Gradle project (" + found + ")")
	}
	if strings.HasSuffix(opts.binary, ".java") {
		return nil, unsupported("a JBang program (" + opts.binary + ")")
	}
	if found := exists(dir, "build.sc", "build.sbt"); found != "" {
		return nil, unsupported("a Mill or sbt project (" + found + ")")
	}
	return nil, fmt.Errorf("no pom.xml in %s and no runtime.options.binary: nothing to run "+
		"(this pulumi-language-java runs Maven projects and jars)", dir)
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	output := func(name string, args ...string) (string, string, error) {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", "", fmt.Errorf("could not find %s on the PATH: %w", name, err)
		}
		out, err := exec.CommandContext(ctx, path, args...).Output()
		if err != nil {
			return "", "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return path, strings.TrimSpace(string(out)), nil
	}
	java, javaVersion, err := output("java", "--version")
	if err != nil {
		return nil, err
	}
	metadata := map[string]string{}
	if _, javac, err := output("javac", "--version"); err == nil {
		metadata["javac"] = strings.TrimPrefix(javac, "javac ")
	}
	if _, maven, err := output("mvn", "--version"); err == nil {
		metadata["maven"] = strings.Split(maven, "\n")[0]
	}
	return &pulumirpc.AboutResponse{Executable: java, Version: javaVersion, Metadata: metadata}, nil
}

// Run builds and runs the program to its end: it registers its resources with the engine's monitor
// itself, and its exit tells how the run went.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if h.EngineAddress == "" {
		return nil, errors.New("no engine address: start the host with one, or call Handshake before Run")
	}
	exe, err := h.newExecutor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	env, err := h.programEnv(req)
	if err != nil {
		return nil, fmt.Errorf("failed to prepare environment: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe.cmd, exe.runArgs...)
	cmd.Dir = exe.dir
	cmd.Env = env
	// As the real host: Maven's build lines and the program's own output are shown only when the
	// run fails (the program reports through the engine: ctx.log()).
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	response := h.Programs.Run(cmd)
	if response.GetError() != "" || response.GetBail() {
		_, _ = os.Stdout.Write(stdout.Bytes())
		_, _ = os.Stderr.Write(stderr.Bytes())
	}
	return response, nil
}

// programEnv is the host's environment and the run's settings, in the variables the Java SDK reads
// (com.pulumi.deployment.internal.DeploymentImpl); empty values are left out, as the real host does.
func (h *host) programEnv(req *pulumirpc.RunRequest) ([]string, error) {
	config, secretKeys, err := langhost.ConfigJSON(req)
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	set := func(name, value string) {
		if value != "" {
			env = append(env, "PULUMI_"+name+"="+value)
		}
	}
	set("MONITOR", req.GetMonitorAddress())
	set("ENGINE", h.EngineAddress)
	set("ORGANIZATION", req.GetOrganization())
	set("PROJECT", req.GetProject())
	set("STACK", req.GetStack())
	set("PWD", req.GetPwd())
	set("DRY_RUN", strconv.FormatBool(req.GetDryRun()))
	set("PARALLEL", strconv.Itoa(int(req.GetParallel())))
	set("CONFIG", config)
	set("CONFIG_SECRET_KEYS", secretKeys)
	return env, nil
}

// ansiEscape is a terminal colour sequence.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// GetRequiredPackages names the provider plugins of the program's dependencies, from the Java
// SDK's own scan of the classpath. As in the real host, a failure means "none".
func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	none := &pulumirpc.GetRequiredPackagesResponse{}
	exe, err := h.newExecutor(req.GetInfo())
	if err != nil || exe.pluginArgs == nil {
		return none, nil
	}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, exe.cmd, exe.pluginArgs...)
	cmd.Dir = exe.dir
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := h.Programs.Exec(cmd); err != nil {
		return none, nil
	}
	var found []plugin.PulumiPluginJSON
	// The first JSON value, without the colour resets Maven 3.8 writes around the program's output
	// even with --batch-mode: whatever a build tool writes after it is not the SDK's.
	text := ansiEscape.ReplaceAll(stdout.Bytes(), nil)
	if err := json.NewDecoder(bytes.NewReader(text)).Decode(&found); err != nil {
		return none, nil
	}
	var packages []*pulumirpc.PackageDependency
	for _, p := range found {
		if !p.Resource {
			continue
		}
		packages = append(packages, langhost.PackageDependency(p, p.Name, p.Version))
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// InstallDependencies resolves the program's dependencies and compiles it (`pulumi install`).
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	exe, err := h.newExecutor(req.GetInfo())
	if err != nil {
		return err
	}
	if exe.buildArgs == nil {
		return nil // a jar: nothing to build
	}
	return langhost.InstallDependencies(server, req.GetIsTerminal(), func(ctx context.Context, stdout, stderr io.Writer) error {
		cmd := exec.CommandContext(ctx, exe.cmd, exe.buildArgs...)
		cmd.Dir = exe.dir
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := h.Programs.Exec(cmd); err != nil {
			return fmt.Errorf("%s %s: %w", filepath.Base(exe.cmd), strings.Join(exe.buildArgs, " "), err)
		}
		return nil
	})
}

// GeneratePackage writes the Java SDK of a package schema into the request's folder (`pulumi
// package gen-sdk --language java`).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	if len(req.GetExtraFiles()) > 0 {
		return nil, errors.New("overlays are not supported for Java")
	}
	return langhost.GeneratePackage(req, func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
		return generateSDKFor(pkg, req.GetLocalDependencies())
	})
}

// GenerateProgram turns a PCL program (what `pulumi import` writes) into Java: `pulumi import`
// prints the result.
func (h *host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	return langhost.GenerateProgram(req, generateProgram)
}
