package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// hostileIDs are ids that would change a request's path or query, or hide
// something, if they reached a URL as they are.
var hostileIDs = []string{
	"", " ", "/", "a/b", "//evil.example/x", ".", "..", "../../status", "./x", "..%2F..%2Fstatus",
	"?", "a?b=1", "#", "a#b", "%2F", "a%2Fb", "%2e%2e", "%00", "&token=x", "a;b", `a\b`, `..\..\x`,
	"a b", "a\x00b", "a\nb", "a\rb", "\x1b[2J", "a\tb", "\u202eab", "a\u200bb", "\ufeffa", "é",
	"http://evil.example", "@evil", "_a", "-a", strings.Repeat("a", 129), strings.Repeat("a", 10_000),
}

// schemaProp is the part of a property's JSON schema the table reads.
type schemaProp struct {
	Type      string        `json:"type"`
	Enum      []string      `json:"enum"`
	Minimum   *float64      `json:"minimum"`
	Maximum   *float64      `json:"maximum"`
	MinLength *int          `json:"minLength"`
	MaxLength *int          `json:"maxLength"`
	MinItems  *int          `json:"minItems"`
	MaxItems  *int          `json:"maxItems"`
	Items     *schemaProp   `json:"items"`
	Props     map[string]sp `json:"properties"`
}

type sp = schemaProp

type toolSchema struct {
	Properties map[string]schemaProp `json:"properties"`
	Required   []string              `json:"required"`
}

// badValues are values of one property that its tool must refuse, from its
// schema: wrong types, out-of-range, non-finite and non-whole numbers, bad
// ids, empty and oversized lists and strings, control characters.
func badValues(name string, p schemaProp) []any {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	wrongTypes := []any{raw("{}"), raw("[]"), raw("true"), raw("7"), raw(`"7"`)}
	var out []any
	keep := func(vs ...any) { out = append(out, vs...) }
	switch p.Type {
	case "string":
		for _, w := range wrongTypes {
			if s, ok := w.(json.RawMessage); ok && s[0] == '"' {
				continue // a string is the right type
			}
			keep(w)
		}
		switch {
		case strings.HasSuffix(name, "_id"):
			for _, id := range hostileIDs {
				keep(id)
			}
		case len(p.Enum) > 0:
			keep("", "x", strings.ToUpper(p.Enum[0]), p.Enum[0]+" ", p.Enum[0]+"\x00", strings.Repeat("a", 10_000))
		default:
			keep("a\x00b", "\x1b[31mred", "a\x7fb", "a\u0085b")
			if p.MinLength != nil && *p.MinLength > 0 {
				keep("")
			}
			if p.MaxLength != nil {
				keep(strings.Repeat("a", *p.MaxLength+1), strings.Repeat("é", *p.MaxLength+1))
			}
		}
	case "integer", "number":
		for _, w := range wrongTypes {
			if s, ok := w.(json.RawMessage); ok && s[0] >= '0' && s[0] <= '9' {
				continue
			}
			keep(w)
		}
		keep("NaN", "Infinity", "-Infinity", raw("1e999"), raw("-1e999"), raw("1e308"), raw("-1e308"),
			raw("9223372036854775808"), raw("-9223372036854775809"))
		if p.Minimum != nil {
			keep(*p.Minimum-1, *p.Minimum-0.000001)
			if *p.Minimum >= 0 {
				keep(-1)
			}
		}
		if p.Maximum != nil {
			keep(*p.Maximum+1, *p.Maximum*10)
		}
		if p.Type == "integer" {
			keep(1.5, raw("2e-1"))
		}
	case "boolean":
		keep(raw(`"true"`), raw("1"), raw("0"), raw(`"yes"`), raw("[]"), raw("{}"))
	case "object": // update_item_metadata's fields
		keep(raw(`"a"`), raw("[]"), raw("7"), raw("true"), raw("{}"),
			map[string]any{"cover": "1"}, map[string]any{"isbn": strings.Repeat("1", 51)}, map[string]any{"explicit": "yes"}, map[string]any{"title": ""}, map[string]any{"title": "a\x00b"},
			map[string]any{"authors": "a"}, map[string]any{"authors": []any{7}}, map[string]any{"authors": []any{"a", "A"}},
			map[string]any{"series": []any{map[string]any{"sequence": "1"}}}, map[string]any{"series": []any{map[string]any{"name": "a", "x": 1}}},
			map[string]any{"tags": make([]any, 101)}, map[string]any{"description": strings.Repeat("a", 100_001)},
			map[string]any{"publish_year": strings.Repeat("1", 21)})
	case "array":
		keep(raw(`"a"`), raw("{}"), raw("7"), raw("true"))
		if p.MinItems != nil && *p.MinItems > 0 {
			keep([]any{})
		}
		big := 10_000
		if p.MaxItems != nil && *p.MaxItems >= big {
			big = *p.MaxItems + 1
		}
		if p.Items != nil && p.Items.Type == "object" {
			many := make([]any, big)
			for i := range many {
				many[i] = map[string]any{"library_item_id": fmt.Sprintf("li-%d", i)}
			}
			keep(many)
			keep([]any{7}, []any{nil}, []any{"a"}, []any{[]any{}}, []any{map[string]any{}},
				[]any{map[string]any{"library_item_id": "a", "x": 1}},
				[]any{map[string]any{"library_item_id": "a"}, map[string]any{"library_item_id": "a"}},
				[]any{map[string]any{"library_item_id": "a", "episode_id": "e"}, map[string]any{"library_item_id": "b"}})
			for _, id := range hostileIDs {
				keep([]any{map[string]any{"library_item_id": id}},
					[]any{map[string]any{"library_item_id": "a", "episode_id": id}})
			}
		} else if p.Items != nil && p.Items.MaxLength != nil {
			// A list of names (tools.yaml's string_list: tags, genres,
			// narrators), not of ids: each entry is one line of text.
			many := make([]any, big)
			for i := range many {
				many[i] = fmt.Sprintf("name-%d", i)
			}
			keep(many)
			keep([]any{7}, []any{nil}, []any{[]any{}}, []any{"a", "a"}, []any{""}, []any{"  "}, []any{"a\nb"}, []any{"a\tb"},
				[]any{"a\x00b"}, []any{"\x1b[31mred"}, []any{"a\x7fb"}, []any{"a\u0085b"}, []any{strings.Repeat("a", *p.Items.MaxLength+1)})
		} else {
			many := make([]any, big)
			for i := range many {
				many[i] = fmt.Sprintf("li-%d", i)
			}
			keep(many)
			keep([]any{7}, []any{nil}, []any{[]any{}}, []any{"a", "a"})
			for _, id := range hostileIDs {
				keep([]any{"a", id})
			}
		}
	}
	return out
}

// validArgs are arguments each tool decodes; the table changes one at a time.
func validArgs(tool string, s toolSchema) map[string]any {
	args := map[string]any{}
	set := func(name string) {
		p := s.Properties[name]
		switch {
		case name == "library_item_ids":
			args[name] = []any{sd.ItemColourOfMagic}
		case name == "items":
			args[name] = []any{map[string]any{"library_item_id": sd.ItemColourOfMagic}}
		case name == "fields":
			// Not "x": a book titled so would be the exact name (punctuation
			// aside) of the hostile value "./x", which then names it.
			args[name] = map[string]any{"title": "A valid title"}
		case name == "library_id":
			args[name] = sd.LibraryBooksID
		case name == "keep_item_id":
			args[name] = sd.ItemLightFantastic // a copy kept that is not the one removed
		case name == "into_author_id" || name == "into_series_id":
			args[name] = sd.ItemLightFantastic // a merge into the same record is refused
		case strings.HasSuffix(name, "_id"):
			args[name] = sd.ItemColourOfMagic
		case name == "year":
			args[name] = 2025
		case name == "from" || name == "to":
			args[name] = "2025-01-01"
		case name == "current_time":
			args[name] = 60
		case name == "feed_url":
			args[name] = sd.FeedOrbital
		case name == "url" || name == "image_url": // an image Audiobookshelf would fetch
			args[name] = "https://images.example/cover.jpg"
		case name == "term":
			args[name] = "x"
		case name == "new_tag" || name == "new_genre" || name == "new_narrator" || strings.HasPrefix(name, "into_"):
			args[name] = "y" // a rename onto the same name is refused, a merge into one it takes out too
		case p.Type == "array" && p.Items != nil && p.Items.MaxLength != nil: // a merge's names
			args[name] = []any{"x", "z"}
		case p.Type == "number":
			args[name] = 1.5
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.Type == "string":
			// Not "x": a record named so (a collection, a playlist) would
			// be the exact name (punctuation aside) of the hostile "./x".
			args[name] = "valid words"
		}
	}
	for _, r := range s.Required {
		set(r)
	}
	// A library_id the schema lets a user with one library leave out is
	// given (the sample has two).
	if _, ok := s.Properties["library_id"]; ok {
		set("library_id")
	}
	// Something to change.
	switch {
	case tool == "set_media_progress":
		set("current_time")
	case strings.HasPrefix(tool, "update_") && tool != "update_bookmark":
		set("name")
	case tool == "download_podcast_episodes":
		args["newest"] = 1
	case tool == "batch_update_books": // field tags takes values
		args["values"] = []any{"x"}
	case tool == "check_owned": // titles or text
		args["titles"] = []any{"A valid title"}
	}
	return args
}

type hostileCase struct {
	tool, arg string
	args      map[string]any
}

// checkedSchema is a tool's schema with every bound its decoder checks
// (toolgen.CheckedSchema: tools/list leaves the length and size bounds
// out), read from tools.yaml.
func checkedSchema(t *testing.T, name string) toolSchema {
	t.Helper()
	checkedOnce.Do(func() {
		m, err := toolgen.Load("../../tools.yaml")
		if err != nil {
			checkedErr = err
			return
		}
		checked = map[string]toolSchema{}
		for i := range m.Tools {
			b, err := toolgen.CheckedSchema(&m.Tools[i])
			if err != nil {
				checkedErr = err
				return
			}
			var s toolSchema
			if err := json.Unmarshal(b, &s); err != nil {
				checkedErr = err
				return
			}
			checked[m.Tools[i].Name] = s
		}
	})
	if checkedErr != nil {
		t.Fatal(checkedErr)
	}
	s, ok := checked[name]
	if !ok {
		t.Fatalf("%s: not in tools.yaml", name)
	}
	return s
}

var (
	checkedOnce sync.Once
	checked     map[string]toolSchema
	checkedErr  error
)

func hostileCases(t *testing.T) []hostileCase {
	var cases []hostileCase
	for _, tool := range registry.All {
		s := checkedSchema(t, tool.Name)
		base := validArgs(tool.Name, s)
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, v := range badValues(n, s.Properties[n]) {
				args := map[string]any{}
				for k, bv := range base {
					args[k] = bv
				}
				args[n] = v
				cases = append(cases, hostileCase{tool.Name, n, args})
			}
		}
		for _, r := range s.Required {
			args := map[string]any{}
			for k, bv := range base {
				if k != r {
					args[k] = bv
				}
			}
			cases = append(cases, hostileCase{tool.Name, r, args})
			args = map[string]any{}
			for k, bv := range base {
				args[k] = bv
			}
			args[r] = nil
			cases = append(cases, hostileCase{tool.Name, r, args})
		}
		for _, extra := range []string{"zzz", "library_id\u0000", "__proto__", "confirm_token "} {
			args := map[string]any{extra: "x"}
			for k, bv := range base {
				args[k] = bv
			}
			cases = append(cases, hostileCase{tool.Name, extra, args})
		}
	}
	return cases
}

// nameReads are the only requests a title or a name given where an id is
// may cause (tools/naming/resolve.go): the lists it is looked up in, the
// searches that carry it in their query, never in a path, and a library's
// complete listing of items, series or authors, which carries it nowhere.
func nameReads(reqs []sd.Request) bool {
	for _, r := range reqs {
		if r.Method != http.MethodGet {
			return false
		}
		if r.RawPath == "/api/libraries" || r.RawPath == "/api/collections" || r.RawPath == "/api/playlists" {
			continue
		}
		ok := false
		for _, suffix := range []string{"/search", "/items", "/series", "/authors"} {
			if rest, cut := strings.CutSuffix(r.RawPath, suffix); cut && strings.HasPrefix(rest, "/api/libraries/") && argdec.IsID(strings.TrimPrefix(rest, "/api/libraries/")) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// TestHostileArguments: every tool refuses every bad value of every
// argument with an error that names the argument, and sends nothing to
// Audiobookshelf. An argument that takes a title or a name where an id is
// (tools.yaml's names:) looks up a printable value that is no id: it is
// refused naming the argument with nothing changed, having sent only the
// reads that look names up (the value in a search's query, in no path).
func TestHostileArguments(t *testing.T) {
	t.Parallel()
	cases := hostileCases(t)
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	takesNames := map[[2]string]bool{}
	for _, tool := range m.Tools {
		for _, p := range tool.Params {
			if p.Names != "" {
				takesNames[[2]string{tool.Name, p.Name}] = true
			}
		}
	}
	var (
		mu      sync.Mutex
		perTool = map[string]int{}
		looked  int
		failed  int
	)

	// The cases are shared among a few servers of their own that run at
	// once (each call is checked against what its own stand-in received),
	// so that the thousands of calls use every core.
	const shards = 4
	ok := t.Run("cases", func(t *testing.T) {
		for shard := range shards {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				e := apptest.Start(t, apptest.Options{})

				// The valid arguments are accepted (so each refusal below is
				// about the one argument changed).
				for _, tool := range registry.All {
					res := e.Call(t, tool.Name, validArgs(tool.Name, checkedSchema(t, tool.Name)))
					if strings.Contains(apptest.Text(res), argumentRefusal) {
						t.Fatalf("%s: the valid arguments were refused: %s", tool.Name, apptest.Text(res))
					}
				}

				e.Standin.ResetRequests()
				for i, c := range cases {
					if i%shards != shard {
						continue
					}
					res := e.Call(t, c.tool, c.args)
					text := apptest.Text(res)
					// The argument itself, an entry of a list (items[2]) or a
					// field of an object (fields.title).
					named := strings.Contains(text, strconv.Quote(c.arg)) || strings.Contains(text, `"`+c.arg+`[`) || strings.Contains(text, `"`+c.arg+`.`)
					reqs := e.Standin.Requests()
					lookedUp := len(reqs) > 0 && takesNames[[2]string{c.tool, c.arg}] && nameReads(reqs)
					refusal := argumentRefusal
					mu.Lock()
					if lookedUp {
						refusal = "Nothing was changed."
						looked++
					}
					if !res.IsError || !named || !strings.Contains(text, refusal) {
						if failed++; failed <= 20 {
							t.Errorf("%s %s=%s: %s", c.tool, c.arg, clipArgs(c.args[c.arg]), clipText(text))
						}
					}
					perTool[c.tool]++
					mu.Unlock()
					if len(reqs) > 0 && !lookedUp {
						t.Fatalf("%s %s=%s sent %s %s", c.tool, c.arg, clipArgs(c.args[c.arg]), reqs[0].Method, reqs[0].RawPath)
					}
					e.Standin.ResetRequests()
				}
			})
		}
	})
	if !ok && failed == 0 {
		return // a shard stopped (t.Fatalf): the counts below are partial
	}
	if failed > 20 {
		t.Errorf("… %d failures in all", failed)
	}
	for _, tool := range registry.All {
		if perTool[tool.Name] == 0 {
			t.Errorf("%s has no hostile case", tool.Name)
		}
	}
	t.Logf("%d bad inputs over %d tools (%d of them looked up as titles or names)", len(cases), len(perTool), looked)
	if failed == 0 {
		figure(t, "bad inputs tried", len(cases))
		figure(t, "of those, looked up as titles or names", looked)
	}
}

func clipArgs(v any) string {
	b, _ := json.Marshal(v)
	return clipText(string(b))
}

func clipText(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestIDsCannotChangeThePath proves, for every method of the generated
// client, that an id cannot change the route: each hostile id is either
// refused by the argument check before any request is made, or sent
// percent-encoded inside its own path segment, with the method and query
// the route intends. The ids "." and ".." are the only ones the client does
// not escape (gen/abs documents it); the check refuses both.
func TestIDsCannotChangeThePath(t *testing.T) {
	t.Parallel()
	type seen struct{ method, escaped, query string }
	var mu sync.Mutex
	var last seen
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery}
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	defer ts.Close()
	client, err := abs.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	send := func(m reflect.Method, ids []string) (seen, error) {
		ft := m.Type
		in := []reflect.Value{reflect.ValueOf(client), reflect.ValueOf(context.Background())}
		k := 0
		for i := 2; i < ft.NumIn(); i++ {
			pt := ft.In(i)
			if ft.IsVariadic() && i == ft.NumIn()-1 {
				break
			}
			switch pt.Kind() {
			case reflect.String:
				in = append(in, reflect.ValueOf(ids[k]))
				k++
			case reflect.Int:
				in = append(in, reflect.ValueOf(2025))
			case reflect.Float64:
				in = append(in, reflect.ValueOf(7.5))
			default:
				in = append(in, reflect.Zero(pt))
			}
		}
		out := m.Func.Call(in)
		if err, _ := out[1].Interface().(error); err != nil {
			return seen{}, err
		}
		out[0].Interface().(*http.Response).Body.Close()
		mu.Lock()
		defer mu.Unlock()
		return last, nil
	}
	ct := reflect.TypeOf(client)
	methods, proofs := 0, 0
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < ct.NumMethod(); i++ {
		m := ct.Method(i)
		if strings.HasSuffix(m.Name, "WithBody") {
			continue // the JSON method beside it builds the same path
		}
		strs := 0
		for j := 2; j < m.Type.NumIn(); j++ {
			if m.Type.In(j).Kind() == reflect.String {
				strs++
			}
		}
		if strs == 0 {
			continue
		}
		methods++
		benign := []string{"IDA0", "IDB0"}[:strs]
		want, err := send(m, benign)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		ids := append([]string(nil), hostileIDs...)
		for range 20 { // and random ids the check accepts
			ids = append(ids, randomID(rng))
		}
		for _, id := range ids {
			for slot := range strs {
				args := append([]string(nil), benign...)
				args[slot] = id
				if argdec.CheckID(id) != "" {
					proofs++
					continue // refused before the client is called
				}
				got, err := send(m, args)
				if err != nil {
					t.Errorf("%s(%q): %v", m.Name, id, err)
					continue
				}
				path := strings.Replace(want.escaped, benign[slot], url.PathEscape(id), 1)
				if got.method != want.method || got.escaped != path || got.query != want.query {
					t.Errorf("%s(%q): sent %s %s?%s, want %s %s?%s", m.Name, id, got.method, got.escaped, got.query, want.method, path, want.query)
				}
				proofs++
			}
		}
	}
	for _, dot := range []string{".", ".."} {
		if argdec.CheckID(dot) == "" {
			t.Errorf("the argument check accepts %q, which the client would drop as a dot segment", dot)
		}
	}
	if methods < 30 {
		t.Errorf("only %d client methods take an id", methods)
	}
	t.Logf("%d client methods, %d id placements", methods, proofs)
	if !t.Failed() {
		figure(t, "ids placed in every generated client method", proofs)
	}
}

// randomID is an id the argument check accepts, with every allowed
// character likely.
func randomID(r *rand.Rand) string {
	const first = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const rest = first + "_-"
	b := []byte{first[r.IntN(len(first))]}
	for range r.IntN(127) {
		b = append(b, rest[r.IntN(len(rest))])
	}
	return string(b)
}
