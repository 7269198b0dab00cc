package main

// Enum types in the Java SDK, as pulumi-java writes them: a Java enum per schema enum in the
// module's enums package, marked @EnumType, each constant holding its schema value, which the
// method marked @EnumType.Converter gives the SDK's serializer. A union of two types (such as an
// enum or any string) is com.pulumi.core.Either, as in pulumi-java.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// enumClass is the class of an enum type: <module>.enums.<Name>.
func (g *sdkGen) enumClass(t *schema.EnumType) string {
	return g.modulePackage(t.Token) + ".enums." + memberName(t.Token)
}

// javaTypeMore is javaType for the types of this file: ok is false for any other.
func (g *sdkGen) javaTypeMore(t schema.Type, input bool) (jt jtype, ok bool, err error) {
	switch t := t.(type) {
	case *schema.EnumType:
		if other, err := g.foreign(t.PackageReference); other != nil || err != nil {
			if err != nil {
				return jtype{}, true, fmt.Errorf("enum %s: %w", t.Token, err)
			}
			return jtype{class: other.enumClass(t)}, true, nil
		}
		return jtype{class: g.enumClass(t)}, true, nil
	case *schema.UnionType:
		if len(t.ElementTypes) != 2 {
			return jtype{}, true, fmt.Errorf("a union of %d types is not supported by the Java SDK generator (only of 2, as Either)",
				len(t.ElementTypes))
		}
		left, err := g.javaType(t.ElementTypes[0], input)
		if err != nil {
			return jtype{}, true, err
		}
		right, err := g.javaType(t.ElementTypes[1], input)
		return jtype{class: "com.pulumi.core.Either", params: []jtype{left, right}}, true, err
	}
	return jtype{}, false, nil
}

// genEnums writes the package's enum types.
func (g *sdkGen) genEnums() error {
	for _, t := range g.pkg.Types {
		if e, ok := t.(*schema.EnumType); ok {
			if err := g.genEnum(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// enumValueType is the Java class of an enum's values: integers too are Doubles, as the SDK
// serializes numbers.
func enumValueType(e *schema.EnumType) (string, error) {
	switch e.ElementType {
	case schema.StringType:
		return "java.lang.String", nil
	case schema.IntType, schema.NumberType:
		// The SDK's serializer takes an enum whose converter gives a Double or a String only.
		return "java.lang.Double", nil
	}
	return "", fmt.Errorf("enum %s of %s values is not supported", e.Token, e.ElementType)
}

// enumMemberNames are the Java names of an enum's constants: the schema's name, or one made of its
// value's words ("A Value With Spaces." is AValueWithSpaces), each made unique.
func enumMemberNames(e *schema.EnumType) []string {
	names := make([]string, len(e.Elements))
	taken := map[string]bool{}
	for i, el := range e.Elements {
		name := el.Name
		if name == "" {
			name = fmt.Sprint(el.Value)
		}
		name = enumIdent(name)
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

func enumIdent(s string) string {
	var b strings.Builder
	upper := true
	for _, c := range s {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if upper {
				c = unicode.ToUpper(c)
			}
			b.WriteRune(c)
			upper = false
		default:
			upper = true
		}
	}
	name := b.String()
	if name == "" {
		name = "Empty"
	}
	return ident(name)
}

func (g *sdkGen) genEnum(e *schema.EnumType) error {
	valueType, err := enumValueType(e)
	if err != nil {
		return err
	}
	f := g.newFile(g.enumClass(e))
	name := f.class
	vt := f.ref(valueType)
	enumType := f.ref("com.pulumi.core.annotations.EnumType")
	f.printf("%s", g.doc("", e.Comment))
	f.printf("@%s\npublic enum %s {\n", enumType, name)
	names := enumMemberNames(e)
	for i, el := range e.Elements {
		lit, err := enumLiteral(el.Value, valueType)
		if err != nil {
			return fmt.Errorf("enum %s: %w", e.Token, err)
		}
		sep := ","
		if i == len(e.Elements)-1 {
			sep = ";"
		}
		f.printf("%s", g.doc("    ", el.Comment, deprecated(el.DeprecationMessage)))
		f.printf("    %s(%s)%s\n", names[i], lit, sep)
	}
	if len(e.Elements) == 0 {
		f.printf("    ;\n")
	}
	f.printf(`
    private final %[1]s value;

    %[2]s(%[1]s value) {
        this.value = %[3]s.requireNonNull(value);
    }

    @%[4]s.Converter
    public %[1]s getValue() {
        return this.value;
    }

    @Override
    public java.lang.String toString() {
        return new %[5]s(", ", %[6]s, "]")
            .add("value='" + this.value + "'")
            .toString();
    }
}
`, vt, name, f.ref("java.util.Objects"), enumType, f.ref("java.util.StringJoiner"), javaString(name+"["))
	g.add(f)
	return nil
}

// enumLiteral is an enum value as a Java literal of the enum's value class.
func enumLiteral(v any, valueType string) (string, error) {
	switch valueType {
	case "java.lang.String":
		if s, ok := v.(string); ok {
			return javaString(s), nil
		}
	case "java.lang.Double":
		f, ok := schemaNumber(v)
		if !ok {
			return "", fmt.Errorf("value %v (%T) is not a number", v, v)
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	}
	return "", fmt.Errorf("value %v (%T) is not of the enum's type", v, v)
}

// schemaNumber is a number of a schema (an enum's value, a default) as the binder gives it: an
// int, int32, int64 or float64.
func schemaNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
