package live

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestLiveEverydayRequests runs the benchmark's eight everyday requests
// (bench.Requests, T1-T8) on the real Audiobookshelf, speaking of its books
// by title and of its series and authors by name, as a person would: the
// titles and names come from the server (a series with at least two books,
// one of its books, the author of that book). Each request runs on a fresh
// server; it prints calls and o200k tokens, default settings and every
// toolset. They run as a user made for the run, who may change but not
// delete (nobody's progress or bookmarks are touched); what the requests
// change (a collection, progress, a bookmark) is removed after each one,
// the collection with the root key, and the user's playlists, progress and
// bookmarks must be as they were found (the suite compares the server's
// collections).
func TestLiveEverydayRequests(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live run is `make test-live` (it sets ABS_LIVE=1): this one makes and removes a collection, progress and a bookmark")
	}
	target, rootKey := liveServer(t)
	root := &abs{t: t, base: target.String(), key: rootKey, hc: &http.Client{Timeout: 60 * time.Second}}
	libs := root.libraries()
	a, key := ownUser(t, root, "everyday", map[string]any{"download": true, "update": true, "delete": false, "upload": false}, libs["book"], libs["podcast"])
	s, first, second := liveSample(t, a)
	tok, err := bench.NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	before := a.snapshot()
	before.Collections = nil
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		toolsets []string
		kind     bench.Client
	}{{"default", nil, bench.Rereads}, {"default", nil, bench.NeverRereads}, {"all", all, bench.Rereads}} {
		cfg := config.Config{URL: target.String(), APIKey: key, Elicitation: true, Toolsets: c.toolsets}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
		ts, err := bench.MeasureRequests(ctx, cfg, bench.Requests(s), tok, func(_ context.Context, id string) (func(), error) {
			return liveSetup(t, a, root, s, id, first, second), nil
		}, c.kind)
		cancel()
		if err != nil {
			t.Fatalf("AUDIOBOOKSHELF_TOOLSETS=%s, client %s: %v", c.name, c.kind, err)
		}
		calls, _, _ := bench.Sums(ts)
		t.Logf("AUDIOBOOKSHELF_TOOLSETS=%s, client %s, on the real server (%s tokens):\n%s", c.name, c.kind, bench.Encoding, bench.RequestsTable(ts))
		if c.name == "default" && calls > bench.MaxCalls {
			t.Errorf("the eight requests take %d calls with default settings (client %s); the target is at most %d", calls, c.kind, bench.MaxCalls)
		}
	}
	after := a.snapshot()
	after.Collections = nil
	if !reflect.DeepEqual(before, after) {
		t.Errorf("the library is not as it was found:\nbefore %+v\nafter  %+v", before, after)
	}
}

// liveSample finds a series with at least two books in the first book
// library, and names what the requests speak of after it: the ids of its
// first two books come back too.
func liveSample(t *testing.T, a *abs) (s bench.Sample, first, second string) {
	t.Helper()
	lib := a.libraries()["book"]
	if lib == "" {
		t.Skip("no book library")
	}
	var series struct {
		Results []struct {
			ID, Name string
			Books    []struct {
				ID    string `json:"id"`
				Media struct {
					Duration float64 `json:"duration"`
					Metadata struct {
						Title      string `json:"title"`
						AuthorName string `json:"authorName"`
					} `json:"metadata"`
				} `json:"media"`
			} `json:"books"`
		} `json:"results"`
	}
	a.get("/api/libraries/"+lib+"/series?limit=50&page=0&sort=name", &series)
	for _, se := range series.Results {
		if len(se.Books) < 2 {
			continue
		}
		b := se.Books[0].Media
		at := 720.0 // 12 minutes; a shorter book gets its middle
		if b.Duration > 0 && b.Duration <= at {
			at = float64(int(b.Duration / 2))
		}
		author, _, _ := strings.Cut(b.Metadata.AuthorName, ",")
		return bench.Sample{Series: se.Name, FinishTitle: se.Books[1].Media.Metadata.Title, Author: strings.TrimSpace(author),
			BookmarkItem: b.Metadata.Title, BookmarkAt: at, Year: time.Now().Year()}, se.Books[0].ID, se.Books[1].ID
	}
	t.Skip("no series with two books in the first book library")
	return
}

// liveSetup prepares one request and returns what removes what it made:
// T4 needs a book of the series in progress; T2 makes a collection (which
// root deletes: the user may not, and only the one this run made), T3
// progress, T8 a bookmark.
func liveSetup(t *testing.T, a, root *abs, s bench.Sample, id, first, second string) func() {
	progressOf := func(item string) string {
		var p struct {
			ID string `json:"id"`
		}
		if a.do("GET", "/api/me/progress/"+item, nil, &p) != 200 {
			return ""
		}
		return p.ID
	}
	dropNew := func(item string) func() {
		if progressOf(item) != "" {
			t.Fatalf("%s: the book %s has progress already; the run leaves it alone", id, item)
		}
		return func() {
			if p := progressOf(item); p != "" {
				a.do("DELETE", "/api/me/progress/"+p, nil, nil)
			}
		}
	}
	switch id {
	case "T2":
		return func() {
			var cols struct {
				Collections []struct{ ID, Name string }
			}
			root.get("/api/collections", &cols)
			for _, c := range cols.Collections {
				if c.Name == s.Series+" in order" && wasMade(c.ID) {
					if st := root.do("DELETE", "/api/collections/"+c.ID, nil, nil); st != 200 {
						t.Errorf("T2: deleting the collection %s it made: %d", c.ID, st)
					}
				}
			}
		}
	case "T3":
		return dropNew(second)
	case "T4":
		undo := dropNew(first)
		if st := a.do("PATCH", "/api/me/progress/"+first, map[string]any{"currentTime": 10, "progress": 0.1}, nil); st != 200 {
			t.Fatalf("T4: progress on the series' first book: %d", st)
		}
		return undo
	case "T8":
		return func() {
			a.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%s", first, url.PathEscape(fmt.Sprint(s.BookmarkAt))), nil, nil)
		}
	}
	return nil
}

// TestLiveNames: on the real Audiobookshelf, a book's title and a series'
// name work where their ids do, and the series' books come in series order.
func TestLiveNames(t *testing.T) {
	target, key := liveServer(t)
	a := &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 60 * time.Second}}
	s, first, second := liveSample(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	every, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := app.New(app.Options{Config: &config.Config{URL: target.String(), APIKey: key, Elicitation: true, Timeout: 30 * time.Second, Toolsets: every},
		Version: "live", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	<-srv.Registered()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "live", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	text, err := bench.Call(ctx, cs, "get_library_item", map[string]any{"library_item_id": strings.ToUpper(s.FinishTitle)})
	if err != nil || !strings.Contains(text, `"id":"`+second+`"`) {
		t.Errorf("get_library_item by title %q: %v %s", s.FinishTitle, err, text)
	}
	text, err = bench.Call(ctx, cs, "get_series", map[string]any{"series_id": s.Series})
	if err != nil {
		t.Fatalf("get_series by name %q: %v", s.Series, err)
	}
	if i, j := strings.Index(text, first), strings.Index(text, second); i < 0 || j < i {
		t.Errorf("get_series by name %q: books not in series order (%s before %s): %s", s.Series, first, second, text)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_series", Arguments: map[string]any{"series_id": "no series is called this"}})
	if err != nil || !res.IsError || !strings.Contains(fmt.Sprint(res.Content[0].(*mcp.TextContent).Text), `argument "series_id": no series is named`) {
		t.Errorf("an unknown series name: %v %+v", err, res)
	}
}
