package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The cases of update_author and update_series in the tables every
// guarded and every write tool is held to.
func init() {
	questionNames["update_author"] = []string{"give " + named("author", "Terry Pratchett", sd.AuthorPratchett) + " an image",
		"the image cannot be taken back from here"}
	questionNames["resolve_duplicate"] = []string{"remove " + named("book", "Mort", sd.ItemMort) + " from its library, keeping " + named("book", "Sourcery", sd.ItemSourcery)}
	questionNames["update_series"] = []string{"set the description of " + named("series", "The Expanse", sd.SeriesExpanse),
		"Audiobookshelf holds null"}
	putBackCases["update_author"] = []putBackCase{
		{name: "name, biography and ASIN", args: map[string]any{"author_id": sd.AuthorPratchett, "name": "Sir Terry Pratchett",
			"description": "Wrote the Discworld novels.", "asin": "B000AP9A6K"}},
		{name: "a biography cleared", args: map[string]any{"author_id": sd.AuthorPratchett, "description": ""},
			setup: func(d *sd.Data) { authorIn(d, sd.AuthorPratchett).Description = "Wrote the Discworld novels." }},
	}
	putBackCases["update_series"] = []putBackCase{
		{name: "a rename", args: map[string]any{"series_id": sd.SeriesExpanse, "name": "Expanse"}},
		{name: "a description replaced", args: map[string]any{"series_id": sd.SeriesExpanse, "description": "Space opera."},
			setup: func(d *sd.Data) { seriesIn(d, sd.SeriesExpanse).Description = "Nine novels." }},
	}
}

// recordRequestCases reach the most requests tools.yaml gives for
// update_author and update_series, and for merges that keep fields
// (TestRequestsPerCall).
var recordRequestCases = []readCase{
	// A rename (the library's authors read) with an image, which asks:
	// everything read twice, then the change and the image.
	{tool: "update_author", args: map[string]any{"author_id": sd.AuthorPratchett, "name": "Sir Terry Pratchett",
		"image_url": "https://images.example/pratchett.jpg"}},
	// A first description asks: read twice, then the change.
	{tool: "update_series", args: map[string]any{"series_id": sd.SeriesExpanse, "description": "Space opera."}},
	// A merge that carries the name over: the fields of the record kept
	// are set after the merge.
	{tool: "merge_authors", args: map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorPratchett, "keep": []string{"name"}}},
	{tool: "merge_series", args: map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse, "keep": []string{"name"}}},
	// Discworld after Earthsea on a book: counted (twice), and put back
	// in a second batch update.
	{tool: "merge_series", setup: earthseaSetup, per: 3, args: map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}},
}

func authorIn(d *sd.Data, id string) *sd.Author {
	for i := range d.Authors {
		if d.Authors[i].ID == id {
			return &d.Authors[i]
		}
	}
	panic("no author " + id)
}

func seriesIn(d *sd.Data, id string) *sd.Series {
	for i := range d.Series {
		if d.Series[i].ID == id {
			return &d.Series[i]
		}
	}
	panic("no series " + id)
}

func authorOf(s *sd.Server, id string) sd.Author {
	d := s.Snapshot()
	return *authorIn(d, id)
}

func seriesOf(s *sd.Server, id string) sd.Series {
	d := s.Snapshot()
	return *seriesIn(d, id)
}

// TestMergeAuthorsKeep: keep carries the fields of the author merged away
// onto the author kept, asked in the same question. Without the image
// the merge goes as asked and the record kept is then given the fields;
// with the image (which Audiobookshelf keeps only on the record it keeps)
// the merge goes the other way round and the record of author_id, kept,
// takes into_author_id's name and the fields not kept. Either way the
// result is one author with the books of both.
func TestMergeAuthorsKeep(t *testing.T) {
	t.Parallel()
	withGaiman := func(d *sd.Data) {
		g := authorIn(d, sd.AuthorGaiman)
		g.Description, g.ASIN, g.ImagePath = "Wrote Sandman.", "B000APZOQA", "/metadata/authors/"+sd.AuthorGaiman+".jpg"
	}
	cases := []struct {
		name                       string
		keep                       []string
		kept, removed              string
		wantName, wantDesc, wantAS string
		wantImage                  bool
		question                   []string
	}{
		{name: "name and biography, no image", keep: []string{"name", "description"}, kept: sd.AuthorPratchett, removed: sd.AuthorGaiman,
			wantName: "Neil Gaiman", wantDesc: "Wrote Sandman.", wantAS: "B000AQ0842", wantImage: false,
			question: []string{"Carried over from " + named("author", "Neil Gaiman", sd.AuthorGaiman) + " onto the author kept: name, description.",
				"a biography: no; an ASIN: yes; an image: yes", "image file stays in Audiobookshelf's metadata folder"}},
		{name: "the image", keep: []string{"image", "asin"}, kept: sd.AuthorGaiman, removed: sd.AuthorPratchett,
			wantName: "Terry Pratchett", wantAS: "B000APZOQA", wantImage: true,
			question: []string{`the record kept is "Neil Gaiman"'s, id "` + sd.AuthorGaiman + `"`, `Its name becomes "Terry Pratchett"`,
				"removed record, " + named("author", "Terry Pratchett", sd.AuthorPratchett) + ", goes with what is not carried over: a biography: no; an ASIN: yes; an image: no"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ans := &answerer{approve: true}
			e := start(t, apptest.Options{Elicit: ans.elicit})
			e.Standin.Update(withGaiman)
			before := e.Standin.Snapshot()
			desc := authorIn(before, sd.AuthorPratchett).Description
			if c.wantDesc == "" {
				c.wantDesc = desc
			}
			var books []string
			for _, it := range before.Items {
				if it.Book != nil && (slices.Contains(it.Book.AuthorIDs, sd.AuthorPratchett) || slices.Contains(it.Book.AuthorIDs, sd.AuthorGaiman)) {
					books = append(books, it.ID)
				}
			}
			v := decode(t, e.Call(t, "merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorPratchett, "keep": c.keep}))
			if len(ans.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(ans.asked))
			}
			for _, w := range c.question {
				if !strings.Contains(ans.asked[0], w) {
					t.Errorf("the question lacks %q:\n%s", w, ans.asked[0])
				}
			}
			if str(at(t, v, "kept_author_id")) != c.kept || str(at(t, v, "removed_author_id")) != c.removed {
				t.Errorf("the answer: %v", v)
			}
			after := e.Standin.Snapshot()
			if hasAuthor(e.Standin, c.removed) {
				t.Errorf("author %s is still there", c.removed)
			}
			k := authorIn(after, c.kept)
			if k.Name != c.wantName || k.Description != c.wantDesc || k.ASIN != c.wantAS || (k.ImagePath != "") != c.wantImage {
				t.Errorf("the author kept is %+v; want name %q, description %q, ASIN %q, image %v", *k, c.wantName, c.wantDesc, c.wantAS, c.wantImage)
			}
			for _, id := range books {
				if got := itemOf(after, id).Book.AuthorIDs; !slices.Contains(got, c.kept) || slices.Contains(got, c.removed) {
					t.Errorf("book %s holds authors %v, want %s in place of %s", id, got, c.kept, c.removed)
				}
			}
		})
	}
}

// TestMergeKeepRefused: a keep naming no field, or a field the record
// merged away does not hold, is refused before anything is sent.
func TestMergeKeepRefused(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorPratchett, "keep": []string{"biography"}}, `"biography" is not a field that can be carried over; allowed: name, description, asin, image`},
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorPratchett, "keep": []string{"image"}}, `"Neil Gaiman" (id ` + sd.AuthorGaiman + `) has no image to carry over`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse, "keep": []string{"asin"}}, `"asin" is not a field that can be carried over; allowed: name, description`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse, "keep": []string{"description"}}, "has no description to carry over"},
		{"update_author", map[string]any{"author_id": sd.AuthorGaiman, "name": "Terry Pratchett"}, `argument "name": author "Terry Pratchett" (id ` + sd.AuthorPratchett + `) of the same library is called exactly that`},
	} {
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), c.want) || len(mutations(e.Standin)) != 0 {
			t.Errorf("%s %v: want a refusal holding %q and nothing sent; sent %v: %s", c.tool, c.args, c.want, mutations(e.Standin), apptest.Text(res))
		}
	}
}

// TestMergeSeriesKeep: the series kept takes the name and description of
// the series merged away, once its books are moved.
func TestMergeSeriesKeep(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) { seriesIn(d, sd.SeriesEarthsea).Description = "Ged's books." })
	v := decode(t, e.Call(t, "merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse, "keep": []string{"name", "description"}}))
	if at(t, v, "merged") != true || at(t, v, "gone", "description") != false {
		t.Errorf("the answer: %v", v)
	}
	if hasSeries(e.Standin, sd.SeriesEarthsea) {
		t.Error("the series merged away is still there")
	}
	if se := seriesOf(e.Standin, sd.SeriesExpanse); se.Name != "Earthsea" || se.Description != "Ged's books." {
		t.Errorf("the series kept is %+v", se)
	}
}

// TestUpdateAuthorPutBack: the answer's put-back gives an author its old
// name, biography and ASIN back, a biography never set as null (sent as
// null, not as an empty text).
func TestUpdateAuthorPutBack(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	v := decode(t, e.Call(t, "update_author", map[string]any{"author_id": sd.AuthorGaiman, "description": "Wrote Sandman.", "asin": "B000APZOQA"}))
	if a := authorOf(e.Standin, sd.AuthorGaiman); a.Description != "Wrote Sandman." || a.ASIN != "B000APZOQA" {
		t.Fatalf("the author is %+v", a)
	}
	pb := at(t, v, "put_back").(map[string]any)
	if pb["tool"] != "update_author" {
		t.Fatalf("put_back: %v", pb)
	}
	e.Standin.ResetRequests()
	decode(t, e.Call(t, "update_author", pb["arguments"].(map[string]any)))
	if got := string(lastRequest(t, e.Standin, "PATCH", "/api/authors/"+sd.AuthorGaiman).Body); !strings.Contains(got, `"description":null`) || !strings.Contains(got, `"asin":null`) {
		t.Errorf("the put-back sent %s, want null for the texts never set", got)
	}
	if a := authorOf(e.Standin, sd.AuthorGaiman); a.Description != "" || a.ASIN != "" {
		t.Errorf("after the put-back the author is %+v", a)
	}
}

// TestResolveDuplicate: asked once, naming both copies and counting what
// goes for this user (progress, bookmarks, collections, playlists, a
// playlist emptied); declined, nothing is sent; approved, one DELETE
// without hard=1, the copy kept untouched, the files of the copy removed
// left on disk. The same call again refuses before sending anything.
func TestResolveDuplicate(t *testing.T) {
	t.Parallel()
	ans := &answerer{approve: false}
	e := start(t, apptest.Options{Elicit: ans.elicit})
	e.Standin.Update(func(d *sd.Data) {
		d.Users[0].Bookmarks = append(d.Users[0].Bookmarks, sd.Bookmark{LibraryItemID: sd.ItemMort, Time: 60, Title: "Death", CreatedAt: 1780000000000})
	})
	args := map[string]any{"keep_item_id": sd.ItemSourcery, "remove_item_id": sd.ItemMort}
	beforeJSON := string(e.Standin.SnapshotJSON())
	e.Standin.ResetRequests()
	res := e.Call(t, "resolve_duplicate", args)
	if !res.IsError || len(ans.asked) != 1 || len(mutations(e.Standin)) != 0 || string(e.Standin.SnapshotJSON()) != beforeJSON {
		t.Fatalf("declined: want one question, an error and nothing changed; asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
	}
	q := ans.asked[0]
	for _, w := range []string{"remove " + named("book", "Mort", sd.ItemMort) + " from its library, keeping " + named("book", "Sourcery", sd.ItemSourcery),
		"Its files are not deleted", "bookmarks: 1", "collections holding it: 1 (" + named("", "Discworld in order", sd.CollectionDiscworldInOrder) + ")",
		"playlists holding it: 1 (" + named("", "Commute", sd.PlaylistCommute) + ")", "this key cannot count those", "next scan of the library adds it back"} {
		if !strings.Contains(q, w) {
			t.Errorf("the question lacks %q:\n%s", w, q)
		}
	}
	ans.approve = true
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "resolve_duplicate", args))
	wantMutations(t, e.Standin, "DELETE /api/items/"+sd.ItemMort)
	if r := lastRequest(t, e.Standin, "DELETE", "/api/items/"+sd.ItemMort); r.RawQuery != "" {
		t.Errorf("the removal sent a query (hard=1 deletes the files): %s", r.RawQuery)
	}
	if at(t, v, "removed") != true || at(t, v, "files_deleted") != false || str(at(t, v, "kept_item_id")) != sd.ItemSourcery {
		t.Errorf("the answer: %v", v)
	}
	after := e.Standin.Snapshot()
	if slices.ContainsFunc(after.Items, func(it sd.LibraryItem) bool { return it.ID == sd.ItemMort }) ||
		!slices.ContainsFunc(after.Items, func(it sd.LibraryItem) bool { return it.ID == sd.ItemSourcery }) {
		t.Error("want Mort gone and Sourcery kept")
	}
	e.Standin.ResetRequests()
	if res := e.Call(t, "resolve_duplicate", args); !res.IsError || len(mutations(e.Standin)) != 0 {
		t.Errorf("the same call again: want a refusal and nothing sent: %s", apptest.Text(res))
	}
	if res := e.Call(t, "resolve_duplicate", map[string]any{"keep_item_id": sd.ItemSourcery, "remove_item_id": sd.ItemSourcery}); !res.IsError ||
		!strings.Contains(apptest.Text(res), "same book") {
		t.Errorf("the same copy twice: %s", apptest.Text(res))
	}
}

// TestMergeSeriesKeepsOrder: a book on which the series merged away comes
// before another series keeps its series in their order, the series kept
// in the place of the one merged away, when another book keeps the later
// series in between (two batch updates); a later series no other book
// holds is not taken off, and the question says the series kept then
// comes last.
func TestMergeSeriesKeepsOrder(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) {
		itemIn(d, sd.ItemWizardOfEarthsea).Book.Series = append(itemIn(d, sd.ItemWizardOfEarthsea).Book.Series, sd.SeriesSequence{SeriesID: sd.SeriesDiscworld, Sequence: "99"})
	})
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}))
	if str(at(t, v, "order_kept_on")) != "1" {
		t.Errorf("the answer: %v", v)
	}
	wantMutations(t, e.Standin, "POST /api/items/batch/update", "POST /api/items/batch/update")
	got := itemOf(e.Standin.Snapshot(), sd.ItemWizardOfEarthsea).Book.Series
	if len(got) != 2 || got[0].SeriesID != sd.SeriesExpanse || got[0].Sequence != "1" || got[1].SeriesID != sd.SeriesDiscworld || got[1].Sequence != "99" {
		t.Errorf("the book's series after the merge: %+v, want The Expanse at 1, then Discworld at 99", got)
	}
	if !hasSeries(e.Standin, sd.SeriesDiscworld) {
		t.Error("Discworld is gone")
	}

	// A later series of its own: not taken off, so the kept one goes last.
	ans := &answerer{approve: true}
	e = start(t, apptest.Options{Elicit: ans.elicit})
	e.Standin.Update(func(d *sd.Data) {
		d.Series = append(d.Series, sd.Series{ID: "own-series", LibraryID: sd.LibraryBooksID, Name: "Ged Alone", AddedAt: 1, UpdatedAt: 1})
		itemIn(d, sd.ItemWizardOfEarthsea).Book.Series = append(itemIn(d, sd.ItemWizardOfEarthsea).Book.Series, sd.SeriesSequence{SeriesID: "own-series", Sequence: "1"})
	})
	e.Standin.ResetRequests()
	decode(t, e.Call(t, "merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}))
	wantMutations(t, e.Standin, "POST /api/items/batch/update")
	if !strings.Contains(ans.asked[0], "comes after the book's other series") {
		t.Errorf("the question does not say the kept series goes last:\n%s", ans.asked[0])
	}
	got = itemOf(e.Standin.Snapshot(), sd.ItemWizardOfEarthsea).Book.Series
	if len(got) != 2 || got[0].SeriesID != "own-series" || got[1].SeriesID != sd.SeriesExpanse || !hasSeries(e.Standin, "own-series") {
		t.Errorf("the book's series after the merge: %+v, want its own series kept, then The Expanse", got)
	}
}

func itemIn(d *sd.Data, id string) *sd.LibraryItem {
	for i := range d.Items {
		if d.Items[i].ID == id {
			return &d.Items[i]
		}
	}
	panic("no item " + id)
}

// TestUpdateAuthorImageRefused: an image Audiobookshelf refuses (a user
// without the upload permission: 403) is sent before the texts, so the
// call changes nothing and says so.
func TestUpdateAuthorImageRefused(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) { d.Users[0].Permissions.Upload = false })
	before := string(e.Standin.SnapshotJSON())
	e.Standin.ResetRequests()
	res := e.Call(t, "update_author", map[string]any{"author_id": sd.AuthorGaiman, "description": "Wrote Sandman.", "image_url": "https://images.example/g.jpg"})
	if !res.IsError {
		t.Fatalf("want an error: %s", apptest.Text(res))
	}
	wantMutations(t, e.Standin, "POST /api/authors/"+sd.AuthorGaiman+"/image")
	if string(e.Standin.SnapshotJSON()) != before {
		t.Error("a refused image changed the data")
	}
}
