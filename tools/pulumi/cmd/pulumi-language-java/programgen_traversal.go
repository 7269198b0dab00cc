package main

// References in the Java program generator: a resource (its variable), its outputs and what lies
// inside them (res.data.items[0] as res.data().applyValue(v -> v.items().get(0))), config
// variables and locals, and indexes into plain lists and maps.

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/zclconf/go-cty/cty"
)

func (p *progGen) traversal(e *model.ScopeTraversalExpression, outputOK bool) string {
	if len(e.Parts) == 0 {
		p.fail(exprRange(e), "an unbound reference is not supported by the Java program generator")
		return ""
	}
	if name, ok := p.lifted[e]; ok {
		return name
	}
	if name, ok := p.rangeVar(e); ok {
		return name
	}
	rest := e.Traversal[1:]
	if v, ok := e.Parts[0].(*model.Variable); ok && p.vars[v] != "" && len(rest) == 0 {
		return p.vars[v]
	}
	switch root := e.Parts[0].(type) {
	case *pcl.Resource, *pcl.ReadResource:
		node := root.(pcl.Node)
		base := p.names[node]
		if len(rest) == 0 {
			return base
		}
		if index, ok := rest[0].(hcl.TraverseIndex); ok && rangedElement(node) {
			base += ".get(" + indexKey(index.Key) + ")" // one of a ranged resource's
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return base
		}
		if !outputOK {
			p.fail(exprRange(e), fmt.Sprintf("reference %s inside a list or map is not supported by the Java program generator", e.RootName))
			return ""
		}
		return p.resourceOutput(exprRange(e), "reference "+e.RootName, base, node, rest)
	case *pcl.Component:
		if value, ok := p.componentOutput(root, rest); ok && outputOK {
			return value
		}
	case *pcl.LocalVariable, *pcl.ConfigVariable:
		name := p.names[root.(pcl.Node)]
		if call, ok := invokeCall(e); ok && len(rest) > 0 {
			return p.invokeResult(exprRange(e), call, name, rest)
		}
		code := ""
		for _, t := range rest {
			switch t := t.(type) {
			case hcl.TraverseIndex:
				code += ".get(" + indexKey(t.Key) + ")"
			default:
				p.fail(exprRange(e), fmt.Sprintf("reference %s: an attribute of a local is not supported by the Java program generator", e.RootName))
				return ""
			}
		}
		// A local made of outputs is an Output: the index is read in an apply.
		if local, ok := root.(*pcl.LocalVariable); ok && code != "" && model.ContainsOutputs(local.Type()) {
			return name + ".applyValue(v -> v" + code + ")"
		}
		return name + code
	}
	p.fail(exprRange(e), fmt.Sprintf("reference %s is not supported by the Java program generator", e.RootName))
	return ""
}

func indexKey(key cty.Value) string {
	if key.Type() == cty.String {
		return javaString(key.AsString())
	}
	return key.AsBigFloat().Text('f', -1)
}

// resourceOutput prints an output of a resource and the path into it. The SDK's getters give
// Output<T> for a required property and Output<Optional<T>> for another; inside an output type, T
// for a required one, a list or map as is, Optional<T> for another: an optional step maps, and an
// absent value ends as null, as the value PCL means.
func (p *progGen) resourceOutput(rng *hcl.Range, what, name string, r pcl.Node, path hcl.Traversal) string {
	first, ok := path[0].(hcl.TraverseAttr)
	if !ok {
		p.fail(rng, what+": an index of a resource is not supported by the Java program generator")
		return ""
	}
	if first.Name == "id" || first.Name == "urn" {
		if len(path) > 1 {
			p.fail(rng, fmt.Sprintf("%s.%s: a path into it is not supported by the Java program generator", what, first.Name))
			return ""
		}
		return name + "." + first.Name + "()" // Resource's own id() and urn()
	}
	base := name + "." + resourceAccessor(first.Name) + "()"
	var sch *schema.Resource
	switch r := r.(type) {
	case *pcl.Resource:
		sch = r.Schema
	case *pcl.ReadResource:
		sch = r.Schema
	}
	var prop *schema.Property
	if sch != nil {
		for _, candidate := range sch.Properties {
			if candidate.Name == first.Name {
				prop = candidate
			}
		}
	}
	if prop == nil {
		if len(path) > 1 {
			p.fail(rng, fmt.Sprintf("%s.%s: a path into a property the schema does not type is not supported by the Java program generator", what, first.Name))
			return ""
		}
		return base
	}
	if value, ok := p.resourceRefProperty(name, prop, path); ok {
		return value
	}
	code, ok := p.valuePath(rng, what, "v", plainType(prop.Type), !prop.IsRequired(), path[1:])
	if !ok {
		return ""
	}
	if code == "v" {
		return base
	}
	return base + ".applyValue(v -> " + code + ")"
}

// valuePath prints the Java that reads path from a value (named code) of schema type current,
// as the SDK's classes give it: a required property as is, a list or map as is (empty when
// absent), another as an Optional, whose later steps are mapped and which ends as null when
// absent. what names the reference in a diagnostic; ok is false after one.
func (p *progGen) valuePath(rng *hcl.Range, what, code string, current schema.Type, optional bool, path hcl.Traversal) (string, bool) {
	for _, t := range path {
		var step string
		stepOptional := false
		switch t := t.(type) {
		case hcl.TraverseAttr:
			obj, ok := current.(*schema.ObjectType)
			if !ok {
				p.fail(rng, fmt.Sprintf("%s: .%s of a value that is not an object", what, t.Name))
				return "", false
			}
			q, _ := obj.Property(t.Name)
			if q == nil {
				p.fail(rng, fmt.Sprintf("%s: %s has no property %s", what, obj.Token, t.Name))
				return "", false
			}
			step = accessor(t.Name) + "()"
			current = plainType(q.Type)
			_, isList := current.(*schema.ArrayType)
			_, isMap := current.(*schema.MapType)
			stepOptional = !q.IsRequired() && !isList && !isMap
		case hcl.TraverseIndex:
			step = "get(" + indexKey(t.Key) + ")"
			current = elementType(current)
		default:
			p.fail(rng, fmt.Sprintf("%s: a step %T is not supported by the Java program generator", what, t))
			return "", false
		}
		switch {
		case optional && stepOptional:
			code += ".flatMap(x -> x." + step + ")"
		case optional:
			code += ".map(x -> x." + step + ")"
		default:
			code += "." + step
			optional = stepOptional
		}
	}
	if optional {
		code += ".orElse(null)"
	}
	return code, true
}

// index prints collection[key] of a key known at run time (a list's get(i), a map's get(k)).
func (p *progGen) index(g *sdkGen, e *model.IndexExpression, indent string) string {
	if _, ok := rangedResources(e.Collection); (!ok && !p.plainOperand(e.Collection)) || !p.plainOperand(e.Key) {
		return "" // a ranged resource's resources are a Java list or map
	}
	return fmt.Sprintf("%s.get(%s)", p.exprIn(g, e.Collection, nil, false, indent), p.exprIn(g, e.Key, nil, false, indent))
}

// rangedResourceIndex is the resource res of res[key].path, one of a ranged resource's.
func rangedResourceIndex(e *model.RelativeTraversalExpression) (pcl.Node, bool) {
	if index, ok := e.Source.(*model.IndexExpression); ok {
		return rangedResources(index.Collection)
	}
	return nil, false
}

// rangedResources is the resource e names, if it is a ranged one whose resources are a Java list or map.
func rangedResources(e model.Expression) (pcl.Node, bool) {
	if t, ok := e.(*model.ScopeTraversalExpression); ok && len(t.Parts) > 0 && len(t.Traversal) == 1 {
		if node, ok := t.Parts[0].(pcl.Node); ok && rangedElement(node) {
			return node, true
		}
	}
	return nil, false
}
