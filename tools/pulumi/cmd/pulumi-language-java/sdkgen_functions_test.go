package main

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// functionSpec is the test schema with a function of the index module and one of a module.
func functionSpec(t *testing.T) schema.PackageSpec {
	spec := testSpec(t)
	str := schema.TypeSpec{Type: "string"}
	spec.Functions = map[string]schema.FunctionSpec{
		"chatbot:index:getThing": {
			Description: "Reads a thing.",
			Inputs: &schema.ObjectTypeSpec{
				Properties: map[string]schema.PropertySpec{
					"name": {TypeSpec: str},
					"size": {TypeSpec: schema.TypeSpec{Type: "number"}, Default: 2.0},
					"tags": {TypeSpec: schema.TypeSpec{Type: "array", Items: &str}},
				},
				Required: []string{"name"},
			},
			Outputs: &schema.ObjectTypeSpec{
				Properties: map[string]schema.PropertySpec{
					"value": {TypeSpec: str},
					"note":  {TypeSpec: str},
				},
				Required: []string{"value"},
			},
		},
		"chatbot:index:count": {
			ReturnType: &schema.ReturnTypeSpec{TypeSpec: &schema.TypeSpec{Type: "array", Items: &schema.TypeSpec{Type: "integer"}}},
		},
		"chatbot:stories:listAll": {
			Outputs: &schema.ObjectTypeSpec{
				Properties: map[string]schema.PropertySpec{"ids": {TypeSpec: schema.TypeSpec{Type: "array", Items: &str}}},
			},
		},
	}
	return spec
}

func TestSDKFunctions(t *testing.T) {
	files, err := generateSDK(bindSpec(t, functionSpec(t)))
	if err != nil {
		t.Fatal(err)
	}
	fns := string(files[javaDir+"ChatbotFunctions.java"])
	for _, want := range []string{
		"public final class ChatbotFunctions {",
		"public static Output<GetThingResult> getThing(GetThingArgs args) {",
		"public static CompletableFuture<GetThingResult> getThingPlain(GetThingPlainArgs args) {",
		`return Deployment.getInstance().invoke("chatbot:index:getThing", TypeShape.of(GetThingResult.class), args, Utilities.withVersion(options));`,
		"public static Output<GetThingResult> getThing(GetThingArgs args, InvokeOutputOptions options) {",
		`return Deployment.getInstance().invokeAsync("chatbot:index:getThing", TypeShape.of(GetThingResult.class), args, Utilities.withVersion(options));`,
	} {
		if !strings.Contains(fns, want) {
			t.Errorf("ChatbotFunctions.java lacks %q:\n%s", want, fns)
		}
	}
	// A required argument: no overload without arguments.
	if strings.Contains(fns, "getThing()") {
		t.Errorf("getThing() without its required argument:\n%s", fns)
	}
	args := string(files[javaDir+"inputs/GetThingArgs.java"])
	if !strings.Contains(args, "extends com.pulumi.resources.InvokeArgs") || !strings.Contains(args, "public Builder name(Output<String> name)") {
		t.Errorf("GetThingArgs.java is not an InvokeArgs of Outputs:\n%s", args)
	}
	// A default is applied in build() to what is left unset.
	if !strings.Contains(args, "if ($.size == null) {\n                $.size = Output.of(2.0);") {
		t.Errorf("GetThingArgs.java does not apply the default of size:\n%s", args)
	}
	plain := string(files[javaDir+"inputs/GetThingPlainArgs.java"])
	if !strings.Contains(plain, "if ($.size == null) {\n                $.size = 2.0;") {
		t.Errorf("GetThingPlainArgs.java does not apply the default of size:\n%s", plain)
	}
	if !strings.Contains(plain, "extends InvokeArgs") || !strings.Contains(plain, "public Builder name(String name)") ||
		!strings.Contains(plain, "public Builder tags(String... tags)") {
		t.Errorf("GetThingPlainArgs.java is not an InvokeArgs of plain values:\n%s", plain)
	}
	result := string(files[javaDir+"outputs/GetThingResult.java"])
	if !strings.Contains(result, "@CustomType") || !strings.Contains(result, "public Optional<String> note()") {
		t.Errorf("GetThingResult.java:\n%s", result)
	}
	// A value that is not an object is read as the one property of the result.
	for _, want := range []string{
		"public static Output<List<Integer>> count() {",
		`return Deployment.getInstance().invoke("chatbot:index:count", TypeShape.<Map<String,List<Integer>>>builder(Map.class)` +
			".addParameter(TypeShape.of(String.class)).addParameter(TypeShape.<List<Integer>>builder(List.class)" +
			".addParameter(TypeShape.of(Integer.class)).build()).build(), args, Utilities.withVersion(options))" +
			".applyValue(_m -> _m.isEmpty() ? null : _m.values().iterator().next());",
	} {
		if !strings.Contains(fns, want) {
			t.Errorf("ChatbotFunctions.java lacks %q:\n%s", want, fns)
		}
	}
	if _, ok := files[javaDir+"outputs/CountResult.java"]; ok {
		t.Errorf("a result class for a function returning a list")
	}
	// A module's functions are its <Module>Functions; without arguments they may be left out.
	stories := string(files[javaDir+"stories/StoriesFunctions.java"])
	if !strings.Contains(stories, "public static Output<ListAllResult> listAll() {") {
		t.Errorf("StoriesFunctions.java:\n%s", stories)
	}
}
