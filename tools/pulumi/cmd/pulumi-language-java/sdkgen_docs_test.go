package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// Doc refs become the Java names of what they point at, another package's fully qualified, and
// that package is no dependency for it.
func TestSDKDocRefs(t *testing.T) {
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(`{
  "name": "docs",
  "version": "1.0.0",
  "resources": {
    "docs:index:Thing": {
      "description": "{{% ref #/resources/docs:index:Thing %}} is set by {{% ref #/functions/docs:index:make-thing %}} with {{% ref #/resources/docs:index:Thing/inputProperties/size %}}, drawn as {{% ref /shapes/v1.2.3/schema.json#/resources/shapes:index:Square %}} by {{% ref #/provider %}}.",
      "properties": {"size": {"type": "number", "description": "Half of {{% ref #/types/docs:index:Box/properties/width %}}."}},
      "inputProperties": {"size": {"type": "number"}}
    }
  },
  "types": {"docs:index:Box": {"type": "object", "properties": {"width": {"type": "number"}}}},
  "functions": {"docs:index:make-thing": {"outputs": {"type": "object", "properties": {"id": {"type": "string"}}}}}
}`), &spec); err != nil {
		t.Fatal(err)
	}
	loader := memoryLoader{"shapes": componentPackage(t)}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding: %v %v", err, diags)
	}
	files, err := generateSDK(pkg)
	if err != nil {
		t.Fatal(err)
	}
	thing := file(t, files, "src/main/java/com/pulumi/docs/"+"Thing.java")
	for _, want := range []string{
		" * Thing is set by DocsFunctions.makething with ThingArgs.size, drawn as com.pulumi.shapes.Square by Provider.",
		" * Half of Box.width.",
	} {
		if !strings.Contains(thing, want) {
			t.Errorf("Thing.java lacks %q:\n%s", want, thing)
		}
	}
	for name, text := range files {
		if strings.Contains(string(text), "{{% ref") {
			t.Errorf("%s keeps a doc ref", name)
		}
	}
	if strings.Contains(file(t, files, "pom.xml"), "<artifactId>shapes</artifactId>") {
		t.Error("a doc ref made the other package a dependency")
	}
}
