package e2e

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// Compact results cut long descriptions at compact.DescriptionLimit
// characters, collapse their markup and whitespace, and say the total
// length; detail "full" returns Audiobookshelf's own text.
func TestLongDescriptionIsCut(t *testing.T) {
	t.Parallel()
	// The raw item is longer than the default result budget: this test is
	// about the description, so the budget is raised.
	e := start(t, apptest.Options{Config: func(c *config.Config) { c.MaxResultChars = result.MaxMaxResultChars }})
	long := "<p>" + strings.Repeat("Death   rides\n a pale horse. ", 200) + "</p>"
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemMort {
				d.Items[i].Book.Description = long
			}
			if d.Items[i].ID == sd.ItemGoodOmens {
				d.Items[i].Book.Description = "<b>Short</b> and sweet."
			}
		}
	})
	v := decode(t, e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemMort}))
	desc := str(at(t, v, "description"))
	total := num(at(t, v, "description_length"))
	collapsed := strings.TrimSpace(strings.Join(strings.Fields(strings.Repeat("Death   rides\n a pale horse. ", 200)), " "))
	if n := utf8.RuneCountInString(desc); n != compact.DescriptionLimit+1 || !strings.HasSuffix(desc, "…") {
		t.Errorf("compact description has %d characters, want %d and an ellipsis: %q…", n, compact.DescriptionLimit+1, desc[:40])
	}
	if strings.Contains(desc, "<p>") || strings.Contains(desc, "  ") || strings.Contains(desc, "\n") {
		t.Errorf("markup or runs of whitespace survived: %q", desc[:60])
	}
	if int(total) < len(collapsed) || int(total) > len(collapsed)+2 {
		t.Errorf("description_length %v, want the collapsed length %d", total, len(collapsed))
	}
	full := apptest.Text(e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemMort, "detail": "full"}))
	if !strings.Contains(full, strings.Repeat("Death   rides\\n a pale horse. ", 200)) {
		t.Error("detail full does not carry the whole raw description")
	}
	// A short description stays whole and has no length field.
	v = decode(t, e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemGoodOmens}))
	if m := v.(map[string]any); m["description_length"] != nil || m["description"] != "Short and sweet." {
		t.Errorf("short description: %v / %v", m["description"], m["description_length"])
	}
}

// Lists that Audiobookshelf does not page are paged here: 100 entries by
// default, with the total and the next page's arguments.
func TestListsAreCapped(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Standin.Update(func(d *sd.Data) {
		for i := range 130 {
			d.Collections = append(d.Collections, sd.Collection{ID: fmt.Sprintf("col-%03d", i), LibraryID: sd.LibraryBooksID,
				Name: fmt.Sprintf("Shelf %d", i), Books: []string{sd.ItemMort}})
		}
	})
	var playlists, bookmarks int
	e.Standin.Update(func(d *sd.Data) {
		for i := range 120 {
			d.Playlists = append(d.Playlists, sd.Playlist{ID: fmt.Sprintf("pl-%03d", i), LibraryID: sd.LibraryBooksID,
				UserID: d.Users[0].ID, Name: fmt.Sprintf("Mix %d", i), Items: []sd.PlaylistItem{{LibraryItemID: sd.ItemMort}}})
			d.Users[0].Bookmarks = append(d.Users[0].Bookmarks, sd.Bookmark{LibraryItemID: sd.ItemMort, Time: 10 * (i + 1), Title: fmt.Sprintf("Mark %d", i)})
		}
		for _, p := range d.Playlists {
			if p.UserID == d.Users[0].ID {
				playlists++
			}
		}
		bookmarks = len(d.Users[0].Bookmarks)
	})
	for _, c := range []struct {
		tool, key string
		total     int
	}{
		{"list_collections", "collections", 132},
		{"list_playlists", "playlists", playlists},
		{"list_bookmarks", "bookmarks", bookmarks},
	} {
		v := decode(t, e.Call(t, c.tool, map[string]any{}))
		if num(at(t, v, "total")) != float64(c.total) || num(at(t, v, "returned")) != 100 || len(at(t, v, c.key).([]any)) != 100 ||
			num(at(t, v, "next", "page")) != 1 || num(at(t, v, "next", "limit")) != 100 {
			t.Errorf("%s: total %v returned %v entries %d next %v; want %d, 100, 100, page 1", c.tool, at(t, v, "total"), at(t, v, "returned"),
				len(at(t, v, c.key).([]any)), at(t, v, "next"), c.total)
		}
		v = decode(t, e.Call(t, c.tool, map[string]any{"page": 1}))
		if num(at(t, v, "returned")) != float64(c.total-100) || len(at(t, v, c.key).([]any)) != c.total-100 || at(t, v, "next") != nil {
			t.Errorf("%s page 1: returned %v next %v; want %d and no next", c.tool, at(t, v, "returned"), at(t, v, "next"), c.total-100)
		}
	}
}

// A compact page is much smaller than the full one (the figure for 25 items
// is measured by make bench; here only that compact is the smaller form and
// keeps what browsing needs).
func TestCompactKeepsWhatMatters(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	args := map[string]any{"library_id": sd.LibraryBooksID, "limit": 16}
	compact := apptest.Text(e.Call(t, "list_library_items", args))
	args["detail"] = "full"
	full := apptest.Text(e.Call(t, "list_library_items", args))
	if len(compact)*3 > len(full) {
		t.Errorf("compact page %d bytes, full %d: compact should be a small fraction", len(compact), len(full))
	}
	v := decode(t, e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemColourOfMagic}))
	for _, k := range []string{"id", "title", "authors", "series", "duration_s", "progress", "added"} {
		if v.(map[string]any)[k] == nil {
			t.Errorf("compact item lacks %q: %v", k, v)
		}
	}
	if s := at(t, v, "series", 0); str(at(t, s, "sequence")) != "1" {
		t.Errorf("series without its sequence: %v", s)
	}
}
