package main

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

func TestProgramInvoke(t *testing.T) {
	pkg := bindSpec(t, functionSpec(t))
	parser := syntax.NewParser()
	source := `
resource provider "pulumi:providers:chatbot" {
    apiUrl = "https://api.chatbot.com"
}

data = invoke("chatbot:index:getThing", { name = "a" }, { provider = provider })

output "value" {
    value = data.value
}

resource hook "chatbot:index:WebhookConnection" {
    storyId = "0123456789abcdef01234567"
    url = "https://example.com/hook"
}

output "secretValue" {
    value = invoke("chatbot:index:getThing", { name = secret(hook.url) }).value
}

output "note" {
    value = invoke("chatbot:index:getThing", { name = "b", tags = ["x"] }).note
}
`
	if err := parser.ParseFile(strings.NewReader(source), "main.pp"); err != nil {
		t.Fatal(err)
	}
	program, diags, err := pcl.BindProgram(parser.Files, memoryLoader{"chatbot": pkg})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding: %v %v", err, diags)
	}
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatalf("generating: %v %v", err, diags)
	}
	code := string(files[programFile])
	for _, want := range []string{
		"import com.pulumichatbot.chatbot.ChatbotFunctions;",
		"final var data = ChatbotFunctions.getThing(GetThingArgs.builder()",
		"new InvokeOutputOptions.Builder()\n",
		".provider(provider)\n",
		`ctx.export("value", data.applyValue(_invoke -> _invoke.value()));`,
		// An optional field of the result is its value or null.
		".build()).applyValue(_invoke -> _invoke.note().orElse(null))",
		".tags(\n",
		// An output made secret stays an Output.
		".name(hook.url().asSecret())",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("the program lacks %q:\n%s", want, code)
		}
	}
}
