package main

// The Java SDK of a package schema (`pulumi package gen-sdk --language java`), written here because
// pulumi-java's generator (pkg/codegen/java) is not served by the Go module proxy. The Java it
// writes has the shape pulumi-java gives registry providers, so a Java user reads it like any other:
//
//   - a Java package per schema module under language.java.basePackage (<base>.<name> for the
//     index module), input types in .inputs, output types in .outputs;
//   - per resource: the resource class (CustomResource, @Export fields, Output getters, the three
//     constructors and a static get), its Args (ResourceArgs with a Builder) and inputs/<X>State;
//   - the Provider and ProviderArgs, a Config class for the config variables, Utilities (the
//     version from the version.txt resource);
//   - resources <base>/<name>/plugin.json and version.txt: the Java SDK's classpath scan
//     (com.pulumi.bootstrap.internal.PulumiPlugins) finds the plugin to download by plugin.json;
//   - functions (<Package>Functions), component resources, enums, and for a parameterized or
//     extension package the registration of its package reference (sdkgen_parameterized.go).
//
// Where it differs from pulumi-java: the build is a Maven pom.xml (pulumi-java writes build.gradle
// and settings.gradle, whose build writes plugin.json and version.txt; Gradle is not available
// here), with plugin.json and version.txt written as files; Utilities reads version.txt beside
// plugin.json (pulumi-java reads com/pulumi/<name>/version.txt whatever the base package); a
// resource without stateInputs still gets a <X>State of its output properties, all optional, for
// get (pulumi-java writes no State class then); a secret input is sealed by its Args' build()
// (Output.asSecret, as the Go and Python SDKs seal theirs); resource methods, unions of more than
// two types and an extension of a parameterized provider are refused with an error rather than
// generated; types of other packages are their SDKs'
// classes (sdkgen_deps.go); components' methods are left out, as pulumi-java leaves them out
// (sdkgen_components.go).

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// The tool named in each generated file's header, as pulumi-java names itself.
const javaTool = "pulumi-language-java"

// javaPackageInfo is the part of language.java this generator reads.
type javaPackageInfo struct {
	BasePackage  string            `json:"basePackage"`
	Packages     map[string]string `json:"packages"`
	Dependencies map[string]string `json:"dependencies"`
}

// defaultPulumiVersion is the com.pulumi:pulumi dependency when language.java names none.
const defaultPulumiVersion = "1.36.1"

// generateSDK returns the Java SDK of pkg: its files, by path relative to the output folder.
func generateSDK(pkg *schema.Package) (map[string][]byte, error) {
	return generateSDKFor(pkg, nil)
}

// generateSDKFor is generateSDK with the jars that the packages it depends on were packed into, by
// package name (a request's local dependencies).
func generateSDKFor(pkg *schema.Package, localDeps map[string]string) (map[string][]byte, error) {
	if err := checkSupported(pkg); err != nil {
		return nil, err
	}
	g, err := newSDKGen(pkg)
	if err != nil {
		return nil, err
	}
	g.localDeps = localDeps
	g.scanTypes()

	if err := g.genUtilities(); err != nil {
		return nil, err
	}
	if len(pkg.Config) > 0 {
		if err := g.genConfig(); err != nil {
			return nil, err
		}
	}
	resources := append([]*schema.Resource{pkg.Provider}, pkg.Resources...)
	for _, r := range resources {
		if r == nil || r.IsOverlay {
			continue
		}
		if err := g.genResourceFiles(r); err != nil {
			return nil, err
		}
	}
	for _, t := range g.inputTypes {
		if err := g.genArgsClass(g.objectClass(t, true), t.Comment, t.Properties, false); err != nil {
			return nil, err
		}
	}
	for _, t := range g.outputTypes {
		if err := g.genOutputClass(g.objectClass(t, false), t.Comment, t.Properties); err != nil {
			return nil, err
		}
	}
	if err := g.genFunctions(); err != nil {
		return nil, err
	}
	if err := g.genEnums(); err != nil {
		return nil, err
	}
	g.genProjectFiles()
	return g.files, nil
}

// newSDKGen reads the package's Java settings: also what the program generator names classes by.
func newSDKGen(pkg *schema.Package) (*sdkGen, error) {
	info, err := javaInfo(pkg)
	if err != nil {
		return nil, err
	}
	g := &sdkGen{pkg: pkg, info: info, files: map[string][]byte{}}
	g.root = g.groupID() + "." + g.packageName(pkg.Name)
	return g, nil
}

func javaInfo(pkg *schema.Package) (javaPackageInfo, error) {
	var info javaPackageInfo
	raw, ok := pkg.Language["java"]
	if !ok || raw == nil {
		return info, nil
	}
	// Without a registered importer the binder keeps language sections as raw JSON.
	text, isRaw := raw.(json.RawMessage)
	if !isRaw {
		var err error
		if text, err = json.Marshal(raw); err != nil {
			return info, err
		}
	}
	if err := json.Unmarshal(text, &info); err != nil {
		return info, fmt.Errorf("language.java: %w", err)
	}
	return info, nil
}

// checkSupported refuses what this generator does not write, naming it, rather than writing an SDK
// that leaves it out.
func checkSupported(pkg *schema.Package) error {
	var problems []string
	for _, f := range pkg.Functions {
		if why := functionUnsupported(f); why != "" {
			problems = append(problems, why)
		}
	}
	if why := parameterizationUnsupported(pkg); why != "" {
		problems = append(problems, why)
	}
	for _, r := range pkg.Resources {
		if len(r.Methods) > 0 && !r.IsComponent { // a component's are left out, as pulumi-java does
			problems = append(problems, "methods of "+r.Token)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("the Java SDK generator of pulumi-language-java (pulumi-chatbot) does not support: %s",
			strings.Join(problems, ", "))
	}
	return nil
}

type sdkGen struct {
	pkg   *schema.Package
	info  javaPackageInfo
	root  string // the Java package of the index module
	files map[string][]byte

	// The object types used as inputs (inputs/<X>Args) and as outputs (outputs/<X>), by token.
	inputTypes  []*schema.ObjectType
	outputTypes []*schema.ObjectType

	others    map[string]*sdkGen // the other packages whose types this one uses (sdkgen_deps.go)
	localDeps map[string]string  // their packed jars, by package name
}

// scanTypes finds which object types are used as inputs and which as outputs, each once, in token
// order.
func (g *sdkGen) scanTypes() {
	inputs, outputs := map[string]*schema.ObjectType{}, map[string]*schema.ObjectType{}
	var visit func(t schema.Type, seen map[string]*schema.ObjectType)
	visit = func(t schema.Type, seen map[string]*schema.ObjectType) {
		switch t := t.(type) {
		case *schema.OptionalType:
			visit(t.ElementType, seen)
		case *schema.InputType:
			visit(t.ElementType, seen)
		case *schema.ArrayType:
			visit(t.ElementType, seen)
		case *schema.MapType:
			visit(t.ElementType, seen)
		case *schema.UnionType:
			for _, e := range t.ElementTypes {
				visit(e, seen)
			}
		case *schema.ObjectType:
			if t.PlainShape != nil {
				t = t.PlainShape // one class per token, whichever shape is met
			}
			if g.isForeign(t) {
				return // its own SDK's class
			}
			if _, ok := seen[t.Token]; ok {
				return
			}
			seen[t.Token] = t
			for _, p := range t.Properties {
				visit(p.Type, seen)
			}
		}
	}
	resources := append([]*schema.Resource{g.pkg.Provider}, g.pkg.Resources...)
	for _, r := range resources {
		if r == nil {
			continue
		}
		for _, p := range r.InputProperties {
			visit(p.Type, inputs)
		}
		for _, p := range r.Properties {
			visit(p.Type, outputs)
			visit(p.Type, inputs) // the State class of get takes them as inputs
		}
		if r.StateInputs != nil {
			for _, p := range r.StateInputs.Properties {
				visit(p.Type, inputs)
			}
		}
	}
	g.functionTypes(func(t schema.Type) { visit(t, inputs) }, func(t schema.Type) { visit(t, outputs) })
	g.inputTypes, g.outputTypes = sortedObjects(inputs), sortedObjects(outputs)
}

func sortedObjects(m map[string]*schema.ObjectType) []*schema.ObjectType {
	tokens := make([]string, 0, len(m))
	for tok := range m {
		tokens = append(tokens, tok)
	}
	sort.Strings(tokens)
	out := make([]*schema.ObjectType, len(tokens))
	for i, tok := range tokens {
		out[i] = m[tok]
	}
	return out
}

// Names.

// javaReserved: Java's reserved words and literals, which get a trailing _ as identifiers.
var javaReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`abstract assert boolean break byte case catch char class const
		continue default do double else enum extends final finally float for if goto implements import
		instanceof int interface long native new package private protected public return short static
		strictfp super switch synchronized this throw throws transient try void volatile while _
		false null true var`) {
		javaReserved[w] = true
	}
}

// ident makes name a valid Java identifier: invalid characters become _, dashes are dropped (so
// azure-native is azurenative) and a reserved word gets a trailing _.
func ident(name string) string {
	var b strings.Builder
	for i, c := range name {
		switch {
		case c == '-':
			continue
		case c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c):
			if i == 0 && unicode.IsDigit(c) {
				b.WriteRune('_')
			}
			b.WriteRune(c)
		default:
			b.WriteRune('_')
		}
	}
	s := b.String()
	if javaReserved[s] {
		s += "_"
	}
	return s
}

// accessor is the getter and builder-setter name of a property: names of Object's methods and
// builder() get a trailing _ too.
func accessor(name string) string {
	s := ident(name)
	switch s {
	case "notify", "notifyAll", "toString", "clone", "equals", "hashCode", "getClass", "wait", "finalize", "builder":
		s += "_"
	}
	return s
}

// resourceAccessor is the getter of a resource's output property: it must not hide Resource's own
// methods (id(), urn(), ...).
func resourceAccessor(name string) string {
	s := accessor(name)
	switch s {
	case "getResourceType", "getResourceName", "getChildResources", "getUrn", "getId",
		"pulumiResourceType", "pulumiResourceName", "pulumiChildResources", "urn", "id":
		s += "_"
	}
	return s
}

func title(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// packageName is the Java package segment(s) of a schema module or package name.
func (g *sdkGen) packageName(name string) string {
	if p, ok := g.info.Packages[name]; ok {
		return p
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = ident(p)
	}
	return strings.Join(parts, ".")
}

// modulePackage is the Java package of the schema module that token belongs to.
func (g *sdkGen) modulePackage(token string) string {
	mod := g.pkg.TokenToModule(token)
	if mod == "" {
		return g.root
	}
	return g.root + "." + g.packageName(mod)
}

func memberName(token string) string {
	parts := strings.Split(token, ":")
	return title(ident(parts[len(parts)-1]))
}

func (g *sdkGen) resourceClass(r *schema.Resource) string {
	if r.IsProvider {
		return g.root + ".Provider"
	}
	return g.modulePackage(r.Token) + "." + memberName(r.Token)
}

// objectClass is the class of an object type: <module>.inputs.<X>Args or <module>.outputs.<X>.
func (g *sdkGen) objectClass(t *schema.ObjectType, input bool) string {
	if input {
		return g.modulePackage(t.Token) + ".inputs." + memberName(t.Token) + "Args"
	}
	return g.modulePackage(t.Token) + ".outputs." + memberName(t.Token)
}

// Java types.

// jtype is a Java type: a class (fully qualified) and its type arguments.
type jtype struct {
	class  string
	params []jtype
}

func (t jtype) code(f *javaFile) string {
	s := f.ref(t.class)
	if len(t.params) > 0 {
		parts := make([]string, len(t.params))
		for i, p := range t.params {
			parts[i] = p.code(f)
		}
		s += "<" + strings.Join(parts, ",") + ">"
	}
	return s
}

// exportShape is what @Export needs to rebuild a generic type at run time: the classes it uses
// (refs, each once, in order of appearance) and its tree of indices into them.
func (t jtype) exportShape(f *javaFile) (refs, tree string) {
	var classes []string
	index := map[string]int{}
	var walk func(t jtype) string
	walk = func(t jtype) string {
		i, ok := index[t.class]
		if !ok {
			i = len(classes)
			index[t.class] = i
			classes = append(classes, t.class)
		}
		if len(t.params) == 0 {
			return strconv.Itoa(i)
		}
		parts := []string{strconv.Itoa(i)}
		for _, p := range t.params {
			parts = append(parts, walk(p))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tree = walk(t)
	if !strings.HasPrefix(tree, "[") {
		tree = "[" + tree + "]"
	}
	for i, c := range classes {
		classes[i] = f.ref(c) + ".class"
	}
	return strings.Join(classes, ","), tree
}

func (t jtype) isList() bool { return t.class == "java.util.List" }
func (t jtype) isMap() bool  { return t.class == "java.util.Map" }

// javaType is the Java type of a schema type, without Output and nullability: object types are
// their Args class in inputs, their output class elsewhere.
func (g *sdkGen) javaType(t schema.Type, input bool) (jtype, error) {
	switch t := t.(type) {
	case *schema.OptionalType:
		return g.javaType(t.ElementType, input)
	case *schema.InputType:
		return g.javaType(t.ElementType, input)
	case *schema.ArrayType:
		e, err := g.javaType(t.ElementType, input)
		return jtype{class: "java.util.List", params: []jtype{e}}, err
	case *schema.MapType:
		e, err := g.javaType(t.ElementType, input)
		return jtype{class: "java.util.Map", params: []jtype{{class: "java.lang.String"}, e}}, err
	case *schema.ObjectType:
		if t.PlainShape != nil {
			t = t.PlainShape
		}
		if other, err := g.foreign(t.PackageReference); other != nil || err != nil {
			if err != nil {
				return jtype{}, fmt.Errorf("type %s: %w", t.Token, err)
			}
			return jtype{class: other.objectClass(t, input)}, nil
		}
		return jtype{class: g.objectClass(t, input)}, nil
	case *schema.ResourceType:
		if t.Resource == nil {
			return jtype{}, fmt.Errorf("resource reference %s of no known schema is not supported", t.Token)
		}
		if other, err := g.foreign(t.Resource.PackageReference); other != nil || err != nil {
			if err != nil {
				return jtype{}, fmt.Errorf("resource reference %s: %w", t.Token, err)
			}
			return jtype{class: other.resourceClass(t.Resource)}, nil
		}
		return jtype{class: g.resourceClass(t.Resource)}, nil
	case *schema.EnumType, *schema.UnionType:
		jt, _, err := g.javaTypeMore(t, input)
		return jt, err
	case *schema.TokenType:
		if t.UnderlyingType != nil {
			return g.javaType(t.UnderlyingType, input)
		}
		return jtype{class: "java.lang.Object"}, nil
	}
	switch t {
	case schema.BoolType:
		return jtype{class: "java.lang.Boolean"}, nil
	case schema.IntType:
		return jtype{class: "java.lang.Integer"}, nil
	case schema.NumberType:
		return jtype{class: "java.lang.Double"}, nil
	case schema.StringType:
		return jtype{class: "java.lang.String"}, nil
	case schema.ArchiveType:
		return jtype{class: "com.pulumi.asset.Archive"}, nil
	case schema.AssetType:
		return jtype{class: "com.pulumi.asset.AssetOrArchive"}, nil
	case schema.AnyType:
		return jtype{class: "java.lang.Object"}, nil
	case schema.JSONType:
		return jtype{class: "com.google.gson.JsonElement"}, nil
	}
	return jtype{}, fmt.Errorf("type %s is not supported by the Java SDK generator", t.String())
}

func outputOf(t jtype) jtype { return jtype{class: "com.pulumi.core.Output", params: []jtype{t}} }

// Files.

// javaFile is one generated class: its imports are gathered while its body is written.
type javaFile struct {
	pkg    string
	class  string
	byName map[string]string // simple name -> imported class
	local  map[string]bool   // classes of this package, reached without import
	body   strings.Builder
}

func (g *sdkGen) newFile(fqn string) *javaFile {
	i := strings.LastIndex(fqn, ".")
	f := &javaFile{pkg: fqn[:i], class: fqn[i+1:], byName: map[string]string{}, local: map[string]bool{}}
	f.local[f.class] = true
	return f
}

// ref is how the file names class fqn: its simple name, imported, unless that name is taken by
// another class (then fully qualified).
func (f *javaFile) ref(fqn string) string {
	i := strings.LastIndex(fqn, ".")
	simple, pkg := fqn[i+1:], fqn[:i]
	if pkg == f.pkg {
		if simple == f.class || !f.takenByImport(simple) {
			f.local[simple] = true
			return simple
		}
		return fqn
	}
	// Code refers to these java.lang classes by their simple names without importing them.
	if javaLang[simple] && pkg != "java.lang" {
		return fqn
	}
	if have, ok := f.byName[simple]; ok {
		if have == fqn {
			return simple
		}
		return fqn
	}
	if f.local[simple] {
		return fqn
	}
	f.byName[simple] = fqn
	return simple
}

var javaLang = map[string]bool{
	"String": true, "Object": true, "Integer": true, "Long": true, "Double": true, "Boolean": true,
	"Math": true, "System": true, "Override": true, "Deprecated": true,
}

func (f *javaFile) takenByImport(simple string) bool {
	_, ok := f.byName[simple]
	return ok
}

func (f *javaFile) printf(format string, args ...any) { fmt.Fprintf(&f.body, format, args...) }

// add writes the class file under src/main/java.
func (g *sdkGen) add(f *javaFile) {
	var out strings.Builder
	fmt.Fprintf(&out, "// *** WARNING: this file was generated by %s. ***\n", javaTool)
	out.WriteString("// *** Do not edit by hand unless you're certain you know what you are doing! ***\n\n")
	fmt.Fprintf(&out, "package %s;\n\n", f.pkg)
	imports := make([]string, 0, len(f.byName))
	for _, fqn := range f.byName {
		imports = append(imports, fqn)
	}
	sort.Strings(imports)
	for _, fqn := range imports {
		fmt.Fprintf(&out, "import %s;\n", fqn)
	}
	if len(imports) > 0 {
		out.WriteString("\n")
	}
	out.WriteString(f.body.String())
	p := path.Join("src", "main", "java", strings.ReplaceAll(f.pkg, ".", "/"), f.class+".java")
	g.files[p] = []byte(out.String())
}

// javadoc is a Javadoc comment of the given paragraphs at indent; empty paragraphs are left out
// and nothing is written when all are.
func javadoc(indent string, paragraphs ...string) string {
	var lines []string
	for _, p := range paragraphs {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		// "*/" would end the comment early.
		lines = append(lines, strings.Split(strings.ReplaceAll(p, "*/", "*&#47;"), "\n")...)
	}
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}

// javaString is s as a Java string literal.
func javaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Classes.

func (g *sdkGen) genUtilities() error {
	f := g.newFile(g.root + ".Utilities")
	for _, c := range []string{
		"java.io.BufferedReader", "java.io.InputStreamReader", "java.nio.charset.StandardCharsets",
		"java.util.Optional", "java.util.stream.Collectors", "javax.annotation.Nullable",
		"com.pulumi.core.internal.Environment", "com.pulumi.deployment.InvokeOptions",
		"com.pulumi.deployment.InvokeOutputOptions",
	} {
		f.ref(c)
	}
	f.printf("public class Utilities {\n")
	for _, kind := range []struct{ java, env string }{
		{"java.lang.String", "getEnvironmentVariable"}, {"java.lang.Boolean", "getBooleanEnvironmentVariable"},
		{"java.lang.Integer", "getIntegerEnvironmentVariable"}, {"java.lang.Double", "getDoubleEnvironmentVariable"},
	} {
		method := "getEnv"
		if kind.java != "java.lang.String" {
			method += strings.TrimPrefix(kind.java, "java.lang.")
		}
		f.printf(`
    public static Optional<%[1]s> %[2]s(java.lang.String... names) {
        for (var n : names) {
            var value = Environment.%[3]s(n);
            if (value.isValue()) {
                return Optional.of(value.value());
            }
        }
        return Optional.empty();
    }
`, kind.java, method, kind.env)
	}
	resource := strings.ReplaceAll(g.root, ".", "/") + "/version.txt"
	f.printf(`
    public static InvokeOptions withVersion(@Nullable InvokeOptions options) {
        if (options != null && options.getVersion().isPresent()) {
            return options;
        }
        return new InvokeOptions(
            options == null ? null : options.getParent().orElse(null),
            options == null ? null : options.getProvider().orElse(null),
            getVersion()
        );
    }

    public static InvokeOutputOptions withVersion(@Nullable InvokeOutputOptions options) {
        if (options != null && options.getVersion().isPresent()) {
            return options;
        }
        return new InvokeOutputOptions(
            options == null ? null : options.getParent().orElse(null),
            options == null ? null : options.getProvider().orElse(null),
            getVersion(),
            options == null ? null : options.getDependsOn()
        );
    }

    private static final java.lang.String version;
    public static java.lang.String getVersion() {
        return version;
    }

    static {
        var resourceName = %s;
        var versionFile = Utilities.class.getClassLoader().getResourceAsStream(resourceName);
        if (versionFile == null) {
            throw new IllegalStateException(
                    java.lang.String.format("expected resource '%%s' on Classpath, not found", resourceName)
            );
        }
        version = new BufferedReader(new InputStreamReader(versionFile, StandardCharsets.UTF_8))
                .lines()
                .collect(Collectors.joining("\n"))
                .trim();
    }
%s}
`, javaString(resource), g.utilitiesPackageRef(f))
	g.add(f)
	return nil
}

func (g *sdkGen) genConfig() error {
	f := g.newFile(g.root + ".Config")
	f.printf("public final class Config {\n\n")
	f.printf("    private static final com.pulumi.Config config = com.pulumi.Config.of(%s);\n", javaString(g.pkg.Name))
	for _, p := range g.pkg.Config {
		t, err := g.javaType(p.Type, false)
		if err != nil {
			return fmt.Errorf("config %s: %w", p.Name, err)
		}
		var prop string
		switch t.class {
		case "java.lang.String":
			prop = "stringProp"
		case "java.lang.Integer":
			prop = "integerProp"
		case "java.lang.Boolean":
			prop = "booleanProp"
		case "java.lang.Double":
			prop = "doubleProp"
		default:
			if len(t.params) > 0 {
				return fmt.Errorf("config %s: a generic type is not supported by the Java SDK generator", p.Name)
			}
			prop = "objectProp"
		}
		expr := fmt.Sprintf("%s.%s(%s", f.ref("com.pulumi.core.internal.Codegen"), prop, javaString(p.Name))
		if prop == "objectProp" {
			expr += ", " + t.code(f) + ".class"
		}
		expr += ").config(config)"
		if dv := p.DefaultValue; dv != nil {
			if len(dv.Environment) > 0 {
				quoted := make([]string, len(dv.Environment))
				for i, e := range dv.Environment {
					quoted[i] = javaString(e)
				}
				expr += ".env(" + strings.Join(quoted, ", ") + ")"
			}
			if dv.Value != nil {
				lit, err := javaLiteral(dv.Value)
				if err != nil {
					return fmt.Errorf("config %s: %w", p.Name, err)
				}
				expr += ".def(" + lit + ")"
			}
		}
		getterType := t.code(f)
		if p.IsRequired() {
			expr += ".require()"
		} else {
			getterType = f.ref("java.util.Optional") + "<" + getterType + ">"
			expr += ".get()"
		}
		// As pulumi-java: a secret config value is read as a plain value (Config's getSecret is
		// there for those who want an Output).
		f.printf("%s    public %s %s() {\n        return %s;\n    }\n",
			g.doc("    ", p.Comment), getterType, accessor(p.Name), expr)
	}
	f.printf("}\n")
	g.add(f)
	return nil
}

func javaLiteral(v any) (string, error) {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case string:
		return javaString(v), nil
	}
	return "", fmt.Errorf("default value %v (%T) is not supported", v, v)
}

// genResourceFiles writes a resource's class, its Args and (but for the provider) its State.
func (g *sdkGen) genResourceFiles(r *schema.Resource) error {
	if r.IsComponent {
		return g.genComponentFiles(r)
	}
	class := g.resourceClass(r)
	argsClass := class + "Args"
	if err := g.genArgsClass(argsClass, "The set of arguments for constructing a "+class[strings.LastIndex(class, ".")+1:]+" resource.",
		r.InputProperties, false); err != nil {
		return err
	}
	stateClass := ""
	if !r.IsProvider {
		stateClass = g.modulePackage(r.Token) + ".inputs." + memberName(r.Token) + "State"
		props := r.Properties
		if r.StateInputs != nil {
			props = r.StateInputs.Properties
		}
		if err := g.genArgsClass(stateClass, "", props, true); err != nil {
			return err
		}
	}
	return g.genResource(r, class, argsClass, stateClass)
}

func (g *sdkGen) genResource(r *schema.Resource, class, argsClass, stateClass string) error {
	f := g.newFile(class)
	name := f.class
	nullable := "@" + f.ref("javax.annotation.Nullable")
	output := f.ref("com.pulumi.core.Output")
	options := "com.pulumi.resources.CustomResourceOptions"
	base := "com.pulumi.resources.CustomResource"
	if r.IsProvider {
		base = "com.pulumi.resources.ProviderResource"
	}

	f.printf("%s", g.doc("", r.Comment, deprecated(r.DeprecationMessage)))
	if r.DeprecationMessage != "" {
		f.printf("@Deprecated\n")
	}
	f.printf("@%s(type=%s)\n", f.ref("com.pulumi.core.annotations.ResourceType"), javaString(r.Token))
	f.printf("public class %s extends %s {\n", name, base)

	var secrets []string
	for _, p := range r.Properties {
		t, err := g.javaType(p.Type, false)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", r.Token, p.Name, err)
		}
		if p.Secret {
			secrets = append(secrets, p.Name)
		}
		refs, tree := t.exportShape(f)
		field := ident(p.Name)
		f.printf("%s", g.doc("    ", p.Comment, deprecated(p.DeprecationMessage)))
		if p.DeprecationMessage != "" {
			f.printf("    @Deprecated\n")
		}
		f.printf("    @%s(name=%s, refs={%s}, tree=%s)\n",
			f.ref("com.pulumi.core.annotations.Export"), javaString(p.Name), refs, javaString(tree))
		// As pulumi-java: an output that may be absent is Output<Optional<T>> through its getter.
		if p.IsRequired() {
			f.printf("    private %s<%s> %s;\n\n", output, t.code(f), field)
			f.printf("%s", g.doc("    ", returns(p.Comment)))
			f.printf("    public %s<%s> %s() {\n        return this.%s;\n    }\n",
				output, t.code(f), resourceAccessor(p.Name), field)
		} else {
			f.printf("    private %s</* @Nullable */ %s> %s;\n\n", output, t.code(f), field)
			f.printf("%s", g.doc("    ", returns(p.Comment)))
			f.printf("    public %s<%s<%s>> %s() {\n        return %s.optional(this.%s);\n    }\n",
				output, f.ref("java.util.Optional"), t.code(f), resourceAccessor(p.Name),
				f.ref("com.pulumi.core.internal.Codegen"), field)
		}
	}
	if len(r.Properties) > 0 {
		f.printf("\n")
	}

	args := f.ref(argsClass)
	argsType := args
	allOptional := true
	for _, p := range r.InputProperties {
		allOptional = allOptional && !p.IsRequired()
	}
	if allOptional {
		argsType = nullable + " " + args
	}
	token := r.Token
	if r.IsProvider {
		token = g.pkg.Name
	}
	codegen := f.ref("com.pulumi.core.internal.Codegen")
	f.printf(`    /**
     *
     * @param name The _unique_ name of the resulting resource.
     */
    public %[1]s(java.lang.String name) {
        this(name, %[2]s.Empty);
    }
    /**
     *
     * @param name The _unique_ name of the resulting resource.
     * @param args The arguments to use to populate this resource's properties.
     */
    public %[1]s(java.lang.String name, %[3]s args) {
        this(name, args, null);
    }
    /**
     *
     * @param name The _unique_ name of the resulting resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param options A bag of options that control this resource's behavior.
     */
    public %[1]s(java.lang.String name, %[3]s args, %[4]s %[5]s options) {
        super(%[6]s, name, %[8]s, makeResourceOptions(options, %[7]s.empty())%[9]s);
    }
`, name, args, argsType, nullable, options, javaString(token), codegen, argsWithDefaults(r.InputProperties, args), g.dependencyAndRef(f))
	if stateClass != "" {
		f.printf(`
    private %[1]s(java.lang.String name, %[2]s<java.lang.String> id, %[3]s %[4]s state, %[3]s %[5]s options) {
        super(%[6]s, name, state, makeResourceOptions(options, id)%[7]s);
    }
`, name, output, nullable, f.ref(stateClass), options, javaString(token), g.dependencyAndRef(f))
	}

	f.printf(`
    private static %[1]s makeResourceOptions(%[2]s %[1]s options, %[2]s %[3]s<java.lang.String> id) {
        var defaultOptions = %[1]s.builder()
            .version(%[4]s.getVersion())
`, options, nullable, output, f.ref(g.root+".Utilities"))
	if g.pkg.PluginDownloadURL != "" {
		f.printf("            .pluginDownloadURL(%s)\n", javaString(g.pkg.PluginDownloadURL))
	}
	if len(r.Aliases) > 0 {
		var aliases []string
		for _, a := range r.Aliases {
			s := f.ref("com.pulumi.core.Alias") + ".builder().type(" + javaString(a.Type) + ")"
			aliases = append(aliases, output+".of("+s+".build())")
		}
		f.printf("            .aliases(%s.of(\n                %s\n            ))\n",
			f.ref("java.util.List"), strings.Join(aliases, ",\n                "))
	}
	// Properties the schema marks replaceOnChanges: the SDK asks for them, as Pulumi's SDKs do.
	if changes, errs := r.ReplaceOnChanges(); len(errs) == 0 && len(changes) > 0 {
		paths := schema.PropertyListJoinToString(changes, func(name string) string { return name })
		quoted := make([]string, len(paths))
		for i, p := range paths {
			quoted[i] = javaString(p)
		}
		f.printf("            .replaceOnChanges(%s.of(\n                %s\n            ))\n",
			f.ref("java.util.List"), strings.Join(quoted, ",\n                "))
	}
	if len(secrets) > 0 {
		quoted := make([]string, len(secrets))
		for i, s := range secrets {
			quoted[i] = javaString(s)
		}
		f.printf("            .additionalSecretOutputs(%s.of(\n                %s\n            ))\n",
			f.ref("java.util.List"), strings.Join(quoted, ",\n                "))
	}
	f.printf("            .build();\n        return %s.merge(defaultOptions, options, id);\n    }\n", options)

	if stateClass != "" {
		f.printf(`
    /**
     * Get an existing %[1]s resource's state with the given name, ID, and optional extra
     * properties used to qualify the lookup.
     *
     * @param name The _unique_ name of the resulting resource.
     * @param id The _unique_ provider ID of the resource to lookup.
     * @param state The known state of the resource, if any.
     * @param options Optional settings to control the behavior of the CustomResource.
     * @return the resource, read from the provider
     */
    public static %[1]s get(java.lang.String name, %[2]s<java.lang.String> id, %[3]s %[4]s state, %[3]s %[5]s options) {
        return new %[1]s(name, id, state, options);
    }
`, name, output, nullable, f.ref(stateClass), options)
	}
	f.printf("}\n")
	g.add(f)
	return nil
}

func deprecated(msg string) string {
	if msg == "" {
		return ""
	}
	return "@deprecated\n" + msg
}

func returns(comment string) string {
	if strings.TrimSpace(comment) == "" {
		return ""
	}
	return "@return " + comment
}

// genArgsClass writes a ResourceArgs class of Output-valued properties with its Builder: a
// resource's Args, the provider's, a resource's State (allOptional: every property optional) and
// the Args of an input object type.
func (g *sdkGen) genArgsClass(class, comment string, props []*schema.Property, allOptional bool) error {
	f := g.newFile(class)
	name := f.class
	output := f.ref("com.pulumi.core.Output")
	fields, err := g.classFields(name, props, true, allOptional)
	if err != nil {
		return err
	}

	f.printf("\n%s", g.doc("", comment))
	f.printf("public final class %s extends com.pulumi.resources.ResourceArgs {\n\n", name)
	f.printf("    public static final %[1]s Empty = new %[1]s();\n\n", name)
	for _, fd := range fields {
		f.printf("%s", g.doc("    ", fd.p.Comment, deprecated(fd.p.DeprecationMessage)))
		ot := output + "<" + fd.t.code(f) + ">"
		if fd.required {
			f.printf("    @%s(name=%s, required=true)\n", f.ref("com.pulumi.core.annotations.Import"), javaString(fd.p.Name))
			f.printf("    private %s %s;\n\n", ot, fd.name)
			f.printf("%s", g.doc("    ", returns(fd.p.Comment)))
			f.printf("    public %s %s() {\n        return this.%s;\n    }\n\n", ot, fd.acc, fd.name)
		} else {
			f.printf("    @%s(name=%s)\n", f.ref("com.pulumi.core.annotations.Import"), javaString(fd.p.Name))
			f.printf("    private @%s %s %s;\n\n", f.ref("javax.annotation.Nullable"), ot, fd.name)
			f.printf("%s", g.doc("    ", returns(fd.p.Comment)))
			f.printf("    public %s<%s> %s() {\n        return %s.ofNullable(this.%s);\n    }\n\n",
				f.ref("java.util.Optional"), ot, fd.acc, f.ref("java.util.Optional"), fd.name)
		}
	}
	f.printf("    private %s() {}\n", name)
	// The Builder copies defaults through this, with or without fields.
	f.printf("\n    private %[1]s(%[1]s $) {\n", name)
	for _, fd := range fields {
		f.printf("        this.%[1]s = $.%[1]s;\n", fd.name)
	}
	f.printf("    }\n")
	objects := f.ref("java.util.Objects")
	f.printf(`
    public static Builder builder() {
        return new Builder();
    }
    public static Builder builder(%[1]s defaults) {
        return new Builder(defaults);
    }

    public static final class Builder {
        private %[1]s $;

        public Builder() {
            $ = new %[1]s();
        }

        public Builder(%[1]s defaults) {
            $ = new %[1]s(%[2]s.requireNonNull(defaults));
        }
`, name, objects)
	for _, fd := range fields {
		doc := g.doc("        ", paramDoc(fd.name, fd.p.Comment), "@return builder")
		ann := ""
		if !fd.required {
			ann = "@" + f.ref("javax.annotation.Nullable") + " "
		}
		f.printf("\n%s        public Builder %s(%s%s<%s> %s) {\n            $.%s = %s;\n            return this;\n        }\n",
			doc, fd.acc, ann, output, fd.t.code(f), fd.name, fd.name, fd.name)
		f.printf("\n%s        public Builder %s(%s %s) {\n            return %s(%s.of(%s));\n        }\n",
			doc, fd.acc, fd.t.code(f), fd.name, fd.acc, output, fd.name)
		if fd.t.isList() {
			f.printf("\n%s        public Builder %s(%s... %s) {\n            return %s(%s.of(%s));\n        }\n",
				doc, fd.acc, fd.t.params[0].code(f), fd.name, fd.acc, f.ref("java.util.List"), fd.name)
		}
	}
	f.printf("\n        public %s build() {\n", name)
	if err := g.genDefaults(f, props, fields, true); err != nil {
		return err
	}
	for _, fd := range fields {
		// Where this generator differs from pulumi-java: a secret input is sealed here, as the Go
		// and Python SDKs seal it (pulumi.ToSecret), so a plain value given for it never reaches
		// state unmarked.
		if fd.p.Secret {
			f.printf("            if ($.%[1]s != null) {\n                $.%[1]s = $.%[1]s.asSecret();\n            }\n", fd.name)
		}
	}
	for _, fd := range fields {
		if fd.required {
			f.printf("            if ($.%s == null) {\n                throw new %s(%s, %s);\n            }\n",
				fd.name, f.ref("com.pulumi.exceptions.MissingRequiredPropertyException"),
				javaString(name), javaString(fd.p.Name))
		}
	}
	f.printf("            return $;\n        }\n    }\n\n}\n")
	g.add(f)
	return nil
}

func paramDoc(name, comment string) string {
	if strings.TrimSpace(comment) == "" {
		return "@param " + name + " the value"
	}
	return "@param " + name + " " + comment
}

// genOutputClass writes the class of an output object type: plain values, @CustomType, built by
// the SDK's deserializer through its @CustomType.Builder.
func (g *sdkGen) genOutputClass(class, comment string, props []*schema.Property) error {
	f := g.newFile(class)
	name := f.class
	customType := f.ref("com.pulumi.core.annotations.CustomType")
	fields, err := g.classFields(name, props, false, false)
	if err != nil {
		return err
	}
	fieldType := func(fd classField) string {
		if fd.required {
			return fd.t.code(f)
		}
		return "@" + f.ref("javax.annotation.Nullable") + " " + fd.t.code(f)
	}

	f.printf("%s", g.doc("", comment))
	f.printf("@%s\npublic final class %s {\n", customType, name)
	for _, fd := range fields {
		f.printf("%s", g.doc("    ", fd.p.Comment, deprecated(fd.p.DeprecationMessage)))
		f.printf("    private %s %s;\n", fieldType(fd), fd.name)
	}
	f.printf("\n    private %s() {}\n", name)
	for _, fd := range fields {
		f.printf("%s", g.doc("    ", returns(fd.p.Comment)))
		switch {
		case fd.required:
			f.printf("    public %s %s() {\n        return this.%s;\n    }\n", fd.t.code(f), fd.acc, fd.name)
		case fd.t.isList():
			// As pulumi-java: an absent list or map reads as an empty one.
			f.printf("    public %s %s() {\n        return this.%s == null ? %s.of() : this.%s;\n    }\n",
				fd.t.code(f), fd.acc, fd.name, f.ref("java.util.List"), fd.name)
		case fd.t.isMap():
			f.printf("    public %s %s() {\n        return this.%s == null ? %s.of() : this.%s;\n    }\n",
				fd.t.code(f), fd.acc, fd.name, f.ref("java.util.Map"), fd.name)
		default:
			f.printf("    public %s<%s> %s() {\n        return %s.ofNullable(this.%s);\n    }\n",
				f.ref("java.util.Optional"), fd.t.code(f), fd.acc, f.ref("java.util.Optional"), fd.name)
		}
	}
	objects := f.ref("java.util.Objects")
	f.printf(`
    public static Builder builder() {
        return new Builder();
    }

    public static Builder builder(%[1]s defaults) {
        return new Builder(defaults);
    }
    @%[2]s.Builder
    public static final class Builder {
`, name, customType)
	for _, fd := range fields {
		f.printf("        private %s %s;\n", fieldType(fd), fd.name)
	}
	f.printf("        public Builder() {}\n        public Builder(%s defaults) {\n            %s.requireNonNull(defaults);\n", name, objects)
	for _, fd := range fields {
		f.printf("            this.%[1]s = defaults.%[1]s;\n", fd.name)
	}
	f.printf("        }\n")
	for _, fd := range fields {
		setter := "@" + customType + ".Setter"
		if fd.acc != fd.p.Name {
			setter += "(" + javaString(fd.p.Name) + ")"
		}
		f.printf("\n        %s\n        public Builder %s(%s %s) {\n", setter, fd.acc, fieldType(fd), fd.name)
		if fd.required {
			f.printf("            if (%s == null) {\n              throw new %s(%s, %s);\n            }\n",
				fd.name, f.ref("com.pulumi.exceptions.MissingRequiredPropertyException"),
				javaString(name), javaString(fd.p.Name))
		}
		f.printf("            this.%[1]s = %[1]s;\n            return this;\n        }\n", fd.name)
		if fd.t.isList() {
			f.printf("        public Builder %s(%s... %s) {\n            return %s(%s.of(%s));\n        }\n",
				fd.acc, fd.t.params[0].code(f), fd.name, fd.acc, f.ref("java.util.List"), fd.name)
		}
	}
	f.printf("        public %[1]s build() {\n            final var _resultValue = new %[1]s();\n", name)
	for _, fd := range fields {
		f.printf("            _resultValue.%[1]s = %[1]s;\n", fd.name)
	}
	f.printf("            return _resultValue;\n        }\n    }\n}\n")
	g.add(f)
	return nil
}

// Project files.

func (g *sdkGen) version() string {
	if g.pkg.Version != nil {
		return g.pkg.Version.String()
	}
	return "0.0.1" // as pulumi-java, for a schema without a version
}

func (g *sdkGen) genProjectFiles() {
	version := g.version()
	resources := path.Join("src", "main", "resources", strings.ReplaceAll(g.root, ".", "/"))
	// The fields PulumiPlugins reads, in pulumi-java's order (the engine's own plugin.json type):
	// server only when the schema has one; a parameterized package's names its base plugin and
	// the parameterization it is served with.
	info := plugin.PulumiPluginJSON{Resource: true, Server: g.pkg.PluginDownloadURL}
	info.Name, info.Version = g.pluginNameVersion()
	if p := g.parameter(); p != nil && p.extension {
		info.ExtensionParameterization = p.json
	} else if p != nil {
		info.Parameterization = p.json
	}
	pluginJSON, _ := json.MarshalIndent(info, "", "  ")
	g.files[path.Join(resources, "plugin.json")] = append(pluginJSON, '\n')
	g.files[path.Join(resources, "version.txt")] = []byte(version + "\n")
	g.files["pom.xml"] = []byte(g.pom())
	g.files["README.md"] = []byte(g.readme())
	g.files[".gitignore"] = []byte("target/\n")
}

func (g *sdkGen) groupID() string {
	base := strings.TrimSuffix(g.info.BasePackage, ".")
	if base == "" {
		base = "com.pulumi"
	}
	return base
}

// dependencies are language.java.dependencies ("group:artifact" -> version), sorted, with
// com.pulumi:pulumi always there and jsr305 (javax.annotation.Nullable, which com.pulumi:pulumi
// has at run time only) for compiling.
func (g *sdkGen) dependencies() [][3]string {
	deps := map[string]string{
		"com.pulumi:pulumi":               defaultPulumiVersion,
		"com.google.code.findbugs:jsr305": "3.0.2",
	}
	for k, v := range g.info.Dependencies {
		deps[k] = v
	}
	for _, d := range g.foreignDependencies() {
		deps[d.group+":"+d.artifact] = d.version
	}
	keys := make([]string, 0, len(deps))
	for k := range deps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][3]string
	for _, k := range keys {
		group, artifact, _ := strings.Cut(k, ":")
		out = append(out, [3]string{group, artifact, deps[k]})
	}
	return out
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// pom is the Maven build of the SDK. pulumi-java writes build.gradle and settings.gradle instead;
// this host builds with Maven because Gradle is not available here. `mvn package` makes the jar,
// the sources jar and the javadoc jar, reproducibly: every plugin is pinned, and the entries'
// times are project.build.outputTimestamp (a release passes its own with
// -Dproject.build.outputTimestamp=...).
func (g *sdkGen) pom() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(`<?xml version="1.0" encoding="UTF-8"?>
<!-- *** WARNING: this file was generated by %s. *** -->
<!-- *** Do not edit by hand unless you're certain you know what you are doing! *** -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
    <modelVersion>4.0.0</modelVersion>

    <groupId>%s</groupId>
    <artifactId>%s</artifactId>
    <version>%s</version>
    <packaging>jar</packaging>

`, javaTool, xmlText(g.groupID()), xmlText(g.pkg.Name), xmlText(g.version()))
	name := g.pkg.DisplayName
	if name == "" {
		name = g.pkg.Name
	}
	w("    <name>%s</name>\n", xmlText(name))
	if g.pkg.Description != "" {
		w("    <description>%s</description>\n", xmlText(g.resolveDocRefs(g.pkg.Description)))
	}
	url := g.pkg.Homepage
	if url == "" {
		url = g.pkg.Repository
	}
	if url != "" {
		w("    <url>%s</url>\n", xmlText(url))
	}
	if g.pkg.License != "" {
		licenseName, licenseURL := g.pkg.License, ""
		if g.pkg.License == "Apache-2.0" {
			licenseName, licenseURL = "The Apache License, Version 2.0", "https://www.apache.org/licenses/LICENSE-2.0.txt"
		}
		w("    <licenses>\n        <license>\n            <name>%s</name>\n", xmlText(licenseName))
		if licenseURL != "" {
			w("            <url>%s</url>\n", xmlText(licenseURL))
		}
		w("        </license>\n    </licenses>\n")
	}
	if repo := g.pkg.Repository; repo != "" {
		git := strings.TrimSuffix(repo, "/") + ".git"
		w("    <scm>\n        <connection>scm:git:%s</connection>\n", xmlText(git))
		if rest, ok := strings.CutPrefix(repo, "https://github.com/"); ok {
			w("        <developerConnection>scm:git:ssh://git@github.com/%s.git</developerConnection>\n",
				xmlText(strings.TrimSuffix(rest, "/")))
		}
		w("        <url>%s</url>\n    </scm>\n", xmlText(repo))
	}
	w(`
    <properties>
        <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
        <project.reporting.outputEncoding>UTF-8</project.reporting.outputEncoding>
        <maven.compiler.release>11</maven.compiler.release>
        <!-- The time of every jar entry, for reproducible jars; a release sets its own. -->
        <project.build.outputTimestamp>1980-01-01T00:00:02Z</project.build.outputTimestamp>
    </properties>
`)
	w("%s", g.pomRepositories())
	w(`
    <dependencies>
`)
	for _, d := range g.dependencies() {
		b.WriteString(pomDependency(d[0], d[1], d[2]))
	}
	b.WriteString(pomBuildHead)
	w(`            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-surefire-plugin</artifactId>
                <version>3.5.2</version>
            </plugin>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-jar-plugin</artifactId>
                <version>3.4.2</version>
            </plugin>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-source-plugin</artifactId>
                <version>3.3.1</version>
                <executions>
                    <execution>
                        <id>attach-sources</id>
                        <goals>
                            <goal>jar-no-fork</goal>
                        </goals>
                    </execution>
                </executions>
            </plugin>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-javadoc-plugin</artifactId>
                <version>3.11.2</version>
                <configuration>
                    <!-- Schema descriptions are Markdown, not checked Javadoc HTML. -->
                    <doclint>none</doclint>
                    <quiet>true</quiet>
                </configuration>
                <executions>
                    <execution>
                        <id>attach-javadocs</id>
                        <goals>
                            <goal>jar</goal>
                        </goals>
                    </execution>
                </executions>
            </plugin>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-install-plugin</artifactId>
                <version>3.1.2</version>
            </plugin>
        </plugins>
    </build>
</project>
`)
	return b.String()
}

func (g *sdkGen) readme() string {
	var b strings.Builder
	title := g.pkg.DisplayName
	if title == "" {
		title = g.pkg.Name
	}
	fmt.Fprintf(&b, "# %s Java SDK\n\n", title)
	if d := strings.TrimSpace(g.resolveDocRefs(g.pkg.Description)); d != "" {
		b.WriteString(d + "\n\n")
	}
	fmt.Fprintf(&b, `## Installing

Add the SDK to a Pulumi Java program's `+"`pom.xml`"+`:

`+"```xml"+`
<dependency>
    <groupId>%[1]s</groupId>
    <artifactId>%[2]s</artifactId>
    <version>%[3]s</version>
</dependency>
`+"```"+`

or, with Gradle, `+"`implementation(\"%[1]s:%[2]s:%[3]s\")`"+`.

The classes are in the package `+"`%[4]s`"+`. The Pulumi engine downloads the
`+"`pulumi-resource-%[2]s`"+` plugin of the same version the first time a program needs it.
`, g.groupID(), g.pkg.Name, g.version(), g.root)
	return b.String()
}

// classField is a property as a generated class holds it.
type classField struct {
	p        *schema.Property
	name     string // the Java field
	acc      string // getter and setter
	t        jtype  // its type: T of Output<T> in an Args class
	required bool
}

// classFields are the fields of class for props: of input types (an Args class) or output ones;
// allOptional makes every one optional (a State class).
func (g *sdkGen) classFields(class string, props []*schema.Property, input, allOptional bool) ([]classField, error) {
	fields := make([]classField, len(props))
	for i, p := range props {
		t, err := g.javaType(p.Type, input)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", class, p.Name, err)
		}
		fields[i] = classField{p: p, name: ident(p.Name), acc: accessor(p.Name), t: t, required: !allOptional && p.IsRequired()}
	}
	return fields, nil
}
