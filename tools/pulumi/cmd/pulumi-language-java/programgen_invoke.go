package main

// Invokes in the Java program generator: invoke("pkg:mod:fn", {args}, {options}) as the SDK's
// <Module>Functions.fn(FnArgs.builder()...build(), options), an Output of the result class, and
// a path into its result (invoke(...).result, or data.result of a local holding one) as an apply
// on it.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// invokeFunction is the schema of the function an invoke call calls, and the SDK naming of its
// package.
func (p *progGen) invokeFunction(call *model.FunctionCallExpression) (*schema.Function, *sdkGen, bool) {
	token, ok := invokeToken(call)
	if !ok {
		p.fail(exprRange(call), "an invoke of a token that is not a literal string is not supported by the Java program generator")
		return nil, nil, false
	}
	name := strings.Split(token, ":")[0]
	if p.program != nil {
		for _, ref := range p.program.PackageReferences() {
			if ref.Name() != name {
				continue
			}
			fn, found, err := pcl.LookupFunction(ref, token)
			if err != nil || !found {
				break
			}
			pkg, err := ref.Definition()
			if err != nil {
				break
			}
			g, ok := p.sdks[pkg.Name]
			if !ok {
				if g, err = newSDKGen(pkg); err != nil {
					break
				}
				p.sdks[pkg.Name] = g
			}
			return fn, g, true
		}
	}
	p.fail(exprRange(call), fmt.Sprintf("invoke of %s: no schema of that function", token))
	return nil, nil, false
}

func invokeToken(call *model.FunctionCallExpression) (string, bool) {
	if len(call.Args) < 1 {
		return "", false
	}
	switch a := call.Args[0].(type) {
	case *model.TemplateExpression:
		if len(a.Parts) == 1 {
			if lit, ok := a.Parts[0].(*model.LiteralValueExpression); ok && lit.Value.Type().FriendlyName() == "string" {
				return lit.Value.AsString(), true
			}
		}
	case *model.LiteralValueExpression:
		if a.Value.Type().FriendlyName() == "string" {
			return a.Value.AsString(), true
		}
	}
	return "", false
}

// invoke prints an invoke call: an Output of the function's result class.
func (p *progGen) invoke(call *model.FunctionCallExpression, indent string) string {
	fn, g, ok := p.invokeFunction(call)
	if !ok {
		return ""
	}
	if functionUnsupported(fn) != "" {
		p.fail(exprRange(call), fmt.Sprintf("invoke of %s: a function the Java SDK generator does not write", fn.Token))
		return ""
	}
	argsClass := g.functionArgsClass(fn, false)
	var props []*schema.Property
	if fn.Inputs != nil {
		props = fn.Inputs.Properties
	}
	var attrs []*model.Attribute
	if len(call.Args) > 1 {
		obj, ok := stripConvert(call.Args[1]).(*model.ObjectConsExpression)
		if !ok {
			p.fail(exprRange(call.Args[1]), "invoke arguments that are not an object literal are not supported by the Java program generator")
			return ""
		}
		for _, item := range obj.Items {
			key, ok := literalKey(item.Key)
			if !ok {
				p.fail(exprRange(item.Key), "an invoke argument name that is not a literal is not supported by the Java program generator")
				return ""
			}
			attrs = append(attrs, &model.Attribute{Name: key, Value: item.Value})
		}
	}
	args := p.builder(g, argsClass, props, attrs, indent)
	if args == "" {
		args = p.f.ref(argsClass) + ".builder().build()" // not Empty: build() applies the defaults
	}
	o, _ := pcl.InvokeOptions(call)
	opts := p.invokeOptions(o, indent)
	method := p.f.ref(g.functionsClass(fn.Token)) + "." + functionName(fn.Token)
	if opts != "" {
		return fmt.Sprintf("%s(%s, %s)", method, args, opts)
	}
	return fmt.Sprintf("%s(%s)", method, args)
}

// invokeOptions prints an invoke's options (o, nil when it has none) as InvokeOutputOptions (the
// Output form's options, which take dependsOn too), or "" when none are set. Inside a local
// component the component is the parent, whose providers the invoke then uses (l3-component-invoke).
func (p *progGen) invokeOptions(o *model.ObjectConsExpression, indent string) string {
	var setters []string
	var items []model.ObjectConsItem
	if o != nil {
		items = o.Items
	}
	parent := p.parent != ""
	for _, item := range items {
		key, ok := literalKey(item.Key)
		if !ok {
			p.fail(exprRange(item.Key), "an invoke option name that is not a literal is not supported by the Java program generator")
			return ""
		}
		var value string
		switch key {
		case "parent", "provider", "version":
			parent = parent && key != "parent" // an explicit parent wins over the component's
			value = p.exprIn(nil, item.Value, nil, false, indent)
		case "pluginDownloadUrl":
			key = "pluginDownloadURL"
			value = p.exprIn(nil, item.Value, nil, false, indent)
		case "dependsOn":
			tuple, ok := item.Value.(*model.TupleConsExpression)
			if !ok {
				p.fail(exprRange(item.Value), "dependsOn of an invoke that is not a list literal is not supported by the Java program generator")
				return ""
			}
			elems := make([]string, len(tuple.Expressions))
			for i, e := range tuple.Expressions {
				elems[i] = p.exprIn(nil, e, nil, false, indent)
			}
			value = strings.Join(elems, ", ")
		default:
			p.fail(exprRange(item.Key), fmt.Sprintf("invoke option %s is not supported by the Java program generator", key))
			return ""
		}
		setters = append(setters, fmt.Sprintf("%s.%s(%s)", indent, key, value))
	}
	if parent {
		setters = append([]string{fmt.Sprintf("%s.parent(%s)", indent, p.parent)}, setters...)
	}
	if len(setters) == 0 {
		return ""
	}
	// InvokeOutputOptions has no builder() of its own: the one it inherits builds InvokeOptions,
	// which take no dependsOn.
	return fmt.Sprintf("new %s.Builder()\n%s\n%s.build()", p.f.ref("com.pulumi.deployment.InvokeOutputOptions"),
		strings.Join(setters, "\n"), indent)
}

// invokeCall is the invoke call e is, or the one the local e names is defined as.
func invokeCall(e model.Expression) (*model.FunctionCallExpression, bool) {
	switch e := e.(type) {
	case *model.FunctionCallExpression:
		return e, e.Name == pcl.Invoke
	case *model.ScopeTraversalExpression:
		if len(e.Parts) > 0 {
			if local, ok := e.Parts[0].(*pcl.LocalVariable); ok {
				return invokeCall(local.Definition.Value)
			}
		}
	}
	return nil, false
}

// invokeResult prints path into the result of an invoke, whose Output is base: an apply that reads
// it as resourceOutput reads a resource's outputs (an optional step maps, an absent value is null).
func (p *progGen) invokeResult(rng *hcl.Range, call *model.FunctionCallExpression, base string, path hcl.Traversal) string {
	if len(path) == 0 {
		return base
	}
	fn, _, ok := p.invokeFunction(call)
	if !ok {
		return ""
	}
	var current schema.Type = fn.Outputs
	if t := scalarReturn(fn); t != nil {
		current = plainType(t)
	}
	code, ok := p.valuePath(rng, "invoke of "+fn.Token, "_invoke", current, false, path)
	if !ok {
		return ""
	}
	return base + ".applyValue(_invoke -> " + code + ")"
}
