package main

// Operators and string interpolation of the Java program generator, on plain values (literals,
// config, locals); on outputs they would need apply, which this generator does not print.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
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

// plainOperand fails when e is an output: Java's operators take plain values.
func (p *progGen) plainOperand(e model.Expression) bool {
	if model.ContainsOutputs(e.Type()) {
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
