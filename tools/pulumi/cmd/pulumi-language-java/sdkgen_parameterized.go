package main

import (
	"encoding/base64"
	"fmt"
)

// A parameterized package (a schema with a parameterization: its resources are served by a base
// plugin given a parameter) is written as pulumi-java writes one (its byepackage test SDK):
// plugin.json names the base plugin and the parameterization, which the Java SDK's classpath scan
// reports and GetRequiredPackages passes on to the engine; Utilities.getPackageRef() registers the
// package with the engine once (Deployment.registerPackage), and every resource, component and
// invoke of the package passes that reference (l2-parameterized-resource-twice,
// l2-explicit-parameterized-provider).

// pluginParameterization is plugin.json's parameterization, as PulumiPluginParameterization reads it.
type pluginParameterization struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Value   string `json:"value"` // the parameter, base64
}

// parameterization is the package's, or nil for a plain plugin's package.
func (g *sdkGen) parameterization() *pluginParameterization {
	p := g.pkg.Parameterization
	if p == nil {
		return nil
	}
	return &pluginParameterization{
		Name: g.pkg.Name, Version: g.version(), Value: base64.StdEncoding.EncodeToString(p.Parameter),
	}
}

// pluginNameVersion is the plugin that serves the package: its own, or the base plugin of a
// parameterized one.
func (g *sdkGen) pluginNameVersion() (string, string) {
	if p := g.pkg.Parameterization; p != nil {
		return p.BasePlugin.Name, p.BasePlugin.Version.String()
	}
	return g.pkg.Name, g.version()
}

// packageRef is what a resource's or invoke's call adds for a parameterized package: the reference
// Utilities.getPackageRef() registers ("" for a plain plugin's package).
func (g *sdkGen) packageRef(f *javaFile) string {
	if g.pkg.Parameterization == nil {
		return ""
	}
	return ", " + f.ref(g.root+".Utilities") + ".getPackageRef()"
}

// utilitiesPackageRef is Utilities' getPackageRef(), for a parameterized package ("" otherwise).
func (g *sdkGen) utilitiesPackageRef(f *javaFile) string {
	p := g.parameterization()
	if p == nil {
		return ""
	}
	base, version := g.pluginNameVersion()
	future := f.ref("java.util.concurrent.CompletableFuture")
	return fmt.Sprintf(`
    // Registered once: the engine answers the same reference for the same package.
    private static %[1]s<java.lang.String> packageRef;
    public static synchronized %[1]s<java.lang.String> getPackageRef() {
        if (packageRef == null) {
            packageRef = %[2]s.getInstance().registerPackage(%[3]s, %[4]s, %[5]s, %[6]s, getVersion(), %[7]s);
        }
        return packageRef;
    }
`, future, f.ref("com.pulumi.deployment.Deployment"), javaString(base), javaString(version),
		javaString(g.pkg.PluginDownloadURL), javaString(p.Name), javaString(p.Value))
}

// dependencyAndRef is what a custom resource's (or provider's) super call adds for a parameterized
// package: not a dependency, and the package's reference ("" for a plain plugin's package).
func (g *sdkGen) dependencyAndRef(f *javaFile) string {
	if ref := g.packageRef(f); ref != "" {
		return ", false" + ref
	}
	return ""
}
