package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// A package of a component (with a method), a custom resource it refers to and enums, in the shape
// of the conformance suite's component and enum providers.
const componentSchema = `{
  "name": "shapes",
  "version": "1.2.3",
  "types": {
    "shapes:index:Color": {"type": "string", "enum": [
      {"name": "Red", "value": "red"}, {"value": "Dark blue."}]},
    "shapes:index:Size": {"type": "integer", "enum": [{"name": "Small", "value": 1}, {"name": "Large", "value": 2}]},
    "shapes:index:Ratio": {"type": "number", "enum": [{"name": "Tenth", "value": 0.1}]}
  },
  "resources": {
    "shapes:index:Square": {
      "properties": {"side": {"type": "number"}, "color": {"$ref": "#/types/shapes:index:Color"}},
      "required": ["side"],
      "inputProperties": {"side": {"type": "number"}, "color": {"$ref": "#/types/shapes:index:Color"},
        "size": {"oneOf": [{"$ref": "#/types/shapes:index:Size"}, {"type": "string"}]}},
      "requiredInputs": ["side"]
    },
    "shapes:index:Drawing": {
      "description": "A component.",
      "isComponent": true,
      "properties": {"square": {"$ref": "#/resources/shapes:index:Square"}, "label": {"type": "string"}},
      "required": ["square"],
      "inputProperties": {"side": {"type": "number"}, "ratio": {"$ref": "#/types/shapes:index:Ratio"}},
      "requiredInputs": ["side"],
      "methods": {"area": "shapes:index:Drawing/area"}
    }
  },
  "functions": {
    "shapes:index:Drawing/area": {
      "inputs": {"properties": {"__self__": {"$ref": "#/resources/shapes:index:Drawing"}}, "required": ["__self__"]},
      "outputs": {"properties": {"result": {"type": "number"}}, "required": ["result"]}
    }
  }
}`

func componentPackage(t *testing.T) *schema.Package {
	t.Helper()
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(componentSchema), &spec); err != nil {
		t.Fatal(err)
	}
	return bindSpec(t, spec)
}

const shapesDir = "src/main/java/com/pulumi/shapes/"

func TestSDKComponent(t *testing.T) {
	files, err := generateSDK(componentPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	text := file(t, files, shapesDir+"Drawing.java")
	for _, want := range []string{
		`@ResourceType(type="shapes:index:Drawing")`,
		"public class Drawing extends com.pulumi.resources.ComponentResource {",
		`@Export(name="square", refs={Square.class}, tree="[0]")`,
		"public Output<Square> square() {",
		"public Output<Optional<String>> label() {",
		"public Drawing(java.lang.String name, DrawingArgs args, @Nullable com.pulumi.resources.ComponentResourceOptions options) {",
		// remote: the provider constructs it.
		`super("shapes:index:Drawing", name, componentArgs(args, options), makeResourceOptions(options, Codegen.empty()), true);`,
		"ComponentResourceOptions.merge(defaultOptions, options, id)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Drawing.java lacks %q", want)
		}
	}
	if strings.Contains(text, " get(") {
		t.Error("a component has a static get")
	}
	if _, ok := files[shapesDir+"inputs/DrawingState.java"]; ok {
		t.Error("a component has a State class")
	}
	args := file(t, files, shapesDir+"DrawingArgs.java")
	if !strings.Contains(args, "private @Nullable Output<Ratio> ratio;") {
		t.Errorf("DrawingArgs.ratio is not an Output<Ratio>:\n%s", args)
	}
}

func TestSDKEnums(t *testing.T) {
	files, err := generateSDK(componentPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	color := file(t, files, shapesDir+"enums/Color.java")
	for _, want := range []string{
		"@EnumType\npublic enum Color {",
		`    Red("red"),`,
		// A member without a name is named after its value's words.
		`    DarkBlue("Dark blue.");`,
		"    @EnumType.Converter\n    public String getValue() {",
	} {
		if !strings.Contains(color, want) {
			t.Errorf("Color.java lacks %q", want)
		}
	}
	if size := file(t, files, shapesDir+"enums/Size.java"); !strings.Contains(size, "Small(1.0),") || !strings.Contains(size, "private final Double value;") {
		t.Errorf("Size.java:\n%s", size)
	}
	if ratio := file(t, files, shapesDir+"enums/Ratio.java"); !strings.Contains(ratio, "Tenth(0.1);") {
		t.Errorf("Ratio.java:\n%s", ratio)
	}
	square := file(t, files, shapesDir+"SquareArgs.java")
	if !strings.Contains(square, "private @Nullable Output<Either<Size,String>> size;") {
		t.Errorf("SquareArgs.size is not an Either of the enum and a string:\n%s", square)
	}
}
