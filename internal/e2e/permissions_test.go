package e2e

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// With one API key (the default mode), a collection write whose user lacks
// the permission Audiobookshelf checks for it (CollectionController: update
// to create or change, delete to delete) is refused before anything is
// asked or sent, with the permission's name: the person is never asked to
// approve what Audiobookshelf would then refuse with 403.
func TestSingleKeyPermissionRefusedBeforeAsking(t *testing.T) {
	t.Parallel()
	calls := []struct {
		tool  string
		args  map[string]any
		right string
	}{
		{"create_collection", map[string]any{"library_id": sd.LibraryBooksID, "name": "Earthsea", "library_item_ids": []string{sd.ItemMort}}, "update permission (canUpdate)"},
		{"update_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "name": "Renamed"}, "update permission (canUpdate)"},
		{"update_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemProjectHailMary, sd.ItemCalibansWar, sd.ItemLeviathanWakes}}, "update permission (canUpdate)"},
		{"add_books_to_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemMort}}, "update permission (canUpdate)"},
		{"remove_books_from_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemProjectHailMary}}, "update permission (canUpdate)"},
		{"delete_collection", map[string]any{"collection_id": sd.CollectionDiscworldInOrder}, "delete permission (canDelete)"},
		// LibraryItemController.middleware wants delete for every DELETE on
		// an item, removing its cover too.
		{"remove_item_cover", map[string]any{"library_item_id": sd.ItemMort}, "delete permission (canDelete)"},
		// AuthorController.middleware (PATCH) and LibraryItemController.batchUpdate.
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorPratchett}, "update permission (canUpdate)"},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}, "update permission (canUpdate)"},
	}
	users := []struct {
		name  string
		key   string
		setup func(*sd.Server)
		// tools this user may run (they are not refused here)
		allowed map[string]bool
	}{
		{"listener (neither)", sd.ListenerAPIKey, nil, nil},
		{"root with update and delete off", sd.DefaultAPIKey, func(s *sd.Server) {
			if !s.SetUserPermissions(sd.UserRootID, func(p *sd.Permissions) { p.Update, p.Delete = false, false }) {
				t.Fatal("no root user in the stand-in")
			}
		}, nil},
		{"partner (update, no delete)", sd.PartnerAPIKey, nil, map[string]bool{
			"create_collection": true, "update_collection": true, "add_books_to_collection": true, "remove_books_from_collection": true,
			"merge_authors": true, "merge_series": true}},
	}
	for _, u := range users {
		for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
			for _, c := range calls {
				if u.allowed[c.tool] {
					continue
				}
				rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
				}}
				e := start(t, apptest.Options{Config: func(c *config.Config) { c.APIKey = u.key }, ProtocolVersion: proto, Elicit: rec.handle})
				if u.setup != nil {
					u.setup(e.Standin)
				}
				e.Standin.ResetRequests()
				res := e.Call(t, c.tool, c.args)
				text := apptest.Text(res)
				if !res.IsError || res.NeedsInput() || !strings.Contains(text, "Audiobookshelf's "+c.right) || !strings.Contains(text, "nobody was asked") {
					t.Errorf("%s, %s %v (%s): not refused with the permission's name: %s", u.name, c.tool, c.args, proto, text)
				}
				if q := rec.asked(); len(q) != 0 {
					t.Errorf("%s, %s (%s): %d question(s) asked: %q", u.name, c.tool, proto, len(q), q)
				}
				if m := e.Standin.Mutations(); len(m) != 0 {
					t.Errorf("%s, %s (%s): %d change(s) sent", u.name, c.tool, proto, len(m))
				}
				// Only the user was read: nothing of the collection.
				for _, r := range e.Standin.Requests() {
					if r.Method != "GET" || r.Path != "/api/me" {
						t.Errorf("%s, %s (%s): %s %s sent for a refused call", u.name, c.tool, proto, r.Method, r.Path)
					}
				}
			}
		}
	}
}

// A user with the permission is asked as before, and the question says
// that collections are shared by everyone on the server (Audiobookshelf
// keeps no owner for a collection): the fact, in fixed words, no name.
func TestCollectionQuestionSaysShared(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key  string
		tool string
		args map[string]any
	}{
		{sd.DefaultAPIKey, "delete_collection", map[string]any{"collection_id": sd.CollectionDiscworldInOrder}},
		{sd.PartnerAPIKey, "remove_books_from_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemProjectHailMary}}},
		{sd.DefaultAPIKey, "update_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_ids": []string{sd.ItemProjectHailMary, sd.ItemCalibansWar, sd.ItemLeviathanWakes}}},
	} {
		for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
			rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult {
				return &mcp.ElicitResult{Action: "decline"}
			}}
			e := start(t, apptest.Options{Config: func(cfg *config.Config) { cfg.APIKey = c.key }, ProtocolVersion: proto, Elicit: rec.handle})
			res := e.Call(t, c.tool, c.args)
			q := rec.asked()
			if len(q) != 1 {
				t.Errorf("%s (%s): %d questions, want 1: %s", c.tool, proto, len(q), apptest.Text(res))
				continue
			}
			if !strings.Contains(q[0], "Collections are shared by everyone on this Audiobookshelf server") {
				t.Errorf("%s (%s): the question does not say the collection is shared: %q", c.tool, proto, q[0])
			}
			for _, name := range []string{"root", "partner", "listener"} {
				if strings.Contains(strings.ToLower(q[0]), name) {
					t.Errorf("%s (%s): the question names a user (%s): %q", c.tool, proto, name, q[0])
				}
			}
			if m := e.Standin.Mutations(); len(m) != 0 {
				t.Errorf("%s (%s): declined, yet %d change(s) sent", c.tool, proto, len(m))
			}
		}
	}
}

// The same holds for every tool tools.yaml gives a permission beyond the
// collections: a podcast write (Audiobookshelf lets only admins subscribe
// and download, and wants delete to delete an episode or a podcast) and an
// upkeep write
// (update to change or match a book, admin to scan) whose user lacks the
// permission is refused with its name before anything but the user is
// read, asked or sent.
func TestSingleKeyPodcastAndUpkeepRefusedBeforeAsking(t *testing.T) {
	t.Parallel()
	calls := []struct {
		tool  string
		args  map[string]any
		right string // update, delete, admin or upload
	}{
		{"create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift}, "admin"},
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "newest": 1}, "admin"},
		{"delete_podcast_episode", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings1, "delete_file": true}, "delete"},
		{"update_item_metadata", map[string]any{"library_item_id": sd.ItemMort, "fields": map[string]any{"title": "Mort!"}}, "update"},
		{"match_library_item", map[string]any{"library_item_id": sd.ItemMort, "override": true}, "update"},
		{"scan_library", map[string]any{"library_id": sd.LibraryBooksID}, "admin"},
		{"set_item_cover", map[string]any{"library_item_id": sd.ItemMort, "url": "https://covers.example/mort.jpg"}, "upload"},
		{"set_item_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes}, "update"},
	}
	users := []struct {
		name  string
		key   string
		setup func(*sd.Server)
		has   map[string]bool
	}{
		{"listener (a user with neither)", sd.ListenerAPIKey, nil, nil},
		{"partner (a user with update)", sd.PartnerAPIKey, nil, map[string]bool{"update": true}},
		{"root with update and delete off", sd.DefaultAPIKey, func(s *sd.Server) {
			s.SetUserPermissions(sd.UserRootID, func(p *sd.Permissions) { p.Update, p.Delete = false, false })
		}, map[string]bool{"admin": true, "upload": true}},
	}
	refused := 0
	for _, u := range users {
		for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
			for _, c := range calls {
				if u.has[c.right] {
					continue
				}
				refused++
				rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
				}}
				e := start(t, apptest.Options{Config: func(c *config.Config) {
					c.APIKey = u.key
					c.Toolsets = []string{"podcasts", "upkeep"}
				}, ProtocolVersion: proto, Elicit: rec.handle})
				if u.setup != nil {
					u.setup(e.Standin)
				}
				e.Standin.ResetRequests()
				res := e.Call(t, c.tool, c.args)
				text := apptest.Text(res)
				want := map[string]string{"update": "Audiobookshelf's update permission (canUpdate)", "delete": "Audiobookshelf's delete permission (canDelete)",
					"admin": "Audiobookshelf lets only admin and root users do this", "upload": "Audiobookshelf's upload permission (canUpload)"}[c.right]
				if !res.IsError || res.NeedsInput() || !strings.Contains(text, want) || !strings.Contains(text, "nobody was asked") {
					t.Errorf("%s, %s (%s): not refused with the permission's name: %s", u.name, c.tool, proto, text)
				}
				if q := rec.asked(); len(q) != 0 {
					t.Errorf("%s, %s (%s): %d question(s) asked: %q", u.name, c.tool, proto, len(q), q)
				}
				if m := e.Standin.Mutations(); len(m) != 0 {
					t.Errorf("%s, %s (%s): %d change(s) sent", u.name, c.tool, proto, len(m))
				}
				reqs := e.Standin.Requests()
				if len(reqs) != 1 {
					t.Errorf("%s, %s (%s): %d requests, want only the user read", u.name, c.tool, proto, len(reqs))
				}
				for _, r := range reqs {
					if r.Method != "GET" || r.Path != "/api/me" {
						t.Errorf("%s, %s (%s): %s %s sent for a refused call", u.name, c.tool, proto, r.Method, r.Path)
					}
				}
			}
		}
	}
	if refused < 20 {
		t.Errorf("test bug: only %d refusals checked", refused)
	}
}
