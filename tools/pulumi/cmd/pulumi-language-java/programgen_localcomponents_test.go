package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

func TestProgramLocalComponent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.pp", `
resource account "pulumi:providers:chatbot" {
    apiUrl = "https://api.chatbot.com"
}
component hooks "./webhook-set" {
    story = "0123456789abcdef01234567"
    headers = { "X-Team" = "a" }
    options {
        providers = [account]
    }
}
output "url" {
    value = hooks.url
}
`)
	write("webhook-set/main.pp", `
config story string {}
config headers "map(string)" {}
resource hook "chatbot:index:WebhookConnection" {
    storyId = story
    headers = headers
    url = "https://example.com/${story}"
}
output url {
    value = hook.url
}
output thing {
    value = invoke("chatbot:index:getThing", { name = story }).value
}
`)
	program, diags, err := pcl.BindDirectory(dir, memoryLoader{"chatbot": bindSpec(t, functionSpec(t))})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding: %v %v", err, diags)
	}
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	app := string(files["App.java"])
	for _, want := range []string{
		`var hooks = new WebhookSet("hooks", new WebhookSet.Args()`,
		`.story("0123456789abcdef01234567")`,
		// Its options: the providers its resources and invokes inherit.
		`.headers(Map.of("X-Team", "a")), ComponentResourceOptions.builder()
                .providers(account)
                .build());`,
		`ctx.export("url", hooks.url());`,
	} {
		if !strings.Contains(app, want) {
			t.Errorf("App.java lacks %s:\n%s", want, app)
		}
	}
	class := string(files["WebhookSet.java"])
	for _, want := range []string{
		"public class WebhookSet extends ComponentResource {",
		"public static final class Args extends ResourceArgs {",
		`@Import(name="story")`,
		// A map input, as a map of its Java element type.
		"private Output<Map<String,String>> headers;",
		`super("components:index:WebhookSet", name, args, options);`,
		// Its resources are its children, named after it.
		`var hook = new WebhookConnection(name + "-hook", WebhookConnectionArgs.builder()`,
		".parent(this)",
		// An input is an Output: what is made of it, an apply.
		`.url(story.applyValue(_v0 -> ("https://example.com/" + _v0)))`,
		"this.url = hook.url();",
		// An invoke in it has it as parent, so it uses the component's providers.
		"this.thing = ChatbotFunctions.getThing(GetThingArgs.builder()",
		"new InvokeOutputOptions.Builder()\n            .parent(this)\n",
		`this.registerOutputs(Map.of("url", this.url, "thing", this.thing));`,
	} {
		if !strings.Contains(class, want) {
			t.Errorf("WebhookSet.java lacks %s:\n%s", want, class)
		}
	}
}

func TestProgramSourcelessComponent(t *testing.T) {
	// A component without a source names an existing component resource by its token.
	program := bindPCL(t, `
component parts {
    token = "my:custom:Component"
    count = 42
    doc = toJSON({ key = "value" })
}
`)
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	app := string(files["App.java"])
	want := `        var parts = new ComponentResource("my:custom:Component", "parts", new ResourceArgs() {
            @Import(name="count")
            private final Output<?> _0 = Output.of(42);
            @Import(name="doc")
            private final Output<?> _1 = Output.of(Serialization.serializeJson(Map.of("key", "value")));
        }, null);
`
	if !strings.Contains(app, want) {
		t.Errorf("App.java lacks %s:\n%s", want, app)
	}
}
