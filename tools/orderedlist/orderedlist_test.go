package orderedlist

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

var (
	collection = Kind{Noun: "collection", Entries: "books", Counted: "book(s)", IDParam: "collection_id", OrderParam: "library_item_ids",
		Notes: []string{"Shared."}}
	playlist = Kind{Noun: "playlist", Entries: "entries", Counted: "entries", IDParam: "playlist_id", OrderParam: "items", IgnoresEmpty: true}
)

func ptr(s string) *string { return &s }

// What an update replaces can be given back unless the tool's arguments
// could not carry it: a collection's null description (the tool gives
// text), a playlist's empty one (Audiobookshelf ignores it), an empty or
// too long name, text with a control character the arguments refuse.
func TestPutBack(t *testing.T) {
	long := strings.Repeat("x", result.MaxDescriptionLen+1)
	for _, c := range []struct {
		name       string
		k          Kind
		now        Update
		lost, why  string
		argDescNil bool
	}{
		{"collection null description", collection, Update{Description: nil, NewDescription: ptr("x")}, "description", result.UnrestorableWhy("description", true, false), false},
		{"collection empty description", collection, Update{Description: ptr(""), NewDescription: ptr("x")}, "", "", false},
		{"collection long description", collection, Update{Description: &long, NewDescription: ptr("x")}, "description", result.UnrestorableWhy("description", false, false), false},
		{"playlist null description", playlist, Update{Description: nil, NewDescription: ptr("x")}, "description", result.UnrestorableWhy("description", false, true), false},
		{"playlist empty description", playlist, Update{Description: ptr(""), NewDescription: ptr("x")}, "description", result.UnrestorableWhy("description", false, true), false},
		{"playlist description", playlist, Update{Description: ptr("words"), NewDescription: ptr("x")}, "", "", false},
		{"empty name", collection, Update{Name: "", NewName: ptr("x")}, "name", result.UnrestorableWhy("name", false, false), false},
		{"name with CR", playlist, Update{Name: "a\rb", NewName: ptr("x")}, "name", result.ControlWhy("name", 1), false},
		{"name and description", playlist, Update{Name: "", Description: nil, NewName: ptr("x"), NewDescription: ptr("y")}, "name and description",
			result.UnrestorableWhy("name", false, true) + "; " + result.UnrestorableWhy("description", false, true), false},
	} {
		c.now.ID = "l1"
		_, pb, lost, why := c.k.putBack(c.now)
		if lost != c.lost || why != c.why {
			t.Errorf("%s: lost %q (%s), want %q (%s)", c.name, lost, why, c.lost, c.why)
		}
		if pb.Tool != c.k.Tool("update") || pb.Arguments[c.k.IDParam] != "l1" || pb.Note != "" {
			t.Errorf("%s: put-back %+v", c.name, pb)
		}
	}
	prev, pb, lost, _ := playlist.putBack(Update{ID: "l1", Order: &Reorder{Old: []string{"a", "b"}}})
	if lost != "" || pb.Note == "" || len(prev["items"].([]string)) != 2 || len(pb.Arguments["items"].([]string)) != 2 {
		t.Errorf("a reorder's put-back: %+v, previous %v", pb, prev)
	}
}

// A reorder asks with the new order named; text that could not be given
// back asks too, saying why; each question ends with the kind's notes.
func TestPlanUpdateAsks(t *testing.T) {
	p := collection.PlanUpdate(nil, Update{ID: "c1", Name: "Mine", NewName: ptr("New"),
		Order: &Reorder{IDs: []string{"b", "a"}, Moved: 2, Titles: []naming.Titled{{ID: "b", Name: "B"}, {ID: "a", Name: "A"}}, Old: []string{"a", "b"}}})
	if !strings.Contains(p.Action, "reorder the 2 book(s) of collection") || !strings.Contains(p.Action, "2 of them change place") {
		t.Errorf("action %q", p.Action)
	}
	if got := strings.Join(p.Consequences, " | "); !strings.HasPrefix(got, "New order: ") || !strings.Contains(got, "The name or description changes too.") || !strings.HasSuffix(got, "Shared.") {
		t.Errorf("consequences %q", got)
	}
	p = playlist.PlanUpdate(nil, Update{ID: "p1", Name: "Mine", Description: ptr(""), NewDescription: ptr("x")})
	if len(p.Effects) != 1 || p.Effects[0] != result.EffectUnrestorableText || !strings.Contains(p.Action, "replace the description of playlist") {
		t.Errorf("effects %v, action %q", p.Effects, p.Action)
	}
	p = playlist.PlanUpdate(nil, Update{ID: "p1", Name: "Mine", Description: ptr("words"), NewDescription: ptr("x")})
	if len(p.Effects) != 0 || p.Action != "" {
		t.Errorf("a description that can be given back asks: %v %q", p.Effects, p.Action)
	}
}
