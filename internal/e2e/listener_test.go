package e2e

import (
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// markedFinished marks a book finished for root on 2025-12-20, as
// Audiobookshelf's "Mark as finished" does: a record, no session.
func markedFinished(item string) func(s *sd.Server) {
	return func(s *sd.Server) {
		s.Update(func(d *sd.Data) {
			at := time.Date(2025, 12, 20, 12, 0, 0, 0, time.UTC).UnixMilli()
			d.Users[0].MediaProgress = append(d.Users[0].MediaProgress, sd.MediaProgress{ID: "marked-" + item, LibraryItemID: item,
				MediaItemID: item, MediaItemType: "book", Progress: 1, IsFinished: true, LastUpdate: at, StartedAt: at, FinishedAt: at})
		})
	}
}

// TestFinishedWithoutListeningIsNamed: a book marked finished without a
// session and a finished episode are named in one call, the episode by
// its own title beside its podcast's, in get_listening_by_period (with
// and without a library) and in what_next.
func TestFinishedWithoutListeningIsNamed(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	for _, args := range []map[string]any{
		{"library_item_id": sd.ItemProjectHailMary, "is_finished": true},
		{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital2, "is_finished": true},
	} {
		if res := e.Call(t, "set_media_progress", args); res.IsError {
			t.Fatal(apptest.Text(res))
		}
	}
	now := time.Now()
	from, to := now.AddDate(0, 0, -2).Format("2006-01-02"), now.AddDate(0, 0, 2).Format("2006-01-02")
	want := map[string][2]string{sd.ItemProjectHailMary: {"Project Hail Mary", ""}, sd.ItemPodcastOrbital: {"Orbital Mechanics Weekly", "Lagrange Points"}}
	check := func(what string, list []any, wantIDs ...string) {
		t.Helper()
		seen := map[string]bool{}
		for _, f := range list {
			id := str(at(t, f, "library_item_id"))
			w, ok := want[id]
			if !ok {
				continue
			}
			seen[id] = true
			ep, _ := f.(map[string]any)["episode"].(string)
			if str(at(t, f, "title")) != w[0] || ep != w[1] {
				t.Errorf("%s: %v, want title %q episode %q", what, f, w[0], w[1])
			}
		}
		for _, id := range wantIDs {
			if !seen[id] {
				t.Errorf("%s: %s is not listed: %v", what, id, list)
			}
		}
	}
	v := decode(t, e.Call(t, "get_listening_by_period", map[string]any{"from": from, "to": to}))
	check("get_listening_by_period", at(t, v, "finished").([]any), sd.ItemProjectHailMary, sd.ItemPodcastOrbital)
	v = decode(t, e.Call(t, "get_listening_by_period", map[string]any{"from": from, "to": to, "library_id": sd.LibraryBooksID}))
	check("get_listening_by_period in the books library", at(t, v, "finished").([]any), sd.ItemProjectHailMary)
	if n := len(at(t, v, "finished").([]any)); n != 1 {
		t.Errorf("the books library lists %d finished, want 1: %v", n, v)
	}
	v = decode(t, e.Call(t, "what_next", map[string]any{}))
	check("what_next", at(t, v, "recently_finished").([]any), sd.ItemProjectHailMary, sd.ItemPodcastOrbital)
}
