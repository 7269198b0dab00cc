package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func TestSDKForeignTypes(t *testing.T) {
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(`{
  "name": "art",
  "version": "2.0.0",
  "resources": {
    "art:index:Frame": {
      "properties": {"color": {"$ref": "/shapes/v1.2.3/schema.json#/types/shapes:index:Color"}},
      "inputProperties": {
        "color": {"$ref": "/shapes/v1.2.3/schema.json#/types/shapes:index:Color"},
        "square": {"$ref": "/shapes/v1.2.3/schema.json#/resources/shapes:index:Square"}
      }
    }
  },
  "dependencies": [{"name": "shapes", "version": "1.2.3"}]
}`), &spec); err != nil {
		t.Fatal(err)
	}
	loader := memoryLoader{"shapes": componentPackage(t)}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding: %v %v", err, diags)
	}
	files, err := generateSDK(pkg)
	if err != nil {
		t.Fatal(err)
	}
	args := file(t, files, "src/main/java/com/pulumi/art/FrameArgs.java")
	for _, want := range []string{"import com.pulumi.shapes.enums.Color;", "import com.pulumi.shapes.Square;"} {
		if !strings.Contains(args, want) {
			t.Errorf("FrameArgs.java lacks %q", want)
		}
	}
	// The other package's SDK is a dependency; its classes are not generated here.
	pom := file(t, files, "pom.xml")
	if !strings.Contains(pom, "<groupId>com.pulumi</groupId>\n            <artifactId>shapes</artifactId>\n            <version>1.2.3</version>") {
		t.Errorf("pom.xml lacks the dependency on shapes:\n%s", pom)
	}
	for name := range files {
		if strings.Contains(name, "/shapes/") {
			t.Errorf("%s of the other package is generated", name)
		}
	}
}
