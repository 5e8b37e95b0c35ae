package e2e

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestMergeAsksDeclinedApproved: on both protocol revisions a merge asks
// naming every spelling, the one kept and the items by title and id;
// declined, nothing is sent and nothing changed;
// approved, each name is renamed into the one kept, in the order given,
// and the answer says per name how many items changed. The same call
// again finds none of the names and is refused before any question.
func TestMergeAsksDeclinedApproved(t *testing.T) {
	t.Parallel()
	type source struct {
		name  string
		items int
	}
	for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
		for _, c := range []struct {
			tool, group, listArg, intoArg, into string
			sources                             []source
			mutations                           []string
			question                            []string
		}{
			{"merge_tags", "tags", "tags", "into_tag", "discworld", []source{{"witches", 2}, {"death", 1}},
				[]string{"POST /api/tags/rename", "POST /api/tags/rename"},
				[]string{`merge the 2 tags "witches", "death" into the one tag "discworld", on 3 item(s)`, named("", "Equal Rites", sd.ItemEqualRites), named("", "Wyrd Sisters", sd.ItemWyrdSisters), named("", "Mort", sd.ItemMort),
					`"witches": 2 item(s)`, `"death": 1 item(s) (` + named("", "Mort", sd.ItemMort) + ")", `The name merged into, "discworld", is held by 6 item(s) already`, "cannot be split again"}},
			{"merge_genres", "genres", "genres", "into_genre", "Fantasy", []source{{"Humor", 7}, {"Classics", 3}},
				[]string{"POST /api/genres/rename", "POST /api/genres/rename"},
				[]string{`merge the 2 genres "Humor", "Classics" into the one genre "Fantasy", on`, `"Humor": 7 item(s)`, `"Classics": 3 item(s)`, `The name merged into, "Fantasy", is held by`}},
			{"merge_narrators", "narrators", "narrators", "into_narrator", "Nigel Planer", []source{{"Celia Imrie", 2}, {"Martin Jarvis", 1}},
				[]string{"PATCH " + narratorPath("Celia Imrie"), "PATCH " + narratorPath("Martin Jarvis")},
				[]string{`merge the 2 narrators "Celia Imrie", "Martin Jarvis" into the one narrator "Nigel Planer", on 3 item(s)`, named("", "Equal Rites", sd.ItemEqualRites), named("", "Wyrd Sisters", sd.ItemWyrdSisters), named("", "Good Omens", sd.ItemGoodOmens),
					`"Celia Imrie": 2 item(s)`, `"Martin Jarvis": 1 item(s) (` + named("", "Good Omens", sd.ItemGoodOmens) + ")", `The name merged into, "Nigel Planer", is held by 4 item(s) already`}},
		} {
			t.Run(proto+"/"+c.tool, func(t *testing.T) {
				t.Parallel()
				ans := &answerer{approve: false}
				e := start(t, apptest.Options{ProtocolVersion: proto, Elicit: ans.elicit})
				var names []string
				for _, s := range c.sources {
					names = append(names, s.name)
					if got := len(holding(e.Standin, c.group, s.name)); got != s.items {
						t.Fatalf("test bug: %d item(s) hold %q, want %d", got, s.name, s.items)
					}
				}
				args := map[string]any{c.listArg: names, c.intoArg: c.into}
				before := e.Standin.SnapshotJSON()
				e.Standin.ResetRequests()
				res := e.Call(t, c.tool, args)
				if !res.IsError || len(ans.asked) != 1 || len(mutations(e.Standin)) != 0 || string(e.Standin.SnapshotJSON()) != string(before) {
					t.Fatalf("declined: want one question, an error and nothing changed; asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
				}
				for _, w := range c.question {
					if !strings.Contains(ans.asked[0], w) {
						t.Errorf("the question lacks %q:\n%s", w, ans.asked[0])
					}
				}
				// Every spelling, and the one kept, stands quoted.
				if outside, _ := quotedParts(ans.asked[0]); strings.Contains(outside, c.into) {
					t.Errorf("the name kept stands outside quotes:\n%s", ans.asked[0])
				}
				ans.approve = true
				e.Standin.ResetRequests()
				v := decode(t, e.Call(t, c.tool, args))
				if len(ans.asked) != 2 {
					t.Fatalf("asked %d times, want 2", len(ans.asked))
				}
				wantMutations(t, e.Standin, c.mutations...)
				total := 0
				for i, s := range c.sources {
					n := at(t, v, "names", i).(map[string]any)
					if str(n["name"]) != s.name || str(n["items_changed"]) != str(s.items) || n["sent"] != true {
						t.Errorf("name %d: %v, want %s with %d item(s) changed", i, n, s.name, s.items)
					}
					total += s.items
					if h := holding(e.Standin, c.group, s.name); len(h) != 0 {
						t.Errorf("%q is still held: %v", s.name, h)
					}
				}
				if str(at(t, v, "items_changed")) != str(total) || at(t, v, "not_put_back") == nil || at(t, v, "put_back") != nil {
					t.Errorf("the answer: %v", v)
				}
				// The same call again: none of the names is held; refused
				// before any question, nothing sent.
				e.Standin.ResetRequests()
				res = e.Call(t, c.tool, args)
				if !res.IsError || len(ans.asked) != 2 || len(mutations(e.Standin)) != 0 || !strings.Contains(apptest.Text(res), "nothing to merge") {
					t.Errorf("a replay: asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
				}
			})
		}
	}
}

// TestMergeKeepsOrderAndSkipsNamesNotHeld: the names merge in the order
// given (an item holding two of them ends with the one kept, once), and a
// name no item holds is not sent, and says so.
func TestMergeKeepsOrderAndSkipsNamesNotHeld(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	setNarrators(sd.ItemMort, "Celia Imrie", "Nigel Planer", "Martin Jarvis")(e.Standin)
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "merge_narrators", map[string]any{"narrators": []string{"Martin Jarvis", "Nobody Here", "Celia Imrie"}, "into_narrator": "Kate Reading"}))
	wantMutations(t, e.Standin, "PATCH "+narratorPath("Martin Jarvis"), "PATCH "+narratorPath("Celia Imrie"))
	it, _ := e.Standin.Item(sd.ItemMort)
	if !slices.Equal(it.Book.Narrators, []string{"Nigel Planer", "Kate Reading"}) {
		t.Errorf("Mort's narrators %q, want Nigel Planer, Kate Reading", it.Book.Narrators)
	}
	if n := at(t, v, "names", 1).(map[string]any); n["sent"] != false || str(n["items_changed"]) != "0" {
		t.Errorf("a name no book holds: %v", n)
	}
	if str(at(t, v, "names", 0, "items_changed")) != "2" || str(at(t, v, "names", 2, "items_changed")) != "3" || str(at(t, v, "items_changed")) != "5" {
		t.Errorf("counts: %v", v)
	}
}

// TestMergeFailingMidway: the second rename fails; the error says which
// name was merged (with its count), which failed, and which was not
// tried, and the stand-in shows exactly that.
func TestMergeFailingMidway(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	var mu sync.Mutex
	renames := 0
	e.Standin.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/api/tags/rename" {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		renames++
		if renames == 2 {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return true
		}
		return false
	})
	res := e.Call(t, "merge_tags", map[string]any{"tags": []string{"witches", "death", "favourites"}, "into_tag": "discworld"})
	text := apptest.Text(res)
	if !res.IsError {
		t.Fatalf("want an error: %s", text)
	}
	for _, w := range []string{"stopped at name 2 of 3", "For that name alone: Audiobookshelf answered 403", `Merged before it: "witches" (name 1, 2 item(s) changed)`, `Not tried: "favourites" (name 3)`} {
		if !strings.Contains(text, w) {
			t.Errorf("the error lacks %q:\n%s", w, text)
		}
	}
	if len(holding(e.Standin, "tags", "witches")) != 0 || len(holding(e.Standin, "tags", "death")) != 1 || len(holding(e.Standin, "tags", "favourites")) != 2 {
		t.Errorf("the stand-in: witches %v, death %v, favourites %v", holding(e.Standin, "tags", "witches"), holding(e.Standin, "tags", "death"), holding(e.Standin, "tags", "favourites"))
	}
}

// TestMergeRefusesBadNames: the kept name among the merged ones, a name
// twice, too few or too many names, an empty, blank or multi-line name:
// an error naming the argument; nothing is asked or sent.
func TestMergeRefusesBadNames(t *testing.T) {
	t.Parallel()
	rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
	e := start(t, apptest.Options{Elicit: rec.handle})
	many := make([]string, 21)
	for i := range many {
		many[i] = "tag " + string(rune('a'+i))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"merge_tags", map[string]any{"tags": []string{"witches", "discworld"}, "into_tag": "discworld"}, []string{`"tags"`, `"into_tag"`, "entry 1"}},
		{"merge_tags", map[string]any{"tags": []string{"witches", "witches"}, "into_tag": "discworld"}, []string{"tags", "twice"}},
		{"merge_tags", map[string]any{"tags": []string{"witches"}, "into_tag": "discworld"}, []string{"tags", "at least 2"}},
		{"merge_tags", map[string]any{"tags": many, "into_tag": "discworld"}, []string{"tags", "at most 20"}},
		{"merge_genres", map[string]any{"genres": []string{"Humor", ""}, "into_genre": "Fantasy"}, []string{"genres[1]", "empty"}},
		{"merge_genres", map[string]any{"genres": []string{"Humor", "   "}, "into_genre": "Fantasy"}, []string{"genres[1]", "empty"}},
		{"merge_genres", map[string]any{"genres": []string{"Humor", "Classics"}, "into_genre": "  "}, []string{`"into_genre"`}},
		{"merge_narrators", map[string]any{"narrators": []string{"Celia\nImrie", "Martin Jarvis"}, "into_narrator": "Nigel Planer"}, []string{"narrators[0]", "control characters"}},
		{"merge_narrators", map[string]any{"narrators": []string{"Celia Imrie", "Martin Jarvis"}, "into_narrator": "Nigel\tPlaner"}, []string{"into_narrator", "control characters"}},
		{"merge_narrators", map[string]any{"narrators": []any{"Celia Imrie", 7}, "into_narrator": "Nigel Planer"}, []string{"narrators[1]", "string"}},
		{"rename_narrator", map[string]any{"narrator": "Celia Imrie", "new_narrator": "Celia Imrie"}, []string{"the same narrator"}},
		{"rename_narrator", map[string]any{"narrator": "Celia Imrie", "new_narrator": " "}, []string{`"new_narrator"`}},
		{"rename_narrator", map[string]any{"narrator": "Celia\nImrie", "new_narrator": "Celia"}, []string{"control characters"}},
	} {
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		for _, w := range c.want {
			if !res.IsError || !strings.Contains(apptest.Text(res), w) {
				t.Errorf("%s %v: want an error with %s, got isError=%v: %s", c.tool, c.args, w, res.IsError, apptest.Text(res))
			}
		}
		if m := mutations(e.Standin); len(m) != 0 {
			t.Errorf("%s %v: sent %v", c.tool, c.args, m)
		}
	}
	if a := rec.asked(); len(a) != 0 {
		t.Errorf("asked %d times: %q", len(a), a)
	}
}
