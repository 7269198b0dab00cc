package main

// Local components of a PCL program (`component name "./dir" {...}`): each is a class of the
// program's package, a ComponentResource of type components:index:<Name> whose constructor makes
// the component program's resources as its children, named <name>-<resource>. Its config variables
// are its inputs (an Args class, registered with the component, so the engine records them and their
// dependencies), its outputs Output fields, registered as the component's outputs.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// componentInputType is the Java type of a component's config variable (a primitive, or a list or
// map of them), and its schema type; a class of "" if not supported.
func componentInputType(c *pcl.ConfigVariable) (jtype, schema.Type) {
	st := componentSchemaType(model.ResolveOutputs(c.Type()))
	if st == nil {
		return jtype{}, nil
	}
	t, err := (&sdkGen{}).javaType(st, true)
	if err != nil {
		return jtype{}, nil
	}
	return t, st
}

func componentSchemaType(t model.Type) schema.Type {
	switch t := t.(type) {
	case *model.ListType:
		if e := componentSchemaType(t.ElementType); e != nil {
			return &schema.ArrayType{ElementType: e}
		}
	case *model.MapType:
		if e := componentSchemaType(t.ElementType); e != nil {
			return &schema.MapType{ElementType: e}
		}
	}
	return map[model.Type]schema.Type{
		model.StringType: schema.StringType, model.IntType: schema.IntType,
		model.BoolType: schema.BoolType, model.NumberType: schema.NumberType,
	}[t]
}

// localComponent prints the making of a local component, writing its class the first time.
func (p *progGen) localComponent(c *pcl.Component) string {
	if c.Token != "" {
		return p.sourcelessComponent(c)
	}
	if c.Program == nil {
		p.fail(nodeRange(c), fmt.Sprintf("component %s has no program", c.Name()))
		return ""
	}
	class := c.DeclarationName()
	if p.componentClasses == nil {
		p.componentClasses = map[string][]byte{}
	}
	if _, done := p.componentClasses[class]; !done {
		p.componentClasses[class] = nil // a component that uses itself is not written twice
		text, ok := p.componentClass(c, class)
		if !ok {
			return ""
		}
		p.componentClasses[class] = text
	}
	inputs := map[string]*pcl.ConfigVariable{}
	for _, n := range c.Program.Nodes {
		if cv, ok := n.(*pcl.ConfigVariable); ok {
			inputs[cv.LogicalName()] = cv
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "        var %s = new %s(%s, new %s.Args()", p.names[c], class, p.componentName(c), class)
	for _, a := range c.Inputs {
		cv, ok := inputs[a.Name]
		if !ok {
			p.fail(exprRange(a.Value), fmt.Sprintf("component %s has no input %s", c.Name(), a.Name))
			continue
		}
		_, dest := componentInputType(cv)
		fmt.Fprintf(&b, "\n            .%s(%s)", accessor(a.Name), p.exprIn(nil, a.Value, dest, true, "            "))
	}
	fmt.Fprintf(&b, ", %s);\n\n", p.componentOptions(c))
	return b.String()
}

// componentName is a component's name as Java: inside a local component, its child, named after it.
func (p *progGen) componentName(c *pcl.Component) string {
	if p.namedFrom != "" {
		return fmt.Sprintf("%s + %s", p.namedFrom, javaString("-"+c.LogicalName()))
	}
	return javaString(c.LogicalName())
}

// componentOptions prints a component's options as a resource's (with the enclosing component as
// parent; a local component's resources and invokes have it as parent, so they inherit its
// providers), or null.
func (p *progGen) componentOptions(c *pcl.Component) string {
	if opts := p.options(c.Name(), c.Options, "com.pulumi.resources.ComponentResourceOptions"); opts != "" {
		return opts
	}
	return "null"
}

// sourcelessComponent prints a component without a source, which names an existing component
// resource by its token: the SDK's ComponentResource of that type, its inputs the fields of an
// anonymous ResourceArgs (the SDK reads an Args' @Import fields).
func (p *progGen) sourcelessComponent(c *pcl.Component) string {
	var b strings.Builder
	output := p.f.ref("com.pulumi.core.Output")
	fmt.Fprintf(&b, "        var %s = new %s(%s, %s, new %s() {\n", p.names[c], p.f.ref("com.pulumi.resources.ComponentResource"),
		javaString(c.Token), p.componentName(c), p.f.ref("com.pulumi.resources.ResourceArgs"))
	for i, a := range c.Inputs {
		value := p.exprIn(nil, a.Value, nil, true, "                ")
		if !p.isOutput(a.Value) {
			value = output + ".of(" + value + ")"
		}
		fmt.Fprintf(&b, "            @%s(name=%s)\n            private final %s<?> _%d = %s;\n",
			p.f.ref("com.pulumi.core.annotations.Import"), javaString(a.Name), output, i, value)
	}
	fmt.Fprintf(&b, "        }, %s);\n\n", p.componentOptions(c))
	return b.String()
}

// componentClass writes the class of a local component: ok is false when its program has what
// this generator cannot print (reported).
func (p *progGen) componentClass(c *pcl.Component, class string) ([]byte, bool) {
	sub := &progGen{
		f:         &javaFile{pkg: "generated_program", class: class, byName: map[string]string{}, local: map[string]bool{class: true}},
		sdks:      p.sdks,
		names:     map[pcl.Node]string{},
		parent:    "this",
		namedFrom: "name",
		program:   c.Program, // its invokes' packages
	}
	taken := map[string]bool{"name": true, "args": true, "options": true, "config": true, "ctx": true}
	var configs []*pcl.ConfigVariable
	var outputs []*pcl.OutputVariable
	for _, n := range c.Program.Nodes {
		name := ident(n.Name())
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		sub.names[n] = name
		switch n := n.(type) {
		case *pcl.ConfigVariable:
			configs = append(configs, n)
		case *pcl.OutputVariable:
			outputs = append(outputs, n)
		}
	}
	f := sub.f
	output := f.ref("com.pulumi.core.Output")
	var body strings.Builder
	for _, n := range pcl.Linearize(c.Program) {
		switch n := n.(type) {
		case *pcl.ConfigVariable:
			fmt.Fprintf(&body, "        final var %s = args.%s;\n", sub.names[n], ident(n.LogicalName()))
		case *pcl.Resource:
			body.WriteString(sub.resource(n))
		case *pcl.LocalVariable:
			fmt.Fprintf(&body, "        final var %s = %s;\n\n", sub.names[n], sub.expr(n.Definition.Value, nil, true))
		case *pcl.OutputVariable:
			value := sub.expr(n.Value, nil, true)
			if !sub.isOutput(n.Value) {
				value = output + ".of(" + value + ")"
			}
			fmt.Fprintf(&body, "        this.%s = %s;\n", ident(n.LogicalName()), value)
		case *pcl.Component:
			body.WriteString(sub.localComponent(n))
		default:
			sub.fail(nodeRange(n), fmt.Sprintf("%s (%T) is not supported by the Java program generator", n.Name(), n))
		}
	}
	p.diags = append(p.diags, sub.diags...)
	for name, text := range sub.componentClasses {
		if p.componentClasses[name] == nil {
			p.componentClasses[name] = text
		}
	}
	if sub.diags.HasErrors() {
		return nil, false
	}

	importAnn := f.ref("com.pulumi.core.annotations.Import")
	options := f.ref("com.pulumi.resources.ComponentResourceOptions")
	var cls strings.Builder
	fmt.Fprintf(&cls, "public class %s extends %s {\n", class, f.ref("com.pulumi.resources.ComponentResource"))
	fmt.Fprintf(&cls, "    public static final class Args extends %s {\n", f.ref("com.pulumi.resources.ResourceArgs"))
	for _, cv := range configs {
		t, _ := componentInputType(cv)
		if t.class == "" {
			p.fail(nodeRange(cv), fmt.Sprintf("component %s: an input of type %s is not supported by the Java program generator", c.Name(), cv.Type()))
			continue
		}
		field, tc := ident(cv.LogicalName()), t.code(f)
		fmt.Fprintf(&cls, "        @%s(name=%s)\n        private %s<%s> %s;\n\n", importAnn, javaString(cv.LogicalName()), output, tc, field)
		fmt.Fprintf(&cls, "        public Args %s(%s<%s> value) {\n            this.%s = value;\n            return this;\n        }\n\n",
			accessor(cv.LogicalName()), output, tc, field)
		fmt.Fprintf(&cls, "        public Args %s(%s value) {\n            return %s(%s.of(value));\n        }\n\n",
			accessor(cv.LogicalName()), tc, accessor(cv.LogicalName()), output)
	}
	cls.WriteString("    }\n\n")
	for _, o := range outputs {
		fmt.Fprintf(&cls, "    private final %s<?> %s;\n\n    public %s<?> %s() {\n        return this.%s;\n    }\n\n",
			output, ident(o.LogicalName()), output, accessor(o.LogicalName()), ident(o.LogicalName()))
	}
	fmt.Fprintf(&cls, "    public %s(java.lang.String name, Args args, @%s %s options) {\n", class, f.ref("javax.annotation.Nullable"), options)
	fmt.Fprintf(&cls, "        super(%s, name, args, options);\n", javaString("components:index:"+class))
	cls.WriteString(body.String())
	var registered []string
	for _, o := range outputs {
		registered = append(registered, fmt.Sprintf("%s, this.%s", javaString(o.LogicalName()), ident(o.LogicalName())))
	}
	fmt.Fprintf(&cls, "        this.registerOutputs(%s.of(%s));\n    }\n", f.ref("java.util.Map"), strings.Join(registered, ", "))
	if len(sub.helpers) > 0 {
		cls.WriteString(sub.helpers)
	}
	cls.WriteString("}\n")
	f.body.WriteString(cls.String())
	if p.diags.HasErrors() {
		return nil, false
	}
	g := &sdkGen{files: map[string][]byte{}}
	g.add(f)
	for _, text := range g.files {
		return text, true
	}
	return nil, false
}

// componentOutput prints component.attr: the output of a local component.
func (p *progGen) componentOutput(root *pcl.Component, path hcl.Traversal) (string, bool) {
	if len(path) != 1 {
		return "", false
	}
	attr, ok := path[0].(hcl.TraverseAttr)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s.%s()", p.names[root], accessor(attr.Name)), true
}

// resourceName is a resource's logical name as Java: inside a local component, prefixed with the
// component's name, so that two instances' children differ; a ranged resource's are name-<suffix>,
// suffix the Java code of its key ("" for none).
func (p *progGen) resourceName(r *pcl.Resource, suffix string) string {
	name := r.LogicalName()
	if suffix != "" {
		name += "-"
	}
	code := javaString(name)
	if p.namedFrom != "" {
		code = fmt.Sprintf("%s + %s", p.namedFrom, javaString("-"+name))
	}
	if suffix != "" {
		code += " + " + suffix
	}
	return code
}

// isOutput says whether e prints as an Output: an output in PCL's types, or a local component's
// output or input, which PCL types as plain values.
func (p *progGen) isOutput(e model.Expression) bool {
	if model.ContainsOutputs(e.Type()) {
		return true
	}
	// An invoke is printed in its Output form, whatever PCL's type of it.
	if rt, ok := stripConvert(e).(*model.RelativeTraversalExpression); ok {
		e = rt.Source
	}
	if _, ok := invokeCall(stripConvert(e)); ok {
		return true
	}
	if t, ok := stripConvert(e).(*model.ScopeTraversalExpression); ok && len(t.Parts) > 0 {
		switch t.Parts[0].(type) {
		case *pcl.Component:
			return true
		case *pcl.ConfigVariable:
			return p.namedFrom != ""
		}
	}
	return false
}
