package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// A parameterized package names its base plugin and parameterization in plugin.json, registers
// itself once, and passes the reference on every resource and invoke.
func TestSDKParameterized(t *testing.T) {
	spec := functionSpec(t)
	spec.Parameterization = &schema.ParameterizationSpec{
		BaseProvider: schema.BaseProviderSpec{Name: "base", Version: "1.2.3"},
		Parameter:    []byte("hello"),
	}
	files, err := generateSDK(bindSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	var plugin map[string]any
	if err := json.Unmarshal([]byte(file(t, files, "src/main/resources/com/pulumichatbot/chatbot/plugin.json")), &plugin); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"resource": true, "name": "base", "version": "1.2.3",
		"server":           "github://api.github.com/pulumi-chatbot/pulumi-chatbot",
		"parameterization": map[string]any{"name": "chatbot", "version": "0.2.0", "value": "aGVsbG8="}}
	if fmt.Sprint(plugin) != fmt.Sprint(want) {
		t.Errorf("plugin.json = %v, want %v", plugin, want)
	}
	for name, wants := range map[string][]string{
		"Utilities.java":         {`.registerPackage("base", "1.2.3", "github://api.github.com/pulumi-chatbot/pulumi-chatbot", "chatbot", getVersion(), "aGVsbG8=", false);`},
		"WebhookConnection.java": {"makeResourceOptions(options, Codegen.empty()), false, Utilities.getPackageRef());"},
		"Provider.java":          {"false, Utilities.getPackageRef());"},
		"ChatbotFunctions.java":  {"Utilities.withVersion(options), Utilities.getPackageRef())"},
	} {
		text := file(t, files, javaDir+name)
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %s:\n%s", name, w, text)
			}
		}
	}
	// A plain package's SDK has none of it.
	for name, text := range generate(t) {
		if strings.Contains(string(text), "getPackageRef") || strings.Contains(string(text), "parameterization") {
			t.Errorf("%s of a plain package names a package reference or parameterization", name)
		}
	}
}

// An extension of a plain provider is named in extensionParameterization and registered as one; an
// extension of a parameterized provider is refused, with why.
func TestSDKExtension(t *testing.T) {
	spec := testSpec(t)
	spec.Provider = nil // an extension has the base provider's
	spec.Config = schema.ConfigSpec{}
	spec.ExtensionParameterization = &schema.ExtensionParameterizationSpec{
		BaseProvider: schema.BaseProviderRefSpec{Name: "base", Version: "1.2.3"},
		Parameter:    []byte("hello"),
	}
	files, err := generateSDK(bindSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	plugin := file(t, files, "src/main/resources/com/pulumichatbot/chatbot/plugin.json")
	if !strings.Contains(plugin, `"extensionParameterization": {`) || strings.Contains(plugin, `"parameterization"`) {
		t.Errorf("plugin.json:\n%s", plugin)
	}
	if !strings.Contains(file(t, files, javaDir+"Utilities.java"), `"chatbot", getVersion(), "aGVsbG8=", true);`) {
		t.Error("Utilities does not register the package as an extension")
	}
	spec.ExtensionParameterization.BaseProvider.Parameterization = &schema.BaseProviderParameterizationSpec{
		BasePlugin: schema.BaseProviderSpec{Name: "plugin", Version: "0.1.0"}, Parameter: []byte("x"),
	}
	if _, err := generateSDK(bindSpec(t, spec)); err == nil || !strings.Contains(err.Error(), "an extension of a parameterized provider") {
		t.Errorf("an extension of a parameterized provider: %v", err)
	}
}
