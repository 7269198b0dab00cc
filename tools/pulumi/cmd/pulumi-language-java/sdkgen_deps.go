package main

// Types of other packages in the Java SDK (an enum, an object type or a resource that a schema
// refers to by another package's URL): they are that package's classes, named as its own SDK names
// them, and its SDK becomes a dependency of this one's pom.xml, from the Maven repository its jar
// was packed into when the request names one (local dependencies), else from the registries.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// foreign is the SDK naming of the package ref when it is another package than g's, else nil.
func (g *sdkGen) foreign(ref schema.PackageReference) (*sdkGen, error) {
	if ref == nil || ref.Name() == g.pkg.Name {
		return nil, nil
	}
	if other, ok := g.others[ref.Name()]; ok {
		return other, nil
	}
	pkg, err := ref.Definition()
	if err != nil {
		return nil, err
	}
	other, err := newSDKGen(pkg)
	if err != nil {
		return nil, err
	}
	if g.others == nil {
		g.others = map[string]*sdkGen{}
	}
	g.others[ref.Name()] = other
	return other, nil
}

// isForeign says whether t is defined by another package than g's.
func (g *sdkGen) isForeign(t *schema.ObjectType) bool {
	return t.PackageReference != nil && t.PackageReference.Name() != g.pkg.Name
}

// foreignDependencies are the SDKs of the other packages whose types g's uses, sorted, each from
// the repository of its packed jar when g.localDeps names one.
func (g *sdkGen) foreignDependencies() []mavenDependency {
	names := make([]string, 0, len(g.others))
	for name := range g.others {
		names = append(names, name)
	}
	sort.Strings(names)
	var deps []mavenDependency
	for _, name := range names {
		other := g.others[name]
		d := mavenDependency{group: other.groupID(), artifact: other.pkg.Name, version: other.version()}
		if jar, ok := g.localDeps[name]; ok {
			if packed, err := packedDependency(jar); err == nil {
				d = packed
			}
		}
		deps = append(deps, d)
	}
	return deps
}

// pomRepositories is the <repositories> of the SDK's pom.xml: the folders the SDKs it depends on
// were packed into, or "" when there are none.
func (g *sdkGen) pomRepositories() string {
	repos := map[string]bool{}
	for _, d := range g.foreignDependencies() {
		if d.repository != "" {
			repos[d.repository] = true
		}
	}
	if len(repos) == 0 {
		return ""
	}
	sorted := make([]string, 0, len(repos))
	for r := range repos {
		sorted = append(sorted, r)
	}
	sort.Strings(sorted)
	var b strings.Builder
	b.WriteString("\n    <repositories>\n")
	for _, r := range sorted {
		// As programPom: an id of the folder's own, so that an SDK packed again is read anew.
		sum := sha256.Sum256([]byte(r))
		fmt.Fprintf(&b, "        <repository>\n            <id>local-%s</id>\n            <url>file://%s</url>\n        </repository>\n",
			hex.EncodeToString(sum[:6]), xmlText(filepath.ToSlash(r)))
	}
	b.WriteString("    </repositories>\n")
	return b.String()
}
