// Command readback prints what Pulumi YAML reads from a program's Pulumi.yaml: each resource's
// type, name and properties, strings as Pulumi YAML's own parser and interpolation leave them, and
// anything it reads as an expression (`${...}`, `fn::...`) marked as such. The tests of `discover`
// compare it with the account's values (tests/unit/discoverLiterals.test.ts): proof from the
// parser Pulumi uses, not from a model of it.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi-yaml/pkg/pulumiyaml"
	"github.com/pulumi/pulumi-yaml/pkg/pulumiyaml/ast"
)

func value(e ast.Expr) any {
	switch e := e.(type) {
	case *ast.StringExpr:
		return e.Value
	case *ast.ListExpr:
		out := []any{}
		for _, x := range e.Elements {
			out = append(out, value(x))
		}
		return out
	case *ast.ObjectExpr:
		out := [][2]any{}
		for _, p := range e.Entries {
			out = append(out, [2]any{value(p.Key), value(p.Value)})
		}
		return map[string]any{"object": out}
	default:
		return map[string]any{"expression": fmt.Sprintf("%T", e)}
	}
}

func main() {
	source, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	template, diags, err := pulumiyaml.LoadYAMLBytes(os.Args[1], source)
	if err != nil {
		panic(err)
	}
	if diags.HasErrors() {
		fmt.Fprintln(os.Stderr, diags.Error())
		os.Exit(2)
	}
	resources := map[string]any{}
	for _, r := range template.Resources.Entries {
		properties := [][2]any{}
		if r.Value.Properties.PropertyMap != nil {
			for _, p := range r.Value.Properties.PropertyMap.Entries {
				properties = append(properties, [2]any{p.Key.Value, value(p.Value)})
			}
		}
		resources[r.Key.Value] = map[string]any{
			"type":       r.Value.Type.GetValue(),
			"name":       r.Value.Name.GetValue(),
			"properties": properties,
		}
	}
	out, err := json.Marshal(resources)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
}
