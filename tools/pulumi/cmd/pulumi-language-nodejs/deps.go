package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/cgstrings"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/fsutil"
	"github.com/pulumi/pulumi/sdk/v3/nodejs/npm"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// packageManager is the project's `runtime.options.packagemanager` (npm, yarn, pnpm, bun), or
// chosen from the lock file as the real host does when it is not set.
func packageManager(info *pulumirpc.ProgramInfo) npm.PackageManagerType {
	if name, ok := info.GetOptions().AsMap()["packagemanager"].(string); ok && name != "" {
		return npm.PackageManagerType(name)
	}
	return npm.AutoPackageManager
}

// InstallDependencies installs the program's packages with its package manager (`pulumi install`,
// and what the CLI does before it runs a new project).
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if root, err := npm.FindWorkspaceRoot(dir); err == nil {
		// A program inside an npm or yarn workspace installs at the workspace's root.
		dir = root
	} else if !errors.Is(err, npm.ErrNotInWorkspace) {
		return fmt.Errorf("looking for a workspace root: %w", err)
	}
	return langhost.InstallDependencies(server, req.GetIsTerminal(), func(ctx context.Context, stdout, stderr io.Writer) error {
		_, err := npm.Install(ctx, packageManager(req.GetInfo()), dir, false, stdout, stderr)
		return err
	})
}

// GetProgramDependencies lists the program's installed packages (`pulumi about`).
func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	manager, err := npm.ResolvePackageManager(packageManager(req.GetInfo()), dir)
	if err != nil {
		return nil, err
	}
	found, err := manager.ListPackages(ctx, dir, req.GetTransitiveDependencies())
	if err != nil {
		return nil, fmt.Errorf("failed to get node dependencies: %w", err)
	}
	return langhost.ProgramDependencies(found), nil
}

// packageJSON is what a package.json says of the plugin its package needs.
type packageJSON struct {
	Name    string                  `json:"name"`
	Version string                  `json:"version"`
	Pulumi  plugin.PulumiPluginJSON `json:"pulumi"`
	Scripts map[string]string       `json:"scripts"`
}

// GetRequiredPackages names the plugin of each installed package whose package.json says
// `"pulumi": {"resource": true}`, in every node_modules under the program's folder, as the real
// host does (its getPackagesFromDir): the plugins the engine then makes sure of.
func (h *host) GetRequiredPackages(
	_ context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	packages := []*pulumirpc.PackageDependency{}
	seen := map[string]bool{}
	var walk func(dir string, inNodeModules bool) error
	walk = func(dir string, inNodeModules bool) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] {
			// A dangling link, or a folder reached again through a link.
			return nil //nolint:nilerr
		}
		seen[real] = true
		entries, err := os.ReadDir(real)
		if err != nil {
			return err
		}
		for _, entry := range entries {
			path := filepath.Join(real, entry.Name())
			isDir := entry.IsDir()
			if entry.Type()&fs.ModeSymlink != 0 {
				info, err := os.Stat(path)
				isDir = err == nil && info.IsDir()
			}
			switch {
			case isDir:
				if err := walk(path, inNodeModules || filepath.Base(real) == "node_modules"); err != nil {
					return err
				}
			case inNodeModules && entry.Name() == "package.json":
				dep, err := pluginOf(path)
				if err != nil {
					return err
				}
				if dep != nil {
					packages = append(packages, dep)
				}
			}
		}
		return nil
	}
	if err := walk(req.GetInfo().GetProgramDirectory(), false); err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// pluginOf is the plugin the package.json at path names, nil when it names none: the "pulumi"
// section's name and version, else an @pulumi package's own (the real host's getPackageInfo).
func pluginOf(path string) (*pulumirpc.PackageDependency, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var info packageJSON
	if err := json.Unmarshal(text, &info); err != nil || !info.Pulumi.Resource {
		// Not every package.json under node_modules is a package's (test fixtures are).
		return nil, nil //nolint:nilerr
	}
	name := info.Pulumi.Name
	if name == "" {
		if !strings.HasPrefix(info.Name, "@pulumi/") {
			return nil, fmt.Errorf("%s: a third-party plugin must name itself in its \"pulumi\" section", path)
		}
		name = strings.TrimPrefix(info.Name, "@pulumi/")
	}
	version := info.Pulumi.Version
	if version == "" {
		version = info.Version
	}
	if version == "" {
		return nil, fmt.Errorf("%s: no version", path)
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	return langhost.PackageDependency(info.Pulumi, name, version), nil
}

// Pack makes an npm tarball of a package folder in the destination (`pulumi package pack-sdk`,
// the conformance suite). A generated SDK is built first as the real host builds it (`npm install`,
// `npm run build` into bin/, its package.json beside the output); a folder with no build script
// is a package as published (the @pulumi/pulumi of a registry) and is packed as it is.
func (h *host) Pack(ctx context.Context, req *pulumirpc.PackRequest) (*pulumirpc.PackResponse, error) {
	dir := req.GetPackageDirectory()
	text, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("read package.json: %w", err)
	}
	var info packageJSON
	if err := json.Unmarshal(text, &info); err != nil {
		return nil, fmt.Errorf("read package.json: %w", err)
	}
	npmPath, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("find npm: %w", err)
	}
	npmRun := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, npmPath, args...)
		cmd.Dir = dir
		var out strings.Builder
		cmd.Stderr = &out
		stdout, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("npm %s: %w: %s", strings.Join(args, " "), err, out.String())
		}
		return stdout, nil
	}
	packed := dir
	if info.Scripts["build"] != "" {
		for _, step := range [][]string{{"install", "--loglevel=error"}, {"run", "build"}} {
			if _, err := npmRun(step...); err != nil {
				return nil, err
			}
		}
		packed = filepath.Join(dir, "bin")
		if err := fsutil.CopyFile(filepath.Join(packed, "package.json"), filepath.Join(dir, "package.json"), nil); err != nil {
			return nil, fmt.Errorf("copy package.json: %w", err)
		}
	}
	out, err := npmRun("pack", "--loglevel=error", packed, "--pack-destination", req.GetDestinationDirectory())
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return &pulumirpc.PackResponse{
		ArtifactPath: filepath.Join(req.GetDestinationDirectory(), strings.TrimSpace(lines[len(lines)-1])),
	}, nil
}

// Link makes a program (or a plugin: a policy pack, a component provider) depend on local packages,
// each a folder or an npm tarball (`pulumi package add`; the conformance suite links the core SDK it
// packed into each pack and provider it runs): a `file:` dependency in its package.json, written by
// its package manager, under the name the package's own package.json gives, as the real host links
// them (it finds that name in the package's schema instead).
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	manager, err := npm.ResolvePackageManager(packageManager(req.GetInfo()), dir)
	if err != nil {
		return nil, err
	}
	var imports strings.Builder
	for _, dep := range req.GetPackages() {
		path := dep.GetPath()
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		name, err := packageName(path)
		if err != nil {
			return nil, fmt.Errorf("linking %s: %w", dep.GetPath(), err)
		}
		if err := manager.Link(ctx, dir, name, dep.GetPath()); err != nil {
			return nil, err
		}
		fmt.Fprintf(&imports, "  import * as %s from %q;\n", cgstrings.Camel(dep.GetPackage().GetName()), name)
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can import the SDK in your TypeScript code with:\n\n" + imports.String(),
	}, nil
}

// packageName is the name in the package.json of a package folder or of an npm tarball (whose
// files are under package/).
func packageName(path string) (string, error) {
	var text []byte
	if info, err := os.Stat(path); err != nil {
		return "", err
	} else if info.IsDir() {
		if text, err = os.ReadFile(filepath.Join(path, "package.json")); err != nil {
			return "", err
		}
	} else if text, err = tarballManifest(path); err != nil {
		return "", err
	}
	var manifest packageJSON
	if err := json.Unmarshal(text, &manifest); err != nil {
		return "", fmt.Errorf("read its package.json: %w", err)
	}
	if manifest.Name == "" {
		return "", errors.New("its package.json has no name")
	}
	return manifest.Name, nil
}

// tarballManifest reads package/package.json out of an npm tarball.
func tarballManifest(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	unzipped, err := gzip.NewReader(file)
	if err != nil {
		return nil, fmt.Errorf("neither a folder nor an npm tarball: %w", err)
	}
	archive := tar.NewReader(unzipped)
	for {
		header, err := archive.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the tarball has no package/package.json")
		} else if err != nil {
			return nil, err
		}
		if header.Name == "package/package.json" {
			return io.ReadAll(archive)
		}
	}
}
