package main

// Operators and string interpolation of the Java program generator, on plain values (literals,
// config, locals); on outputs they would need apply, which this generator does not print.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

var javaOperators = map[*hclsyntax.Operation]string{
	hclsyntax.OpLogicalOr: "||", hclsyntax.OpLogicalAnd: "&&",
	hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=",
	hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
	hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
	hclsyntax.OpAdd: "+", hclsyntax.OpSubtract: "-",
	hclsyntax.OpMultiply: "*", hclsyntax.OpDivide: "/", hclsyntax.OpModulo: "%",
	hclsyntax.OpNegate: "-", hclsyntax.OpLogicalNot: "!",
}

// plainOperand fails when e is an output: Java's operators take plain values (inside a lift,
// the outputs read are the lambda's plain parameters).
func (p *progGen) plainOperand(e model.Expression) bool {
	if p.lifted == nil && model.ContainsOutputs(e.Type()) {
		p.fail(exprRange(e), "an operator or interpolation on an output is not supported by the Java program generator")
		return false
	}
	return true
}

// primitive says whether Java's == compares t's values (numbers, booleans), not references.
func primitive(t model.Type) bool {
	t = model.ResolveOutputs(t)
	return t == model.NumberType || t == model.IntType || t == model.BoolType
}

func (p *progGen) binaryOp(g *sdkGen, e *model.BinaryOpExpression, indent string) string {
	if !p.plainOperand(e.LeftOperand) || !p.plainOperand(e.RightOperand) {
		return ""
	}
	left := p.exprIn(g, e.LeftOperand, nil, false, indent)
	right := p.exprIn(g, e.RightOperand, nil, false, indent)
	op := javaOperators[e.Operation]
	if (op == "==" || op == "!=") && !(primitive(e.LeftOperand.Type()) && primitive(e.RightOperand.Type())) {
		eq := fmt.Sprintf("%s.equals(%s, %s)", p.f.ref("java.util.Objects"), left, right)
		if op == "!=" {
			return "!" + eq
		}
		return eq
	}
	return fmt.Sprintf("(%s %s %s)", left, op, right)
}

func (p *progGen) unaryOp(g *sdkGen, e *model.UnaryOpExpression, indent string) string {
	if !p.plainOperand(e.Operand) {
		return ""
	}
	return fmt.Sprintf("(%s%s)", javaOperators[e.Operation], p.exprIn(g, e.Operand, nil, false, indent))
}

// template prints "${a} World" as a concatenation that starts from a string.
func (p *progGen) template(g *sdkGen, e *model.TemplateExpression, indent string) string {
	parts := make([]string, 0, len(e.Parts)+1)
	if lit, ok := e.Parts[0].(*model.LiteralValueExpression); !ok || lit.Value.Type().FriendlyName() != "string" {
		parts = append(parts, `""`)
	}
	for _, part := range e.Parts {
		if !p.plainOperand(part) {
			return ""
		}
		parts = append(parts, p.exprIn(g, part, schema.StringType, false, indent))
	}
	return "(" + strings.Join(parts, " + ") + ")"
}

// assetClasses are the Java SDK's classes of PCL's asset and archive functions.
var assetClasses = map[string]string{
	"stringAsset": "StringAsset", "fileAsset": "FileAsset", "remoteAsset": "RemoteAsset",
	"fileArchive": "FileArchive", "remoteArchive": "RemoteArchive",
}

// builtin prints PCL's functions that have a plain Java form, on plain values.
func (p *progGen) builtin(g *sdkGen, e *model.FunctionCallExpression, indent string) (string, bool) {
	arg := func(i int) string { return p.exprIn(g, e.Args[i], nil, false, indent) }
	for _, a := range e.Args {
		if !p.plainOperand(a) {
			return "", true
		}
	}
	switch {
	case e.Name == "stack" && len(e.Args) == 0:
		return "ctx.stackName()", true
	case e.Name == "project" && len(e.Args) == 0:
		return "ctx.projectName()", true
	case e.Name == "organization" && len(e.Args) == 0:
		return "ctx.organizationName()", true
	case e.Name == "cwd" && len(e.Args) == 0:
		return `System.getProperty("user.dir")`, true
	case e.Name == "length" && len(e.Args) == 1:
		if model.ResolveOutputs(e.Args[0].Type()) == model.StringType {
			// Characters as a reader counts them (grapheme clusters: an emoji with its variation
			// selector is one), as PCL's length does, not UTF-16 units.
			return fmt.Sprintf("(int) %s.compile(\"\\\\X\").matcher(%s).results().count()",
				p.f.ref("java.util.regex.Pattern"), arg(0)), true
		}
		return arg(0) + ".size()", true
	case e.Name == "split" && len(e.Args) == 2:
		// Every piece, the empty ones too, as PCL's split (Go's strings.Split) has them.
		return fmt.Sprintf("%s.of(%s.split(%s.quote(%s), -1))", p.f.ref("java.util.List"), arg(1),
			p.f.ref("java.util.regex.Pattern"), arg(0)), true
	case len(e.Args) == 1 && assetClasses[e.Name] != "":
		return fmt.Sprintf("new %s(%s)", p.f.ref("com.pulumi.asset."+assetClasses[e.Name]), arg(0)), true
	case e.Name == "join" && len(e.Args) == 2:
		return fmt.Sprintf("String.join(%s, %s)", arg(0), arg(1)), true
	case e.Name == "toJSON" && len(e.Args) == 1:
		return fmt.Sprintf("%s.serializeJson(%s)", p.f.ref("com.pulumi.codegen.internal.Serialization"), arg(0)), true
	case (e.Name == "max" || e.Name == "min") && len(e.Args) > 0:
		return p.minMax(e, arg), true
	}
	return "", false
}

// minMax prints max(...) or min(...) over ints or numbers, as PCL types the call, as a stream of
// them; a last argument written list... is spread into it.
func (p *progGen) minMax(e *model.FunctionCallExpression, arg func(int) string) string {
	kind := "Int"
	if model.ResolveOutputs(e.Type()) != model.IntType {
		kind = "Double"
	}
	stream := p.f.ref("java.util.stream." + kind + "Stream")
	n := len(e.Args)
	if e.ExpandFinal {
		n--
	}
	plain := make([]string, n)
	for i := range plain {
		plain[i] = arg(i)
	}
	code := fmt.Sprintf("%s.of(%s)", stream, strings.Join(plain, ", "))
	if e.ExpandFinal {
		spread := fmt.Sprintf("%s.stream().mapTo%s(Number::%sValue)", arg(n), kind, strings.ToLower(kind))
		if n == 0 {
			code = spread
		} else {
			code = fmt.Sprintf("%s.concat(%s, %s)", stream, code, spread)
		}
	}
	return fmt.Sprintf("%s.%s().getAs%s()", code, e.Name, kind)
}

// longString prints a string literal; one longer than a class file's constant (65,535 bytes of
// UTF-8) can hold is joined at run time from pieces that fit.
func longString(s string) string {
	const piece = 8192 // runes: at most 4 bytes each
	runes := []rune(s)
	if len(s) < 60000 {
		return javaString(s)
	}
	var parts []string
	for i := 0; i < len(runes); i += piece {
		parts = append(parts, javaString(string(runes[i:min(i+piece, len(runes))])))
	}
	return `String.join("", ` + strings.Join(parts, ",\n            ") + ")"
}

// lift prints an operator, interpolation, conditional, function, list or map over outputs of resources as
// an apply: the outputs it reads (res.value, res.data.items[0]) become a lambda's plain
// parameters, one output with applyValue, several through Output.tuple. ok is false for what is
// not such an expression, or is already inside a lift.
func (p *progGen) lift(g *sdkGen, e model.Expression, dest schema.Type, outputOK bool, indent string) (string, bool) {
	switch e := e.(type) {
	case *model.BinaryOpExpression, *model.UnaryOpExpression, *model.TemplateExpression, *model.ConditionalExpression,
		*model.ForExpression, *model.IndexExpression:
	case *model.TupleConsExpression, *model.ObjectConsExpression:
		// A list or map with outputs in it: Java's List.of and Map.of take plain values. An input
		// type's Args is printed as its builder, whose setters take Outputs: nothing to lift.
		if builtByBuilder(g, e, dest) {
			return "", false
		}
	case *model.FunctionCallExpression:
		if e.Name == pcl.IntrinsicConvert || e.Name == "secret" || e.Name == pcl.Invoke {
			return "", false
		}
	default:
		return "", false
	}
	if p.lifted != nil || (!model.ContainsOutputs(e.Type()) && p.namedFrom == "") {
		return "", false
	}
	var reads []model.Expression
	_, _ = model.VisitExpression(e, model.IdentityVisitor, func(x model.Expression) (model.Expression, hcl.Diagnostics) {
		if t, ok := x.(*model.RelativeTraversalExpression); ok {
			if _, ok := rangedResourceIndex(t); ok {
				reads = append(reads, t) // res[range.key].value
			}
		}
		if t, ok := x.(*model.ScopeTraversalExpression); ok && len(t.Parts) > 0 {
			switch root := t.Parts[0].(type) {
			case *pcl.Resource, *pcl.ReadResource:
				if len(t.Traversal) > 1 {
					reads = append(reads, t)
				}
			case *pcl.LocalVariable:
				if model.ContainsOutputs(root.Type()) {
					reads = append(reads, t)
				}
			case *pcl.ConfigVariable:
				// A local component's input is an Output (programgen_localcomponents.go), and so
				// is a secret config.
				if p.namedFrom != "" || model.ContainsOutputs(root.Type()) {
					reads = append(reads, t)
				}
			}
		}
		return x, nil
	})
	if len(reads) == 0 || len(reads) > 8 {
		return "", false
	}
	if !outputOK {
		p.fail(exprRange(e), "an expression over outputs inside a list or map is not supported by the Java program generator")
		return "", true
	}
	args := make([]string, len(reads))
	for i, r := range reads {
		args[i] = p.exprIn(g, r, nil, true, indent)
	}
	p.lifted = map[model.Expression]string{}
	for i, r := range reads {
		p.lifted[r] = fmt.Sprintf("_v%d", i)
	}
	body := p.exprIn(g, e, dest, false, indent)
	p.lifted = nil
	if len(reads) == 1 {
		return fmt.Sprintf("%s.applyValue(_v0 -> %s)", args[0], body), true
	}
	var unpack strings.Builder
	for i := range reads {
		fmt.Fprintf(&unpack, "var _v%d = _t.t%d; ", i, i+1)
	}
	return fmt.Sprintf("%s.tuple(%s).applyValue(_t -> { %sreturn %s; })",
		p.f.ref("com.pulumi.core.Output"), strings.Join(args, ", "), unpack.String(), body), true
}

// forExpression prints [for k, v in s : body if cond] and {for ... : key => value} as a stream
// over the collection's entries (a list's index and element, a map's key and value), in order.
func (p *progGen) forExpression(g *sdkGen, e *model.ForExpression, indent string) string {
	if e.Group {
		p.fail(exprRange(e), "a grouping for expression (...) is not supported by the Java program generator")
		return ""
	}
	if !p.plainOperand(e.Collection) {
		return ""
	}
	source := p.exprIn(g, e.Collection, nil, false, indent)
	if _, ok := e.Collection.(*model.ScopeTraversalExpression); !ok {
		p.fail(exprRange(e.Collection), "a for expression over anything but a variable is not supported by the Java program generator")
		return ""
	}
	if p.vars == nil {
		p.vars = map[*model.Variable]string{}
	}
	// The entry's parts, under the names PCL gives them.
	var unpack string
	if e.KeyVariable != nil {
		p.vars[e.KeyVariable] = ident(e.KeyVariable.Name)
		unpack += fmt.Sprintf("var %s = _e.getKey(); ", p.vars[e.KeyVariable])
	}
	p.vars[e.ValueVariable] = ident(e.ValueVariable.Name)
	unpack += fmt.Sprintf("var %s = _e.getValue(); ", p.vars[e.ValueVariable])
	var entries string
	switch model.ResolveOutputs(e.Collection.Type()).(type) {
	case *model.MapType, *model.ObjectType:
		// In key order, as PCL iterates a map (Map.of has no order).
		entries = fmt.Sprintf("new %s<>(%s).entrySet().stream()", p.f.ref("java.util.TreeMap"), source)
	default:
		entries = fmt.Sprintf("%s.range(0, %s.size()).mapToObj(_i -> new %s<>(_i, %s.get(_i)))",
			p.f.ref("java.util.stream.IntStream"), source, p.f.ref("java.util.AbstractMap.SimpleEntry"), source)
	}
	lambda := func(body model.Expression) string {
		return fmt.Sprintf("_e -> { %sreturn %s; }", unpack, p.exprIn(g, body, nil, false, indent))
	}
	code := entries
	if e.Condition != nil {
		code += ".filter(" + lambda(e.Condition) + ")"
	}
	collectors := p.f.ref("java.util.stream.Collectors")
	if e.Key != nil {
		// A map in the entries' order, its type spelled out: javac cannot infer Collectors.toMap's
		// here (ctx.export is overloaded).
		return fmt.Sprintf("%s.collect(() -> new %s<Object, Object>(), (_m, _e) -> { %s_m.put(%s, %s); }, %s::putAll)",
			code, p.f.ref("java.util.LinkedHashMap"), unpack, p.exprIn(g, e.Key, nil, false, indent),
			p.exprIn(g, e.Value, nil, false, indent), p.f.ref("java.util.Map"))
	}
	return fmt.Sprintf("%s.map(%s).collect(%s.toList())", code, lambda(e.Value), collectors)
}
