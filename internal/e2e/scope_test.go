package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// What the person cannot see: a second book library, "Hidden books", that
// the key's user does not see, with two books holding the same tag, genre
// and narrator as a book of Books, their own authors and a series; and the
// user's progress in one of them (kept, as Audiobookshelf keeps it, after
// the user lost the library) and a finish of the other.
const (
	hiddenLib      = "0f1e2d3c-4b5a-4697-8877-66554433aa01"
	hiddenA        = "0f1e2d3c-4b5a-4697-8877-66554433aa02"
	hiddenB        = "0f1e2d3c-4b5a-4697-8877-66554433aa03"
	hiddenAuthor   = "0f1e2d3c-4b5a-4697-8877-66554433aa04"
	hiddenAuthor2  = "0f1e2d3c-4b5a-4697-8877-66554433aa05"
	hiddenSeries   = "0f1e2d3c-4b5a-4697-8877-66554433aa06"
	hiddenSeries2  = "0f1e2d3c-4b5a-4697-8877-66554433aa07"
	hiddenTitle    = "Secret Hidden Title"
	hiddenLibName  = "Hidden books"
	hiddenAuthName = "Hidden Authorname"
)

// hideALibrary adds Hidden books and keeps the key's user (made an admin,
// with update) to Books and Podcasts; Mort, in Books, holds tag and genre
// "Shared" and narrator "Shared Voice" alone.
func hideALibrary(s *sd.Server) {
	s.Update(func(d *sd.Data) {
		lib := d.Libraries[0]
		lib.ID, lib.Name, lib.Folders = hiddenLib, hiddenLibName, nil
		d.Libraries = append(d.Libraries, lib)
		d.Authors = append(d.Authors, sd.Author{ID: hiddenAuthor, LibraryID: hiddenLib, Name: hiddenAuthName},
			sd.Author{ID: hiddenAuthor2, LibraryID: hiddenLib, Name: "Other Hiddenname"})
		d.Series = append(d.Series, sd.Series{ID: hiddenSeries, LibraryID: hiddenLib, Name: "Hidden Saga"},
			sd.Series{ID: hiddenSeries2, LibraryID: hiddenLib, Name: "Hidden Cycle"})
		add := func(id, bookID, author, series string, names ...string) {
			it := *itemOf(d, sd.ItemHostile)
			it.ID, it.LibraryID = id, hiddenLib
			b := *it.Book
			b.ID, b.Title, b.AuthorIDs = bookID, hiddenTitle, []string{author}
			b.Series = []sd.SeriesSequence{{SeriesID: series, Sequence: "1"}}
			b.Tags = append([]string{"Shared"}, names...)
			b.Genres = append([]string{"Shared"}, names...)
			b.Narrators = []string{"Shared Voice"}
			for _, n := range names {
				b.Narrators = append(b.Narrators, n+" Voice")
			}
			it.Book = &b
			d.Items = append(d.Items, it)
		}
		add(hiddenA, "0f1e2d3c-4b5a-4697-8877-66554433ab02", hiddenAuthor, hiddenSeries, "Joined")
		add(hiddenB, "0f1e2d3c-4b5a-4697-8877-66554433ab03", hiddenAuthor2, hiddenSeries2, "Keep")
		mort := itemOf(d, sd.ItemMort).Book
		mort.Tags, mort.Genres, mort.Narrators = []string{"Shared"}, []string{"Shared"}, []string{"Shared Voice"}
		u := &d.Users[0]
		u.Type = "admin"
		u.Permissions.Update = true
		u.Permissions.AccessAllLibraries = false
		u.Permissions.LibrariesAccessible = []string{sd.LibraryBooksID, sd.LibraryPodcastsID}
		now := time.Now().UnixMilli()
		u.MediaProgress = append(u.MediaProgress,
			sd.MediaProgress{ID: "0f1e2d3c-4b5a-4697-8877-66554433ac01", LibraryItemID: hiddenA, MediaItemID: "0f1e2d3c-4b5a-4697-8877-66554433ab02", MediaItemType: "book",
				Duration: 36000, Progress: 0.5, CurrentTime: 18000, LastUpdate: now, StartedAt: now - 1000},
			sd.MediaProgress{ID: "0f1e2d3c-4b5a-4697-8877-66554433ac02", LibraryItemID: hiddenB, MediaItemID: "0f1e2d3c-4b5a-4697-8877-66554433ab03", MediaItemType: "book",
				Duration: 36000, Progress: 1, CurrentTime: 36000, IsFinished: true, LastUpdate: now, StartedAt: now - 2000, FinishedAt: now})
	})
}

// hiddenWords are what no answer, question or error may show to the user
// kept from Hidden books.
var hiddenWords = []string{hiddenLib, hiddenA, hiddenB, hiddenAuthor, hiddenAuthor2, hiddenSeries, hiddenSeries2, hiddenTitle, hiddenLibName, hiddenAuthName, "Hidden Saga", "Hidden Cycle", "Other Hiddenname"}

func noneHidden(t *testing.T, what, text string) {
	t.Helper()
	for _, w := range hiddenWords {
		if strings.Contains(text, w) {
			t.Errorf("%s shows %q, which the user does not see:\n%s", what, w, text)
		}
	}
}

// TestServerWideNamesRefusedOutOfSight: Audiobookshelf renames and merges
// tags, genres and narrators on every item of the server. An admin who
// sees only Books (and Podcasts) is refused before anything is asked or
// sent, with why and who could do it, and the books of Hidden books keep
// their lists.
func TestServerWideNamesRefusedOutOfSight(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"rename_tag", map[string]any{"tag": "Shared", "new_tag": "Joined"}},
		{"rename_genre", map[string]any{"genre": "Shared", "new_genre": "Joined"}},
		{"merge_tags", map[string]any{"tags": []string{"Shared", "Keep"}, "into_tag": "Joined"}},
		{"merge_genres", map[string]any{"genres": []string{"Shared", "Keep"}, "into_genre": "Joined"}},
		{"rename_narrator", map[string]any{"narrator": "Shared Voice", "new_narrator": "Joined Voice"}},
		{"merge_narrators", map[string]any{"narrators": []string{"Shared Voice", "Keep Voice"}, "into_narrator": "Joined Voice"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			asked := 0
			e := start(t, apptest.Options{Elicit: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				noneHidden(t, "the question", r.Params.Message)
				return approve(ctx, r)
			}})
			hideALibrary(e.Standin)
			before := e.Standin.SnapshotJSON()
			e.Standin.ResetRequests()
			res := e.Call(t, c.tool, c.args)
			text := apptest.Text(res)
			if !res.IsError || !strings.Contains(text, "does not see every item") || !strings.Contains(text, "administrator who sees every library") {
				t.Errorf("want a refusal naming why and who could, got isError=%v: %s", res.IsError, text)
			}
			noneHidden(t, "the answer", text)
			if asked != 0 {
				t.Errorf("asked %d times", asked)
			}
			if m := mutations(e.Standin); len(m) != 0 || string(e.Standin.SnapshotJSON()) != string(before) {
				t.Errorf("sent %v", m)
			}
			it := itemOf(e.Standin.Snapshot(), hiddenA).Book
			if strings.Join(it.Tags, ",") != "Shared,Joined" || strings.Join(it.Narrators, ",") != "Shared Voice,Joined Voice" {
				t.Errorf("a hidden book changed: tags %v, narrators %v", it.Tags, it.Narrators)
			}
		})
	}
}

// TestServerWideNamesForWhoSeesAll: an admin who sees every item renames
// as before, and the answer counts the items read, not more.
func TestServerWideNamesForWhoSeesAll(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	hideALibrary(e.Standin)
	e.Standin.SetPermissions(func(p *sd.Permissions) { p.AccessAllLibraries, p.LibrariesAccessible = true, nil })
	res := e.Call(t, "rename_tag", map[string]any{"tag": "Keep", "new_tag": "Kept"})
	if res.IsError || !strings.Contains(apptest.Text(res), `"items_changed":1`) {
		t.Fatalf("rename for who sees all: %s", apptest.Text(res))
	}
	if got := itemOf(e.Standin.Snapshot(), hiddenB).Book.Tags; strings.Join(got, ",") != "Shared,Kept" {
		t.Errorf("tags %v", got)
	}
}

// TestMergeRecordsOutOfSight: a user who can update but sees only Books
// (and Podcasts) is given the ids of records of Hidden books: refused as if
// they were not there, nothing asked or sent, no author deleted, and
// nothing of them shown.
func TestMergeRecordsOutOfSight(t *testing.T) {
	t.Parallel()
	asked := 0
	e := start(t, apptest.Options{Elicit: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return approve(ctx, r)
	}})
	hideALibrary(e.Standin)
	e.Standin.Update(func(d *sd.Data) { d.Users[0].Type = "user" })
	for _, c := range []struct {
		tool, arg string
		args      map[string]any
	}{
		{"merge_authors", "author_id", map[string]any{"author_id": hiddenAuthor2, "into_author_id": hiddenAuthor}},
		{"merge_authors", "into_author_id", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": hiddenAuthor}},
		{"merge_authors", "author_id", map[string]any{"author_id": hiddenAuthor, "into_author_id": sd.AuthorGaiman}},
		{"merge_series", "series_id", map[string]any{"series_id": hiddenSeries2, "into_series_id": hiddenSeries}},
		{"merge_series", "into_series_id", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": hiddenSeries}},
	} {
		before := e.Standin.SnapshotJSON()
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		text := apptest.Text(res)
		if !res.IsError || !strings.Contains(text, `argument "`+c.arg+`"`) || !strings.Contains(text, "not found") {
			t.Errorf("%s %v: want not found on %s, got isError=%v: %s", c.tool, c.args, c.arg, res.IsError, text)
		}
		for _, w := range hiddenWords[1:] {
			if w != c.args[c.arg] && strings.Contains(text, w) {
				t.Errorf("%s %v: the error shows %q:\n%s", c.tool, c.args, w, text)
			}
		}
		if strings.Contains(text, hiddenLib) {
			t.Errorf("%s: the error names the hidden library", c.tool)
		}
		if m := mutations(e.Standin); len(m) != 0 || string(e.Standin.SnapshotJSON()) != string(before) {
			t.Errorf("%s %v: sent %v", c.tool, c.args, m)
		}
	}
	if asked != 0 {
		t.Errorf("asked %d times", asked)
	}
	kept := 0
	for _, a := range e.Standin.Snapshot().Authors {
		if a.ID == hiddenAuthor || a.ID == hiddenAuthor2 {
			kept++
		}
	}
	if kept != 2 {
		t.Errorf("%d of the 2 hidden authors are left", kept)
	}
}

// TestListeningLeavesOutALostLibrary: Audiobookshelf lists the items in
// progress of a library the user no longer sees, and answers 403 for its
// book. list_items_in_progress, the listening-now resource and the item
// completions leave it out; what_next and get_series_progress answer, and
// say nothing of it.
func TestListeningLeavesOutALostLibrary(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	hideALibrary(e.Standin)
	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_items_in_progress", map[string]any{}, sd.ItemColourOfMagic},
		{"list_items_in_progress", map[string]any{"detail": "full"}, sd.ItemColourOfMagic},
		{"list_items_in_progress", map[string]any{"limit": 1}, `"total"`},
		{"what_next", map[string]any{}, sd.ItemColourOfMagic},
		{"get_series_progress", map[string]any{}, sd.SeriesDiscworld},
	} {
		res := e.Call(t, c.tool, c.args)
		text := apptest.Text(res)
		if res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: want an answer with %s, got isError=%v: %s", c.tool, c.args, c.want, res.IsError, text)
		}
		noneHidden(t, c.tool, text)
	}
	// A series of the lost library, by id: not found, and nothing of it.
	res := e.Call(t, "get_series_progress", map[string]any{"series_id": hiddenSeries})
	if text := apptest.Text(res); !res.IsError || !strings.Contains(text, "not found") {
		t.Errorf("get_series_progress of a hidden series: isError=%v: %s", res.IsError, text)
	} else {
		noneHidden(t, "get_series_progress of a hidden series", strings.ReplaceAll(text, hiddenSeries, ""))
	}
	r, err := e.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "audiobookshelf://me/listening-now"})
	if err != nil {
		t.Fatalf("listening now: %v", err)
	}
	noneHidden(t, "listening-now", r.Contents[0].Text)
	cr, err := e.Session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: ""}})
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	noneHidden(t, "the completion", strings.Join(cr.Completion.Values, " "))
}

// TestRenameAnswerCountsWhatWasRead: when Audiobookshelf's count of items
// renamed is larger than the items read (changed in between, or out of
// sight), the answer counts the items read, does not tell Audiobookshelf's
// number, and offers no put-back.
func TestRenameAnswerCountsWhatWasRead(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/api/tags/rename" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"tagMerged":false,"numItemsUpdated":977}`))
		return true
	})
	res := e.Call(t, "rename_tag", map[string]any{"tag": "space-opera", "new_tag": "space opera"})
	v := decode(t, res)
	ids, _ := at(t, v, "library_item_ids").([]any)
	if res.IsError || len(ids) == 0 || at(t, v, "items_changed") != float64(len(ids)) {
		t.Fatalf("want the items read counted: %s", apptest.Text(res))
	}
	if text := apptest.Text(res); strings.Contains(text, "977") || strings.Contains(text, `"put_back"`) || !strings.Contains(text, `"not_put_back"`) {
		t.Errorf("the answer tells Audiobookshelf's count or offers a put-back: %s", text)
	}
}

// TestReadRecordsOutOfSight: Audiobookshelf answers an author or a series
// of any library by id (the author with its books); get_author and
// get_series answer one of a library the user does not see as not found,
// compact or full, and show nothing of it.
func TestReadRecordsOutOfSight(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	hideALibrary(e.Standin)
	for _, c := range []struct {
		tool, arg string
		args      map[string]any
	}{
		{"get_author", "author_id", map[string]any{"author_id": hiddenAuthor, "include_items": true}},
		{"get_author", "author_id", map[string]any{"author_id": hiddenAuthor, "detail": "full"}},
		{"get_series", "series_id", map[string]any{"series_id": hiddenSeries}},
		{"get_series", "series_id", map[string]any{"series_id": hiddenSeries, "detail": "full"}},
	} {
		res := e.Call(t, c.tool, c.args)
		text := apptest.Text(res)
		if !res.IsError || !strings.Contains(text, `argument "`+c.arg+`"`) || !strings.Contains(text, "not found") {
			t.Errorf("%s %v: want not found, got isError=%v: %s", c.tool, c.args, res.IsError, text)
		}
		noneHidden(t, c.tool, strings.ReplaceAll(text, c.args[c.arg].(string), ""))
	}
	if res := e.Call(t, "get_author", map[string]any{"author_id": sd.AuthorGaiman}); res.IsError {
		t.Errorf("get_author of an author the user sees: %s", apptest.Text(res))
	}
}
