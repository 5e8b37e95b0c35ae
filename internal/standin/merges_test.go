package standin

import (
	"slices"
	"testing"
)

// TestAuthorUpdate: PATCH /api/authors/:id as AuthorController.update
// answers it: 403 without update, 400 with no valid key, an update in
// place, and a merge onto another author's exact name (case counts).
func TestAuthorUpdate(t *testing.T) {
	s := start(t)
	if r := call(t, s, "PATCH", "/api/authors/"+AuthorGaiman, map[string]any{"name": "X"}, ListenerAPIKey); r.status != 403 {
		t.Errorf("a user without update: %d", r.status)
	}
	if r := call(t, s, "PATCH", "/api/authors/nope", map[string]any{"name": "X"}, ""); r.status != 404 {
		t.Errorf("an unknown author: %d", r.status)
	}
	if r := call(t, s, "PATCH", "/api/authors/"+AuthorGaiman, map[string]any{"name": 5, "imagePath": "/x"}, ""); r.status != 400 || r.body != "Invalid request payload. No valid keys found" {
		t.Errorf("no valid key: %d %q", r.status, r.body)
	}
	// Another case is another name: no merge.
	r := call(t, s, "PATCH", "/api/authors/"+AuthorKafka, map[string]any{"name": "andy weir"}, "")
	if m := r.json(t); r.status != 200 || m["updated"] != true || m["merged"] != nil {
		t.Fatalf("a rename: %d %s", r.status, r.body)
	}
	call(t, s, "PATCH", "/api/authors/"+AuthorKafka, map[string]any{"name": "Franz Kafka"}, "")
	before := s.Snapshot()
	r = call(t, s, "PATCH", "/api/authors/"+AuthorPratchett, map[string]any{"name": "Neil Gaiman"}, "")
	m := r.json(t)
	if r.status != 200 || m["merged"] != true || m["updated"] != nil || m["author"].(map[string]any)["id"] != AuthorGaiman {
		t.Fatalf("a merge: %d %s", r.status, r.body)
	}
	after := s.Snapshot()
	if slices.ContainsFunc(after.Authors, func(a Author) bool { return a.ID == AuthorPratchett }) {
		t.Error("the merged author is still there")
	}
	for i, it := range after.Items {
		if it.Book == nil {
			continue
		}
		was := before.Items[i].Book.AuthorIDs
		switch {
		case it.ID == ItemGoodOmens && !slices.Equal(it.Book.AuthorIDs, []string{AuthorGaiman}):
			t.Errorf("a book holding both: %v", it.Book.AuthorIDs)
		case it.ID != ItemGoodOmens && slices.Contains(was, AuthorPratchett) && !slices.Equal(it.Book.AuthorIDs, []string{AuthorGaiman}):
			t.Errorf("%s: %v", it.ID, it.Book.AuthorIDs)
		}
		if it.UpdatedAt != before.Items[i].UpdatedAt {
			t.Errorf("%s: updatedAt moved", it.ID)
		}
	}
}

// TestItemsBatchUpdate: POST /api/items/batch/update as
// LibraryItemController.batchUpdate answers it, and the series and
// authors taken off books are checked once every entry is applied.
func TestItemsBatchUpdate(t *testing.T) {
	s := start(t)
	entry := func(id string, series ...map[string]any) map[string]any {
		return map[string]any{"id": id, "mediaPayload": map[string]any{"metadata": map[string]any{"series": series}}}
	}
	for _, c := range []struct {
		name   string
		body   any
		key    string
		status int
	}{
		{"no update permission", []any{entry(ItemMort)}, ListenerAPIKey, 403},
		{"not a list", map[string]any{"id": ItemMort}, "", 400},
		{"empty", []any{}, "", 400},
		{"an entry without id", []any{map[string]any{"mediaPayload": map[string]any{}}}, "", 400},
		{"the same id twice", []any{entry(ItemMort), entry(ItemMort)}, "", 400},
		{"an unknown id", []any{entry(ItemMort), entry("nope")}, "", 404},
	} {
		before := s.SnapshotJSON()
		if r := call(t, s, "POST", "/api/items/batch/update", c.body, c.key); r.status != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, r.status, r.body, c.status)
		}
		if string(s.SnapshotJSON()) != string(before) {
			t.Errorf("%s: the state changed", c.name)
		}
	}
	// Wizard leaves Earthsea; then, in one batch, Tombs (its last book)
	// leaves it and Mort joins it by name: Audiobookshelf finds the series
	// still there for Mort and checks for empty series only at the end,
	// so Earthsea stays, with its id, holding Mort.
	r := call(t, s, "POST", "/api/items/batch/update", []any{entry(ItemWizardOfEarthsea, map[string]any{"name": "Gont", "sequence": "1"})}, "")
	if m := r.json(t); r.status != 200 || m["success"] != true || m["updates"] != float64(1) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r = call(t, s, "POST", "/api/items/batch/update", []any{
		entry(ItemTombsOfAtuan, map[string]any{"name": "Gont", "sequence": "2"}),
		entry(ItemMort, map[string]any{"name": "earthsea", "sequence": "4"}),
		entry(ItemSourcery),
	}, "")
	if m := r.json(t); r.status != 200 || m["updates"] != float64(2) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	mort, _ := s.Item(ItemMort)
	if !slices.ContainsFunc(s.Snapshot().Series, func(se Series) bool { return se.ID == SeriesEarthsea }) ||
		!slices.Contains(mort.Book.Series, SeriesSequence{SeriesID: SeriesEarthsea, Sequence: "4"}) {
		t.Fatalf("Earthsea was removed mid-batch: Mort's series %v", mort.Book.Series)
	}
	// Mort leaves it too: now it is left with no book, and removed.
	r = call(t, s, "POST", "/api/items/batch/update", []any{entry(ItemMort, map[string]any{"name": "Discworld", "sequence": "4"})}, "")
	if m := r.json(t); r.status != 200 || m["updates"] != float64(1) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if slices.ContainsFunc(s.Snapshot().Series, func(se Series) bool { return se.ID == SeriesEarthsea }) {
		t.Error("Earthsea, left with no book, is still there")
	}
}
