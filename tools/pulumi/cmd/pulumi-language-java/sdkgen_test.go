package main

// The SDK is generated from testdata/schema.json, a copy of the plugin's schema
// (dist/native/schema.js packageSchema(), after `npm run build`): a copy keeps `go test` free of a
// Node build, and `node scripts/gen-sdk.js --check --language java` is what fails when the real
// schema and the committed SDK part. These tests check what a Java user relies on.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// memoryLoader serves the packages it was given, whatever version is asked.
type memoryLoader map[string]*schema.Package

func (l memoryLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	if pkg, ok := l[name]; ok {
		return pkg, nil
	}
	return nil, fmt.Errorf("no package %s", name)
}

func (l memoryLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l memoryLoader) LoadPackageReference(name string, v *semver.Version) (schema.PackageReference, error) {
	pkg, err := l.LoadPackage(name, v)
	if err != nil {
		return nil, err
	}
	return pkg.Reference(), nil
}

func (l memoryLoader) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

func testSpec(t *testing.T) schema.PackageSpec {
	t.Helper()
	text, err := os.ReadFile("testdata/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

func bindSpec(t *testing.T, spec schema.PackageSpec) *schema.Package {
	t.Helper()
	pkg, diags, err := schema.BindSpec(spec, memoryLoader{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding the schema: %v %v", err, diags)
	}
	return pkg
}

func generate(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := generateSDK(bindSpec(t, testSpec(t)))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

const javaDir = "src/main/java/com/pulumichatbot/chatbot/"

func file(t *testing.T, files map[string][]byte, name string) string {
	t.Helper()
	text, ok := files[name]
	if !ok {
		t.Fatalf("no %s", name)
	}
	return string(text)
}

func TestSDKClasses(t *testing.T) {
	files := generate(t)
	var classes []string
	for name := range files {
		if rest, ok := strings.CutPrefix(name, javaDir); ok {
			classes = append(classes, strings.TrimSuffix(rest, ".java"))
		}
	}
	want := []string{
		"Config", "LegacyWebhook", "LegacyWebhookArgs", "Provider", "ProviderArgs", "Utilities",
		"WebhookConnection", "WebhookConnectionArgs",
		"inputs/BasicAuthArgs", "inputs/HeaderArgs", "inputs/LegacyWebhookState", "inputs/StoryArgs",
		"inputs/WebhookConnectionState",
		"outputs/BasicAuth", "outputs/Header", "outputs/Story",
	}
	sort.Strings(classes)
	if got := strings.Join(classes, " "); got != strings.Join(want, " ") {
		t.Errorf("classes:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	for name, text := range files {
		if strings.HasSuffix(name, ".java") && strings.Contains(string(text), "WebhookConnectionFunctions") {
			t.Errorf("%s: a Functions class for a schema without functions", name)
		}
	}
}

func TestSDKResource(t *testing.T) {
	files := generate(t)
	text := file(t, files, javaDir+"WebhookConnection.java")
	for _, want := range []string{
		`@ResourceType(type="chatbot:index:WebhookConnection")`,
		"public class WebhookConnection extends com.pulumi.resources.CustomResource {",
		`@Export(name="storyId", refs={String.class}, tree="[0]")`,
		`@Export(name="headers", refs={Map.class,String.class}, tree="[0,1,1]")`,
		"public Output<String> storyId() {",
		// An output that may be absent reads as Output<Optional<T>>.
		"public Output<Optional<String>> lastError() {",
		"public Output<Story> story() {",
		"public WebhookConnection(java.lang.String name, WebhookConnectionArgs args, @Nullable com.pulumi.resources.CustomResourceOptions options) {",
		".pluginDownloadURL(\"github://api.github.com/pulumi-chatbot/pulumi-chatbot\")",
		".version(Utilities.getVersion())",
		// The secret outputs are secret in the state and in the program.
		".additionalSecretOutputs(List.of(\n                \"auth\",\n                \"headers\",\n                \"token\"\n            ))",
		"public static WebhookConnection get(java.lang.String name, Output<java.lang.String> id, @Nullable WebhookConnectionState state, @Nullable com.pulumi.resources.CustomResourceOptions options) {",
		"CustomResourceOptions.merge(defaultOptions, options, id)",
		// The schema's description is the Javadoc.
		" * A ChatBot webhook connection (`/v2/integrations/webhook`).",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("WebhookConnection.java lacks %q", want)
		}
	}
	legacy := file(t, files, javaDir+"LegacyWebhook.java")
	if !strings.Contains(legacy, "public Output<Optional<List<Header>>> headers() {") {
		t.Error("LegacyWebhook.headers() is not Output<Optional<List<Header>>>")
	}
	provider := file(t, files, javaDir+"Provider.java")
	for _, want := range []string{
		`@ResourceType(type="pulumi:providers:chatbot")`,
		"public class Provider extends com.pulumi.resources.ProviderResource {",
		`super("chatbot", name, args == null ? ProviderArgs.Empty : args`,
		"public Provider(java.lang.String name, @Nullable ProviderArgs args) {",
	} {
		if !strings.Contains(provider, want) {
			t.Errorf("Provider.java lacks %q", want)
		}
	}
}

func TestSDKRequiredInputs(t *testing.T) {
	files := generate(t)
	args := file(t, files, javaDir+"WebhookConnectionArgs.java")
	thrown := regexp.MustCompile(`throw new MissingRequiredPropertyException\("WebhookConnectionArgs", "(\w+)"\)`).FindAllStringSubmatch(args, -1)
	var required []string
	for _, m := range thrown {
		required = append(required, m[1])
	}
	if got := strings.Join(required, ","); got != "storyId,url" {
		t.Errorf("build() requires %s, want storyId,url", got)
	}
	for _, want := range []string{
		`@Import(name="storyId", required=true)`,
		"public Output<String> storyId() {",
		"public Optional<Output<String>> name() {",
		"public Builder auth(@Nullable Output<BasicAuthArgs> auth) {",
		"public Builder auth(BasicAuthArgs auth) {",
		"public Builder headers(Map<String,String> headers) {",
		"public static final WebhookConnectionArgs Empty = new WebhookConnectionArgs();",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("WebhookConnectionArgs.java lacks %q", want)
		}
	}
	legacy := file(t, files, javaDir+"LegacyWebhookArgs.java")
	for _, want := range []string{
		"public Builder headers(List<HeaderArgs> headers) {",
		"public Builder headers(HeaderArgs... headers) {",
	} {
		if !strings.Contains(legacy, want) {
			t.Errorf("LegacyWebhookArgs.java lacks %q", want)
		}
	}
	basic := file(t, files, javaDir+"inputs/BasicAuthArgs.java")
	if !strings.Contains(basic, `throw new MissingRequiredPropertyException("BasicAuthArgs", "password")`) {
		t.Error("BasicAuthArgs does not require password")
	}
	state := file(t, files, javaDir+"inputs/WebhookConnectionState.java")
	if strings.Contains(state, "MissingRequiredPropertyException") || strings.Contains(state, "required=true") {
		t.Error("WebhookConnectionState requires a property: every state property is optional")
	}
	story := file(t, files, javaDir+"outputs/Story.java")
	for _, want := range []string{"@CustomType\npublic final class Story {", "@CustomType.Builder", "@CustomType.Setter",
		`throw new MissingRequiredPropertyException("Story", "id")`, "public String id() {"} {
		if !strings.Contains(story, want) {
			t.Errorf("outputs/Story.java lacks %q", want)
		}
	}
}

func TestSDKPluginAndVersion(t *testing.T) {
	files := generate(t)
	const resources = "src/main/resources/com/pulumichatbot/chatbot/"
	var plugin map[string]any
	if err := json.Unmarshal([]byte(file(t, files, resources+"plugin.json")), &plugin); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"resource": true, "name": "chatbot", "version": "0.2.0",
		"server": "github://api.github.com/pulumi-chatbot/pulumi-chatbot"}
	if fmt.Sprint(plugin) != fmt.Sprint(want) {
		t.Errorf("plugin.json = %v, want %v", plugin, want)
	}
	if got := file(t, files, resources+"version.txt"); got != "0.2.0\n" {
		t.Errorf("version.txt = %q", got)
	}
	if !strings.Contains(file(t, files, javaDir+"Utilities.java"), `"com/pulumichatbot/chatbot/version.txt"`) {
		t.Error("Utilities does not read the version.txt beside plugin.json")
	}
	pom := file(t, files, "pom.xml")
	for _, want := range []string{
		"<groupId>com.pulumichatbot</groupId>\n    <artifactId>chatbot</artifactId>\n    <version>0.2.0</version>",
		"<groupId>com.pulumi</groupId>\n            <artifactId>pulumi</artifactId>\n            <version>1.36.1</version>",
		"<maven.compiler.release>11</maven.compiler.release>",
		"<project.build.outputTimestamp>1980-01-01T00:00:02Z</project.build.outputTimestamp>",
		"<goal>jar-no-fork</goal>",
		"<url>https://github.com/pulumi-chatbot/pulumi-chatbot</url>",
	} {
		if !strings.Contains(pom, want) {
			t.Errorf("pom.xml lacks %q", want)
		}
	}
	config := file(t, files, javaDir+"Config.java")
	if !strings.Contains(config, `public Optional<Integer> retryMaxElapsedMs() {`) {
		t.Error("Config lacks retryMaxElapsedMs()")
	}
}

func TestSDKDeterministic(t *testing.T) {
	a, b := generate(t), generate(t)
	if len(a) != len(b) {
		t.Fatal("different file sets")
	}
	for name, text := range a {
		if string(b[name]) != string(text) {
			t.Errorf("%s differs between two runs", name)
		}
		if strings.Contains(string(text), "/work/") || strings.Contains(string(text), "/tmp/") {
			t.Errorf("%s names a machine path", name)
		}
	}
}

// A function of multi-argument inputs is written with one Args class, as the provider gets them.
func TestSDKRefusesFunctions(t *testing.T) {
	spec := testSpec(t)
	spec.Functions = map[string]schema.FunctionSpec{"chatbot:index:getThing": {
		Inputs: &schema.ObjectTypeSpec{Properties: map[string]schema.PropertySpec{
			"a": {TypeSpec: schema.TypeSpec{Type: "string"}},
		}},
		MultiArgumentInputs: []string{"a"},
	}}
	files, err := generateSDK(bindSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[javaDir+"inputs/GetThingArgs.java"]; !ok {
		t.Errorf("no GetThingArgs for a function of multi-argument inputs")
	}
}
