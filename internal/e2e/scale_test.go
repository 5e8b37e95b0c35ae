package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/scalecheck"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/libraries"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// ScaleLibrary is a household-sized library: 1,000 books (and the 16 of
// the sample), 3,000 authors, 1,500 tags, 400 genres, a book with 375
// authors and 600 chapters, 10 collections and 10 playlists, the first
// of each with 200 books, 1,000 sessions, 1,000 bookmarks, a podcast of
// 200 episodes.
func ScaleLibrary() sd.Scale {
	s := sd.ScaleFor(1000)
	s.Authors, s.Tags, s.Genres, s.Bookmarks, s.Episodes = 3000, 1500, 400, 1000, 200
	s.Collections, s.Playlists, s.BigList = 10, 10, 200
	return s
}

// On ScaleLibrary, every read tool of the manifest, called
// with its widest arguments, answers within the default result budget; a
// cut or refused answer says how to get the rest; every paged list walked
// to its end shows each entry exactly once and all of them.
func TestEveryReadToolFitsTheBudgetAtScale(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: sd.ScaleData(ScaleLibrary()), Now: sd.SampleNow}})
	call := func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return e.CallErr(name, args)
	}
	// The lists that are long on this library are walked whole.
	walkedAtLeast := map[string]int{"list_authors": 3000, "list_tags": 1500, "list_genres": 400, "list_library_items": 1000,
		"list_listening_sessions": 1000, "list_bookmarks": 1000, "get_item_chapters": 600, "get_collection": 200, "get_playlist": 200,
		"list_items_in_progress": 125}
	widest := scalecheck.Widest(scalecheck.StandinTargets())
	var reports []scalecheck.Report
	// One subtest a read tool (-run 'TestEveryReadToolFitsTheBudgetAtScale/^list_tags$').
	for _, tool := range scalecheck.ReadTools() {
		t.Run(tool.Name, func(t *testing.T) {
			r, ok := scalecheck.RunTool(context.Background(), call, result.DefaultMaxResultChars, tool, widest[tool.Name], t.Errorf)
			if !ok {
				return
			}
			reports = append(reports, r)
			if r.Skipped > 0 {
				t.Errorf("%s: %d widest calls were not made (an empty target)", r.Tool, r.Skipped)
			}
			walked := 0
			for _, w := range r.Walks {
				walked = max(walked, w.Total)
			}
			if atLeast := walkedAtLeast[tool.Name]; walked < atLeast {
				t.Errorf("%s: the longest list walked had %d entries, want at least %d", tool.Name, walked, atLeast)
			}
		})
	}
	for name := range walkedAtLeast {
		if !slices.ContainsFunc(scalecheck.ReadTools(), func(r registry.Tool) bool { return r.Name == name }) {
			t.Errorf("%s: not a read tool of the registry, so its walk is not checked", name)
		}
	}
	t.Logf("\n%s", scalecheck.Table(reports))

	// Lists inside one answer are cut with a count and where the rest is.
	stats := decode(t, e.Call(t, "get_library_stats", map[string]any{"library_id": sd.LibraryBooksID}))
	if n := at(t, stats, "cut", "genresWithCount", "total"); n != float64(406) || len(at(t, stats, "genresWithCount").([]any)) != libraries.StatsGenresCap {
		t.Errorf("get_library_stats: want the first %d of 406 genres with a cut, got total %v", libraries.StatsGenresCap, n)
	}
	series := decode(t, e.Call(t, "list_series", map[string]any{"library_id": sd.LibraryBooksID, "sort": "num_books", "descending": true, "limit": 1}))
	if more := str(at(t, series, "results", 0, "more")); at(t, series, "results", 0, "id") != sd.ScaleSeriesID ||
		len(at(t, series, "results", 0, "books").([]any)) != libraries.SeriesBooksCap || !strings.Contains(more, "filter_group series") {
		t.Errorf("list_series: the longest series shows %d books and more %q", len(at(t, series, "results", 0, "books").([]any)), more)
	}
	// A long series: the first books in series order, and where the rest are.
	one := decode(t, e.Call(t, "get_series", map[string]any{"series_id": sd.ScaleSeriesID}))
	if n, more := len(at(t, one, "books").([]any)), str(at(t, one, "books_more")); n != libraries.SeriesBooksInOrder ||
		!strings.Contains(more, fmt.Sprintf("%d more", 105-libraries.SeriesBooksInOrder)) || !strings.Contains(more, "page 1") {
		t.Errorf("get_series: %d books, more %q; want the first %d of 105 and where the rest are", n, more, libraries.SeriesBooksInOrder)
	}
}

// One library's collections and playlists are paged by Audiobookshelf
// (LibraryController slices them): only the page is sent to the server.
func TestLibraryCollectionsAndPlaylistsArePagedByAudiobookshelf(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	for _, c := range []struct{ tool, key, route string }{
		{"list_collections", "collections", "/collections"}, {"list_playlists", "playlists", "/playlists"},
	} {
		v := decode(t, e.Call(t, c.tool, map[string]any{"library_id": sd.LibraryBooksID, "limit": 1, "page": 0}))
		req := lastRequest(t, e.Standin, "GET", "/libraries/"+sd.LibraryBooksID+c.route)
		if req.Query.Get("limit") != "1" || req.Query.Get("page") != "0" {
			t.Errorf("%s: sent %q, want limit=1&page=0", c.tool, req.RawQuery)
		}
		if at(t, v, "returned") != float64(1) || len(at(t, v, c.key).([]any)) != 1 {
			t.Errorf("%s: %v", c.tool, v)
		}
		if c.tool == "list_collections" && (at(t, v, "total") != float64(2) || at(t, v, "next", "page") != float64(1)) {
			t.Errorf("%s: want total 2 and a next page: %v", c.tool, v)
		}
	}
}

// Without library_id the server-wide routes send every collection (and
// playlist) with its books: past the body limit, the answer names
// library_id, whose route Audiobookshelf pages, not a smaller limit.
func TestEveryCollectionAtOnceTooLargeNamesLibraryID(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Server.Deps.MaxBody = 1 << 20
	e.Standin.Update(func(d *sd.Data) {
		var books []string
		for _, it := range d.Items {
			if it.Book != nil {
				books = append(books, it.ID)
			}
		}
		for i := 0; i < 6; i++ {
			d.Collections = append(d.Collections, sd.Collection{ID: fmt.Sprintf("big-collection-%d", i), LibraryID: sd.LibraryBooksID, Name: "Big", Books: books})
			var items []sd.PlaylistItem
			for _, b := range books {
				items = append(items, sd.PlaylistItem{LibraryItemID: b})
			}
			d.Playlists = append(d.Playlists, sd.Playlist{ID: fmt.Sprintf("big-playlist-%d", i), LibraryID: sd.LibraryBooksID, UserID: sd.UserRootID, Name: "Big", Items: items})
		}
	})
	for _, tool := range []string{"list_collections", "list_playlists"} {
		res := e.Call(t, tool, map[string]any{})
		if text := apptest.Text(res); !res.IsError || !strings.Contains(text, "Pass library_id") || strings.Contains(text, "smaller page") {
			t.Errorf("%s: want the refusal naming library_id: %v %s", tool, res.IsError, text)
		}
		v := decode(t, e.Call(t, tool, map[string]any{"library_id": sd.LibraryBooksID, "limit": 1}))
		if at(t, v, "returned") != float64(1) {
			t.Errorf("%s with library_id: %v", tool, v)
		}
	}
}
