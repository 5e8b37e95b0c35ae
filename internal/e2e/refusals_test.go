package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Audiobookshelf answers a request it refuses with a short text that Express
// labels text/html. That text is Audiobookshelf's own words, passed on; it
// is not "an HTML page" (which would send the person to check
// AUDIOBOOKSHELF_URL for nothing).
func TestAudiobookshelfOwnWordsArePassedOn(t *testing.T) {
	t.Parallel()
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

// Entries of a podcast playlist without their episode_id are refused as
// such, not as entries listed twice or not in the playlist.
func TestPodcastEntriesWithoutEpisodeID(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"update_playlist", map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			{"library_item_id": sd.ItemPodcastOrbital}, {"library_item_id": sd.ItemPodcastTinyThings}}},
			`entry 0 (library item ` + sd.ItemPodcastOrbital + `), entry 1 (library item ` + sd.ItemPodcastTinyThings + `) have no episode_id, and playlist ` + sd.PlaylistCatchUp + ` holds episodes of that podcast`},
		{"update_playlist", map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			{"library_item_id": sd.ItemPodcastOrbital}, {"library_item_id": sd.ItemPodcastOrbital}}},
			`lists library item ` + sd.ItemPodcastOrbital + ` twice (entries 0 and 1) without an episode_id`},
		{"remove_items_from_playlist", map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			{"library_item_id": sd.ItemPodcastOrbital}}},
			`entry 0 (library item ` + sd.ItemPodcastOrbital + `) has no episode_id`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			res := e.Call(t, c.tool, c.args)
			text := apptest.Text(res)
			if !res.IsError || !strings.Contains(text, c.says) || strings.Contains(text, "not in") || strings.Contains(text, "same entry") {
				t.Errorf("%s: %q, want it to say %s", c.tool, text, c.says)
			}
		})
	}
	wantMutations(t, e.Standin)
}

// The smaller refusals: each says what is wrong, and nothing is sent.
func TestSmallerRefusals(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		says       string
	}{
		{"a time past the end", "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": 100000000, "title": "end"},
			`argument "time": 100000000 s is past the end of library item ` + sd.ItemMort},
		{"a title of spaces", "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": 10, "title": "   "},
			`argument "title": must have at least one character that is not a space`},
		{"a title of spaces on rename", "update_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": 10, "title": " \t "},
			`argument "title": must have at least one character that is not a space`},
		{"one book not in the collection", "update_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera,
			"library_item_ids": []string{sd.ItemLeviathanWakes, sd.ItemCalibansWar, sd.ItemMort}},
			sd.ItemMort + " is not in the collection"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := e.Call(t, c.tool, c.args)
			text := apptest.Text(res)
			if !res.IsError || !strings.Contains(text, c.says) || !strings.Contains(text, "Nothing was changed") {
				t.Errorf("%q, want it to say %s", text, c.says)
			}
		})
	}
	wantMutations(t, e.Standin)

	// A tool name of 5 MB is not echoed back whole.
	name := strings.Repeat("x", 5<<20)
	_, err := e.CallErr(name, map[string]any{})
	if err == nil || len(err.Error()) > 500 || !strings.Contains(err.Error(), "unknown tool") || !strings.Contains(err.Error(), "5242880 bytes") {
		t.Errorf("an unknown tool of 5 MB: %d bytes of error: %.300v", len(fmt.Sprint(err)), err)
	}
}

// A read refused with 403 says that reading is not allowed: nothing about
// the delete permission, and nothing about a change.
func TestForbiddenRead(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{Elicit: approve, Config: func(c *config.Config) { c.APIKey = sd.ListenerAPIKey }})
	res := e.Call(t, "get_playlist", map[string]any{"playlist_id": sd.PlaylistCommute})
	text := apptest.Text(res)
	if !res.IsError || !strings.Contains(text, "403 Forbidden") || !strings.Contains(text, "may not read playlist "+sd.PlaylistCommute) ||
		strings.Contains(text, "delete permission") || strings.Contains(text, "changed") {
		t.Errorf("%q", text)
	}
}
