package main

// Doc comments: a schema description may point at the package's members with {{% ref #/... %}}
// shortcodes, which every SDK writes as its own names (Pulumi's Go generator: Resource.Prop); here
// the Java class a member is generated as, and .accessor for a property.

import (
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// doc is javadoc of paragraphs whose {{% ref %}} shortcodes are resolved to Java names, and whose
// {{% examples %}} keep only their Java blocks, as Pulumi's Go and Python generators keep their
// own language's (codegen.FilterExamples).
func (g *sdkGen) doc(indent string, paragraphs ...string) string {
	resolved := make([]string, len(paragraphs))
	for i, p := range paragraphs {
		resolved[i] = g.resolveDocRefs(codegen.FilterExamples(p, "java"))
	}
	return javadoc(indent, resolved...)
}

// resolveDocRefs rewrites text's {{% ref %}} shortcodes; text without any is kept as written (the
// schema's markdown is not rendered again).
func (g *sdkGen) resolveDocRefs(text string) string {
	if !strings.Contains(text, "{{% ref ") {
		return text
	}
	resolved, err := g.pkg.InterpretPulumiRefs(text, g.docRefName)
	if err != nil {
		return text // a ref to nothing in the schema: kept as the schema has it
	}
	return resolved
}

// docRefName is the Java name of what ref points at: a class, a functions class's method, or
// Class.accessor for a property; false leaves the binder's default (the token or property name).
// Another package's members are named fully qualified, as that package's SDK names them.
func (g *sdkGen) docRefName(ref schema.DocRef) (string, bool) {
	class, member, pkg, ok := g.docRefTarget(ref)
	if !ok {
		return "", false
	}
	if pkg != nil && pkg.Name() != g.pkg.Name {
		def, err := pkg.Definition()
		if err != nil {
			return "", false
		}
		other, err := newSDKGen(def) // not g.foreign: a doc ref is no dependency
		if err != nil {
			return "", false
		}
		if class, member, _, ok = other.docRefTarget(ref); !ok {
			return "", false
		}
	} else {
		class = class[strings.LastIndex(class, ".")+1:]
	}
	if member == "" {
		return class, true
	}
	return class + "." + member, true
}

// docRefTarget is the class (fully qualified) and member (a method or property accessor, or "")
// that ref names in g's naming, and the package that defines it.
func (g *sdkGen) docRefTarget(ref schema.DocRef) (class, member string, pkg schema.PackageReference, ok bool) {
	if ref.Property != "" {
		member = accessor(ref.Property)
	}
	switch ref.Kind {
	case schema.DocRefKindResource, schema.DocRefKindResourceProperty, schema.DocRefKindResourceInputProperty,
		schema.DocRefKindProvider, schema.DocRefKindProviderProperty, schema.DocRefKindProviderInputProperty:
		rt, isResource := ref.Type.(*schema.ResourceType)
		if !isResource || rt.Resource == nil {
			return "", "", nil, false
		}
		class = g.resourceClass(rt.Resource)
		if ref.Kind == schema.DocRefKindResourceInputProperty || ref.Kind == schema.DocRefKindProviderInputProperty {
			class += "Args"
		}
		return class, member, rt.Resource.PackageReference, true
	case schema.DocRefKindType, schema.DocRefKindTypeProperty:
		switch t := ref.Type.(type) {
		case *schema.ObjectType:
			return g.objectClass(t, false), member, t.PackageReference, true
		case *schema.EnumType:
			return g.enumClass(t), member, t.PackageReference, true
		}
	case schema.DocRefKindFunction, schema.DocRefKindFunctionInputProperty, schema.DocRefKindFunctionOutputProperty:
		f := ref.Function
		if f == nil {
			return "", "", nil, false
		}
		switch ref.Kind {
		case schema.DocRefKindFunction:
			return g.functionsClass(f.Token), functionName(f.Token), f.PackageReference, true
		case schema.DocRefKindFunctionInputProperty:
			return g.functionArgsClass(f, false), member, f.PackageReference, true
		default:
			return g.functionResultClass(f), member, f.PackageReference, true
		}
	}
	return "", "", nil, false
}
