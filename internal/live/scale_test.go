package live

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/scalecheck"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// The scale of a big household library, made on the real server by
// metadata patches when it has fewer authors: each of the first books of
// the book library gets scaleAuthorsPerBook authors (the first of them is
// the anthology), scaleGenresPerBook genres and scaleTagsPerBook tags.
const (
	scaleAuthors        = 3000
	scaleAuthorsPerBook = 375
	scaleGenresPerBook  = 50
	scaleTagsPerBook    = 190
)

// TestLiveScale (make test-live ABS_LIVE_SCALE=1) holds every read tool of
// the built binary to the default result budget on a big library of a real
// Audiobookshelf: every read tool's widest calls (internal/scalecheck),
// every paged list walked to its end with each entry counted once. When the
// book library has fewer than 3,000 authors it is made big first, through
// metadata patches of its books (authors, genres and tags added): run it
// on a throwaway server.
func TestLiveScale(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" || os.Getenv("ABS_LIVE_SCALE") != "1" {
		t.Skip("the scale run is `make test-live ABS_LIVE_SCALE=1` with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY of a throwaway Audiobookshelf (its books get thousands of authors and tags)")
	}
	target, key := liveServer(t)
	base := target.String()
	a := &abs{t: t, base: base, key: key, hc: &http.Client{Timeout: 120 * time.Second}}

	libs := a.libraries()
	tg := scalecheck.Targets{BookLibrary: libs["book"], PodcastLibrary: libs["podcast"]}
	if tg.BookLibrary == "" {
		t.Fatalf("the server needs a book library; it has the first of each type %v", libs)
	}
	seeded := seedScale(t, a, tg.BookLibrary)
	fixtures(t, a, tg.BookLibrary)

	// What the widest calls are made on: the book with the most authors,
	// a book with a cover, the podcast with the most episodes, the longest collection and
	// playlist, a series, an author, a book with progress.
	var books struct {
		Results []struct{ ID string }
	}
	a.get("/api/libraries/"+tg.BookLibrary+"/items?limit=50&page=0", &books)
	most := -1
	for _, b := range books.Results {
		var it struct {
			Media struct {
				Metadata  struct{ Authors []struct{ ID string } }
				Chapters  []struct{ ID int }
				CoverPath string `json:"coverPath"`
			}
		}
		a.get("/api/items/"+b.ID+"?expanded=1", &it)
		if n := len(it.Media.Metadata.Authors)*1000 + len(it.Media.Chapters); n > most {
			most, tg.Item = n, b.ID
		}
		if tg.Cover == "" && it.Media.CoverPath != "" {
			tg.Cover = b.ID // get_item_cover's widest call
		}
	}
	if tg.Cover == "" && len(books.Results) > 0 {
		// No book has a cover: one is uploaded for the run and removed
		// after, for get_item_cover's widest call.
		tg.Cover = books.Results[0].ID
		uploadCover(t, a, tg.Cover)
		t.Cleanup(func() { a.do("DELETE", "/api/items/"+tg.Cover+"/cover", nil, nil) })
	}
	if tg.PodcastLibrary != "" {
		var pods struct {
			Results []struct{ ID string }
		}
		a.get("/api/libraries/"+tg.PodcastLibrary+"/items?limit=20&page=0", &pods)
		most := -1
		for _, p := range pods.Results {
			var it struct {
				Media struct{ Episodes []struct{ ID string } }
			}
			a.get("/api/items/"+p.ID+"?expanded=1", &it)
			if len(it.Media.Episodes) > most && len(it.Media.Episodes) > 0 {
				most, tg.Podcast, tg.Episode = len(it.Media.Episodes), p.ID, it.Media.Episodes[0].ID
			}
		}
	}
	var series struct{ Results []struct{ ID string } }
	a.get("/api/libraries/"+tg.BookLibrary+"/series?limit=1&page=0&sort=numBooks&desc=1", &series)
	if len(series.Results) > 0 {
		tg.Series = series.Results[0].ID
	}
	var authors struct{ Results []struct{ ID string } }
	a.get("/api/libraries/"+tg.BookLibrary+"/authors?limit=1&page=0&sort=numBooks&desc=1", &authors)
	if len(authors.Results) > 0 {
		tg.Author = authors.Results[0].ID
	}
	var cols struct {
		Collections []struct {
			ID    string
			Books []struct{ ID string }
		}
	}
	a.get("/api/collections", &cols)
	longest := -1
	for _, c := range cols.Collections {
		if len(c.Books) > longest {
			longest, tg.Collection = len(c.Books), c.ID
		}
	}
	var pls struct {
		Playlists []struct {
			ID    string
			Items []struct{ LibraryItemID string }
		}
	}
	a.get("/api/playlists", &pls)
	longest = -1
	for _, p := range pls.Playlists {
		if len(p.Items) > longest {
			longest, tg.Playlist = len(p.Items), p.ID
		}
	}
	var me struct {
		MediaProgress []struct{ LibraryItemID, EpisodeID string } `json:"mediaProgress"`
	}
	a.get("/api/me", &me)
	for _, p := range me.MediaProgress {
		if p.EpisodeID == "" {
			tg.Progressed = p.LibraryItemID
			break
		}
	}
	tg.Query, tg.Year = "a", time.Now().UTC().Year()

	// Every toolset: scalecheck calls every read tool, the listening and
	// curation ones among them.
	var asked atomic.Int32 // only reads: nothing asks
	cs := connectBinary(t, base, key, nil, &mcp.ClientOptions{ElicitationHandler: approving(&asked)})
	call := func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	t0 := time.Now()
	reports := scalecheck.Run(context.Background(), call, result.DefaultMaxResultChars, scalecheck.Widest(tg), t.Errorf)
	if n := asked.Load(); n != 0 {
		t.Errorf("read tools asked the person %d times", n)
	}
	t.Logf("%s in %s; every read tool at its widest arguments (budget %d characters):\n%s",
		seeded, time.Since(t0).Round(time.Second), result.DefaultMaxResultChars, scalecheck.Table(reports))
	for _, r := range reports {
		if r.Tool != "list_authors" {
			continue
		}
		walked := 0
		for _, w := range r.Walks {
			walked = max(walked, w.Seen)
		}
		if walked < scaleAuthors {
			t.Errorf("list_authors walked %d authors, want at least %d", walked, scaleAuthors)
		}
	}
}

// seedScale makes the book library big when it has fewer than
// scaleAuthors authors: metadata patches of its books (PATCH
// /api/items/:id/media) add authors, genres and tags, as many books as it
// takes. It says what the library holds.
func seedScale(t *testing.T, a *abs, lib string) string {
	t.Helper()
	count := func() (authors, tags, genres int) {
		var au struct{ Total int }
		a.get("/api/libraries/"+lib+"/authors?limit=1&page=0", &au)
		var tg struct{ Tags []string }
		a.get("/api/tags", &tg)
		var ge struct{ Genres []string }
		a.get("/api/genres", &ge)
		return au.Total, len(tg.Tags), len(ge.Genres)
	}
	authors, tags, genres := count()
	if authors >= scaleAuthors {
		return fmt.Sprintf("library %s as it was: %d authors, %d tags, %d genres", lib, authors, tags, genres)
	}
	var books struct {
		Results []struct{ ID string }
	}
	a.get("/api/libraries/"+lib+"/items?limit=100&page=0", &books)
	need := (scaleAuthors - authors + scaleAuthorsPerBook - 1) / scaleAuthorsPerBook
	if len(books.Results) < need {
		t.Fatalf("the book library has %d books; %d are needed to hold %d authors", len(books.Results), need, scaleAuthors)
	}
	for i, b := range books.Results[:need] {
		var names []map[string]string
		for k := 0; k < scaleAuthorsPerBook; k++ {
			names = append(names, map[string]string{"name": fmt.Sprintf("Scale Author %d-%d Lastname%d", i, k, k)})
		}
		var genreList, tagList []string
		for k := 0; k < scaleGenresPerBook; k++ {
			genreList = append(genreList, fmt.Sprintf("Scale Genre %d-%d", i, k))
		}
		for k := 0; k < scaleTagsPerBook; k++ {
			tagList = append(tagList, fmt.Sprintf("scale-tag-%d-%d", i, k))
		}
		body := map[string]any{"metadata": map[string]any{"authors": names, "genres": genreList}, "tags": tagList}
		if st := a.do("PATCH", "/api/items/"+b.ID+"/media", body, nil); st != 200 {
			t.Fatalf("PATCH /api/items/%s/media: %d", b.ID, st)
		}
	}
	authors, tags, genres = count()
	return fmt.Sprintf("library %s made big by metadata patches of %d books: %d authors, %d tags, %d genres", lib, need, authors, tags, genres)
}

// fixtures makes what the widest calls need and a big library may lack: a
// collection and a playlist of the library's books (up to 100), and
// bookmarks on its first book; all removed when the test ends.
func fixtures(t *testing.T, a *abs, lib string) {
	t.Helper()
	var books struct {
		Results []struct{ ID string }
	}
	a.get("/api/libraries/"+lib+"/items?limit=100&page=0", &books)
	if len(books.Results) == 0 {
		return
	}
	var ids []string
	var items []map[string]string
	for _, b := range books.Results {
		ids = append(ids, b.ID)
		items = append(items, map[string]string{"libraryItemId": b.ID})
	}
	var col, pl struct{ ID string }
	if st := a.do("POST", "/api/collections", map[string]any{"libraryId": lib, "name": prefix + "scale", "books": ids}, &col); st != 200 || col.ID == "" {
		t.Fatalf("POST /api/collections: %d", st)
	}
	t.Cleanup(func() { a.do("DELETE", "/api/collections/"+col.ID, nil, nil) })
	if st := a.do("POST", "/api/playlists", map[string]any{"libraryId": lib, "name": prefix + "scale", "items": items}, &pl); st != 200 || pl.ID == "" {
		t.Fatalf("POST /api/playlists: %d", st)
	}
	t.Cleanup(func() { a.do("DELETE", "/api/playlists/"+pl.ID, nil, nil) })
	for k := 0; k < 20; k++ {
		tm := 1000 + k
		if st := a.do("POST", "/api/me/item/"+ids[0]+"/bookmark", map[string]any{"time": tm, "title": fmt.Sprintf("%sscale %d", prefix, k)}, nil); st != 200 {
			t.Fatalf("POST bookmark: %d", st)
		}
		t.Cleanup(func() { a.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%d", ids[0], tm), nil, nil) })
	}
}
