package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// requestCases are successful calls whose requests to Audiobookshelf are
// counted; between them they reach the fewest and the most requests that
// tools.yaml gives for each tool.
var requestCases = func() []readCase {
	var out []readCase
	for _, c := range readCases {
		out = append(out, readCase{tool: c.tool, args: c.args, per: c.per})
	}
	out = append(out, guardedRequestCases...)
	out = append(out, recordRequestCases...)
	out = append(out, upkeepRequestCases...)
	out = append(out, nameCases...)
	entry := func(item string, episode ...string) map[string]any {
		e := map[string]any{"library_item_id": item}
		if len(episode) > 0 {
			e["episode_id"] = episode[0]
		}
		return e
	}
	return append(out, []readCase{
		{tool: "list_library_items", args: map[string]any{"library_id": sd.LibraryBooksID, "limit": 5, "detail": "full"}},
		{tool: "list_items_in_progress", args: map[string]any{"detail": "full"}},
		// Every started series: the progress records, then 3 books and 2 series (per).
		{tool: "get_series_progress", args: map[string]any{}, per: 5},
		// 1200 more sessions than the sample's: 2 more pages of 500 (per).
		{tool: "get_listening_by_period", args: map[string]any{"from": "2020-01-01", "to": "2026-01-31"}, per: 2, setup: manySessions(1200)},
		// One library: its days come from its sessions, so Audiobookshelf's
		// listening stats (every library's days) are not read.
		{tool: "get_listening_by_period", args: map[string]any{"from": "2020-01-01", "to": "2026-01-31", "library_id": sd.LibraryBooksID}},
		// A book marked finished without a session: its title and library
		// in one batched read.
		{tool: "get_listening_by_period", args: map[string]any{"from": "2020-01-01", "to": "2026-01-31"}, setup: markedFinished(sd.ItemNeverwhere)},
		{tool: "what_next", args: map[string]any{}, per: 6, setup: markedFinished(sd.ItemNeverwhere)},
		{tool: "check_owned", args: map[string]any{"titles": []string{"Mort"}, "library_id": sd.LibraryBooksID}},
		{tool: "list_abandoned", args: map[string]any{"idle_days": 36500}}, // nothing left that long: no book read
		{tool: "get_listening_year", args: map[string]any{"year": 2025}, setup: markedFinished(sd.ItemNeverwhere)},
		{tool: "get_listening_year", args: map[string]any{"year": 2030}}, // nothing finished: no book read
		{tool: "get_taste_profile", args: map[string]any{"library_id": sd.LibraryBooksID}, setup: func(s *sd.Server) {
			s.Update(func(d *sd.Data) { d.Users[0].MediaProgress = nil })
		}},
		// Books only: every recently finished book is named by its series.
		{tool: "what_next", args: map[string]any{"media_type": "book"}, per: 5},
		{tool: "get_media_progress", args: map[string]any{"library_item_id": sd.ItemMort}}, // never started
		{tool: "get_media_progress", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings1}},
		{tool: "set_media_progress", args: map[string]any{"library_item_id": sd.ItemMort, "current_time": 600}},
		{tool: "set_media_progress", args: map[string]any{"library_item_id": sd.ItemLeviathanWakes, "is_finished": false, "current_time": 120}},
		{tool: "delete_media_progress", args: map[string]any{"media_progress_id": sd.ProgressColourOfMagic}},
		{tool: "create_bookmark", args: map[string]any{"library_item_id": sd.ItemMort, "time": 95.5, "title": "Death takes an apprentice"}},
		{tool: "update_bookmark", args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 3600, "title": "Twoflower arrives"}},
		{tool: "delete_bookmark", args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 1234.5}},
		{tool: "create_collection", args: map[string]any{"library_id": sd.LibraryBooksID, "name": "Earthsea", "library_item_ids": []string{sd.ItemWizardOfEarthsea, sd.ItemTombsOfAtuan}}},
		{tool: "update_collection", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder, "name": "Discworld (publication order)"}},
		{tool: "update_collection", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder,
			"library_item_ids": []string{sd.ItemMort, sd.ItemEqualRites, sd.ItemLightFantastic, sd.ItemColourOfMagic}}},
		{tool: "add_books_to_collection", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder, "library_item_ids": []string{sd.ItemSourcery, sd.ItemWyrdSisters}}},
		{tool: "remove_books_from_collection", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder, "library_item_ids": []string{sd.ItemEqualRites}}},
		{tool: "delete_collection", args: map[string]any{"collection_id": sd.CollectionSpaceOpera}},
		{tool: "create_playlist", args: map[string]any{"library_id": sd.LibraryPodcastsID, "name": "Empty for now"}},
		{tool: "create_playlist", args: map[string]any{"library_id": sd.LibraryPodcastsID, "name": "Weekend", "items": []map[string]any{
			entry(sd.ItemPodcastOrbital, sd.EpisodeOrbital3), entry(sd.ItemPodcastTinyThings, sd.EpisodeTinyThings1), entry(sd.ItemPodcastOrbital, sd.EpisodeOrbital4)}}},
		{tool: "update_playlist", args: map[string]any{"playlist_id": sd.PlaylistCommute, "description": "Short ones first"}},
		{tool: "update_playlist", args: map[string]any{"playlist_id": sd.PlaylistCommute, "items": []map[string]any{
			entry(sd.ItemProjectHailMary), entry(sd.ItemGoodOmens), entry(sd.ItemMort)}}},
		{tool: "add_items_to_playlist", args: map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			entry(sd.ItemPodcastTinyThings, sd.EpisodeTinyThings5)}}},
		{tool: "add_items_to_playlist", args: map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			entry(sd.ItemPodcastTinyThings, sd.EpisodeTinyThings4), entry(sd.ItemPodcastOrbital, sd.EpisodeOrbital4), entry(sd.ItemPodcastTinyThings, sd.EpisodeTinyThings5)}}},
		{tool: "remove_items_from_playlist", args: map[string]any{"playlist_id": sd.PlaylistCommute, "items": []map[string]any{entry(sd.ItemMort)}}},
		{tool: "delete_playlist", args: map[string]any{"playlist_id": sd.PlaylistCommute}},
	}...)
}()

// nameReads are how many of each of tools.yaml's name_requests a call by
// name adds: the libraries read, a collections or playlists list read, and
// the searches (names times libraries searched).
type nameReads struct{ libraries, list, search, page int }

// nameCases are calls by name: each adds what name_requests says.
var nameCases = []readCase{
	// Two libraries (books, podcasts) searched for a title: 1 + 2.
	{tool: "get_library_item", args: map[string]any{"library_item_id": "Mort"}, names: &nameReads{libraries: 1, search: 2}},
	// The call's library named: read once; the title searched there alone.
	{tool: "create_bookmark", args: map[string]any{"library_item_id": "Equal Rites", "time": 60, "title": "start"}, names: &nameReads{libraries: 1, search: 2}},
	{tool: "create_collection", args: map[string]any{"library_id": "Books", "name": "Two", "library_item_ids": []string{"Mort", "Sourcery"}}, names: &nameReads{libraries: 1, search: 2}},
	// A series is in book libraries only: 1 + 1.
	{tool: "get_series", args: map[string]any{"series_id": "Discworld"}, names: &nameReads{libraries: 1, search: 1}},
	// The one book library filled in.
	{tool: "list_series", args: map[string]any{}, names: &nameReads{libraries: 1}},
	// A guarded call by name: resolved on each run of the handler (the
	// question's run and the approved one, on either protocol revision).
	{tool: "delete_collection", args: map[string]any{"collection_id": "Space Opera Picks"}, names: &nameReads{list: 2}},
	{tool: "get_playlist", args: map[string]any{"playlist_id": "Commute"}, names: &nameReads{list: 1}},
	// No title is "Hail Mary" exactly: the search of each library cannot
	// settle it, so each library's items are read complete (one page each).
	{tool: "get_library_item", args: map[string]any{"library_item_id": "Hail Mary"}, names: &nameReads{libraries: 1, search: 2, page: 2}},
	// A search cut at 25 books: the book library's items are read
	// complete (one page of 500 holds the 52 books); the podcast
	// library's search was not cut and holds no exact title, so its
	// items are read too.
	{tool: "update_item_metadata", args: map[string]any{"library_item_id": "Kids", "fields": map[string]any{"description": "x"}}, setup: kidsShelf,
		names: &nameReads{libraries: 1, search: 2, page: 2}},
	// An author named with no exact match: the library's authors, one page.
	{tool: "get_author", args: map[string]any{"author_id": "Pratchett"}, names: &nameReads{libraries: 1, search: 1, page: 1}},
	// A series with no exact match: the library's series, one page.
	{tool: "get_series", args: map[string]any{"series_id": "Expanse"}, names: &nameReads{libraries: 1, search: 1, page: 1}},
	// Three series match "s" (Discworld, The Expanse, Earthsea): each one's
	// books in series order.
	{tool: "search_library", args: map[string]any{"library_id": sd.LibraryBooksID, "q": "s"}},
	// Every audit of a book library: 14 reads, each listing once.
	{tool: "audit_library", args: map[string]any{"library_id": sd.LibraryBooksID}},
	// One audit: the library and the listing it reads.
	{tool: "audit_library", args: map[string]any{"library_id": sd.LibraryBooksID, "audit": "no_audio"}},
	// The covers, asked for: the library, its books, and each of the 16
	// books' covers.
	{tool: "audit_library", args: map[string]any{"library_id": sd.LibraryBooksID, "audit": "covers"}, per: 16},
	// A podcast library: the library, its podcasts, and each of its 2
	// podcasts' episodes.
	{tool: "audit_library", args: map[string]any{"library_id": sd.LibraryPodcastsID}, per: 2},
}

// distinctItems counts the distinct library items in a list argument (ids,
// or entries with library_item_id).
func distinctItems(v any) int {
	seen := map[string]bool{}
	switch l := v.(type) {
	case []string:
		for _, id := range l {
			seen[id] = true
		}
	case []map[string]any:
		for _, e := range l {
			seen[fmt.Sprint(e["library_item_id"])] = true
		}
	}
	return len(seen)
}

// TestRequestsPerCall holds docs/tools.md to the truth: each successful
// call sends as many requests to Audiobookshelf (the stand-in records every
// one) as tools.yaml's requests says, and for every tool the cases reach
// both the fewest and the most it says, so the documented count can be
// neither too high nor too low.
func TestRequestsPerCall(t *testing.T) {
	t.Parallel()
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]toolgen.Requests{}
	for _, tool := range m.Tools {
		declared[tool.Name] = tool.Requests
	}
	cases := map[string][]readCase{}
	for _, c := range requestCases {
		if _, ok := declared[c.tool]; !ok {
			t.Errorf("%s is not in tools.yaml", c.tool)
		}
		cases[c.tool] = append(cases[c.tool], c)
	}
	for _, tool := range m.Tools {
		if tool.Example != nil {
			cases[tool.Name] = append(cases[tool.Name], readCase{tool: tool.Name, args: tool.Example})
		}
	}
	// One subtest a tool (-run 'TestRequestsPerCall/^list_tags$').
	for _, tool := range m.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			var seen []int
			for _, c := range cases[tool.Name] {
				seen = append(seen, countRequests(t, m, declared[tool.Name], c)...)
			}
			if len(seen) == 0 {
				t.Errorf("%s: no call counted against tools.yaml's requests: give it example: in tools.yaml (CONTRIBUTING.md, Add a read tool), or a case in requestCases (internal/e2e/requests_test.go)", tool.Name)
				return
			}
			lo, hi := slices.Min(seen), slices.Max(seen)
			if lo != tool.Requests.Count || hi != tool.Requests.Most() {
				t.Errorf("%s: the calls counted sent %d to %d requests (beyond per-item reads); tools.yaml says %s: correct requests in tools.yaml, or add a case to requestCases (internal/e2e/requests_test.go) that reaches the other end", tool.Name, lo, hi, tool.Requests.Text())
			}
		})
	}
}

// countRequests makes one case's call on a fresh server, once each way a
// guarded call is approved, and gives the requests it sent beyond the
// per-item, per and name reads; a count outside tools.yaml's fails.
func countRequests(t *testing.T, m *toolgen.Manifest, rq toolgen.Requests, c readCase) []int {
	var counts []int
	// Both ways a guarded call is approved: the question pushed while
	// the call waits (2025-11-25), and the call ended and retried with
	// the answer (2026-07-28).
	for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
		// A fresh server and stand-in per call: writes change what the
		// next call would find.
		e := apptest.Start(t, apptest.Options{Elicit: approve, ProtocolVersion: proto})
		if c.setup != nil {
			c.setup(e.Standin)
		}
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		if res.IsError {
			t.Errorf("%s %v (%s): %s", c.tool, c.args, proto, apptest.Text(res))
			continue
		}
		reqs := e.Standin.Requests()
		extra := 0
		if rq.PerItem != "" {
			extra = distinctItems(c.args[rq.PerItem])
		}
		if c.names != nil {
			nr := m.NameRequests
			extra += c.names.libraries*nr.Libraries + c.names.list*nr.List + c.names.search*nr.Search + c.names.page*nr.Page
		}
		n := len(reqs) - extra - c.per
		if c.per > 0 && rq.Per == "" {
			t.Errorf("%s: the case counts %d requests under requests.per, which tools.yaml does not give", c.tool, c.per)
		}
		if n < rq.Count || n > rq.Most() {
			var sent []string
			for _, r := range reqs {
				sent = append(sent, r.Method+" "+r.Path)
			}
			t.Errorf("%s %v (%s) sent %d requests (%s); tools.yaml says %s", c.tool, c.args, proto, len(reqs), strings.Join(sent, ", "), rq.Text())
		}
		counts = append(counts, n)
	}
	return counts
}

// TestReadsAtTheSameTime: reads that do not depend on each other are sent
// at the same time, not one after the other. The stand-in holds each of
// the two back until the other has arrived; sent in turn, in either order,
// the first would wait for ever (here: 5 s, then the test fails).
func TestReadsAtTheSameTime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool, first, second, want string
		args                      map[string]any
	}{
		{"list_library_items", "/items", "/api/me/progress", "progress_pct", map[string]any{"library_id": sd.LibraryBooksID, "limit": 5}},
		{"list_items_in_progress", "/api/me/items-in-progress", "/api/me/progress", "progress", nil},
		{"create_bookmark", "/api/items/" + sd.ItemMort, "/api/me/bookmarks/" + sd.ItemMort, "created",
			map[string]any{"library_item_id": sd.ItemMort, "time": 95.5, "title": "Death takes an apprentice"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			e := apptest.Start(t, apptest.Options{})
			// Each of the two waits until the other has arrived.
			var arrived [2]chan struct{}
			var once [2]sync.Once
			for i := range arrived {
				arrived[i] = make(chan struct{})
			}
			e.Standin.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
				i := -1
				switch {
				case strings.HasSuffix(r.URL.Path, c.first):
					i = 0
				case r.URL.Path == c.second:
					i = 1
				}
				if i < 0 {
					return false
				}
				once[i].Do(func() { close(arrived[i]) })
				select {
				case <-arrived[1-i]:
				case <-time.After(5 * time.Second):
					t.Errorf("%s waited 5 s for %s: they are not sent at the same time", r.URL.Path, []string{c.first, c.second}[1-i])
				}
				return false
			})
			v := decode(t, e.Call(t, c.tool, c.args))
			if !strings.Contains(str(v), c.want) {
				t.Errorf("no %s in %v", c.want, v)
			}
		})
	}
}

// TestProgressFromMeOnOlderServers: an Audiobookshelf before 2.36 answers
// GET /api/me/progress with 404; the progress then comes from GET /api/me,
// and the 404 route is not asked again.
func TestProgressFromMeOnOlderServers(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{})
	e.Standin.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/me/progress" {
			http.Error(w, "Not Found", http.StatusNotFound)
			return true
		}
		return false
	})
	args := map[string]any{"library_id": sd.LibraryBooksID, "limit": 5}
	for i := range 2 {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "list_library_items", args))
		if at(t, v, "results", 0, "progress_pct").(float64) != 42 {
			t.Errorf("call %d: first item %v", i, at(t, v, "results", 0))
		}
		var paths []string
		me := false
		for _, r := range e.Standin.Requests() {
			paths = append(paths, r.Path)
			me = me || r.Path == "/api/me"
		}
		want := 2
		if i == 0 {
			want = 3 // the 404 once
		}
		if len(paths) != want || !me {
			t.Errorf("call %d sent %v; want %d requests, GET /api/me among them", i, paths, want)
		}
	}
}
