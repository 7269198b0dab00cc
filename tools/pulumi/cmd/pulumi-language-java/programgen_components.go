package main

// Components, enums and unions in the Java program generator: a component resource prints as any
// resource, with ComponentResourceOptions for its options; a literal where the schema wants an enum
// is the enum's constant (StringEnum.StringOne); where it wants a union of two types (Either), the
// side the value belongs to; a property of a resource that a resource output refers to reads
// through apply (component.ref().apply(v -> v.value())).

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/zclconf/go-cty/cty"
)

// optionsClass is the class of r's resource options.
func optionsClass(r *pcl.Resource) string {
	if r.Schema != nil && r.Schema.IsComponent {
		return "com.pulumi.resources.ComponentResourceOptions"
	}
	return "com.pulumi.resources.CustomResourceOptions"
}

// sdkOf is the SDK naming of the package ref, which defines an enum.
func (p *progGen) sdkOf(ref schema.PackageReference) (*sdkGen, error) {
	if ref == nil {
		return nil, fmt.Errorf("no schema")
	}
	if g, ok := p.sdks[ref.Name()]; ok {
		return g, nil
	}
	pkg, err := ref.Definition()
	if err != nil {
		return nil, err
	}
	g, err := newSDKGen(pkg)
	if err != nil {
		return nil, err
	}
	p.sdks[ref.Name()] = g
	return g, nil
}

// enumOrUnion prints a literal e where dest is an enum or a union; ok is false when it is neither,
// or e not a literal.
func (p *progGen) enumOrUnion(e model.Expression, dest schema.Type) (string, bool) {
	x := stripConvert(e)
	if tmpl, ok := x.(*model.TemplateExpression); ok && len(tmpl.Parts) == 1 {
		x = tmpl.Parts[0] // a string literal
	}
	lit, isLit := x.(*model.LiteralValueExpression)
	if !isLit || lit.Value.IsNull() {
		return "", false
	}
	switch t := plainType(dest).(type) {
	case *schema.EnumType:
		member, err := p.enumMember(t, lit.Value)
		if err != nil {
			p.fail(exprRange(e), err.Error())
		}
		return member, true
	case *schema.UnionType:
		if len(t.ElementTypes) != 2 {
			return "", false
		}
		for i, side := range []string{"ofLeft", "ofRight"} {
			elem := plainType(t.ElementTypes[i])
			var value string
			if enum, ok := elem.(*schema.EnumType); ok {
				member, err := p.enumMember(enum, lit.Value)
				if err != nil {
					continue
				}
				value = member
			} else if literalFits(lit.Value, elem) {
				value = p.literal(lit, elem)
			} else {
				continue
			}
			return fmt.Sprintf("%s.%s(%s)", p.f.ref("com.pulumi.core.Either"), side, value), true
		}
		p.fail(exprRange(e), fmt.Sprintf("the value %s is of neither type of the union %s", lit.Value.GoString(), t))
		return "", true
	}
	return "", false
}

// enumMember is the constant of enum t whose value is v.
func (p *progGen) enumMember(t *schema.EnumType, v cty.Value) (string, error) {
	g, err := p.sdkOf(t.PackageReference)
	if err != nil {
		return "", fmt.Errorf("enum %s: %w", t.Token, err)
	}
	names := enumMemberNames(t)
	for i, el := range t.Elements {
		if enumValueIs(el.Value, v) {
			return p.f.ref(g.enumClass(t)) + "." + names[i], nil
		}
	}
	return "", fmt.Errorf("%s is not a value of the enum %s", v.GoString(), t.Token)
}

func enumValueIs(schemaValue any, v cty.Value) bool {
	switch v.Type() {
	case cty.String:
		s, ok := schemaValue.(string)
		return ok && s == v.AsString()
	case cty.Bool:
		b, ok := schemaValue.(bool)
		return ok && b == v.True()
	case cty.Number:
		f, ok := schemaNumber(schemaValue)
		if !ok {
			return false
		}
		got, _ := v.AsBigFloat().Float64() // 0.1 parsed is more precise than the schema's float64
		return got == f
	}
	return false
}

// literalFits says whether a literal of v's type is a value of the primitive type t.
func literalFits(v cty.Value, t schema.Type) bool {
	switch v.Type() {
	case cty.String:
		return t == schema.StringType
	case cty.Bool:
		return t == schema.BoolType
	case cty.Number:
		return t == schema.NumberType || (t == schema.IntType && v.AsBigFloat().IsInt())
	}
	return false
}

// resourceRefProperty prints res.ref.value, a property of the resource that the output ref of
// resource res refers to: an Output itself, so read through apply.
func (p *progGen) resourceRefProperty(name string, prop *schema.Property, path hcl.Traversal) (string, bool) {
	if _, ok := plainType(prop.Type).(*schema.ResourceType); !ok || len(path) != 2 || !prop.IsRequired() {
		return "", false
	}
	attr, ok := path[1].(hcl.TraverseAttr)
	if !ok {
		return "", false
	}
	inner := resourceAccessor(attr.Name)
	if attr.Name == "id" || attr.Name == "urn" {
		inner = attr.Name
	}
	return fmt.Sprintf("%s.%s().apply(v -> v.%s())", name, resourceAccessor(prop.Name), inner), true
}
