package main

import (
	"encoding/base64"
	"fmt"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// A parameterized package (a schema with a parameterization: its resources are served by a base
// plugin given a parameter) is written as pulumi-java writes one (its byepackage test SDK):
// plugin.json names the base plugin and the parameterization (or, for an extension of a
// provider, the extensionParameterization), which the Java SDK's classpath scan
// reports and GetRequiredPackages passes on to the engine; Utilities.getPackageRef() registers the
// package with the engine once (Deployment.registerPackage), and every resource, component and
// invoke of the package passes that reference (l2-parameterized-resource-twice,
// l2-explicit-parameterized-provider).

// packageParameter is how the package is served: by which plugin (name, version), given which
// parameter, and whether it extends that plugin's provider rather than replacing its schema. Nil
// for a plain plugin's package.
type packageParameter struct {
	plugin, version string
	json            *plugin.PulumiParameterizationJSON // plugin.json's, as the Java SDK's scan reads it
	extension       bool
}

func (g *sdkGen) parameter() *packageParameter {
	own := func(parameter []byte) *plugin.PulumiParameterizationJSON {
		return &plugin.PulumiParameterizationJSON{Name: g.pkg.Name, Version: g.version(), Value: parameter}
	}
	if p := g.pkg.Parameterization; p != nil {
		return &packageParameter{p.BasePlugin.Name, p.BasePlugin.Version.String(), own(p.Parameter), false}
	}
	// An extension of a plain provider (checkSupported refuses one of a parameterized provider).
	if e := g.pkg.ExtensionParameterization; e != nil {
		return &packageParameter{e.BaseProvider.Name, e.BaseProvider.Version.String(), own(e.Parameter), true}
	}
	return nil
}

// parameterizationUnsupported says why the package's parameterization cannot be written ("" when
// it can): the Java SDK's registerPackage names a plain base plugin only.
func parameterizationUnsupported(pkg *schema.Package) string {
	if e := pkg.ExtensionParameterization; e != nil && e.BaseProvider.Parameterization != nil {
		return "an extension of a parameterized provider (com.pulumi:pulumi's registerPackage names a plain base plugin)"
	}
	return ""
}

// pluginNameVersion is the plugin that serves the package: its own, or the base plugin of a
// parameterized one.
func (g *sdkGen) pluginNameVersion() (string, string) {
	if p := g.parameter(); p != nil {
		return p.plugin, p.version
	}
	return g.pkg.Name, g.version()
}

// packageRef is what a resource's or invoke's call adds for a parameterized package: the reference
// Utilities.getPackageRef() registers ("" for a plain plugin's package).
func (g *sdkGen) packageRef(f *javaFile) string {
	if g.parameter() == nil {
		return ""
	}
	return ", " + f.ref(g.root+".Utilities") + ".getPackageRef()"
}

// utilitiesPackageRef is Utilities' getPackageRef(), for a parameterized package ("" otherwise).
func (g *sdkGen) utilitiesPackageRef(f *javaFile) string {
	p := g.parameter()
	if p == nil {
		return ""
	}
	future := f.ref("java.util.concurrent.CompletableFuture")
	return fmt.Sprintf(`
    // Registered once: the engine answers the same reference for the same package.
    private static %[1]s<java.lang.String> packageRef;
    public static synchronized %[1]s<java.lang.String> getPackageRef() {
        if (packageRef == null) {
            packageRef = %[2]s.getInstance().registerPackage(%[3]s, %[4]s, %[5]s, %[6]s, getVersion(), %[7]s, %[8]t);
        }
        return packageRef;
    }
`, future, f.ref("com.pulumi.deployment.Deployment"), javaString(p.plugin), javaString(p.version),
		javaString(g.pkg.PluginDownloadURL), javaString(p.json.Name), javaString(base64.StdEncoding.EncodeToString(p.json.Value)), p.extension)
}

// dependencyAndRef is what a custom resource's (or provider's) super call adds for a parameterized
// package: not a dependency, and the package's reference ("" for a plain plugin's package).
func (g *sdkGen) dependencyAndRef(f *javaFile) string {
	if ref := g.packageRef(f); ref != "" {
		return ", false" + ref
	}
	return ""
}
