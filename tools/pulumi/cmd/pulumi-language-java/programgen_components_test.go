package main

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

// bindShapes binds a program against the component and enum package of sdkgen_components_test.go.
func bindShapes(t *testing.T, source string) *pcl.Program {
	t.Helper()
	parser := syntax.NewParser()
	if err := parser.ParseFile(strings.NewReader(source), "main.pp"); err != nil {
		t.Fatal(err)
	}
	program, diags, err := pcl.BindProgram(parser.Files, memoryLoader{"shapes": componentPackage(t)})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding: %v %v", err, diags)
	}
	return program
}

func TestProgramComponentAndEnums(t *testing.T) {
	program := bindShapes(t, `
resource drawing "shapes:index:Drawing" {
    side = 2
    ratio = 0.1
    options {
        protect = true
    }
}
resource square "shapes:index:Square" {
    side = drawing.square.side
    color = "Dark blue."
    size = 2
}
resource other "shapes:index:Square" {
    side = 1
    size = "huge"
}
`)
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	app := string(files["App.java"])
	for _, want := range []string{
		"var drawing = new Drawing(\"drawing\", DrawingArgs.builder()",
		".ratio(Ratio.Tenth)",
		"ComponentResourceOptions.builder()",
		// A property of the resource an output refers to reads through apply.
		".side(drawing.square().apply(v -> v.side()))",
		".color(Color.DarkBlue)",
		// A union takes the side the value belongs to.
		".size(Either.ofLeft(Size.Large))",
		`.size(Either.ofRight("huge"))`,
		"import com.pulumi.shapes.enums.Color;",
	} {
		if !strings.Contains(app, want) {
			t.Errorf("App.java lacks %s:\n%s", want, app)
		}
	}
}
