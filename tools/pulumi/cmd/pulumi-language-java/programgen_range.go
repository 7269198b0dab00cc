package main

// Resources with a range option: one resource per element, named <name>-<key>, into a list (a
// range over a number or a list, read as res[0]) or a map (a range over a map, res["k"]), or one
// resource or null (a range over a bool). Inside, range.key and range.value are the loop's locals;
// a range over an output makes the resources in an apply over it.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

// rangeLoop is how a range over one kind of value iterates: header opens the loop over %[1]s (the
// value's Java; %[2]s the indent) and declares the locals vars names; add stores %[1]s (a new
// resource) into %[2]s (the resources made); collection makes those, of class %s.
type rangeLoop struct {
	header, add, collection string
	vars                    map[string]string
}

func (p *progGen) rangeLoopOf(rng model.Expression) (rangeLoop, bool) {
	typ := model.ResolveOutputs(rng.Type())
	switch {
	case model.InputType(model.NumberType).ConversionFrom(typ) == model.SafeConversion:
		// _value is final for the lambdas (applies) the body may print.
		return rangeLoop{
			header:     "for (var _i = 0; _i < %[1]s; _i++) {\n%[2]s    final var _value = _i;\n",
			add:        "%[2]s.add(%[1]s);",
			collection: fmt.Sprintf("new %s<%%s>()", p.f.ref("java.util.ArrayList")),
			vars:       map[string]string{"value": "_value"},
		}, true
	}
	switch typ.(type) {
	case *model.ListType, *model.TupleType:
		return rangeLoop{
			header: "for (var _it = %[1]s.listIterator(); _it.hasNext(); ) {\n" +
				"%[2]s    final var _key = _it.nextIndex();\n%[2]s    final var _value = _it.next();\n",
			add:        "%[2]s.add(%[1]s);",
			collection: fmt.Sprintf("new %s<%%s>()", p.f.ref("java.util.ArrayList")),
			vars:       map[string]string{"key": "_key", "value": "_value"},
		}, true
	case *model.MapType, *model.ObjectType:
		// In key order, as PCL iterates a map.
		return rangeLoop{
			header: fmt.Sprintf("for (var _entry : new %s<>(%%[1]s).entrySet()) {\n", p.f.ref("java.util.TreeMap")) +
				"%[2]s    final var _key = _entry.getKey();\n%[2]s    final var _value = _entry.getValue();\n",
			add:        "%[2]s.put(_key, %[1]s);",
			collection: fmt.Sprintf("new %s<String, %%s>()", p.f.ref("java.util.LinkedHashMap")),
			vars:       map[string]string{"key": "_key", "value": "_value"},
		}, true
	}
	return rangeLoop{}, false
}

// rangedResource prints a resource with a range option.
func (p *progGen) rangedResource(r *pcl.Resource, g *sdkGen, class string) string {
	rng := r.Options.Range
	name := p.names[r]
	outputRange := model.ContainsOutputs(rng.Type())
	source := p.exprIn(nil, rng, nil, outputRange, "            ")
	defer func() { p.rangeVars = nil }()
	if model.InputType(model.BoolType).ConversionFrom(model.ResolveOutputs(rng.Type())) == model.SafeConversion {
		if outputRange {
			p.fail(exprRange(rng), fmt.Sprintf("resource %s: a range over a bool output is not supported by the Java program generator", r.Name()))
			return ""
		}
		p.rangeVars = map[string]string{}
		return fmt.Sprintf("        final var %s = %s ? %s : null;\n\n", name, source,
			p.newResource(r, g, class, p.resourceName(r, ""), "            "))
	}
	loop, ok := p.rangeLoopOf(rng)
	if !ok {
		p.fail(exprRange(rng), fmt.Sprintf("resource %s: a range over %s is not supported by the Java program generator", r.Name(), rng.Type()))
		return ""
	}
	p.rangeVars = loop.vars
	collection := fmt.Sprintf(loop.collection, p.f.ref(class))
	var b strings.Builder
	indent, into, over := "        ", name, source
	if outputRange {
		fmt.Fprintf(&b, "%sfinal var %s = %s.applyValue(_range -> {\n", indent, name, source)
		indent, into, over = indent+"    ", "_resources", "_range"
	}
	fmt.Fprintf(&b, "%sfinal var %s = %s;\n", indent, into, collection)
	b.WriteString(indent + fmt.Sprintf(loop.header, over, indent))
	key := loop.vars["key"]
	if key == "" {
		key = loop.vars["value"] // a number's: the index
	}
	made := p.newResource(r, g, class, p.resourceName(r, key), indent+"        ")
	fmt.Fprintf(&b, "%s    %s\n%s}\n", indent, fmt.Sprintf(loop.add, made, into), indent)
	if outputRange {
		fmt.Fprintf(&b, "%sreturn _resources;\n        });\n", indent)
	}
	b.WriteString("\n")
	return b.String()
}

// rangeVar prints range.key or range.value inside a ranged resource.
func (p *progGen) rangeVar(e *model.ScopeTraversalExpression) (string, bool) {
	v, ok := e.Parts[0].(*model.Variable)
	if !ok || v.Name != "range" || p.rangeVars == nil || len(e.Traversal) != 2 {
		return "", false
	}
	attr, ok := e.Traversal[1].(hcl.TraverseAttr)
	if !ok || p.rangeVars[attr.Name] == "" {
		return "", false
	}
	return p.rangeVars[attr.Name], true
}

// rangedElement says whether node is a ranged resource whose resources are a Java list or map
// (res[0], res["k"]), not an Output of them (a range over an output).
func rangedElement(node pcl.Node) bool {
	r, ok := node.(*pcl.Resource)
	if !ok || r.Options == nil || r.Options.Range == nil || model.ContainsOutputs(r.Options.Range.Type()) {
		return false
	}
	switch r.VariableType.(type) {
	case *model.ListType, *model.MapType:
		return true
	}
	return false
}
