package main

// The Java of a PCL program, for what `pulumi import` prints and `pulumi convert` writes, printed as
// pulumi-java's programgen (pkg/codegen/java/gen_program.go) prints it: an App class in package
// generated_program whose stack(Context) makes the resources, input objects as
// <X>Args.builder()...build(), maps as Map.of/Map.ofEntries, secrets as Output.ofSecret. Beside
// this file: operators, applies over outputs and builtins (programgen_expr.go), references
// (programgen_traversal.go), invokes (programgen_invoke.go), reads (programgen_read.go), ranged
// resources (programgen_range.go) and components (programgen_components.go,
// programgen_localcomponents.go). What it cannot print is an error diagnostic naming it, and no
// code (docs/conformance.md lists what Pulumi's tests found).

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/zclconf/go-cty/cty"
)

// programFile is the file the program is written to: its public class is App.
const programFile = "App.java"

func generateProgram(program *pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
	p := &progGen{
		f:     &javaFile{pkg: "generated_program", class: "App", byName: map[string]string{}, local: map[string]bool{"App": true}},
		sdks:  map[string]*sdkGen{},
		names: map[pcl.Node]string{},
	}
	p.program = program // invokes look their functions up in its packages
	// Java names for the program's variables, first, so that references print them.
	taken := map[string]bool{"ctx": true, "args": true, "config": true}
	for _, n := range program.Nodes {
		name := ident(n.Name())
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		p.names[n] = name
	}
	var body strings.Builder
	// Dependencies first: PCL may name a variable before it declares it, Java may not.
	for _, n := range pcl.Linearize(program) {
		switch n := n.(type) {
		case *pcl.ConfigVariable:
			body.WriteString(p.config(n))
		case *pcl.Resource:
			body.WriteString(p.resource(n))
		case *pcl.ReadResource:
			body.WriteString(p.readResource(n))
		case *pcl.LocalVariable:
			body.WriteString(fmt.Sprintf("        final var %s = %s;\n\n", p.names[n], p.expr(n.Definition.Value, nil, true)))
		case *pcl.OutputVariable:
			body.WriteString(fmt.Sprintf("        ctx.export(%s, %s);\n", javaString(n.LogicalName()), p.expr(n.Value, nil, true)))
		case *pcl.Component:
			body.WriteString(p.localComponent(n))
		default:
			p.fail(nodeRange(n), fmt.Sprintf("%s (%T) is not supported by the Java program generator", n.Name(), n))
		}
	}
	if p.diags.HasErrors() {
		return nil, p.diags, nil
	}

	f := p.f
	f.ref("com.pulumi.Context")
	f.ref("com.pulumi.Pulumi")
	f.printf(`public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    public static void stack(Context ctx) {
%s    }
%s}
`, body.String(), p.helpers)
	// Reuse the SDK generator's file layout, then take the file back out of its folder.
	g := &sdkGen{files: map[string][]byte{}}
	g.add(f)
	for _, text := range g.files {
		files := map[string][]byte{programFile: text}
		for class, text := range p.componentClasses {
			files[class+".java"] = text
		}
		return files, p.diags, nil
	}
	return nil, p.diags, nil
}

type progGen struct {
	f          *javaFile
	configRead bool                        // `final var config = ctx.config();` is printed
	helpers    string                      // static methods the program's code calls (goDuration)
	lifted     map[model.Expression]string // outputs read as a lambda's plain parameters (lift)
	rangeVars  map[string]string           // in a ranged resource, range.key and range.value's Java names
	vars       map[*model.Variable]string  // a for expression's variables, by their Java names
	sdks       map[string]*sdkGen
	names      map[pcl.Node]string
	program    *pcl.Program
	diags      hcl.Diagnostics

	// Local components (programgen_localcomponents.go): their classes by name, and in one's
	// constructor the parent of its resources and the variable their names start with.
	componentClasses  map[string][]byte
	parent, namedFrom string
}

func (p *progGen) fail(rng *hcl.Range, summary string) {
	p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Subject: rng})
}

func nodeRange(n pcl.Node) *hcl.Range {
	if b := n.SyntaxNode(); b != nil {
		r := b.Range()
		return &r
	}
	return nil
}

func exprRange(e model.Expression) *hcl.Range {
	if e == nil || e.SyntaxNode() == nil {
		return nil
	}
	r := e.SyntaxNode().Range()
	return &r
}

// sdk is the SDK naming of the package that defines r.
func (p *progGen) sdk(r *schema.Resource) (*sdkGen, error) {
	if r == nil || r.PackageReference == nil {
		return nil, fmt.Errorf("no schema")
	}
	name := r.PackageReference.Name()
	if g, ok := p.sdks[name]; ok {
		return g, nil
	}
	pkg, err := r.PackageReference.Definition()
	if err != nil {
		return nil, err
	}
	g, err := newSDKGen(pkg)
	if err != nil {
		return nil, err
	}
	p.sdks[name] = g
	return g, nil
}

func (p *progGen) resource(r *pcl.Resource) string {
	g, err := p.sdk(r.Schema)
	if err != nil {
		p.fail(nodeRange(r), fmt.Sprintf("resource %s (%s): %v", r.Name(), resourceToken(r), err))
		return ""
	}
	class := g.resourceClass(r.Schema)
	if r.Options != nil && r.Options.Range != nil {
		return p.rangedResource(r, g, class) // programgen_range.go
	}
	return fmt.Sprintf("        var %s = %s;\n\n", p.names[r], p.newResource(r, g, class, p.resourceName(r, ""), "            "))
}

// newResource prints new Class(name, args, options) of r, its arguments' lines indented by indent.
func (p *progGen) newResource(r *pcl.Resource, g *sdkGen, class, name, indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "new %s(%s", p.f.ref(class), name)
	args := p.builder(g, class+"Args", r.Schema.InputProperties, r.Inputs, indent)
	opts := p.options(r.Name(), r.Options, optionsClass(r))
	switch {
	case args != "":
		fmt.Fprintf(&b, ", %s", args)
	case opts != "":
		fmt.Fprintf(&b, ", %s.Empty", p.f.ref(class+"Args"))
	}
	if opts != "" {
		fmt.Fprintf(&b, ", %s", opts)
	}
	b.WriteString(")")
	return b.String()
}

// builder prints class.builder() with a setter per attribute, or "" when there are none.
func (p *progGen) builder(g *sdkGen, class string, props []*schema.Property, attrs []*model.Attribute, indent string) string {
	byName := map[string]*schema.Property{}
	for _, prop := range props {
		byName[prop.Name] = prop
	}
	var setters []string
	for _, a := range attrs {
		if lit, ok := a.Value.(*model.LiteralValueExpression); ok && lit.Value.IsNull() {
			continue // absent: nothing to set
		}
		prop, ok := byName[a.Name]
		if !ok {
			p.fail(exprRange(a.Value), fmt.Sprintf("%s has no input property %s", class, a.Name))
			continue
		}
		dest := prop.Type
		var value string
		// A list set through the builder reads best as its varargs overload, as pulumi-java prints.
		_, isList := plainType(dest).(*schema.ArrayType)
		if tuple, ok := stripConvert(a.Value).(*model.TupleConsExpression); ok && isList && len(tuple.Expressions) > 0 {
			elems := make([]string, len(tuple.Expressions))
			for i, e := range tuple.Expressions {
				elems[i] = p.exprIn(g, e, elementType(dest), builtByBuilder(g, e, elementType(dest)), indent+"    ")
			}
			value = "\n" + indent + "    " + strings.Join(elems, ",\n"+indent+"    ")
		} else {
			value = p.exprIn(g, a.Value, dest, true, indent)
		}
		setters = append(setters, fmt.Sprintf("%s.%s(%s)", indent, accessor(a.Name), value))
	}
	if len(setters) == 0 {
		return ""
	}
	return fmt.Sprintf("%s.builder()\n%s\n%s.build()", p.f.ref(class), strings.Join(setters, "\n"), indent)
}

func stripConvert(e model.Expression) model.Expression {
	if call, ok := e.(*model.FunctionCallExpression); ok && call.Name == pcl.IntrinsicConvert && len(call.Args) == 1 {
		return stripConvert(call.Args[0])
	}
	return e
}

// plainType is t without Optional and Input wrappers.
func plainType(t schema.Type) schema.Type {
	for {
		switch u := t.(type) {
		case *schema.OptionalType:
			t = u.ElementType
		case *schema.InputType:
			t = u.ElementType
		default:
			return t
		}
	}
}

// builtByBuilder says whether e is printed as an input type's Args builder (object), whose setters
// take Outputs, so an element of a list may hold them (a legacy webhook's header with a secret
// value from config).
func builtByBuilder(g *sdkGen, e model.Expression, dest schema.Type) bool {
	_, isObject := stripConvert(e).(*model.ObjectConsExpression)
	_, objectType := plainType(dest).(*schema.ObjectType)
	return g != nil && isObject && objectType
}

func elementType(t schema.Type) schema.Type {
	switch u := plainType(t).(type) {
	case *schema.ArrayType:
		return u.ElementType
	case *schema.MapType:
		return u.ElementType
	}
	return nil
}

// expr prints an expression of no known schema type (locals, outputs).
func (p *progGen) expr(e model.Expression, dest schema.Type, outputOK bool) string {
	return p.exprIn(nil, e, dest, outputOK, "            ")
}

// exprIn prints e as a value of schema type dest (nil: unknown); outputOK says whether an Output is
// accepted there (a builder's setter takes one, a list's or map's element does not).
func (p *progGen) exprIn(g *sdkGen, e model.Expression, dest schema.Type, outputOK bool, indent string) string {
	if code, ok := p.lift(g, e, dest, outputOK, indent); ok {
		return code
	}
	if value, ok := p.enumOrUnion(e, dest); ok {
		return value
	}
	switch e := e.(type) {
	case *model.FunctionCallExpression:
		switch e.Name {
		case pcl.IntrinsicConvert:
			if len(e.Args) == 1 {
				return p.exprIn(g, e.Args[0], dest, outputOK, indent)
			}
		case "secret":
			// An output made secret: its value stays unknown until it is known, and secret.
			if outputOK && len(e.Args) == 1 && model.ContainsOutputs(e.Args[0].Type()) {
				return p.exprIn(g, e.Args[0], dest, true, indent) + ".asSecret()"
			}
			if !outputOK {
				p.fail(exprRange(e), "secret(...) inside a list or map is not supported by the Java program generator: "+
					"make the whole list or map secret")
				return ""
			}
			return fmt.Sprintf("%s.ofSecret(%s)", p.f.ref("com.pulumi.core.Output"), p.exprIn(g, e.Args[0], dest, false, indent))
		case pcl.Invoke:
			return p.invoke(e, indent)
		}
		if code, ok := p.builtin(g, e, indent); ok {
			return code
		}
		p.fail(exprRange(e), fmt.Sprintf("function %s(...) is not supported by the Java program generator", e.Name))
		return ""
	case *model.LiteralValueExpression:
		return p.literal(e, dest)
	case *model.TemplateExpression:
		if len(e.Parts) == 1 {
			if lit, ok := e.Parts[0].(*model.LiteralValueExpression); ok {
				return p.literal(lit, dest)
			}
		}
		return p.template(g, e, indent)
	case *model.BinaryOpExpression:
		return p.binaryOp(g, e, indent)
	case *model.UnaryOpExpression:
		return p.unaryOp(g, e, indent)
	case *model.ForExpression:
		return p.forExpression(g, e, indent)
	case *model.ConditionalExpression:
		if !p.plainOperand(e.Condition) || !p.plainOperand(e.TrueResult) || !p.plainOperand(e.FalseResult) {
			return ""
		}
		return fmt.Sprintf("(%s ? %s : %s)", p.exprIn(g, e.Condition, nil, false, indent),
			p.exprIn(g, e.TrueResult, dest, false, indent), p.exprIn(g, e.FalseResult, dest, false, indent))
	case *model.TupleConsExpression:
		elems := make([]string, len(e.Expressions))
		for i, x := range e.Expressions {
			elems[i] = p.exprIn(g, x, elementType(dest), builtByBuilder(g, x, elementType(dest)), indent)
		}
		// List.of refuses null elements: a null written, or an output's value (absent when
		// optional), goes through Arrays.asList, which takes a lone null for its array.
		mayBeNull := p.lifted != nil
		for _, x := range e.Expressions {
			if lit, ok := x.(*model.LiteralValueExpression); ok && lit.Value.IsNull() {
				mayBeNull = true
			}
		}
		switch {
		case mayBeNull && len(elems) == 1:
			return fmt.Sprintf("%s.singletonList(%s)", p.f.ref("java.util.Collections"), elems[0])
		case mayBeNull:
			return fmt.Sprintf("%s.asList(%s)", p.f.ref("java.util.Arrays"), strings.Join(elems, ", "))
		}
		return fmt.Sprintf("%s.of(%s)", p.f.ref("java.util.List"), strings.Join(elems, ", "))
	case *model.ObjectConsExpression:
		return p.object(g, e, dest, indent)
	case *model.ScopeTraversalExpression:
		return p.traversal(e, outputOK)
	case *model.IndexExpression:
		return p.index(g, e, indent)
	case *model.RelativeTraversalExpression:
		if call, ok := invokeCall(e.Source); ok {
			return p.invokeResult(exprRange(e), call, p.exprIn(g, e.Source, nil, true, indent), e.Traversal)
		}
		if node, ok := rangedResourceIndex(e); ok {
			if name, ok := p.lifted[e]; ok {
				return name
			}
			return p.resourceOutput(exprRange(e), "reference "+node.Name(), p.exprIn(g, e.Source, nil, false, indent), node, e.Traversal)
		}
	}
	p.fail(exprRange(e), fmt.Sprintf("expression %T is not supported by the Java program generator", e))
	return ""
}

func (p *progGen) literal(e *model.LiteralValueExpression, dest schema.Type) string {
	v := e.Value
	switch {
	case v.IsNull():
		return "null"
	case v.Type() == cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	case v.Type() == cty.String:
		return longString(v.AsString())
	case v.Type() == cty.Number:
		bf := v.AsBigFloat()
		isInt := bf.IsInt()
		switch plainType(dest) {
		case schema.IntType:
			if isInt {
				i, _ := bf.Int(nil)
				return i.String()
			}
		case schema.NumberType:
			return floatLiteral(bf)
		}
		// An int where nothing says otherwise, unless Java's int cannot hold it (a double then).
		if isInt && dest == nil {
			if i, acc := bf.Int64(); acc == big.Exact && i >= math.MinInt32 && i <= math.MaxInt32 {
				return strconv.FormatInt(i, 10)
			}
		}
		return floatLiteral(bf)
	}
	p.fail(exprRange(e), fmt.Sprintf("literal %s is not supported by the Java program generator", v.GoString()))
	return ""
}

func floatLiteral(bf *big.Float) string {
	f, _ := bf.Float64()
	s := fmt.Sprintf("%v", f)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// object prints an object: an input type's Args builder, or a map.
func (p *progGen) object(g *sdkGen, e *model.ObjectConsExpression, dest schema.Type, indent string) string {
	if obj, ok := plainType(dest).(*schema.ObjectType); ok && g != nil {
		if obj.PlainShape != nil {
			obj = obj.PlainShape
		}
		var attrs []*model.Attribute
		for _, item := range e.Items {
			key, ok := literalKey(item.Key)
			if !ok {
				p.fail(exprRange(item.Key), "an object key that is not a literal is not supported by the Java program generator")
				return ""
			}
			attrs = append(attrs, &model.Attribute{Name: key, Value: item.Value})
		}
		class := g.objectClass(obj, true)
		if built := p.builder(g, class, obj.Properties, attrs, indent+"    "); built != "" {
			return built
		}
		return p.f.ref(class) + ".builder().build()" // {}: an object with nothing set
	}
	// A map (or an object of no known type): Map.of takes up to ten pairs, Map.ofEntries any number.
	mapClass := p.f.ref("java.util.Map")
	var pairs []string
	for _, item := range e.Items {
		key, ok := literalKey(item.Key)
		if !ok {
			p.fail(exprRange(item.Key), "a map key that is not a literal is not supported by the Java program generator")
			return ""
		}
		value := p.exprIn(g, item.Value, elementType(dest), false, indent)
		if len(e.Items) > 10 {
			pairs = append(pairs, fmt.Sprintf("%s.entry(%s, %s)", mapClass, javaString(key), value))
		} else {
			pairs = append(pairs, javaString(key)+", "+value)
		}
	}
	if len(e.Items) > 10 {
		return fmt.Sprintf("%s.ofEntries(\n%s    %s\n%s)", mapClass, indent, strings.Join(pairs, ",\n"+indent+"    "), indent)
	}
	return fmt.Sprintf("%s.of(%s)", mapClass, strings.Join(pairs, ", "))
}

func literalKey(e model.Expression) (string, bool) {
	switch k := e.(type) {
	case *model.LiteralValueExpression:
		if k.Value.Type() == cty.String {
			return k.Value.AsString(), true
		}
	case *model.TemplateExpression:
		if len(k.Parts) == 1 {
			return literalKey(k.Parts[0])
		}
	}
	return "", false
}

// options prints a resource's options (o, for the resource named name, of the options class
// class), or "" when there are none.
func (p *progGen) options(name string, o *pcl.ResourceOptions, class string) string {
	if o == nil {
		o = &pcl.ResourceOptions{}
	}
	var setters []string
	if p.parent != "" && o.Parent == nil {
		setters = append(setters, "                .parent("+p.parent+")")
	}
	set := func(name string, e model.Expression) {
		if e != nil {
			setters = append(setters, fmt.Sprintf("                .%s(%s)", name, p.exprIn(nil, e, nil, false, "                ")))
		}
	}
	set("parent", o.Parent)
	set("provider", o.Provider)
	// Lists of resources, as the varargs of their setters.
	for _, list := range []struct {
		name string
		e    model.Expression
	}{{"dependsOn", o.DependsOn}, {"replaceWith", o.ReplaceWith}} {
		if list.e == nil {
			continue
		}
		if tuple, ok := stripConvert(list.e).(*model.TupleConsExpression); ok {
			deps := make([]string, len(tuple.Expressions))
			for i, d := range tuple.Expressions {
				deps[i] = p.exprIn(nil, d, nil, false, "")
			}
			setters = append(setters, fmt.Sprintf("                .%s(%s)", list.name, strings.Join(deps, ", ")))
		} else {
			set(list.name, list.e)
		}
	}
	// providers (of a component): a list of providers, or a map of package to provider whose
	// values are what the Java SDK takes (it keys them by their own package).
	if o.Providers != nil {
		var elems []model.Expression
		switch e := stripConvert(o.Providers).(type) {
		case *model.TupleConsExpression:
			elems = e.Expressions
		case *model.ObjectConsExpression:
			for _, item := range e.Items {
				elems = append(elems, item.Value)
			}
		default:
			p.fail(exprRange(o.Providers), fmt.Sprintf("resource %s: providers that are not a list or map literal are not supported by the Java program generator", name))
		}
		providers := make([]string, len(elems))
		for i, e := range elems {
			providers[i] = p.exprIn(nil, e, nil, false, "")
		}
		if len(providers) > 0 {
			setters = append(setters, fmt.Sprintf("                .providers(%s)", strings.Join(providers, ", ")))
		}
	}
	if o.ReplacementTrigger != nil {
		setters = append(setters, fmt.Sprintf("                .replacementTrigger(%s.of(%s))",
			p.f.ref("com.pulumi.core.Output"), p.exprIn(nil, o.ReplacementTrigger, nil, false, "                ")))
	}
	set("protect", o.Protect)
	set("retainOnDelete", o.RetainOnDelete)
	set("deleteBeforeReplace", o.DeleteBeforeReplace)
	set("version", o.Version)
	set("pluginDownloadURL", o.PluginDownloadURL)
	set("importId", o.ImportID)
	// Lists of property paths, as the varargs of their setters.
	for _, paths := range []struct {
		name string
		e    model.Expression
	}{
		{"ignoreChanges", o.IgnoreChanges}, {"replaceOnChanges", o.ReplaceOnChanges},
		{"hideDiffs", o.HideDiffs}, {"additionalSecretOutputs", o.AdditionalSecretOutputs},
	} {
		if paths.e != nil {
			setters = append(setters, fmt.Sprintf("                .%s(%s)", paths.name, p.propertyPaths(name, paths.name, paths.e)))
		}
	}
	if o.CustomTimeouts != nil {
		setters = append(setters, fmt.Sprintf("                .customTimeouts(%s)", p.customTimeouts(name, o.CustomTimeouts)))
	}
	unsupported := []struct {
		name string
		e    model.Expression
	}{
		{"aliases", o.Aliases}, {"range", o.Range},
	}
	for _, u := range unsupported {
		if u.e != nil && (u.name != "range" || p.rangeVars == nil) { // a resource's range: rangedResource
			p.fail(exprRange(u.e), fmt.Sprintf("resource %s: the option %s is not supported by the Java program generator", name, u.name))
		}
	}
	// The Java SDK this generator writes for (com.pulumi:pulumi defaultPulumiVersion) has no such option.
	if o.DeletedWith != nil {
		p.fail(exprRange(o.DeletedWith), fmt.Sprintf("resource %s: the option deletedWith is not in the Java SDK "+
			"(com.pulumi:pulumi %s's CustomResourceOptions has none)", name, defaultPulumiVersion))
	}
	if len(setters) == 0 {
		return ""
	}
	return fmt.Sprintf("%s.builder()\n%s\n                .build()",
		p.f.ref(class), strings.Join(setters, "\n"))
}

func resourceToken(r *pcl.Resource) string {
	tok, _ := r.GetToken()
	return tok
}

// config prints a config variable as the Java SDK reads it (com.pulumi.Config): require* when it
// must be set, get*(...).orElse(default) when it has a default or may be absent, the *Secret forms
// (an Output) for a secret one.
func (p *progGen) config(c *pcl.ConfigVariable) string {
	var b strings.Builder
	if !p.configRead {
		p.configRead = true
		b.WriteString("        final var config = ctx.config();\n")
	}
	name := javaString(c.LogicalName())
	var kind, shape string
	var typ schema.Type
	resolved := model.ResolveOutputs(c.Type())
	switch resolved {
	case model.StringType:
		typ = schema.StringType
	case model.IntType:
		kind, typ = "Integer", schema.IntType
	case model.BoolType:
		kind, typ = "Boolean", schema.BoolType
	case model.NumberType:
		kind, typ = "Double", schema.NumberType
		if c.Secret {
			kind = "Object" // no getSecretDouble: the JSON reader's Double
		}
	}
	switch t := resolved.(type) {
	case *model.ListType:
		kind, shape = "Object", p.configShape("list", t.ElementType)
	case *model.MapType:
		kind, shape = "Object", p.configShape("map", t.ElementType)
	}
	if typ == nil && shape == "" {
		p.fail(nodeRange(c), fmt.Sprintf("config %s: a value of type %s is not supported by the Java program generator",
			c.LogicalName(), c.Type()))
		return ""
	}
	args := name
	switch {
	case shape != "":
		args += ", " + shape
	case kind == "Object":
		args += ", Double.class"
	}
	secret := ""
	if c.Secret {
		secret = "Secret"
	}
	var value string
	switch {
	case c.DefaultValue == nil && !c.Nullable:
		value = fmt.Sprintf("config.require%s%s(%s)", secret, kind, args)
	default:
		// A default that is an output (an invoke's result) is the value set, or else it.
		outputDefault := c.DefaultValue != nil && model.ContainsOutputs(c.DefaultValue.Type()) && !c.Secret
		orElse := "null"
		if c.DefaultValue != nil {
			orElse = p.exprIn(nil, c.DefaultValue, typ, outputDefault, "            ")
		}
		getter := "get" + secret + kind
		if kind == "" && c.Secret {
			getter = "getSecret"
		}
		switch {
		case outputDefault:
			value = fmt.Sprintf("config.%s(%s).map(%s::of).orElse(%s)", getter, args, p.f.ref("com.pulumi.core.Output"), orElse)
		case c.Secret:
			value = fmt.Sprintf("config.%s(%s).applyValue(v -> v.orElse(%s))", getter, args, orElse)
		default:
			value = fmt.Sprintf("config.%s(%s).orElse(%s)", getter, args, orElse)
		}
	}
	fmt.Fprintf(&b, "        final var %s = %s;\n", p.names[c], value)
	return b.String()
}

// propertyPaths prints a list of property paths (ignoreChanges = [tags["env"], value]) as the
// strings the engine takes: "tags[\"env\"]", "value".
func (p *progGen) propertyPaths(name, option string, e model.Expression) string {
	tuple, ok := stripConvert(e).(*model.TupleConsExpression)
	if !ok {
		p.fail(exprRange(e), fmt.Sprintf("resource %s: %s that is not a list is not supported by the Java program generator", name, option))
		return ""
	}
	paths := make([]string, len(tuple.Expressions))
	for i, x := range tuple.Expressions {
		switch x := stripConvert(x).(type) {
		case *model.LiteralValueExpression, *model.TemplateExpression:
			if text, ok := literalKey(x); ok {
				paths[i] = javaString(text)
				continue
			}
		case *model.ScopeTraversalExpression:
			var path strings.Builder
			path.WriteString(x.RootName)
			for _, t := range x.Traversal[1:] {
				switch t := t.(type) {
				case hcl.TraverseAttr:
					path.WriteString("." + t.Name)
				case hcl.TraverseIndex:
					if t.Key.Type() == cty.String {
						path.WriteString("[" + strconv.Quote(t.Key.AsString()) + "]")
					} else {
						path.WriteString("[" + t.Key.AsBigFloat().Text('f', -1) + "]")
					}
				}
			}
			paths[i] = javaString(path.String())
			continue
		}
		p.fail(exprRange(x), fmt.Sprintf("resource %s: an entry of %s that is not a property path is not supported by the Java program generator", name, option))
	}
	return strings.Join(paths, ", ")
}

// customTimeouts prints CustomTimeouts.builder() of PCL's {create = "5m", ...}: Go duration strings,
// a literal one converted here, another at run time (goDurationHelper).
func (p *progGen) customTimeouts(name string, e model.Expression) string {
	obj, ok := stripConvert(e).(*model.ObjectConsExpression)
	if !ok {
		p.fail(exprRange(e), fmt.Sprintf("resource %s: customTimeouts that is not an object is not supported by the Java program generator", name))
		return ""
	}
	duration := p.f.ref("java.time.Duration")
	var b strings.Builder
	b.WriteString(p.f.ref("com.pulumi.resources.CustomTimeouts") + ".builder()")
	for _, item := range obj.Items {
		key, ok := literalKey(item.Key)
		if !ok || (key != "create" && key != "update" && key != "delete" && key != "read") {
			p.fail(exprRange(item.Key), fmt.Sprintf("resource %s: customTimeouts takes create, update, delete and read", name))
			continue
		}
		var value string
		if text, ok := literalKey(stripConvert(item.Value)); ok {
			d, err := time.ParseDuration(text)
			if err != nil {
				p.fail(exprRange(item.Value), fmt.Sprintf("resource %s: customTimeouts.%s: %v", name, key, err))
				continue
			}
			value = fmt.Sprintf("%s.ofMillis(%d)", duration, d.Milliseconds())
		} else {
			p.helpers = goDurationHelper
			value = fmt.Sprintf("goDuration(%s)", p.exprIn(nil, item.Value, schema.StringType, false, ""))
		}
		fmt.Fprintf(&b, ".%s(%s)", key, value)
	}
	return b.String() + ".build()"
}

// goDurationHelper reads a Go duration ("1h", ".2m", "1m30s") at run time, as the engine's
// customTimeouts are written in PCL; java.time.Duration.parse takes ISO-8601 only.
const goDurationHelper = `
    private static java.time.Duration goDuration(String text) {
        var units = java.util.Map.of("h", 3600e9, "m", 60e9, "s", 1e9, "ms", 1e6, "us", 1e3, "µs", 1e3, "ns", 1.0);
        var part = java.util.regex.Pattern.compile("([0-9]*\\.?[0-9]+)(h|ms|m|s|us|µs|ns)").matcher(text);
        double nanos = 0;
        int end = 0;
        while (part.find() && part.start() == end) {
            nanos += Double.parseDouble(part.group(1)) * units.get(part.group(2));
            end = part.end();
        }
        if (end == 0 || end != text.length()) {
            throw new IllegalArgumentException("not a duration (such as 5m or 1h30m): " + text);
        }
        return java.time.Duration.ofNanos(Math.round(nanos));
    }
`

// configShape is the TypeShape of a list or map config of primitives (an element that may be
// null reads as its type), or "" after a diagnostic.
func (p *progGen) configShape(kind string, element model.Type) string {
	if u, ok := element.(*model.UnionType); ok {
		var kept []model.Type
		for _, t := range u.ElementTypes {
			if t != model.NoneType {
				kept = append(kept, t)
			}
		}
		if len(kept) == 1 {
			element = kept[0]
		}
	}
	class := map[model.Type]string{
		model.StringType: "String", model.IntType: "Integer", model.BoolType: "Boolean", model.NumberType: "Double",
	}[element]
	if class == "" {
		return ""
	}
	shape := p.f.ref("com.pulumi.core.TypeShape")
	if kind == "map" {
		return fmt.Sprintf("%s.map(String.class, %s.class)", shape, class)
	}
	return fmt.Sprintf("%s.list(%s.class)", shape, class)
}
