package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/fsutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
)

// GeneratePackage writes the Go SDK of a package schema into the request's folder with the Go
// code generator of the pinned pulumi module, as the real host does (`pulumi package gen-sdk
// --language go`, `pulumi package add`).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	if len(req.GetExtraFiles()) > 0 {
		return nil, errors.New("overlays are not supported for Go")
	}
	return langhost.GeneratePackage(req, func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
		return codegen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
	})
}

// GenerateProgram turns a PCL program (what `pulumi import` writes) into Go, reading the
// packages' schemas through the engine's loader: `pulumi import` prints the result.
func (h *host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	return langhost.GenerateProgram(req, codegen.GenerateProgram)
}

// GenerateProject writes a whole Go project (Pulumi.yaml, main.go, go.mod) from a PCL folder
// (`pulumi convert`, the conformance suite).
func (h *host) GenerateProject(
	_ context.Context, req *pulumirpc.GenerateProjectRequest,
) (*pulumirpc.GenerateProjectResponse, error) {
	return langhost.GenerateProject(req, func(program *pcl.Program, project workspace.Project) (hcl.Diagnostics, error) {
		return nil, codegen.GenerateProject(req.GetTargetDirectory(), project, program, req.GetLocalDependencies())
	})
}

// Link makes a program use SDKs generated into its folder (`pulumi package add`): a replace line
// in the program's go.mod for each SDK's module, and the import lines to use them (the schema's
// importBasePath where it has one: the real host prints one derived from the package's name).
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()
	cached := schema.NewCachedLoader(loader)

	replacements := map[string]string{}
	var imports strings.Builder
	for _, dep := range req.GetPackages() {
		described := dep.GetPackage()
		if described.GetName() == "pulumi" {
			replacements["github.com/pulumi/pulumi/sdk/v3"] = dep.GetPath()
			continue
		}
		descriptor := &schema.PackageDescriptor{Name: described.GetName(), DownloadURL: described.GetServer()}
		if v, err := semver.New(described.GetVersion()); err == nil {
			descriptor.Version = v
		}
		if p := described.GetParameterization(); p != nil {
			descriptor.Parameterization = &schema.ParameterizationDescriptor{Name: p.GetName(), Value: p.GetValue()}
			if v, err := semver.New(p.GetVersion()); err == nil {
				descriptor.Parameterization.Version = *v
			}
		}
		ref, err := schema.LoadPackageReferenceV2(ctx, cached, descriptor)
		if err != nil {
			return nil, err
		}
		pkg, err := ref.Definition()
		if err != nil {
			return nil, err
		}
		if err := pkg.ImportLanguages(map[string]schema.Language{"go": codegen.Importer}); err != nil {
			return nil, err
		}
		modulePath, importPath := "", codegen.ExtractImportBasePath(pkg.Reference())
		if info, ok := pkg.Language["go"].(codegen.GoPackageInfo); ok {
			modulePath = info.ModulePath
			if modulePath == "" && info.ImportBasePath != "" {
				modulePath = path.Dir(info.ImportBasePath)
			}
			// Where this host differs: the real one prints the path derived from the package's
			// name even when the schema sets importBasePath (which the SDK's code then uses).
			if info.ImportBasePath != "" {
				importPath = info.ImportBasePath
			}
		}
		if modulePath == "" {
			modulePath = codegen.ExtractModulePath(pkg.Reference())
		}
		// A replace line's folder starts with ./ (https://go.dev/ref/mod#go-mod-file-replace).
		local := dep.GetPath()
		if !strings.HasPrefix(local, "./") && !filepath.IsAbs(local) {
			local = "./" + local
		}
		replacements[modulePath] = local
		fmt.Fprintf(&imports, "    %q\n", importPath)
	}

	goMod := filepath.Join(req.GetInfo().GetProgramDirectory(), "go.mod")
	stat, err := os.Stat(goMod)
	if err != nil {
		return nil, err
	}
	text, err := os.ReadFile(goMod)
	if err != nil {
		return nil, err
	}
	file, err := modfile.Parse(goMod, text, nil)
	if err != nil {
		return nil, fmt.Errorf("go.mod parse: %w", err)
	}
	for module, local := range replacements {
		if err := file.AddReplace(module, "", local, ""); err != nil {
			return nil, fmt.Errorf("could not add replace statement: %w", err)
		}
	}
	formatted, err := file.Format()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(goMod, formatted, stat.Mode().Perm()); err != nil {
		return nil, err
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can import the SDK in your Go code with:\n\n  import (\n" + imports.String() + "  )\n",
	}, nil
}

// InstallDependencies is `go mod tidy` in the program's folder, its output streamed to the CLI.
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	return langhost.InstallDependencies(server, req.GetIsTerminal(), func(ctx context.Context, stdout, stderr io.Writer) error {
		tidy := exec.CommandContext(ctx, gobin, "mod", "tidy", "-compat=1.18")
		tidy.Dir = dir
		tidy.Stdout, tidy.Stderr = stdout, stderr
		if err := tidy.Run(); err != nil {
			return fmt.Errorf("`go mod tidy` failed to install dependencies: %w", err)
		}
		return nil
	})
}

// Pack copies a Go module (an SDK) into the destination as a folder named after its module path:
// Go has nothing to pack.
func (h *host) Pack(_ context.Context, req *pulumirpc.PackRequest) (*pulumirpc.PackResponse, error) {
	text, err := os.ReadFile(filepath.Join(req.GetPackageDirectory(), "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("read go.mod: %w", err)
	}
	file, err := modfile.Parse("go.mod", text, nil)
	if err != nil {
		return nil, fmt.Errorf("parse go.mod: %w", err)
	}
	artifact := filepath.Join(req.GetDestinationDirectory(), strings.ReplaceAll(file.Module.Mod.Path, "/", "_"))
	if err := fsutil.CopyFile(artifact, req.GetPackageDirectory(), nil); err != nil {
		return nil, fmt.Errorf("copy package: %w", err)
	}
	return &pulumirpc.PackResponse{ArtifactPath: artifact}, nil
}
