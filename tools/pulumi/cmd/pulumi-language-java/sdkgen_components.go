package main

// Component resources (multi-language components) in the Java SDK, in the shape pulumi-java gives
// them: a ComponentResource whose constructor asks the engine to construct it remotely (the
// provider's Construct), @Export fields for its outputs and an Args class as for custom resources.
// No State class and no get: a component is not read back from a provider. As pulumi-java, the
// component's methods (functions marked as methods) are not generated.

import (
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// genComponentFiles writes a component's class and its Args.
func (g *sdkGen) genComponentFiles(r *schema.Resource) error {
	class := g.resourceClass(r)
	argsClass := class + "Args"
	if err := g.genArgsClass(argsClass, "The set of arguments for constructing a "+memberName(r.Token)+" resource.",
		r.InputProperties, false); err != nil {
		return err
	}
	return g.genComponent(r, class, argsClass)
}

func (g *sdkGen) genComponent(r *schema.Resource, class, argsClass string) error {
	f := g.newFile(class)
	name := f.class
	nullable := "@" + f.ref("javax.annotation.Nullable")
	output := f.ref("com.pulumi.core.Output")
	options := "com.pulumi.resources.ComponentResourceOptions"

	f.printf("%s", g.doc("", r.Comment, deprecated(r.DeprecationMessage)))
	if r.DeprecationMessage != "" {
		f.printf("@Deprecated\n")
	}
	f.printf("@%s(type=%s)\n", f.ref("com.pulumi.core.annotations.ResourceType"), javaString(r.Token))
	f.printf("public class %s extends com.pulumi.resources.ComponentResource {\n", name)
	for _, p := range r.Properties {
		t, err := g.javaType(p.Type, false)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", r.Token, p.Name, err)
		}
		refs, tree := t.exportShape(f)
		field := ident(p.Name)
		f.printf("%s", g.doc("    ", p.Comment, deprecated(p.DeprecationMessage)))
		if p.DeprecationMessage != "" {
			f.printf("    @Deprecated\n")
		}
		f.printf("    @%s(name=%s, refs={%s}, tree=%s)\n",
			f.ref("com.pulumi.core.annotations.Export"), javaString(p.Name), refs, javaString(tree))
		if p.IsRequired() {
			f.printf("    private %s<%s> %s;\n\n", output, t.code(f), field)
			f.printf("%s", g.doc("    ", returns(p.Comment)))
			f.printf("    public %s<%s> %s() {\n        return this.%s;\n    }\n",
				output, t.code(f), resourceAccessor(p.Name), field)
		} else {
			f.printf("    private %s</* @Nullable */ %s> %s;\n\n", output, t.code(f), field)
			f.printf("%s", g.doc("    ", returns(p.Comment)))
			f.printf("    public %s<%s<%s>> %s() {\n        return %s.optional(this.%s);\n    }\n",
				output, f.ref("java.util.Optional"), t.code(f), resourceAccessor(p.Name),
				f.ref("com.pulumi.core.internal.Codegen"), field)
		}
	}
	if len(r.Properties) > 0 {
		f.printf("\n")
	}

	args := f.ref(argsClass)
	argsType := args
	allOptional := true
	for _, p := range r.InputProperties {
		allOptional = allOptional && !p.IsRequired()
	}
	if allOptional {
		argsType = nullable + " " + args
	}
	// The last argument of ComponentResource's constructor, remote: the engine has the component's
	// provider construct it.
	f.printf(`    /**
     *
     * @param name The _unique_ name of the resulting resource.
     */
    public %[1]s(java.lang.String name) {
        this(name, %[2]s.Empty);
    }
    /**
     *
     * @param name The _unique_ name of the resulting resource.
     * @param args The arguments to use to populate this resource's properties.
     */
    public %[1]s(java.lang.String name, %[3]s args) {
        this(name, args, null);
    }
    /**
     *
     * @param name The _unique_ name of the resulting resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param options A bag of options that control this resource's behavior.
     */
    public %[1]s(java.lang.String name, %[3]s args, %[4]s %[5]s options) {
        super(%[6]s, name, componentArgs(args, options), makeResourceOptions(options, %[7]s.empty()), true%[10]s);
    }

    // A component adopted by its URN is not constructed again: it takes no arguments.
    private static %[2]s componentArgs(%[3]s args, %[4]s %[5]s options) {
        if (options != null && options.getUrn().isPresent()) {
            return null;
        }
        return args == null ? %[2]s.Empty : args;
    }

    private static %[5]s makeResourceOptions(%[4]s %[5]s options, %[4]s %[8]s<java.lang.String> id) {
        var defaultOptions = %[5]s.builder()
            .version(%[9]s.getVersion())
`, name, args, argsType, nullable, options, javaString(r.Token), f.ref("com.pulumi.core.internal.Codegen"),
		output, f.ref(g.root+".Utilities"), g.packageRef(f))
	if g.pkg.PluginDownloadURL != "" {
		f.printf("            .pluginDownloadURL(%s)\n", javaString(g.pkg.PluginDownloadURL))
	}
	if len(r.Aliases) > 0 {
		var aliases []string
		for _, a := range r.Aliases {
			aliases = append(aliases, output+".of("+f.ref("com.pulumi.core.Alias")+".builder().type("+javaString(a.Type)+").build())")
		}
		f.printf("            .aliases(%s.of(\n                %s\n            ))\n",
			f.ref("java.util.List"), strings.Join(aliases, ",\n                "))
	}
	f.printf("            .build();\n        return %s.merge(defaultOptions, options, id);\n    }\n}\n", options)
	g.add(f)
	return nil
}
