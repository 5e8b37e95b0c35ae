package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLiveNamesTrust holds issue 40's name cases on a real Audiobookshelf,
// on records of the run's own with run-unique names: a book library of
// its own (26 one-second books, each with a cover, written to a folder of
// its own and scanned) and a collection in it. Audiobookshelf's search
// cuts each group at 25, and sends its books in the order it holds them:
// 25 books hold the run's word in their subtitle or title before the one
// titled exactly so, which the search for it never sends.
//   - An exact title beyond the search's cut wins: update_item_metadata
//     writes that book, remove_item_cover asks about it; written otherwise
//     (case, punctuation) it is still the exact one.
//   - A partial match never drives a write that does not ask: it is refused
//     with the candidate's quoted title and id, and no changing request is
//     sent; a guarded write asks, and the question says what the words
//     matched (delete_collection).
//   - A completion of an item's id by its title goes by the same rule: the
//     book titled so, beyond the search's cut, comes first.
//
// The library and the collection are deleted at the end, even when a step
// fails; nothing else on the server is touched.
func TestLiveNamesTrust(t *testing.T) {
	target, key, ffmpeg, a := liveWithFFmpeg(t)
	run := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000)
	word := "Kidz" + run // the run's own word: no other record holds it

	const books = 26
	dir := t.TempDir()
	cover := coverJPEG()
	for i := range books {
		folder := filepath.Join(dir, fmt.Sprintf("book-%02d", i))
		silentBook(t, ffmpeg, filepath.Join(folder, fmt.Sprintf("book-%02d.mp3", i)), "1")
		if err := os.WriteFile(filepath.Join(folder, "cover.jpg"), cover, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib := struct{ ID string }{ownLibrary(t, a, "mcp-live-names-"+run, dir)}
	var listing struct {
		Total   int `json:"total"`
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	a.get("/api/libraries/"+lib.ID+"/items?limit=100", &listing)
	if listing.Total != books {
		t.Fatalf("the library holds %d items after its scan; %d folders were written", listing.Total, books)
	}
	patch := func(id string, metadata map[string]any) {
		t.Helper()
		if st := a.do("PATCH", "/api/items/"+id+"/media", map[string]any{"metadata": metadata}, nil); st != 200 {
			t.Fatalf("PATCH /api/items/%s/media: %d", id, st)
		}
	}
	for i, r := range listing.Results {
		patch(r.ID, map[string]any{"title": fmt.Sprintf("Shelf Book %d", i), "subtitle": "Bedtime stories for " + word})
	}
	// The order Audiobookshelf's search sends them in: the last one is
	// titled the word exactly, the first holds it in its title.
	type hits struct {
		Book []struct {
			LibraryItem struct {
				ID string `json:"id"`
			} `json:"libraryItem"`
		} `json:"book"`
	}
	var all hits
	a.get("/api/libraries/"+lib.ID+"/search?q="+word+"&limit=100", &all)
	if len(all.Book) != books {
		t.Fatalf("the search for %s found %d of the %d books", word, len(all.Book), books)
	}
	exact, archive := all.Book[books-1].LibraryItem.ID, all.Book[0].LibraryItem.ID
	patch(exact, map[string]any{"title": word, "subtitle": ""})
	patch(archive, map[string]any{"title": "A " + word + " Archive (do not touch)", "subtitle": ""})
	var cut hits
	a.get("/api/libraries/"+lib.ID+"/search?q="+word+"&limit=25", &cut)
	for _, h := range cut.Book {
		if h.LibraryItem.ID == exact {
			t.Fatalf("the search cut at 25 sends the book titled %s: the case cannot be made on this server", word)
		}
	}
	if len(cut.Book) != 25 {
		t.Fatalf("the search at limit 25 sent %d books", len(cut.Book))
	}

	var col struct{ ID string }
	colName := "Kids " + run + " Archive (do not delete)"
	if st := a.do("POST", "/api/collections", map[string]any{"libraryId": lib.ID, "name": colName, "books": []string{archive}}, &col); st != 200 || col.ID == "" {
		t.Fatalf("creating the collection %s: %d", colName, st)
	}
	t.Cleanup(func() {
		if st := a.do("DELETE", "/api/collections/"+col.ID, nil, nil); st != 200 && st != 404 {
			t.Errorf("deleting the collection %s (%s): %d", colName, col.ID, st)
		}
	})

	q := &asker{t: t, decline: true}
	proxyURL, rec, _, _ := specProxy(t, target, key)
	q.cs = connectBinary(t, proxyURL, key, nil, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			q.mu.Lock()
			defer q.mu.Unlock()
			q.asked = append(q.asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	changing := func(from int) []string {
		var out []string
		for _, r := range rec.all()[from:] {
			if r.Method != "GET" {
				out = append(out, r.Method+" "+r.Path)
			}
		}
		return out
	}
	description := func(id string) string {
		var it struct {
			Media struct {
				Metadata struct {
					Description *string `json:"description"`
				} `json:"metadata"`
			} `json:"media"`
		}
		a.get("/api/items/"+id, &it)
		if it.Media.Metadata.Description == nil {
			return ""
		}
		return *it.Media.Metadata.Description
	}

	t.Run("a partial title is refused by a write that does not ask", func(t *testing.T) {
		from := len(rec.all())
		_, text, isErr := q.call("update_item_metadata", map[string]any{"library_item_id": word + " Archive", "fields": map[string]any{"description": "partial " + run}})
		if !isErr {
			t.Fatalf("a partial title drove a write: %s", text)
		}
		for _, want := range []string{`argument "library_item_id"`, `"` + word + ` Archive"`, `"A ` + word + ` Archive (do not touch)" (id "` + archive + `")`} {
			if !strings.Contains(text, want) {
				t.Errorf("%q not in %s", want, text)
			}
		}
		if c := changing(from); len(c) != 0 {
			t.Errorf("changing requests sent: %v", c)
		}
		if d := description(archive); d != "" {
			t.Errorf("the archive's description is %q", d)
		}
	})
	t.Run("an exact title beyond the search's cut is written", func(t *testing.T) {
		for _, words := range []string{word, strings.ToUpper(word) + "!"} {
			from := len(rec.all())
			_, text, isErr := q.call("update_item_metadata", map[string]any{"library_item_id": words, "fields": map[string]any{"description": "exact " + words}})
			if isErr {
				t.Fatalf("%q: %s", words, text)
			}
			c := changing(from)
			if len(c) != 1 || !strings.Contains(c[0], exact) {
				t.Errorf("%q sent %v, want one PATCH of %s", words, c, exact)
			}
			if d := description(exact); d != "exact "+words {
				t.Errorf("%q: the book titled %s has description %q", words, word, d)
			}
		}
		if d := description(archive); d != "" {
			t.Errorf("the archive's description is %q", d)
		}
	})
	t.Run("remove_item_cover asks about the exact title", func(t *testing.T) {
		from := len(rec.all())
		n0 := q.nAsked()
		q.call("remove_item_cover", map[string]any{"library_item_id": strings.ToLower(word)})
		n, question := q.last()
		if n != n0+1 {
			t.Fatalf("asked %d times", n-n0)
		}
		if !strings.Contains(question, exact) || strings.Contains(question, archive) {
			t.Errorf("the question is not about the book titled %s (%s): %s", word, exact, question)
		}
		if c := changing(from); len(c) != 0 {
			t.Errorf("declined, yet sent %v", c)
		}
	})
	t.Run("a completion finds the exact title beyond the search's cut", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		from := len(rec.all())
		r, err := q.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"},
			Argument: mcp.CompleteParamsArgument{Name: "id", Value: strings.ToLower(word)}})
		if err != nil {
			t.Fatal(err)
		}
		// The title that is the words first, then the one with a later
		// word that starts so; the books with the words in their subtitle
		// only are none.
		if v := r.Completion.Values; fmt.Sprint(v) != fmt.Sprint([]string{exact, archive}) || r.Completion.Total != 2 || r.Completion.HasMore {
			t.Errorf("completion of %q: %v (total %d), want [%s %s]", strings.ToLower(word), v, r.Completion.Total, exact, archive)
		}
		if c := changing(from); len(c) != 0 {
			t.Errorf("a completion sent %v", c)
		}
	})
	t.Run("delete_collection says what the words matched", func(t *testing.T) {
		from := len(rec.all())
		n0 := q.nAsked()
		q.call("delete_collection", map[string]any{"collection_id": "Kids " + run})
		n, question := q.last()
		if n != n0+1 {
			t.Fatalf("asked %d times", n-n0)
		}
		want := `You said "Kids ` + run + `"; no collection is named that, and the only collection whose name holds it is "` + colName + `".`
		if !strings.Contains(question, want) {
			t.Errorf("the question does not state the match (%s): %s", want, question)
		}
		if c := changing(from); len(c) != 0 {
			t.Errorf("declined, yet sent %v", c)
		}
	})
}
