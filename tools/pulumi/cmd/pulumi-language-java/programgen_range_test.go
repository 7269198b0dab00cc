package main

import (
	"strings"
	"testing"
)

func TestProgramRange(t *testing.T) {
	program := bindPCL(t, `
config "count" "int" {}
config "names" "list(string)" {}
config "byKey" "map(string)" {}
config "create" "bool" {}
resource num "chatbot:index:WebhookConnection" {
    options { range = count }
    storyId = "s-${range.value}"
    url = "u"
}
resource lst "chatbot:index:WebhookConnection" {
    options { range = names }
    storyId = "${range.key}:${range.value}"
    url = "u"
}
resource byMap "chatbot:index:WebhookConnection" {
    options { range = byKey }
    storyId = range.value
    url = "u"
}
resource maybe "chatbot:index:WebhookConnection" {
    options { range = create }
    storyId = "x"
    url = "u"
}
resource target "chatbot:index:WebhookConnection" {
    storyId = maybe.storyId
    url = "${num[0].url}+"
}
resource dyn "chatbot:index:WebhookConnection" {
    options { range = names }
    storyId = "${lst[range.key].url}!"
    url = byMap["k1"].url
}
`)
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	app := string(files["App.java"])
	for _, want := range []string{
		// A number: a list of resources named name-<index>.
		"final var num = new ArrayList<WebhookConnection>();\n" +
			"        for (var _i = 0; _i < count; _i++) {\n" +
			"            final var _value = _i;\n" +
			`            num.add(new WebhookConnection("num-" + _value, WebhookConnectionArgs.builder()`,
		// A list: its index and element.
		"for (var _it = names.listIterator(); _it.hasNext(); ) {\n" +
			"            final var _key = _it.nextIndex();\n" +
			"            final var _value = _it.next();\n" +
			`            lst.add(new WebhookConnection("lst-" + _key, `,
		`.storyId(("" + _key + ":" + _value))`,
		// A map: in key order, into a map by key.
		"final var byMap = new LinkedHashMap<String, WebhookConnection>();\n" +
			"        for (var _entry : new TreeMap<>(byKey).entrySet()) {",
		`byMap.put(_key, new WebhookConnection("byMap-" + _key, `,
		// A bool: the resource or null.
		`final var maybe = create ? new WebhookConnection("maybe", `,
		// References to them, by a literal key and by the loop's.
		".storyId(maybe.storyId())",
		`.url(num.get(0).url().applyValue(_v0 -> ("" + _v0 + "+")))`,
		`.storyId(lst.get(_key).url().applyValue(_v0 -> ("" + _v0 + "!")))`,
		`.url(byMap.get("k1").url())`,
	} {
		if !strings.Contains(app, want) {
			t.Errorf("App.java lacks %s:\n%s", want, app)
		}
	}
}

func TestProgramRangeOverOutput(t *testing.T) {
	// A range over an output makes the resources in an apply over it.
	program := bindPCL(t, `
resource first "chatbot:index:WebhookConnection" {
    storyId = "s"
    url = "u"
}
resource copies "chatbot:index:WebhookConnection" {
    options { range = length(first.url) }
    storyId = "s-${range.value}"
    url = first.url
}
`)
	files, diags, err := generateProgram(program)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	app := string(files["App.java"])
	want := "final var copies = first.url().applyValue(_v0 -> (int) Pattern.compile(\"\\\\X\").matcher(_v0).results().count()).applyValue(_range -> {\n" +
		"            final var _resources = new ArrayList<WebhookConnection>();\n" +
		"            for (var _i = 0; _i < _range; _i++) {\n"
	if !strings.Contains(app, want) || !strings.Contains(app, "return _resources;\n        });") {
		t.Errorf("App.java lacks %s:\n%s", want, app)
	}
}
