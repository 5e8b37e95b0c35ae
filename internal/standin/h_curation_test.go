package standin

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestNarratorRename: PATCH /api/libraries/:id/narrators/:narratorId as
// LibraryController.updateNarrator answers on 2.36: the update permission
// (no admin needed), the library only checked, every book of the server
// renamed, the new name appended unless held, {updated}.
func TestNarratorRename(t *testing.T) {
	path := func(libID, name string) string {
		return "/api/libraries/" + libID + "/narrators/" + url.PathEscape(base64.StdEncoding.EncodeToString([]byte(name)))
	}
	s := start(t)
	before := string(s.SnapshotJSON())
	for _, c := range []struct {
		name, lib, narrator, key string
		body                     any
		status                   int
		text                     string
	}{
		{"no update permission", LibraryBooksID, "Celia Imrie", ListenerAPIKey, map[string]any{"name": "X"}, 403, "Forbidden"},
		{"unknown library", "nope", "Celia Imrie", "", map[string]any{"name": "X"}, 404, "Library not found"},
		{"no name", LibraryBooksID, "Celia Imrie", "", map[string]any{}, 400, "Invalid request payload. Name not specified."},
		{"empty name", LibraryBooksID, "Celia Imrie", "", map[string]any{"name": ""}, 400, "Invalid request payload. Name not specified."},
		{"a name no book holds", LibraryBooksID, "Nobody", "", map[string]any{"name": "X"}, 200, `{"updated":0}`},
	} {
		r := call(t, s, "PATCH", path(c.lib, c.narrator), c.body, c.key)
		if r.status != c.status || strings.TrimSpace(r.body) != c.text {
			t.Errorf("%s: %d %q, want %d %q", c.name, r.status, r.body, c.status, c.text)
		}
	}
	if string(s.SnapshotJSON()) != before {
		t.Fatal("a refused or empty rename changed the data")
	}
	// Through the podcast library, by a user with update who is not an
	// admin: the books of the book library change all the same.
	s.Update(func(d *Data) {
		for i := range d.Items {
			if d.Items[i].ID == ItemMort {
				d.Items[i].Book.Narrators = []string{"Celia Imrie", "Nigel Planer", "Celia Imrie"}
			}
		}
	})
	r := call(t, s, "PATCH", path(LibraryPodcastsID, "Celia Imrie"), map[string]any{"name": "Nigel Planer"}, PartnerAPIKey)
	if r.status != 200 || r.body != `{"updated":3}` {
		t.Fatalf("rename through the podcast library: %d %s", r.status, r.body)
	}
	for id, want := range map[string][]string{ItemMort: {"Nigel Planer"}, ItemEqualRites: {"Nigel Planer"}, ItemWyrdSisters: {"Nigel Planer"}} {
		it, _ := s.Item(id)
		if !slices.Equal(it.Book.Narrators, want) {
			t.Errorf("%s: narrators %q, want %q", id, it.Book.Narrators, want)
		}
	}
	// Onto a new name: appended at the end.
	r = call(t, s, "PATCH", path(LibraryBooksID, "Rob Inglis"), map[string]any{"name": "Robert Inglis"}, "")
	if r.status != 200 || r.body != `{"updated":2}` {
		t.Fatalf("rename onto a new name: %d %s", r.status, r.body)
	}
	it, _ := s.Item(ItemWizardOfEarthsea)
	if !slices.Equal(it.Book.Narrators, []string{"Robert Inglis"}) {
		t.Errorf("narrators %q", it.Book.Narrators)
	}
}
