package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/me"
)

// TestNamesWhereIDsAre: every kind of id a tool takes also takes what a
// person would say. A unique name is used; the answer is the one the id
// gives.
func TestNamesWhereIDsAre(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind, tool string
		args       map[string]any
		want       string // in the answer: the id the name stands for
	}{
		{"item (exact title, any case)", "get_library_item", map[string]any{"library_item_id": "  mort "}, sd.ItemMort},
		{"item (part of a title)", "get_library_item", map[string]any{"library_item_id": "Hail Mary"}, sd.ItemProjectHailMary},
		{"series", "list_library_items", map[string]any{"library_id": "Books", "filter_group": "series", "filter_value": sd.SeriesDiscworld, "sort": "sequence"}, sd.ItemMort},
		{"series (get_series)", "get_series", map[string]any{"series_id": "the expanse"}, sd.SeriesExpanse},
		{"series (get_series_progress, listening)", "get_series_progress", map[string]any{"series_id": "discworld"}, sd.SeriesDiscworld},
		{"library (get_listening_by_period, listening)", "get_listening_by_period", map[string]any{"library_id": "books", "by": "month", "from": "2026-01-01", "to": "2026-12-31"}, sd.LibraryBooksID},
		{"author", "get_author", map[string]any{"author_id": "Terry Pratchett"}, sd.AuthorPratchett},
		{"library", "get_library", map[string]any{"library_id": "podcasts"}, sd.LibraryPodcastsID},
		{"collection", "get_collection", map[string]any{"collection_id": "Space Opera Picks"}, sd.CollectionSpaceOpera},
		{"playlist", "get_playlist", map[string]any{"playlist_id": "commute"}, sd.PlaylistCommute},
		{"podcast, and its one library left out", "list_podcast_downloads", map[string]any{"library_item_id": "Orbital Mechanics Weekly"}, sd.ItemPodcastOrbital},
		{"library left out of a series list (one book library)", "list_series", map[string]any{}, sd.SeriesDiscworld},
		{"titles in a list", "get_collection", map[string]any{"collection_id": "Discworld in order"}, sd.ItemColourOfMagic},
	} {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			e := start(t, apptest.Options{})
			res := e.Call(t, c.tool, c.args)
			if res.IsError || !strings.Contains(apptest.Text(res), c.want) {
				t.Errorf("%s %v: want %s in the answer: %s", c.tool, c.args, c.want, apptest.Text(res))
			}
		})
	}
}

// TestNamesAmbiguousOrUnknown: a name that matches several things lists
// them with their ids, one that matches nothing names the argument; either
// way nothing is changed.
func TestNamesAmbiguousOrUnknown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"ambiguous item in a write", "add_books_to_collection",
			map[string]any{"collection_id": "Space Opera Picks", "library_item_ids": []string{"Mort", "the"}},
			[]string{`argument "library_item_ids[1]"`, `"the" names`, sd.ItemColourOfMagic, sd.ItemLightFantastic, "Nothing was changed"}},
		{"ambiguous collection", "update_collection", map[string]any{"collection_id": "o", "name": "x"},
			[]string{`argument "collection_id"`, sd.CollectionDiscworldInOrder, sd.CollectionSpaceOpera, "Nothing was changed"}},
		{"unknown playlist", "delete_playlist", map[string]any{"playlist_id": "Gym mix"},
			[]string{`argument "playlist_id"`, `no playlist is named "Gym mix"`, "list_playlists", "Nothing was changed"}},
		{"unknown series", "get_series", map[string]any{"series_id": "Foundation"},
			[]string{`argument "series_id"`, `no series is named "Foundation"`}},
		{"unknown author", "get_author", map[string]any{"author_id": "Asimov"},
			[]string{`argument "author_id"`, `no author is named "Asimov"`}},
		{"ambiguous library left out", "get_library_stats", map[string]any{},
			[]string{`argument "library_id"`, "is required", sd.LibraryBooksID, sd.LibraryPodcastsID}},
		{"a podcast's title in a book-only argument's kind", "check_new_episodes", map[string]any{"library_item_id": "Mort"},
			[]string{`argument "library_item_id"`, `no podcast is named "Mort"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := start(t, apptest.Options{Elicit: approve})
			e.Standin.ResetRequests()
			res := e.Call(t, c.tool, c.args)
			if !res.IsError {
				t.Fatalf("accepted: %s", apptest.Text(res))
			}
			for _, w := range c.want {
				if !strings.Contains(apptest.Text(res), w) {
					t.Errorf("%q not in %s", w, apptest.Text(res))
				}
			}
			if m := e.Standin.Mutations(); len(m) != 0 {
				t.Errorf("changed: %v", m)
			}
		})
	}
}

// TestNamesInAGuardedCall: a guarded tool given a name asks about the ids
// it stands for, never the name; the approval is bound to the resolved
// ids, so a call by id carries an approval obtained by name, and one for
// another collection does not.
func TestNamesInAGuardedCall(t *testing.T) {
	t.Parallel()
	t.Run("the question", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var asked []string
		e := start(t, apptest.Options{Elicit: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})
		res := e.Call(t, "remove_books_from_collection", map[string]any{"collection_id": "discworld in order", "library_item_ids": []string{"Equal Rites"}})
		if res.IsError {
			t.Fatalf("%s", apptest.Text(res))
		}
		if len(asked) != 1 {
			t.Fatalf("asked %d times", len(asked))
		}
		q := asked[0]
		// The question names what the names found, as Audiobookshelf
		// holds it, quoted beside the id.
		if w := "(" + named("", "Equal Rites", sd.ItemEqualRites) + ") from " + named("collection", "Discworld in order", sd.CollectionDiscworldInOrder); !strings.Contains(q, w) {
			t.Errorf("the question does not name the book and the collection as %s: %s", w, q)
		}
		if got := lastRequest(t, e.Standin, "POST", "/batch/remove"); !strings.Contains(string(got.Body), sd.ItemEqualRites) {
			t.Errorf("removed %s", got.Body)
		}
	})
	t.Run("the token is bound to the ids", func(t *testing.T) {
		t.Parallel()
		// A token is spent once presented, so each half has its own.
		e := start(t, apptest.Options{})
		tok := tokenOf(t, e.Call(t, "delete_collection", map[string]any{"collection_id": "Space Opera Picks"}))
		other := e.Call(t, "delete_collection", map[string]any{"collection_id": "Discworld in order", "confirm_token": tok})
		if !other.IsError || len(e.Standin.Mutations()) != 0 {
			t.Fatalf("a token for one collection deleted another: %s", apptest.Text(other))
		}
		tok = tokenOf(t, e.Call(t, "delete_collection", map[string]any{"collection_id": "Space Opera Picks"}))
		if len(e.Standin.Mutations()) != 0 {
			t.Fatal("changed before the second call")
		}
		res := e.Call(t, "delete_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera, "confirm_token": tok})
		if res.IsError {
			t.Fatalf("the id of the collection named did not carry its token: %s", apptest.Text(res))
		}
		if m := e.Standin.Mutations(); len(m) != 1 || !strings.Contains(m[0].Path, sd.CollectionSpaceOpera) {
			t.Errorf("mutations %v", m)
		}
	})
}

// TestInProgressCarriesTheNextIDs: an entry of list_items_in_progress
// carries its library's id and its series with id, place and the book
// after it, so the next book of the series needs no other call.
func TestInProgressCarriesTheNextIDs(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	v := decode(t, e.Call(t, "list_items_in_progress", nil))
	found := false
	for _, it := range at(t, v, "items").([]any) {
		m := it.(map[string]any)
		if m["id"] != sd.ItemColourOfMagic {
			continue
		}
		found = true
		if m["library_id"] != sd.LibraryBooksID {
			t.Errorf("library_id: %v", m)
		}
		// Its progress record: the id delete_media_progress takes and
		// where the user is, without what the entry already says.
		p, _ := m["progress"].(map[string]any)
		if p["id"] != sd.ProgressColourOfMagic || p["progress_pct"] != 42.0 || p["current_time_s"] == nil {
			t.Errorf("progress: %v", m["progress"])
		}
		for _, k := range []string{"library_item_id", "episode_id", "duration_s"} {
			if _, has := p[k]; has {
				t.Errorf("progress repeats the entry's %s: %v", k, p)
			}
		}
		s := str(at(t, m, "series", 0))
		if !strings.Contains(s, sd.SeriesDiscworld) || !strings.Contains(s, "sequence:1") || !strings.Contains(s, "Discworld") {
			t.Errorf("series: %v", m["series"])
		}
		// The book after it in the series, by id and title.
		if at(t, m, "series", 0, "next", "id") != sd.ItemLightFantastic || at(t, m, "series", 0, "next", "title") != "The Light Fantastic" ||
			at(t, m, "series", 0, "next", "sequence") != "2" {
			t.Errorf("next in series: %v", m["series"])
		}
	}
	if !found {
		t.Fatalf("The Colour of Magic is not in progress: %v", v)
	}
}

// TestInProgressNextIsCutAfterThreeSeries: on a library with many series
// in progress, the first me.NextSeriesCap series of the page name the
// book after the entry's, the others do not, and the answer says so and
// where the rest is.
func TestInProgressNextIsCutAfterThreeSeries(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Standin: sd.Options{Data: sd.ScaleData(ScaleLibrary()), Now: sd.SampleNow}})
	v := decode(t, e.Call(t, "list_items_in_progress", map[string]any{"limit": 100}))
	seen := map[string]bool{}
	withNext, inSeries := 0, 0
	for _, it := range at(t, v, "items").([]any) {
		series, _ := it.(map[string]any)["series"].([]any)
		for _, s := range series {
			sm := s.(map[string]any)
			first := !seen[str(sm["id"])]
			seen[str(sm["id"])] = true
			_, hasNext := sm["next"]
			if first {
				inSeries++
			}
			if hasNext {
				withNext++
				if inSeries > me.NextSeriesCap {
					t.Errorf("series %d of the page names the next book: %v", inSeries, sm)
				}
			}
		}
	}
	if inSeries <= me.NextSeriesCap || withNext == 0 {
		t.Fatalf("%d series on the page, %d with the next book: the library does not test the cut", inSeries, withNext)
	}
	if cut := str(at(t, v, "next_cut")); !strings.Contains(cut, "first 3 series") || !strings.Contains(cut, "search_library") {
		t.Errorf("next_cut: %q", cut)
	}
}

// TestSearchSeriesInOrder: a series a search matches lists its books in
// series order, and says so.
func TestSearchSeriesInOrder(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	v := decode(t, e.Call(t, "search_library", map[string]any{"library_id": "Books", "q": "discworld"}))
	hit := at(t, v, "series", 0).(map[string]any)
	want := []any{sd.ItemColourOfMagic, sd.ItemLightFantastic, sd.ItemEqualRites, sd.ItemMort, sd.ItemSourcery, sd.ItemWyrdSisters}
	if hit["id"] != sd.SeriesDiscworld || hit["in_series_order"] != true || str(hit["book_ids"]) != str(want) {
		t.Errorf("series hit: %v, want book_ids %v", hit, want)
	}
}
