package e2e

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Audiobookshelf answers a request it refuses with a short text that Express
// labels text/html. That text is Audiobookshelf's own words, passed on; it
// is not "an HTML page" (which would send the person to check
// AUDIOBOOKSHELF_URL for nothing).
func TestAudiobookshelfOwnWordsArePassedOn(t *testing.T) {
	e := startApproving(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"create_collection", map[string]any{"library_id": sd.LibraryBooksID, "name": "X", "library_item_ids": []string{sd.ItemPodcastOrbital}},
			`(400 Bad Request: "Invalid collection data. Invalid books")`},
		{"add_books_to_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemPodcastOrbital}},
			`(400 Bad Request: "Invalid request body. No valid books")`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			res := e.Call(t, c.tool, c.args)
			text := apptest.Text(res)
			if !res.IsError || !strings.Contains(text, c.says) || strings.Contains(text, "HTML") || !strings.Contains(text, "Nothing was changed") {
				t.Errorf("%s: %q, want it to say %s", c.tool, text, c.says)
			}
		})
	}
}
