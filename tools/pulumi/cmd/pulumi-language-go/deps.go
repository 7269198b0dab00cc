package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// GetRequiredPackages names the provider plugins of the modules the program's go.mod requires:
// those with a pulumi-plugin.json (as the generated SDKs have) that says "resource", at the
// version it names, else the module's. Any failure means "none", as in the real host (which also
// reads a vendor folder; this one does not).
func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	none := &pulumirpc.GetRequiredPackagesResponse{}
	file, err := loadGoMod(ctx, req.GetInfo().GetProgramDirectory())
	if err != nil || len(file.Require) == 0 {
		return none, nil
	}
	paths := make([]string, 0, len(file.Require))
	for _, required := range file.Require {
		paths = append(paths, required.Mod.Path)
	}
	moduleDir := filepath.Dir(file.Syntax.Name)
	modules, err := goModules(ctx, moduleDir, "list", "-m", "-json")(paths)
	if err != nil {
		return none, nil
	}
	// A module not in the module cache yet has no folder: download it.
	var missing []string
	for _, m := range modules {
		if m.Dir == "" {
			missing = append(missing, m.Path)
		}
	}
	if len(missing) > 0 {
		downloaded, err := goModules(ctx, moduleDir, "mod", "download", "-json")(missing)
		if err != nil {
			return none, nil
		}
		modules = append(modules, downloaded...)
	}
	var packages []*pulumirpc.PackageDependency
	for _, m := range modules {
		if m.Dir == "" {
			continue
		}
		if p, err := m.pluginPackage(); err == nil && p != nil {
			packages = append(packages, p)
		}
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// goModule is what `go list -m -json` and `go mod download -json` say of a module.
type goModule struct {
	Path    string
	Version string
	Dir     string
}

// goModules runs a go command that prints modules as JSON for the given module paths.
func goModules(ctx context.Context, dir string, args ...string) func([]string) ([]goModule, error) {
	return func(paths []string) ([]goModule, error) {
		cmd := exec.CommandContext(ctx, "go", append(args, paths...)...)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, err
		}
		var modules []goModule
		for decoder := json.NewDecoder(bytes.NewReader(out)); decoder.More(); {
			var m goModule
			if err := decoder.Decode(&m); err != nil {
				return nil, err
			}
			modules = append(modules, m)
		}
		return modules, nil
	}
}

// pluginPackage is the plugin a module's pulumi-plugin.json names (in its folder, go/, go/* or
// *), or nil when it names none.
func (m goModule) pluginPackage() (*pulumirpc.PackageDependency, error) {
	candidates := []string{
		filepath.Join(m.Dir, "pulumi-plugin.json"),
		filepath.Join(m.Dir, "go", "pulumi-plugin.json"),
	}
	for _, pattern := range []string{filepath.Join(m.Dir, "go", "*", "pulumi-plugin.json"), filepath.Join(m.Dir, "*", "pulumi-plugin.json")} {
		found, _ := filepath.Glob(pattern)
		candidates = append(candidates, found...)
	}
	var info *plugin.PulumiPluginJSON
	for _, candidate := range candidates {
		loaded, err := plugin.LoadPulumiPluginJSON(candidate)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		info = loaded
		break
	}
	if info == nil || !info.Resource {
		return nil, nil
	}
	name := info.Name
	if name == "" {
		// github.com/pulumi/pulumi-aws/sdk/... => aws
		parts := strings.Split(m.Path, "/")
		if len(parts) < 3 || !strings.Contains(parts[2], "-") {
			return nil, errors.New("no plugin name")
		}
		name = strings.SplitN(parts[2], "-", 2)[1]
	}
	version := m.Version
	if info.Version != "" {
		version = info.Version
	}
	version, err := pluginVersion(version)
	if err != nil {
		return nil, err
	}
	return langhost.PackageDependency(*info, name, version), nil
}

// pluginVersion is a module version as a plugin version: a pseudo-version (a commit after a tag)
// names the release before it, as in the real host.
func pluginVersion(version string) (string, error) {
	v, err := semver.ParseTolerant(version)
	if err != nil {
		return "", errors.New("module does not have a semver compatible version")
	}
	if module.IsPseudoVersion(version) {
		if v.Major == 0 && v.Minor == 0 && v.Patch == 0 {
			return "", errors.New("a pseudo-version with no tag before it")
		}
		patch := v.Patch
		if patch > 0 {
			patch--
		}
		version = fmt.Sprintf("v%v.%v.%v", v.Major, v.Minor, patch)
	}
	return version, nil
}

// GetProgramDependencies lists the modules the program's go.mod requires (`pulumi about`): the
// direct ones, or all with TransitiveDependencies; a module replaced by a local folder has no
// version.
func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	file, err := loadGoMod(ctx, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, fmt.Errorf("load go.mod: %w", err)
	}
	replaced := map[string]bool{}
	for _, r := range file.Replace {
		replaced[strings.TrimRight(r.Old.Path, "/")] = true
	}
	var dependencies []*pulumirpc.DependencyInfo
	for _, required := range file.Require {
		if required.Indirect && !req.GetTransitiveDependencies() {
			continue
		}
		version := required.Mod.Version
		if replaced[strings.TrimRight(required.Mod.Path, "/")] {
			version = ""
		}
		dependencies = append(dependencies, &pulumirpc.DependencyInfo{Name: required.Mod.Path, Version: version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: dependencies}, nil
}

// loadGoMod reads the go.mod of the module that holds the program's folder (which go finds: it may
// be in a parent folder).
func loadGoMod(ctx context.Context, programDir string) (*modfile.File, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("couldn't find go binary: %w", err)
	}
	list := exec.CommandContext(ctx, gobin, "list", "-m", "-f", "{{.GoMod}}")
	// Only the module of this folder, not every module of a workspace.
	list.Env = append(os.Environ(), "GOWORK=off")
	list.Dir = programDir
	list.Stderr = os.Stderr
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	goMod := string(bytes.TrimSpace(out))
	if goMod == "" {
		return nil, fmt.Errorf("no go.mod file found: %v", programDir)
	}
	text, err := os.ReadFile(filepath.Clean(goMod))
	if err != nil {
		return nil, err
	}
	return modfile.Parse(goMod, text, nil)
}
