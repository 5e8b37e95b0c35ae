package toolgen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testSpec is a small spec the refusal tests check manifests against.
func testSpec() Spec {
	return Spec{
		"getThing": {ID: "getThing", Method: "GET", Path: "/api/things/{id}", Path_: map[string]bool{"id": true}, Query: map[string]bool{"limit": true}, Body: map[string]bool{}, Secured: true},
		"getMe":    {ID: "getMe", Method: "GET", Path: "/api/me", Path_: map[string]bool{}, Query: map[string]bool{}, Body: map[string]bool{}, Secured: true},
		"updateThing": {ID: "updateThing", Method: "PATCH", Path: "/api/things/{id}", Path_: map[string]bool{"id": true}, Query: map[string]bool{}, Body: map[string]bool{"name": true, "books": true}, Secured: true,
			ChangesData: true, JSON: true, Required: []string{"id", "books"}},
	}
}

const baseManifest = `
server: {name: test-server, title: Test, description: A test server., instructions: "Things. Tools that take out ({guarded}) ask first."}
toolsets:
  - {name: things, description: Things.}
shared_params:
  detail: {type: string, enum: [compact, full], default: compact, maps: local, description: Detail.}
tools:
  - name: get_thing
    title: Get thing
    toolset: things
    operations: [getThing]
    description: Get one thing.
    params:
      - {name: thing_id, type: id, required: true, maps: "path:id", description: Thing id.}
      - {name: limit, type: integer, default: 5, min: 1, max: 100, maps: "query:limit", description: Limit.}
      - use: detail
    annotations: {readOnly: true, destructive: false, idempotent: true, openWorld: false}
    guard: none
    requests: 1
    widest: [{thing_id: "{item}", limit: 100}]
  - name: update_thing
    title: Update thing
    default: true
    toolset: things
    operations: [getThing, updateThing]
    read_back: get_thing
    description: Rename or reorder a thing.
    params:
      - {name: thing_id, type: id, required: true, maps: "path:id", description: Thing id.}
      - {name: name, type: string, maps: "body:name", description: New name.}
      - {name: book_ids, type: id_list, min_items: 1, maps: "body:books", description: New order.}
    annotations: {readOnly: false, destructive: true, idempotent: true, openWorld: false, reason: Overwrites the order.}
    guard:
      kind: thing orders
      condition: when book_ids present
      binds_to: [thing_id, book_ids]
      takes_out: The order.
      stays: The books.
      reads: The books in their order.
      replay: The order has changed.
      digest_blind: The same order again.
    requests: {count: 1, max: 2, per_item: book_ids, note: A new order reads the thing first.}
`

func check(t *testing.T, manifest string) error {
	t.Helper()
	m, err := Parse([]byte(manifest))
	if err != nil {
		return err
	}
	return Check(m, testSpec())
}

func TestBaseManifestChecks(t *testing.T) {
	if err := check(t, baseManifest); err != nil {
		t.Fatalf("the base manifest must check out: %v", err)
	}
}

// TestRefusals: each broken manifest is refused with a message that names
// the tool and the field.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"unknown operationId", "operations: [getThing]\n", "operations: [getThingz]\n",
			[]string{"tool get_thing", "operations", "getThingz is not in spec"}},
		{"path param does not map", `maps: "path:id", description: Thing id.}
      - {name: limit`, `maps: "path:thingId", description: Thing id.}
      - {name: limit`, []string{"tool get_thing", "params.thing_id.maps", "path parameter thingId"}},
		{"query param does not map", `"query:limit"`, `"query:lim"`, []string{"tool get_thing", "params.limit.maps", "query parameter lim"}},
		{"body field does not map", `"body:books"`, `"body:bookz"`, []string{"tool update_thing", "params.book_ids.maps", "body parameter bookz"}},
		{"malformed maps", `"body:books"`, `"books"`, []string{"tool update_thing", "params.book_ids.maps", "is not local"}},
		{"annotation missing", "{readOnly: true, destructive: false, idempotent: true, openWorld: false}", "{readOnly: true, destructive: false, idempotent: true}",
			[]string{"tool get_thing", "annotations.openWorld", "is missing"}},
		{"readOnly missing", "{readOnly: false, destructive: true,", "{destructive: true,",
			[]string{"tool update_thing", "annotations.readOnly", "is missing"}},
		{"guarded tool not destructive", "{readOnly: false, destructive: true,", "{readOnly: false, destructive: false,",
			[]string{"tool update_thing", "guard", "must be marked destructive"}},
		{"when names no parameter", "condition: when book_ids present", "condition: when books present",
			[]string{"tool update_thing", "guard.condition", "when books present names no parameter"}},
		{"when names a required parameter", "condition: when book_ids present", "condition: when thing_id present",
			[]string{"tool update_thing", "guard.condition", "required parameter"}},
		{"bad condition", "condition: when book_ids present", "condition: sometimes",
			[]string{"tool update_thing", "guard.condition", `"sometimes" is not always`}},
		{"binds to unknown", "binds_to: [thing_id, book_ids]", "binds_to: [thing_id, nope]",
			[]string{"tool update_thing", "guard.binds_to", "nope is not a parameter"}},
		{"guard missing", "    guard: none\n", "\n", []string{"tool get_thing", "guard", "is missing"}},
		{"reads missing", "      reads: The books in their order.\n", "", []string{"tool update_thing", "guard.reads", "is missing"}},
		{"replay missing", "      replay: The order has changed.\n", "", []string{"tool update_thing", "guard.replay", "is missing"}},
		{"digest_blind missing", "      digest_blind: The same order again.\n", "", []string{"tool update_thing", "guard.digest_blind", "is missing"}},
		{"write tool without reason", ", reason: Overwrites the order.}", "}", []string{"tool update_thing", "annotations.reason"}},
		{"server description too long", "description: A test server.,", "description: " + strings.Repeat("x", 101) + ",",
			[]string{"server.description", "101 characters", "1 to 100"}},
		{"unknown toolset", "toolset: things\n    operations: [getThing]\n", "toolset: stuff\n    operations: [getThing]\n",
			[]string{"tool get_thing", "toolset", `"stuff"`}},
		{"toolset named as a shared package", "  - {name: things, description: Things.}\n", "  - {name: things, description: Things.}\n  - {name: kit, description: Kit.}\n",
			[]string{`toolset "kit"`, "tools/NAME", "absdata, compact, kit"}},
		{"toolset name that is no package name", "  - {name: things, description: Things.}\n", "  - {name: things, description: Things.}\n  - {name: Other-things, description: Kit.}\n",
			[]string{`toolset "Other-things"`, "lowercase letters and digits"}},
		{"example with an unknown argument", "    requests: 1\n", "    requests: 1\n    example: {thing_id: t1, colour: red}\n", []string{"tool get_thing", "example", "colour is not a parameter"}},
		{"unknown type", "type: id_list", "type: list", []string{"tool update_thing", "params.book_ids.type"}},
		{"integer without bounds", "min: 1, max: 100, ", "", []string{"tool get_thing", "params.limit", "needs min and max"}},
		{"pattern without enum", "{name: name, type: string, maps:", "{name: name, type: string, pattern: \"^x$\", maps:", []string{"tool update_thing", "params.name.pattern", "beside an enum"}},
		{"pattern not anchored", "{name: name, type: string, maps:", "{name: name, type: string, enum: [a], pattern: \"x\", maps:", []string{"tool update_thing", "params.name.pattern", "anchored"}},
		{"pattern that does not compile", "{name: name, type: string, maps:", "{name: name, type: string, enum: [a], pattern: \"^x($\", maps:", []string{"tool update_thing", "params.name.pattern", "missing closing"}},
		{"requests missing", "    requests: 1\n", "", []string{"tool get_thing", "requests", "is missing"}},
		{"requests zero", "    requests: 1\n", "    requests: 0\n", []string{"tool get_thing", "requests.count", "at least 1"}},
		{"requests max not above count", "count: 1, max: 2,", "count: 2, max: 2,", []string{"tool update_thing", "requests.max", "more than count"}},
		{"requests per unknown parameter", "per_item: book_ids", "per_item: thing_id", []string{"tool update_thing", "requests.per_item", "thing_id is not a list parameter"}},
		{"varying requests without a note", ", note: A new order reads the thing first.}", "}", []string{"tool update_thing", "requests.note", "needs a note"}},
		{"at_least_one_of names no parameter", "    guard:\n      kind", "    at_least_one_of: [name, nope]\n    guard:\n      kind", []string{"tool update_thing", "at_least_one_of", "nope is not a parameter"}},
		{"at_least_one_of names a required parameter", "    guard:\n      kind", "    at_least_one_of: [name, thing_id]\n    guard:\n      kind", []string{"tool update_thing", "at_least_one_of", "thing_id is always given"}},
		{"exactly_one_of of one", "    guard:\n      kind", "    exactly_one_of: [name]\n    guard:\n      kind", []string{"tool update_thing", "exactly_one_of", "needs at least 2"}},
		{"unknown kind of names", "{name: thing_id, type: id, required: true,", "{name: thing_id, names: thing, type: id, required: true,", []string{"tool get_thing", "params.thing_id.names", `"thing"`, "item, podcast"}},
		{"names on a string", "{name: name, type: string, maps:", "{name: name, names: item, type: string, maps:", []string{"tool update_thing", "params.name.names", "not a string"}},
		{"unknown format", "{name: name, type: string, maps:", "{name: name, type: string, format: url, maps:", []string{"tool update_thing", "params.name.format", `"url"`, "http_url"}},
		{"format on a list", "{name: book_ids, type: id_list,", "{name: book_ids, type: id_list, format: http_url,", []string{"tool update_thing", "params.book_ids.format", "string parameter"}},
		{"unknown permission", "operations: [getThing, updateThing]\n", "operations: [getMe, getThing, updateThing]\n    permission: canDelete\n",
			[]string{"tool update_thing", "permission", `"canDelete" is not one of update, delete, download, upload, admin`}},
		{"permission with a reason and no name", "operations: [getThing, updateThing]\n", "operations: [getMe, getThing, updateThing]\n    permission: {reason: Things are shared.}\n",
			[]string{"tool update_thing", "permission", `"" is not one of`}},
		{"permission without getMe", "operations: [getThing, updateThing]\n", "operations: [getThing, updateThing]\n    permission: delete\n",
			[]string{"tool update_thing", "operations", "add getMe"}},
		{"guard without a kind", "      kind: thing orders\n", "", []string{"tool update_thing", "guard.kind", `""`}},
		{"guard kind with punctuation", "kind: thing orders", "kind: things, orders", []string{"tool update_thing", "guard.kind", "short plural noun"}},
		{"instructions without the placeholder", "({guarded}) ask first", "ask first", []string{"server.instructions", "{guarded} 0 times"}},
		{"instructions missing", `, instructions: "Things. Tools that take out ({guarded}) ask first."}`, "}", []string{"server.instructions is missing"}},
		{"no default tool", "    title: Update thing\n    default: true\n", "    title: Update thing\n", []string{"no tool has default: true"}},
		{"a toolset switched off (every toolset is one step away)", "  - {name: things, description: Things.}\n", "  - {name: things, description: Things., default: \"off\"}\n",
			[]string{"field default not found in type toolgen.Toolset"}},
		{"discovery tool without hints", "tools:\n", "discovery:\n  - {name: list_things, title: List things, description: The things., input_schema: {type: object}, annotations: {readOnly: true}}\ntools:\n",
			[]string{"tool list_things", "annotations", "all four hints"}},
		{"discovery tool named as a tool", "tools:\n", "discovery:\n  - {name: get_thing, title: Get, description: Again., input_schema: {type: object}, annotations: {readOnly: true, destructive: false, idempotent: true, openWorld: false}}\ntools:\n",
			[]string{"tool get_thing", "declared twice"}},
		{"read tool without widest whose required parameter names nothing", `    widest: [{thing_id: "{item}", limit: 100}]` + "\n", "",
			[]string{"tool get_thing", "widest", "is missing", "thing_id has no names:", `{book_library}`, "{feed}"}},
		{"widest with an unknown placeholder", `"{item}"`, `"{book}"`, []string{"tool get_thing", "widest[0].thing_id", "{book} is not a placeholder", "{item}"}},
		{"widest with a placeholder unquoted", `"{item}"`, `{item}`, []string{"tool get_thing", "widest[0].thing_id", "is a mapping", "quoted"}},
		{"widest with an unknown argument", `limit: 100}]`, `limit: 100, colour: red}]`, []string{"tool get_thing", "widest[0]", "colour is not a parameter"}},
		{"widest without a required argument", `{thing_id: "{item}", limit: 100}`, `{limit: 100}`, []string{"tool get_thing", "widest[0]", "gives no thing_id"}},
		{"widest on a write tool", "    read_back: get_thing\n", "    read_back: get_thing\n    widest: [{}]\n", []string{"tool update_thing", "widest", "only a read tool"}},
		{"write tool without read_back", "    read_back: get_thing\n", "", []string{"tool update_thing", "read_back", "is missing"}},
		{"read_back that is no read tool", "    read_back: get_thing\n", "    read_back: update_thing\n", []string{"tool update_thing", "read_back", "update_thing is not a read tool"}},
		{"per without a note", "{count: 1, max: 2, per_item: book_ids, note: A new order reads the thing first.}", "{count: 1, per: 1 per book}", []string{"tool update_thing", "requests.note", "needs a note"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(baseManifest, c.old) {
				t.Fatalf("test bug: %q is not in the base manifest", c.old)
			}
			err := check(t, strings.Replace(baseManifest, c.old, c.new, 1))
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

// A tool that only adds may ask under effect conditions (what it adds
// could not be taken out without taking out more), never always or on a
// parameter's presence.
func TestAdditiveToolAsksOnlyOnEffects(t *testing.T) {
	additive := strings.Replace(baseManifest, "{readOnly: false, destructive: true,", "{readOnly: false, destructive: false,", 1)
	effect := strings.Replace(additive, "      condition: when book_ids present\n",
		"      condition: when effect fills_empty\n      effects:\n        fills_empty: fill a thing that holds no books\n", 1)
	if effect == additive {
		t.Fatal("test bug: the condition is not in the base manifest")
	}
	if err := check(t, effect); err != nil {
		t.Errorf("an additive tool guarded on an effect only: %v", err)
	}
	mixed := strings.Replace(effect, "condition: when effect fills_empty", "condition: when book_ids present or effect fills_empty", 1)
	for name, m := range map[string]string{"a parameter's presence": additive, "a parameter or an effect": mixed,
		"always": strings.Replace(effect, "condition: when effect fills_empty\n      effects:\n        fills_empty: fill a thing that holds no books\n", "condition: always\n", 1)} {
		if err := check(t, m); err == nil || !strings.Contains(err.Error(), "must be marked destructive") {
			t.Errorf("an additive tool guarded on %s: want refused as not destructive, got %v", name, err)
		}
	}
}

func TestUnknownFieldRefused(t *testing.T) {
	_, err := Parse([]byte(strings.Replace(baseManifest, "title: Get thing", "title: Get thing\n    titel: typo", 1)))
	if err == nil || !strings.Contains(err.Error(), "titel") {
		t.Fatalf("a misspelt field must be refused, got %v", err)
	}
}

func TestRenderedSchemaAndHandlers(t *testing.T) {
	m, err := Parse([]byte(baseManifest))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	s, err := InputSchema(&m.Tools[1])
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(s, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "thing_id" || schema.Additional != nil {
		t.Errorf("schema: %s", s)
	}
	if _, ok := schema.Properties["confirm_token"]; !ok {
		t.Errorf("a guarded tool must take confirm_token: %s", s)
	}
	reg := string(files[RegistryFile])
	// The conditional guard is generated from the condition, and the plan
	// executes only after the guard.
	for _, want := range []string{"if a.BookIDs != nil {", `d.Guard.Check(ctx, req, guard.Question{`, `Tool: "update_thing"`, "return plan.Execute(ctx)"} {
		if !strings.Contains(reg, want) {
			t.Errorf("registry lacks %q", want)
		}
	}
	if i, j := strings.Index(reg, "d.Guard.Check"), strings.Index(reg, "plan.Execute"); i < 0 || j < i {
		t.Error("the guard must come before the execution")
	}
	if strings.Contains(reg, "things.PlanGetThing") || !strings.Contains(reg, "things.GetThing(ctx, d, a)") {
		t.Error("an unguarded tool must not be planned through the guard")
	}
	if !strings.Contains(string(files[GuardDocFile]), "| `update_thing` | when `book_ids` is present |") {
		t.Errorf("guard table: %s", files[GuardDocFile])
	}
	doc := string(files[ToolsDocFile])
	for _, want := range []string{"| getThing | 1 |", "| getThing, updateThing | 1–2 + 1 per library item in `book_ids` |",
		"Requests to Audiobookshelf per call: 1–2 + 1 per library item in `book_ids`. A new order reads the thing first."} {
		if !strings.Contains(doc, want) {
			t.Errorf("tools.md lacks %q:\n%s", want, doc)
		}
	}
}

// A tool's permission reaches the registry, its handler (checked after the
// arguments, before the plan), docs/tools.md, docs/guards.md and
// docs/permissions.md; a tool without one is not checked.
func TestRenderedPermission(t *testing.T) {
	m, err := Parse([]byte(strings.Replace(baseManifest, "operations: [getThing, updateThing]\n",
		"operations: [getMe, getThing, updateThing]\n    permission: {name: delete, reason: Things are shared.}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(m, testSpec()); err != nil {
		t.Fatal(err)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	reg := string(files[RegistryFile])
	permit := `ctx, err = d.Permit(ctx, "update_thing", permission.Delete)`
	for _, want := range []string{"Permission: permission.Delete,", permit} {
		if strings.Count(reg, want) != 1 {
			t.Errorf("registry has %q %d times, want once", want, strings.Count(reg, want))
		}
	}
	decode, plan := strings.Index(reg, "toolargs.DecodeUpdateThing("), strings.Index(reg, "things.PlanUpdateThing(")
	if i := strings.Index(reg, permit); decode < 0 || i < decode || plan < i {
		t.Error("the permission must be checked after the arguments and before the plan")
	}
	for file, want := range map[string]string{
		ToolsDocFile: "Needs Audiobookshelf's `delete` permission (`canDelete`): Things are shared. A user without it is refused",
		GuardDocFile: "`delete` (`canDelete`) for `update_thing`.",
		PermsDocFile: "| without `delete` (`canDelete`) | 1: `update_thing` |\n",
	} {
		if !strings.Contains(string(files[file]), want) {
			t.Errorf("%s lacks %q:\n%s", file, want, files[file])
		}
	}
	if !strings.Contains(string(files[ToolsDocFile]), "| [`get_thing`](#get_thing) | read-only, idempotent | — |") {
		t.Errorf("tools.md: get_thing's permission column")
	}
}

// A guarded tool added to tools.yaml reaches the server's instructions and
// docs/guards.md by its kind, with no change to Go code: the real manifest
// with one more tool, rendered.
func TestNewGuardedKindReachesInstructions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("../..", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(append(b, []byte(`
  - name: forget_listening_history
    title: Forget history
    toolset: me
    operations: [getMe]
    requests: 1
    description: Forget it all.
    params: []
    annotations: {readOnly: false, destructive: true, idempotent: true, openWorld: false, reason: Forgets.}
    guard:
      kind: listening histories
      condition: always
      binds_to: [confirm_token]
      takes_out: All of it.
      stays: Nothing.
      reads: the history
      replay: Gone.
      digest_blind: Nowhere.
`)...))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := LoadSpec(filepath.Join("../..", SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(m, spec)
	if err != nil {
		t.Fatal(err)
	}
	reg := string(files[RegistryFile])
	i := strings.Index(reg, "const Instructions = ")
	if i < 0 {
		t.Fatal("the registry has no Instructions")
	}
	instr, _, _ := strings.Cut(reg[i:], "\n")
	if !strings.Contains(instr, "book metadata, covers, tags and genres, authors and series, listening histories) ask the person first") {
		t.Errorf("the new kind is not in the instructions: %s", instr)
	}
	if !strings.Contains(string(files[GuardDocFile]), "; listening histories (`forget_listening_history`).") {
		t.Errorf("guards.md does not name the new kind")
	}
	// The real manifest's kinds, each once, in the instructions' list.
	real, err := Load(filepath.Join("../..", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	kinds := real.GuardedKinds()
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k] {
			t.Errorf("kind %q twice", k)
		}
		seen[k] = true
	}
	if len(kinds) < 8 || !strings.Contains(real.Instructions(), "("+strings.Join(kinds, ", ")+") ask the person first") {
		t.Errorf("the instructions do not list the kinds %q: %s", kinds, real.Instructions())
	}
}

// TestGeneratedFilesAreCurrent is the drift check: the manifest checks out
// against the real spec, and every generated file on disk is exactly what
// the generator makes from them now. Run `make generate` when it fails.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root := "../.."
	files, err := Build(root)
	if err != nil {
		t.Fatalf("tools.yaml does not check out against the spec: %v", err)
	}
	if stale := Stale(root, files); len(stale) > 0 {
		t.Fatalf("generated files are not current (run make generate): %s", strings.Join(stale, ", "))
	}
}

// guardRows reads the tool and "asks" columns of a markdown table whose
// header starts with "| tool | asks |".
func guardRows(t *testing.T, md string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| tool | asks |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		asks := strings.ReplaceAll(strings.TrimSpace(cells[2]), " is present", " present")
		rows[name] = strings.ReplaceAll(asks, "`", "")
	}
	return rows
}

// beyondTheContract names the guards this project adds to the contract's
// eight, each because what it takes out cannot be put back from here:
// set_media_progress when it would clear a finished date (the tool takes no
// date), and the tools of the podcasts and upkeep toolsets that take
// something out. A new row in docs/guards.md that is not here fails the test
// below, so adding a question is a reviewed decision, not an accident.
var beyondTheContract = map[string]bool{
	"set_media_progress":     true,
	"delete_podcast_episode": true,
	"delete_podcast":         true,
	"match_library_item":     true,
	// add_items_to_playlist on a playlist that holds no entries (its
	// put-back would make Audiobookshelf delete the playlist), and
	// update_item_metadata taking an author or series off its last book
	// (Audiobookshelf deletes the record; the name put back is a new one).
	"add_items_to_playlist": true,
	"update_item_metadata":  true,
	// update_bookmark replacing a title its put-back could not carry (a
	// control character its arguments refuse, as the CR of a CRLF; a blank
	// or too long title): the contract's rule that a tool asks where its
	// put-back cannot give the record back exactly.
	"update_bookmark": true,
	// remove_item_cover: Audiobookshelf forgets which file is the cover,
	// and no tool here points it at that file again; set_item_cover on an
	// item that has a cover: Audiobookshelf overwrites or deletes the old
	// cover file.
	"remove_item_cover": true,
	"set_item_cover":    true,
	// set_item_chapters on a book that has chapters: no tool here takes a
	// list of chapters to set them back.
	"set_item_chapters": true,
	// rename_tag and rename_genre onto a name some item already holds (a
	// merge the rename back cannot split) or where the old name is not
	// last on some item (Audiobookshelf appends the new name at the end,
	// so the rename back cannot give the order back).
	"rename_tag":   true,
	"rename_genre": true,
	// merge_authors and merge_series: Audiobookshelf takes the merged-away
	// author or series record out (with its description, ASIN, image), and
	// no call here makes it again.
	"merge_authors": true,
	"merge_series":  true,
	// update_author where an image from a URL writes over the old file,
	// update_author and update_series where the old text could not be
	// given back exactly (a series' null description), and
	// resolve_duplicate always: the copy's item record, every user's
	// progress of it and its collection and playlist places.
	"update_author":     true,
	"update_series":     true,
	"resolve_duplicate": true,
	// batch_update_books where one call of it could not give every book
	// back exactly (text somebody typed replaced, values taken from the
	// middle of a list, a series replaced or left without a book), and
	// batch_quick_match always: a provider's metadata and covers written
	// over many items in the background, which nothing here puts back.
	"batch_update_books": true,
	"batch_quick_match":  true,
	// rename_narrator likewise, and where the user of the key does not see
	// every book (Audiobookshelf renames on those too, unread).
	"rename_narrator": true,
	// merge_tags, merge_genres and merge_narrators take names out, always:
	// no rename back can tell which item held which spelling.
	"merge_tags":      true,
	"merge_genres":    true,
	"merge_narrators": true,
}

// readContract finds shared/reference/guard.md beside the repository or
// beside any folder above it, so a worktree or a clone placed deeper still
// checks against the contract.
func readContract() ([]byte, error) {
	dir, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, os.ErrNotExist
		}
		if b, err := os.ReadFile(filepath.Join(parent, "shared", "reference", "guard.md")); err == nil {
			return b, nil
		}
		dir = parent
	}
}

// TestGuardTableMatchesTheContract compares docs/guards.md with the table of
// the guard contract (shared/reference/guard.md beside the repository): the
// contract's eight tools, each asking under the contract's condition (which
// must lead the row; alternatives may follow it), plus exactly the guards
// named in beyondTheContract.
func TestGuardTableMatchesTheContract(t *testing.T) {
	contract, err := readContract()
	if err != nil {
		t.Skipf("the guard contract is not beside this repository or a folder above it (%v)", err)
	}
	doc, err := os.ReadFile("../../docs/guards.md")
	if err != nil {
		t.Fatal(err)
	}
	want, got := guardRows(t, string(contract)), guardRows(t, string(doc))
	if len(want) != 8 {
		t.Fatalf("read %d rows from guard.md, want 8: %v", len(want), want)
	}
	for tool, asks := range want {
		if beyondTheContract[tool] {
			t.Errorf("%s is in the contract's table and in beyondTheContract; take it out of beyondTheContract", tool)
		}
		// A condition may have gained alternatives ("; or when it would …")
		// where a put-back could not restore exactly; the contract's own
		// condition must still lead it.
		if !strings.HasPrefix(got[tool], asks) {
			t.Errorf("%s: docs/guards.md says %q, the contract %q", tool, got[tool], asks)
		}
	}
	for tool, asks := range got {
		if _, ok := want[tool]; ok {
			continue
		}
		if !beyondTheContract[tool] {
			t.Errorf("docs/guards.md guards %s (%q), which is neither in the contract nor in beyondTheContract", tool, asks)
		} else if asks == "" {
			t.Errorf("docs/guards.md guards %s with no condition", tool)
		}
	}
	for tool := range beyondTheContract {
		if _, ok := got[tool]; !ok {
			t.Errorf("beyondTheContract names %s, but docs/guards.md has no row for it", tool)
		}
	}
}

// A string parameter with an enum and a pattern: the checked schema takes
// either (anyOf), the decoder checks the same, tools.md says so, and
// tools/list shows a string whose description names the values (the
// generator refuses one that does not).
func TestEnumWithPattern(t *testing.T) {
	enum := strings.Replace(baseManifest, "{name: name, type: string, maps:", "{name: name, type: string, enum: [a, b], pattern: \"^custom-[a-z]{1,8}$\", maps:", 1)
	if m, err := Parse([]byte(enum)); err != nil {
		t.Fatal(err)
	} else if err := Check(m, testSpec()); err == nil || !strings.Contains(err.Error(), `params.name.description: names no "b"`) {
		t.Errorf("a description that names no value beside a pattern: %v", err)
	}
	manifest := strings.Replace(enum, "description: New name.}", "description: \"a, b or custom-NAME\"}", 1)
	m, err := Parse([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(m, testSpec()); err != nil {
		t.Fatal(err)
	}
	s, err := CheckedSchema(&m.Tools[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s), `"name":{"type":"string","anyOf":[{"enum":["a","b"]},{"pattern":"^custom-[a-z]{1,8}$"}]`) {
		t.Errorf("checked schema: %s", s)
	}
	if s, err = InputSchema(&m.Tools[1]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s), `"name":{"type":"string","description":"a, b or custom-NAME"}`) {
		t.Errorf("listed schema: %s", s)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		ArgsFile:     `Enum: []string{"a", "b"}, Pattern: "^custom-[a-z]{1,8}$"}`,
		ToolsDocFile: "one of a, b, or matching `^custom-[a-z]{1,8}$`",
	} {
		if !strings.Contains(string(files[file]), want) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
}

// A read tool's widest call defaults to its required parameters set to the
// placeholders of their names:; the registry carries it.
func TestDefaultWidestCall(t *testing.T) {
	named := strings.Replace(strings.Replace(baseManifest, `    widest: [{thing_id: "{item}", limit: 100}]`+"\n", "", 1),
		"{name: thing_id, type: id, required: true,", "{name: thing_id, names: collection, type: id, required: true,", 1)
	m, err := Parse([]byte(named))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(m, testSpec()); err != nil {
		t.Fatalf("a read tool whose required parameter has names: needs no widest: %v", err)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	if reg := string(files[RegistryFile]); !strings.Contains(reg, `Widest:     []map[string]any{{"thing_id": "{collection}"}}`) {
		t.Errorf("the registry does not carry the default widest call:\n%s", reg)
	}
}

// The write table comes from the spec's 200 and the tools' read_back; two
// tools that send the same write read it back with one tool.
func TestWritesFromSpecAndReadBack(t *testing.T) {
	m, err := Parse([]byte(baseManifest))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(m, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	want := "{Operation: \"updateThing\", Method: \"PATCH\", Path: regexp.MustCompile(`/api/things/[^/]+$`), Required: []string{\"id\", \"books\"}, ReadBack: \"get_thing\"}"
	if w := string(files[WritesFile]); !strings.Contains(w, want) || strings.Contains(w, `"getThing"`) {
		t.Errorf("gen/writes lacks %s, or holds the read:\n%s", want, w)
	}
	second := strings.Replace(baseManifest, "tools:\n", `tools:
  - name: rename_thing
    title: Rename thing
    toolset: things
    operations: [updateThing]
    read_back: update_thing_list
    description: Rename.
    params:
      - {name: thing_id, type: id, required: true, maps: "path:id", description: Thing id.}
    annotations: {readOnly: false, destructive: false, idempotent: true, openWorld: false, reason: Renames.}
    guard: none
    requests: 1
`, 1)
	err = check(t, second)
	if err == nil || !strings.Contains(err.Error(), "update_thing_list is not a read tool") || !strings.Contains(err.Error(), "a change is read back with one tool") {
		t.Errorf("two read_backs of one write: %v", err)
	}
	spec := testSpec()
	spec["updateThing"].JSON, spec["updateThing"].Required = false, nil
	if m, _ := Parse([]byte(baseManifest)); Check(m, spec) == nil || !strings.Contains(Check(m, spec).Error(), "neither PlainOK nor a JSON object") {
		t.Errorf("a write whose 200 says nothing was accepted: %v", Check(m, spec))
	}
}

// An example gives ids where a parameter takes names: a title costs the
// reads of its lookup, which the example's request count does not hold.
func TestExampleGivesIDs(t *testing.T) {
	named := strings.Replace(baseManifest, "{name: thing_id, type: id, required: true,", "{name: thing_id, names: item, type: id, required: true,", 1)
	withExample := func(v string) string {
		return strings.Replace(named, "    requests: 1\n", "    requests: 1\n    example: {thing_id: "+v+"}\n", 1)
	}
	if err := check(t, withExample(`"d7e30ecb-fe00-44a6-91d2-23bc989c0628"`)); err != nil {
		t.Errorf("an example with an id: %v", err)
	}
	err := check(t, withExample("Mort"))
	if err == nil || !strings.Contains(err.Error(), "tool get_thing: example.thing_id") || !strings.Contains(err.Error(), `"Mort" is not an id`) {
		t.Errorf("an example with a title: %v", err)
	}
}
