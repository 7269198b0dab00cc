package main

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// Functions (invokes), in the shape pulumi-java writes them: per module a <Module>Functions class
// (the index module's named after the package) of static methods, each function's arguments an
// InvokeArgs class inputs/<Name>Args (Output-valued) and inputs/<Name>PlainArgs (plain values),
// its result the @CustomType class outputs/<Name>Result.

// functionUnsupported says why this generator refuses function f, or "" when it writes it.
// Multi-argument inputs are written as one Args class, as the provider receives them.
func functionUnsupported(f *schema.Function) string {
	if f.IsMethod {
		return "" // a method is refused with its resource
	}
	return ""
}

// scalarReturn is the return type of a function that returns a value that is not an object (the
// provider sends it as the one property of its result), or nil.
func scalarReturn(f *schema.Function) schema.Type {
	if f.ReturnType == nil {
		return nil
	}
	if _, isObject := f.ReturnType.(*schema.ObjectType); isObject {
		return nil
	}
	return f.ReturnType
}

// typeShape prints the TypeShape of t, its type arguments too (the SDK's deserializer reads them).
func typeShape(f *javaFile, t jtype) string {
	shape := f.ref("com.pulumi.core.TypeShape")
	if len(t.params) == 0 {
		return fmt.Sprintf("%s.of(%s.class)", shape, f.ref(t.class))
	}
	code := fmt.Sprintf("%s.<%s>builder(%s.class)", shape, t.code(f), f.ref(t.class))
	for _, p := range t.params {
		code += ".addParameter(" + typeShape(f, p) + ")"
	}
	return code + ".build()"
}

// functionsClass is the class holding the functions of token's module: for the index module it
// is named after the package, as pulumi-java names it.
func (g *sdkGen) functionsClass(token string) string {
	mod := g.pkg.TokenToModule(token)
	name := g.pkg.Name
	if mod != "" {
		name = mod
	}
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '.' })
	return g.modulePackage(token) + "." + title(ident(strings.ToLower(parts[len(parts)-1]))) + "Functions"
}

// functionName is the Java method name of a function: its token's last part, lower camel case.
func functionName(token string) string {
	m := memberName(token)
	return accessor(strings.ToLower(m[:1]) + m[1:])
}

func (g *sdkGen) functionArgsClass(f *schema.Function, plain bool) string {
	suffix := "Args"
	if plain {
		suffix = "PlainArgs"
	}
	return g.modulePackage(f.Token) + ".inputs." + memberName(f.Token) + suffix
}

func (g *sdkGen) functionResultClass(f *schema.Function) string {
	return g.modulePackage(f.Token) + ".outputs." + memberName(f.Token) + "Result"
}

// functions are the package's functions this generator writes, in token order.
func (g *sdkGen) functions() []*schema.Function {
	var fns []*schema.Function
	for _, f := range g.pkg.Functions {
		if f.IsMethod || f.IsOverlay {
			continue
		}
		fns = append(fns, f)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Token < fns[j].Token })
	return fns
}

// functionTypes visits the types of the functions' arguments and results.
func (g *sdkGen) functionTypes(input, output func(schema.Type)) {
	for _, f := range g.functions() {
		if f.Inputs != nil {
			for _, p := range f.Inputs.Properties {
				input(p.Type)
			}
		}
		if t := scalarReturn(f); t != nil {
			output(t)
		} else if f.Outputs != nil {
			for _, p := range f.Outputs.Properties {
				output(p.Type)
			}
		}
	}
}

// hasObjects says whether t holds an object type: the plain arguments class is written only
// without them, as this generator writes no plain classes of input object types.
func hasObjects(t schema.Type) bool {
	switch t := t.(type) {
	case *schema.OptionalType:
		return hasObjects(t.ElementType)
	case *schema.InputType:
		return hasObjects(t.ElementType)
	case *schema.ArrayType:
		return hasObjects(t.ElementType)
	case *schema.MapType:
		return hasObjects(t.ElementType)
	case *schema.ObjectType, *schema.UnionType:
		return true
	}
	return false
}

func (g *sdkGen) hasPlainArgs(f *schema.Function) bool {
	if f.Inputs == nil {
		return true
	}
	for _, p := range f.Inputs.Properties {
		if hasObjects(p.Type) {
			return false
		}
	}
	return true
}

func (g *sdkGen) genFunctions() error {
	byClass := map[string][]*schema.Function{}
	var classes []string
	for _, f := range g.functions() {
		c := g.functionsClass(f.Token)
		if _, ok := byClass[c]; !ok {
			classes = append(classes, c)
		}
		byClass[c] = append(byClass[c], f)
	}
	sort.Strings(classes)
	for _, c := range classes {
		for _, f := range byClass[c] {
			if err := g.genFunctionTypes(f); err != nil {
				return err
			}
		}
		if err := g.genFunctionsClass(c, byClass[c]); err != nil {
			return err
		}
	}
	return nil
}

func (g *sdkGen) genFunctionTypes(f *schema.Function) error {
	var props []*schema.Property
	if f.Inputs != nil {
		props = f.Inputs.Properties
	}
	args := g.functionArgsClass(f, false)
	if err := g.genArgsClass(args, "", props, false); err != nil {
		return err
	}
	// genArgsClass writes a ResourceArgs; an invoke takes an InvokeArgs, which differs only in
	// its base class.
	p := path.Join("src", "main", "java", strings.ReplaceAll(args, ".", "/")+".java")
	g.files[p] = []byte(strings.Replace(string(g.files[p]),
		"extends com.pulumi.resources.ResourceArgs", "extends com.pulumi.resources.InvokeArgs", 1))
	if g.hasPlainArgs(f) {
		if err := g.genPlainArgsClass(g.functionArgsClass(f, true), props); err != nil {
			return err
		}
	}
	if scalarReturn(f) != nil {
		return nil // no result class: the value is returned as it is
	}
	var outs []*schema.Property
	if f.Outputs != nil {
		outs = f.Outputs.Properties
	}
	return g.genOutputClass(g.functionResultClass(f), "", outs)
}

// genPlainArgsClass writes an InvokeArgs class of plain values with its Builder.
func (g *sdkGen) genPlainArgsClass(class string, props []*schema.Property) error {
	f := g.newFile(class)
	name := f.class
	nullable := f.ref("javax.annotation.Nullable")
	fields, err := g.classFields(name, props, true, false)
	if err != nil {
		return err
	}
	f.printf("\npublic final class %s extends %s {\n\n", name, f.ref("com.pulumi.resources.InvokeArgs"))
	f.printf("    public static final %[1]s Empty = new %[1]s();\n\n", name)
	for _, fd := range fields {
		f.printf("%s", g.doc("    ", fd.p.Comment, deprecated(fd.p.DeprecationMessage)))
		imp := f.ref("com.pulumi.core.annotations.Import")
		if fd.required {
			f.printf("    @%s(name=%s, required=true)\n    private %s %s;\n\n", imp, javaString(fd.p.Name), fd.t.code(f), fd.name)
			f.printf("    public %s %s() {\n        return this.%s;\n    }\n\n", fd.t.code(f), fd.acc, fd.name)
		} else {
			f.printf("    @%s(name=%s)\n    private @%s %s %s;\n\n", imp, javaString(fd.p.Name), nullable, fd.t.code(f), fd.name)
			f.printf("    public %s<%s> %s() {\n        return %s.ofNullable(this.%s);\n    }\n\n",
				f.ref("java.util.Optional"), fd.t.code(f), fd.acc, f.ref("java.util.Optional"), fd.name)
		}
	}
	f.printf("    private %s() {}\n", name)
	f.printf("\n    private %[1]s(%[1]s $) {\n", name)
	for _, fd := range fields {
		f.printf("        this.%[1]s = $.%[1]s;\n", fd.name)
	}
	f.printf("    }\n")
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
`, name, f.ref("java.util.Objects"))
	for _, fd := range fields {
		ann := ""
		if !fd.required {
			ann = "@" + nullable + " "
		}
		f.printf("\n        public Builder %s(%s%s %s) {\n            $.%s = %s;\n            return this;\n        }\n",
			fd.acc, ann, fd.t.code(f), fd.name, fd.name, fd.name)
		if fd.t.isList() {
			f.printf("\n        public Builder %s(%s... %s) {\n            return %s(%s.of(%s));\n        }\n",
				fd.acc, fd.t.params[0].code(f), fd.name, fd.acc, f.ref("java.util.List"), fd.name)
		}
	}
	f.printf("\n        public %s build() {\n", name)
	if err := g.genDefaults(f, props, fields, false); err != nil {
		return err
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

func (g *sdkGen) genFunctionsClass(class string, fns []*schema.Function) error {
	f := g.newFile(class)
	output := f.ref("com.pulumi.core.Output")
	future := f.ref("java.util.concurrent.CompletableFuture")
	options := f.ref("com.pulumi.deployment.InvokeOptions")
	outputOptions := f.ref("com.pulumi.deployment.InvokeOutputOptions")
	invoke := f.ref("com.pulumi.deployment.Deployment") + ".getInstance()"
	utilities := f.ref(g.root + ".Utilities")
	f.printf("public final class %s {\n", f.class)
	for _, fn := range fns {
		name := functionName(fn.Token)
		args := f.ref(g.functionArgsClass(fn, false))
		tok := javaString(fn.Token)
		var result, shape, unwrap string
		if t := scalarReturn(fn); t != nil {
			jt, err := g.javaType(t, false)
			if err != nil {
				return fmt.Errorf("function %s: %w", fn.Token, err)
			}
			// The result is read as a map of its one property, whose value is returned.
			result = jt.code(f)
			shape = typeShape(f, jtype{class: "java.util.Map", params: []jtype{{class: "java.lang.String"}, jt}})
			unwrap = "(_m -> _m.isEmpty() ? null : _m.values().iterator().next())"
		} else {
			result = f.ref(g.functionResultClass(fn))
			shape = fmt.Sprintf("%s.of(%s.class)", f.ref("com.pulumi.core.TypeShape"), result)
		}
		hasPlain := g.hasPlainArgs(fn)
		plainArgs := ""
		if hasPlain {
			plainArgs = f.ref(g.functionArgsClass(fn, true))
		}
		doc := g.doc("    ", fn.Comment, deprecated(fn.DeprecationMessage))
		// Without required arguments the arguments may be left out.
		required := false
		if fn.Inputs != nil {
			for _, p := range fn.Inputs.Properties {
				required = required || p.IsRequired()
			}
		}
		// The output forms without options pass InvokeOutputOptions: with those the core SDK skips
		// the invoke in a preview while a resource its arguments depend on has no ID yet (with
		// InvokeOptions it calls the provider, which may not find the resource:
		// l2-invoke-dependencies).
		if !required {
			// Built, not Empty: build() applies the defaults.
			f.printf("%s    public static %s<%s> %s() {\n        return %s(%s.builder().build(), %s.Empty);\n    }\n",
				doc, output, result, name, name, args, outputOptions)
			if hasPlain {
				f.printf("%s    public static %s<%s> %sPlain() {\n        return %sPlain(%s.builder().build(), %s.Empty);\n    }\n",
					doc, future, result, name, name, plainArgs, options)
			}
		}
		f.printf("%s    public static %s<%s> %s(%s args) {\n        return %s(args, %s.Empty);\n    }\n",
			doc, output, result, name, args, name, outputOptions)
		if hasPlain {
			f.printf("%s    public static %s<%s> %sPlain(%s args) {\n        return %sPlain(args, %s.Empty);\n    }\n",
				doc, future, result, name, plainArgs, name, options)
		}
		apply, thenApply := "", ""
		if unwrap != "" {
			apply, thenApply = ".applyValue"+unwrap, ".thenApply"+unwrap
		}
		for _, o := range []string{options, outputOptions} {
			f.printf("%s    public static %s<%s> %s(%s args, %s options) {\n        return %s.invoke(%s, %s, args, %s.withVersion(options)%s)%s;\n    }\n",
				doc, output, result, name, args, o, invoke, tok, shape, utilities, g.packageRef(f), apply)
		}
		if hasPlain {
			f.printf("%s    public static %s<%s> %sPlain(%s args, %s options) {\n        return %s.invokeAsync(%s, %s, args, %s.withVersion(options)%s)%s;\n    }\n",
				doc, future, result, name, plainArgs, options, invoke, tok, shape, utilities, g.packageRef(f), thenApply)
		}
	}
	f.printf("}\n")
	g.add(f)
	return nil
}

// defaultValue is the Java expression of p's schema default as a plain value of Java type t (an
// environment variable it names first, then its value), or ok false when it has none. absent
// says the expression is an Optional, empty when no variable is set and there is no value.
func (g *sdkGen) defaultValue(f *javaFile, p *schema.Property, t jtype) (code string, optional, ok bool, err error) {
	dv := p.DefaultValue
	if dv == nil || (dv.Value == nil && len(dv.Environment) == 0) {
		return "", false, false, nil
	}
	lit := ""
	if dv.Value != nil {
		v := dv.Value
		if i, isInt32 := v.(int32); isInt32 { // the binder's integers
			v = int64(i)
		}
		if lit, err = javaLiteral(v); err != nil {
			return "", false, false, fmt.Errorf("%s: %w", p.Name, err)
		}
		switch t.class {
		case "java.lang.Double":
			if !strings.ContainsAny(lit, ".eEIN") {
				lit += ".0" // a whole number is an int literal in Java
			}
		case "java.lang.Boolean", "java.lang.Integer", "java.lang.String":
		default:
			return "", false, false, nil // an enum's or other type's default is not applied
		}
	}
	getEnv := map[string]string{"java.lang.String": "getEnv", "java.lang.Boolean": "getEnvBoolean",
		"java.lang.Integer": "getEnvInteger", "java.lang.Double": "getEnvDouble"}[t.class]
	if len(dv.Environment) == 0 || getEnv == "" {
		return lit, false, lit != "", nil
	}
	names := make([]string, len(dv.Environment))
	for i, n := range dv.Environment {
		names[i] = javaString(n)
	}
	code = fmt.Sprintf("%s.%s(%s)", f.ref(g.root+".Utilities"), getEnv, strings.Join(names, ", "))
	if lit == "" {
		return code, true, true, nil
	}
	return code + ".orElse(" + lit + ")", false, true, nil
}

// genDefaults prints, in a builder's build(), the defaults of the fields left unset; output says
// the fields are Outputs.
func (g *sdkGen) genDefaults(f *javaFile, props []*schema.Property, fields []classField, output bool) error {
	for i, p := range props {
		code, optional, ok, err := g.defaultValue(f, p, fields[i].t)
		if err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		wrap := func(v string) string { return v }
		if output {
			out := f.ref("com.pulumi.core.Output")
			wrap = func(v string) string { return out + ".of(" + v + ")" }
			if optional {
				code += ".map(" + out + "::of)"
			}
		}
		if optional {
			f.printf("            if ($.%[1]s == null) {\n                $.%[1]s = %[2]s.orElse(null);\n            }\n", fields[i].name, code)
		} else {
			f.printf("            if ($.%[1]s == null) {\n                $.%[1]s = %[2]s;\n            }\n", fields[i].name, wrap(code))
		}
	}
	return nil
}

// argsWithDefaults is how a resource's constructor passes its args on: rebuilt, when some
// property has a default, so that build() applies the defaults to args left unset or null.
func argsWithDefaults(props []*schema.Property, argsClass string) string {
	for _, p := range props {
		if p.DefaultValue != nil {
			return fmt.Sprintf("%[1]s.builder(args == null ? %[1]s.Empty : args).build()", argsClass)
		}
	}
	return fmt.Sprintf("args == null ? %s.Empty : args", argsClass)
}
