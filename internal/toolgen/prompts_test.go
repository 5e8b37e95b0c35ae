package toolgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// promptsManifest is the base manifest with a prompt and a resource
// template of each kind.
const promptsManifest = baseManifest + `
prompts:
  - name: ask_about_thing
    title: Ask about a thing
    toolset: things
    description: Ask about one thing.
    arguments:
      - {name: thing, title: Thing, description: "The thing, by name.", required: true, names: item}
      - {name: parts, title: Parts, description: Only these parts., type: string_list, enum: [top, bottom]}
resources:
  - uri_template: "test://things/{id}"
    name: thing
    title: A thing
    description: One thing by its id.
    mime_type: application/json
    tool: get_thing
    variable: {name: id, param: thing_id, names: item}
`

func TestPromptsAndResourcesCheckOut(t *testing.T) {
	if err := check(t, promptsManifest); err != nil {
		t.Fatalf("the manifest with prompts must check out: %v", err)
	}
}

// TestPromptAndResourceRefusals: each broken prompt or resource is refused
// naming it and the field.
func TestPromptAndResourceRefusals(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"prompt of no toolset", "    toolset: things\n    description: Ask", "    toolset: stuff\n    description: Ask", []string{"prompt ask_about_thing", "toolset", `"stuff"`}},
		{"prompt name", "name: ask_about_thing", "name: Ask-about", []string{"prompt Ask-about", "name", "snake_case"}},
		{"prompt without a description", "    description: Ask about one thing.\n", "", []string{"prompt ask_about_thing", "title, description"}},
		{"unknown kind of names", "required: true, names: item}", "required: true, names: thing}", []string{"prompt ask_about_thing", "arguments[0].names", `"thing"`}},
		{"names and enum", "required: true, names: item}", "required: true, names: item, enum: [a]}", []string{"prompt ask_about_thing", "arguments[0]", "exclude each other"}},
		{"list without enum", "type: string_list, enum: [top, bottom]}", "type: string_list}", []string{"prompt ask_about_thing", "arguments[1].type", "takes an enum"}},
		{"argument of another type", "type: string_list, enum: [top, bottom]}", "type: integer}", []string{"prompt ask_about_thing", "arguments[1].type", `"integer"`}},
		{"argument twice", "{name: parts,", "{name: thing,", []string{"prompt ask_about_thing", "arguments[1].name", "declared twice"}},
		{"resource of no tool", "    tool: get_thing\n    variable", "    tool: get_things\n    variable", []string{"resource thing", "tool", `"get_things"`}},
		{"resource of a write tool", "    tool: get_thing\n    variable", "    tool: update_thing\n    variable", []string{"resource thing", "update_thing is not read-only"}},
		{"variable not in the template", `"test://things/{id}"`, `"test://things/{thing}"`, []string{"resource thing", "uri_template, variable", "one variable"}},
		{"variable fills no parameter", "param: thing_id,", "param: thing,", []string{"resource thing", "variable.param", `"thing" is not a parameter of get_thing`}},
		{"variable fills no id", "param: thing_id,", "param: limit,", []string{"resource thing", "variable.param", "limit of get_thing is a integer", "requires thing_id"}},
		{"uri and uri_template", `  - uri_template: "test://things/{id}"`, "  - uri: test://things\n    uri_template: \"test://things/{id}\"", []string{"resource thing", "give exactly one"}},
		{"fixed uri of a tool that needs an id", `  - uri_template: "test://things/{id}"`, "  - uri: test://things", []string{"resource thing", "a fixed uri has no variable"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(promptsManifest, c.old) {
				t.Fatalf("test bug: %q is not in the manifest", c.old)
			}
			err := check(t, strings.Replace(promptsManifest, c.old, c.new, 1))
			if err == nil {
				t.Fatal("the manifest was accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestPromptFunctionIsNamed: a prompt without its function in its
// toolset's package is refused by name; the registry calls the function
// and declares the arguments' kinds and values.
func TestPromptFunctionIsNamed(t *testing.T) {
	m, err := Parse([]byte(promptsManifest))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "tools", "things")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "things.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package things\n\nfunc GetThing() {}\n\nfunc PlanUpdateThing() {}\n")
	if err := CheckCode(root, m); err == nil || !strings.Contains(err.Error(), "prompt ask_about_thing: tools/things has no func PromptAskAboutThing(ctx context.Context, d *kit.Deps, a naming.PromptArgs) (string, error)") {
		t.Errorf("a prompt without its function: %v", err)
	}
	write("package things\n\nfunc GetThing() {}\n\nfunc PlanUpdateThing() {}\n\nfunc PromptAskAboutThing() {}\n")
	if err := CheckCode(root, m); err != nil {
		t.Errorf("complete: %v", err)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	reg := string(files[RegistryFile])
	for _, w := range []string{
		"Text: things.PromptAskAboutThing,",
		`{Name: "thing", Description: "The thing, by name.", Required: true, Names: "item"},`,
		`{Name: "parts", Description: "Only these parts.", Enum: []string{"top", "bottom"}, List: true},`,
		`Description: "Only these parts, separated by commas: top, bottom; all of them when left out."`,
		`Template: &mcp.ResourceTemplate{URITemplate: "test://things/{id}", Name: "thing", Title: "A thing",`,
		`Tool: "get_thing",`,
		`Param: "thing_id", Names: "item",`,
	} {
		if !strings.Contains(reg, w) {
			t.Errorf("the registry lacks %s", w)
		}
	}
}
