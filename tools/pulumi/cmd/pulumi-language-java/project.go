package main

// The Maven side of the host: a whole project written from PCL (GenerateProject, `pulumi
// convert`), an SDK packed into a Maven repository (Pack), and the dependencies a pom.xml declares
// (GetProgramDependencies). pulumi-java does these with Gradle or Maven as the project has it
// (pkg/cmd/pulumi-language-java/main.go); this host knows Maven only.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi-chatbot/tools/pulumi/internal/langhost"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"gopkg.in/yaml.v3"
)

// pomFile is what this host reads of a pom.xml: its coordinates and its dependencies.
type pomFile struct {
	GroupID      string `xml:"groupId"`
	ArtifactID   string `xml:"artifactId"`
	Version      string `xml:"version"`
	Dependencies []struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
		Version    string `xml:"version"`
	} `xml:"dependencies>dependency"`
}

func readPom(path string) (*pomFile, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pom pomFile
	if err := xml.Unmarshal(text, &pom); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &pom, nil
}

// mavenDependency is one <dependency> of a generated pom.xml, and the repository it comes from
// ("" for Maven Central).
type mavenDependency struct {
	group, artifact, version, repository string
}

// GenerateProject writes a Maven project (Pulumi.yaml, pom.xml, src/main/java/generated_program/
// App.java, as pulumi-java's `pulumi convert` lays it out) from a folder of PCL. Packages come from
// the request's local dependencies (what Pack made: a jar in a Maven repository) or else from
// Maven Central as com.pulumi:<name>.
func (h *host) GenerateProject(
	_ context.Context, req *pulumirpc.GenerateProjectRequest,
) (*pulumirpc.GenerateProjectResponse, error) {
	return langhost.GenerateProject(req, func(program *pcl.Program, project workspace.Project) (hcl.Diagnostics, error) {
		files, diags, err := generateProgram(program)
		if err != nil || diags.HasErrors() {
			return diags, err
		}
		deps := []mavenDependency{{"com.pulumi", "pulumi", defaultPulumiVersion, ""}}
		if jar, ok := req.GetLocalDependencies()["pulumi"]; ok {
			dep, err := packedDependency(jar)
			if err != nil {
				return nil, err
			}
			deps[0] = dep
		}
		for _, pkg := range program.PackageReferences() {
			if pkg.Name() == "pulumi" {
				continue
			}
			if jar, ok := req.GetLocalDependencies()[pkg.Name()]; ok {
				dep, err := packedDependency(jar)
				if err != nil {
					return nil, err
				}
				deps = append(deps, dep)
				continue
			}
			version := ""
			if v := pkg.Version(); v != nil {
				version = v.String()
			}
			def, err := pkg.Definition()
			if err != nil {
				return nil, err
			}
			g, err := newSDKGen(def)
			if err != nil {
				return nil, err
			}
			deps = append(deps, mavenDependency{g.groupID(), pkg.Name(), version, ""})
		}

		dir := filepath.Join(req.GetTargetDirectory(), project.Main)
		project.Runtime = workspace.NewProjectRuntimeInfo("java", nil)
		projectYAML, err := yaml.Marshal(project)
		if err != nil {
			return nil, err
		}
		out := map[string][]byte{
			filepath.Join(req.GetTargetDirectory(), "Pulumi.yaml"): projectYAML,
			filepath.Join(dir, "pom.xml"):                          []byte(programPom(project.Name.String(), deps)),
		}
		for name, text := range files {
			out[filepath.Join(dir, "src", "main", "java", "generated_program", name)] = text
		}
		for path, text := range out {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, text, 0o600); err != nil {
				return nil, err
			}
		}
		return diags, nil
	})
}

// packedDependency is the dependency on a jar that Pack put in a Maven repository: its
// coordinates from the pom beside it, its repository the folder above its group's.
func packedDependency(jar string) (mavenDependency, error) {
	pom, err := readPom(strings.TrimSuffix(jar, ".jar") + ".pom")
	if err != nil {
		return mavenDependency{}, fmt.Errorf("a local dependency that is not a jar packed by this host: %w", err)
	}
	depth := len(strings.Split(pom.GroupID, ".")) + 2 // group folders, artifact, version
	repo := filepath.Dir(jar)
	for range depth {
		repo = filepath.Dir(repo)
	}
	return mavenDependency{pom.GroupID, pom.ArtifactID, pom.Version, repo}, nil
}

// programPom is a program's pom.xml, as examples/java's: exec-maven-plugin runs generated_program.App.
func programPom(name string, deps []mavenDependency) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
    <modelVersion>4.0.0</modelVersion>

    <groupId>com.pulumi</groupId>
    <artifactId>%s</artifactId>
    <version>1.0-SNAPSHOT</version>

    <properties>
        <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
        <maven.compiler.release>11</maven.compiler.release>
        <mainClass>generated_program.App</mainClass>
        <mainArgs/>
    </properties>
`, xmlText(name))
	repos := map[string]bool{}
	for _, d := range deps {
		if d.repository != "" {
			repos[d.repository] = true
		}
	}
	if len(repos) > 0 {
		sorted := make([]string, 0, len(repos))
		for r := range repos {
			sorted = append(sorted, r)
		}
		sort.Strings(sorted)
		w("\n    <repositories>\n")
		for _, r := range sorted {
			// An id of the folder's own, so that two folders never pass for one repository. Maven
			// reads a release once into its local repository: an SDK packed again under the same
			// version is not read again (scripts/conformance.js gives each run its own).
			sum := sha256.Sum256([]byte(r))
			w("        <repository>\n            <id>local-%s</id>\n            <url>file://%s</url>\n        </repository>\n",
				hex.EncodeToString(sum[:6]), xmlText(filepath.ToSlash(r)))
		}
		w("    </repositories>\n")
	}
	w("\n    <dependencies>\n")
	for _, d := range deps {
		b.WriteString(pomDependency(d.group, d.artifact, d.version))
	}
	b.WriteString(pomBuildHead)
	w(`            <plugin>
                <groupId>org.codehaus.mojo</groupId>
                <artifactId>exec-maven-plugin</artifactId>
                <version>3.5.0</version>
                <configuration>
                    <mainClass>${mainClass}</mainClass>
                    <commandlineArgs>${mainArgs}</commandlineArgs>
                </configuration>
            </plugin>
        </plugins>
    </build>
</project>
`)
	return b.String()
}

// Pack builds the Maven project in the request's folder (an SDK: `mvn package`) and puts its jar
// and pom into a Maven repository in the destination folder (repository/<group>/<artifact>/
// <version>/), as `mvn deploy` would; the artifact is the jar's path there.
func (h *host) Pack(ctx context.Context, req *pulumirpc.PackRequest) (*pulumirpc.PackResponse, error) {
	dir := req.GetPackageDirectory()
	pom, err := readPom(filepath.Join(dir, "pom.xml"))
	if err != nil {
		return nil, fmt.Errorf("pack: this host packs Maven projects (a pom.xml): %w", err)
	}
	mvn, err := lookPath(dir, "", "./mvnw", "mvn")
	if err != nil {
		return nil, err
	}
	var output bytes.Buffer
	// The sources and Javadoc jars are for a release, not for a program to build against.
	cmd := exec.CommandContext(ctx, mvn, "--batch-mode", "--no-transfer-progress", "--quiet",
		"-DskipTests", "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true", "package")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := h.Programs.Exec(cmd); err != nil {
		return nil, fmt.Errorf("mvn package in %s: %w\n%s", dir, err, output.String())
	}
	base := pom.ArtifactID + "-" + pom.Version
	into := filepath.Join(append(append([]string{req.GetDestinationDirectory(), "repository"},
		strings.Split(pom.GroupID, ".")...), pom.ArtifactID, pom.Version)...)
	if err := os.MkdirAll(into, 0o755); err != nil {
		return nil, err
	}
	for from, to := range map[string]string{
		filepath.Join(dir, "target", base+".jar"): filepath.Join(into, base+".jar"),
		filepath.Join(dir, "pom.xml"):             filepath.Join(into, base+".pom"),
	} {
		text, err := os.ReadFile(from)
		if err != nil {
			return nil, fmt.Errorf("pack: %w", err)
		}
		if err := os.WriteFile(to, text, 0o644); err != nil {
			return nil, err
		}
	}
	return &pulumirpc.PackResponse{ArtifactPath: filepath.Join(into, base+".jar")}, nil
}

// GetProgramDependencies lists the dependencies the program's pom.xml declares (`pulumi about`),
// as group:artifact with their versions.
func (h *host) GetProgramDependencies(
	_ context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	pom, err := readPom(filepath.Join(req.GetInfo().GetProgramDirectory(), "pom.xml"))
	if err != nil {
		return nil, fmt.Errorf("this host reads the dependencies of Maven projects (a pom.xml): %w", err)
	}
	found := make([]plugin.DependencyInfo, len(pom.Dependencies))
	for i, d := range pom.Dependencies {
		found[i] = plugin.DependencyInfo{Name: d.GroupID + ":" + d.ArtifactID, Version: d.Version}
	}
	return langhost.ProgramDependencies(found), nil
}

// pomDependency is a pom.xml's <dependency> (without <version> when version is "").
func pomDependency(group, artifact, version string) string {
	text := fmt.Sprintf("        <dependency>\n            <groupId>%s</groupId>\n            <artifactId>%s</artifactId>\n",
		xmlText(group), xmlText(artifact))
	if version != "" {
		text += fmt.Sprintf("            <version>%s</version>\n", xmlText(version))
	}
	return text + "        </dependency>\n"
}

// pomBuildHead ends a pom.xml's dependencies and starts its plugins with the two that every
// build here pins (a program's and an SDK's).
const pomBuildHead = `    </dependencies>

    <build>
        <plugins>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-resources-plugin</artifactId>
                <version>3.3.1</version>
            </plugin>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-compiler-plugin</artifactId>
                <version>3.13.0</version>
            </plugin>
`

// Link (`pulumi convert`, `pulumi package add`) links local SDKs into the program's project. The
// converter asks even when it generated none (a package of its own plugin, which the project names
// by its Maven coordinates): that is answered at once. Adding a local SDK to pom.xml, which the
// real host does, is refused, saying so.
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	if len(req.GetPackages()) == 0 {
		return &pulumirpc.LinkResponse{}, nil
	}
	return nil, errors.New("linking a local SDK into a Maven project is not supported by this Java host: " +
		"publish the SDK to a Maven repository and name it in pom.xml")
}
