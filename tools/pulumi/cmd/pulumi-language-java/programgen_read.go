package main

import (
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/model"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// readResource prints PCL's read block (a resource that exists, read by its id) as the SDK's
// get: Class.get(name, id, state, options), the other attributes being the state it is looked
// up with.
func (p *progGen) readResource(r *pcl.ReadResource) string {
	if r.Schema == nil {
		p.fail(nodeRange(r), fmt.Sprintf("read %s: a resource without a schema is not supported by the Java program generator", r.Name()))
		return ""
	}
	g, err := p.sdk(r.Schema)
	if err != nil {
		p.fail(nodeRange(r), fmt.Sprintf("read %s: %v", r.Name(), err))
		return ""
	}
	var id model.Expression
	var state []*model.Attribute
	for _, a := range r.Inputs {
		if a.Name == "id" {
			id = a.Value
		} else {
			state = append(state, a)
		}
	}
	if id == nil {
		p.fail(nodeRange(r), fmt.Sprintf("read %s: no id", r.Name()))
		return ""
	}
	class := g.resourceClass(r.Schema)
	idCode := p.exprIn(g, id, schema.StringType, true, "            ")
	if !model.ContainsOutputs(id.Type()) {
		idCode = p.f.ref("com.pulumi.core.Output") + ".of(" + idCode + ")"
	}
	stateCode := "null"
	if len(state) > 0 {
		stateClass := g.modulePackage(r.Schema.Token) + ".inputs." + memberName(r.Schema.Token) + "State"
		stateCode = p.builder(g, stateClass, r.Schema.Properties, state, "            ")
	}
	opts := p.options(r.Name(), r.Options, "com.pulumi.resources.CustomResourceOptions")
	if opts == "" {
		opts = "null"
	}
	return fmt.Sprintf("        var %s = %s.get(%s, %s, %s, %s);\n\n", p.names[r], p.f.ref(class),
		javaString(r.LogicalName()), idCode, strings.TrimSpace(stateCode), opts)
}
