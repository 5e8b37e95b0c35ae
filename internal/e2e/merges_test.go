package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The merges of the curation toolset: merge_authors (Audiobookshelf's own
// merge, PATCH /api/authors/:id onto the other author's name) and
// merge_series (the books moved by POST /api/items/batch/update). Both
// always ask; declined, nothing changes; approved, the stand-in's whole
// state is what the merge says and nothing else.

// wantState fails unless the stand-in's state is want, field by field
// (updatedAt aside: the caller checks which moved).
func wantState(t *testing.T, s *sd.Server, want *sd.Data) {
	t.Helper()
	wb, _ := json.Marshal(want)
	var w, g map[string]any
	json.Unmarshal(wb, &w)
	json.Unmarshal(s.SnapshotJSON(), &g)
	if d := stateDiff("", w, g, nil); len(d) != 0 {
		t.Errorf("%d field(s) differ from what the merge says:\n%s", len(d), strings.Join(d, "\n"))
	}
}

// updatedAts are the items' updatedAt, by id.
func updatedAts(d *sd.Data) map[string]int64 {
	out := map[string]int64{}
	for _, it := range d.Items {
		out[it.ID] = it.UpdatedAt
	}
	return out
}

// TestMergeAuthors: asked once, naming both authors, which way the merge
// goes, the books and what the removed record takes; declined, nothing is
// sent; approved, every book of the author holds the other one instead
// (a book holding both keeps one), the author record is gone, no book's
// updatedAt moves, and the answer says what is gone. The same call again
// refuses before sending anything.
func TestMergeAuthors(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			ans := &answerer{approve: false}
			e := start(t, apptest.Options{ProtocolVersion: proto, Elicit: ans.elicit})
			args := map[string]any{"author_id": sd.AuthorPratchett, "into_author_id": sd.AuthorGaiman}
			before := e.Standin.Snapshot()
			beforeJSON := e.Standin.SnapshotJSON()
			e.Standin.ResetRequests()
			res := e.Call(t, "merge_authors", args)
			if !res.IsError || len(ans.asked) != 1 || len(mutations(e.Standin)) != 0 || string(e.Standin.SnapshotJSON()) != string(beforeJSON) {
				t.Fatalf("declined: want one question, an error and nothing changed; asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
			}
			q := ans.asked[0]
			var books []string
			for _, it := range before.Items {
				if it.Book != nil && slices.Contains(it.Book.AuthorIDs, sd.AuthorPratchett) {
					books = append(books, it.ID)
				}
			}
			if len(books) != 7 {
				t.Fatalf("test bug: the sample's Pratchett has %d books", len(books))
			}
			for _, w := range []string{"merge " + named("author", "Terry Pratchett", sd.AuthorPratchett) + " into " + named("", "Neil Gaiman", sd.AuthorGaiman),
				"its 7 book(s) (", " and 2 more) get author " + named("", "Neil Gaiman", sd.AuthorGaiman) + " instead",
				"removes " + named("author", "Terry Pratchett", sd.AuthorPratchett),
				"1 of those books (" + named("", "Good Omens", sd.ItemGoodOmens) + ") hold both", "a biography: yes; an ASIN: yes; an image: no"} {
				if !strings.Contains(q, w) {
					t.Errorf("the question lacks %q:\n%s", w, q)
				}
			}
			listed := 0
			for _, id := range books {
				if strings.Contains(q, "\" (id "+id+")") {
					listed++
				}
			}
			if listed != 5 {
				t.Errorf("the question names %d of the author's 7 books by title and id, want 5 and how many more:\n%s", listed, q)
			}
			// The biography and the ASIN stay out: a question shows names.
			for _, w := range []string{"comic fantasy", "B000AQ0842"} {
				if strings.Contains(q, w) {
					t.Errorf("the question holds %q:\n%s", w, q)
				}
			}

			ans.approve = true
			e.Standin.ResetRequests()
			v := decode(t, e.Call(t, "merge_authors", args))
			if len(ans.asked) != 2 {
				t.Fatalf("asked %d times, want 2", len(ans.asked))
			}
			wantMutations(t, e.Standin, "PATCH /api/authors/"+sd.AuthorPratchett)
			if got := lastRequest(t, e.Standin, "PATCH", "/api/authors/"+sd.AuthorPratchett).Body; !strings.Contains(string(got), `"name":"Neil Gaiman"`) {
				t.Errorf("the merge sent %s, want the kept author's exact name", got)
			}
			if at(t, v, "merged") != true || str(at(t, v, "kept_author_id")) != sd.AuthorGaiman || str(at(t, v, "removed_author_id")) != sd.AuthorPratchett ||
				str(at(t, v, "books_moved")) != "7" || str(at(t, v, "books_holding_both")) != "1" ||
				at(t, v, "gone", "description") != true || at(t, v, "gone", "asin") != true || at(t, v, "gone", "image") != false ||
				at(t, v, "not_put_back") == nil || at(t, v, "put_back") != nil {
				t.Errorf("the answer: %v", v)
			}
			if ids := at(t, v, "library_item_ids").([]any); len(ids) != 7 {
				t.Errorf("the answer names %d books: %v", len(ids), ids)
			}
			want := before
			var kept []sd.Author
			for _, a := range want.Authors {
				if a.ID != sd.AuthorPratchett {
					kept = append(kept, a)
				}
			}
			want.Authors = kept
			for _, id := range books {
				b := itemOf(want, id).Book
				if id == sd.ItemGoodOmens {
					b.AuthorIDs = []string{sd.AuthorGaiman} // held both: keeps one
				} else {
					b.AuthorIDs = []string{sd.AuthorGaiman}
				}
			}
			wantState(t, e.Standin, want)
			after := e.Standin.Snapshot()
			for id, u := range updatedAts(before) {
				if updatedAts(after)[id] != u {
					t.Errorf("item %s: updatedAt moved; Audiobookshelf's author merge moves no book's", id)
				}
			}

			// The same call again: the author is gone; the tool refuses
			// naming the argument, asks nothing and sends nothing.
			e.Standin.ResetRequests()
			res = e.Call(t, "merge_authors", args)
			if !res.IsError || !strings.Contains(apptest.Text(res), `"author_id"`) || len(ans.asked) != 2 || len(mutations(e.Standin)) != 0 {
				t.Errorf("a replay: asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
			}
		})
	}
}

// earthseaSetup makes the sample's Earthsea series hold both cases a
// merge must get right: A Wizard of Earthsea is in The Expanse too (at
// 9), and The Tombs of Atuan is in Discworld after Earthsea.
func earthseaSetup(s *sd.Server) {
	s.Update(func(d *sd.Data) {
		w := itemOf(d, sd.ItemWizardOfEarthsea).Book
		w.Series = append(w.Series, sd.SeriesSequence{SeriesID: sd.SeriesExpanse, Sequence: "9"})
		tb := itemOf(d, sd.ItemTombsOfAtuan).Book
		tb.Series = append(tb.Series, sd.SeriesSequence{SeriesID: sd.SeriesDiscworld, Sequence: "0.5"})
		for i := range d.Series {
			if d.Series[i].ID == sd.SeriesEarthsea {
				d.Series[i].Description = "Ged and Tenar."
			}
		}
	})
}

// TestMergeSeries: asked once, naming both series, which way the merge
// goes and the books; declined, nothing is
// sent; approved, one batch update moves each book into the kept series
// at its sequence with its other series kept (a second puts back a
// series that came after the merged one, so the order stays), a book in
// both keeps its place there, the emptied series is gone, and only the
// moved books' updatedAt moves. The same call again refuses before sending anything.
func TestMergeSeries(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{apptest.Proto20251125, apptest.Proto20260728} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			ans := &answerer{approve: false}
			e := start(t, apptest.Options{ProtocolVersion: proto, Elicit: ans.elicit})
			earthseaSetup(e.Standin)
			args := map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}
			before := e.Standin.Snapshot()
			beforeJSON := e.Standin.SnapshotJSON()
			e.Standin.ResetRequests()
			res := e.Call(t, "merge_series", args)
			if !res.IsError || len(ans.asked) != 1 || len(mutations(e.Standin)) != 0 || string(e.Standin.SnapshotJSON()) != string(beforeJSON) {
				t.Fatalf("declined: want one question, an error and nothing changed; asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
			}
			q := ans.asked[0]
			for _, w := range []string{"merge " + named("series", "Earthsea", sd.SeriesEarthsea) + " into " + named("", "The Expanse", sd.SeriesExpanse),
				named("", "A Wizard of Earthsea", sd.ItemWizardOfEarthsea), named("", "The Tombs of Atuan", sd.ItemTombsOfAtuan), "its 2 book(s)",
				"1 of those books (" + named("", "A Wizard of Earthsea", sd.ItemWizardOfEarthsea) + ") are in series " + named("", "The Expanse", sd.SeriesExpanse) + " already",
				"removes " + named("series", "Earthsea", sd.SeriesEarthsea),
				"its summary: yes", "On 1 of them (" + named("", "The Tombs of Atuan", sd.ItemTombsOfAtuan) + ")"} {
				if !strings.Contains(q, w) {
					t.Errorf("the question lacks %q:\n%s", w, q)
				}
			}
			// The summary stays out: a question shows names.
			for _, w := range []string{"Ged"} {
				if strings.Contains(q, w) {
					t.Errorf("the question holds %q:\n%s", w, q)
				}
			}

			ans.approve = true
			e.Standin.ResetRequests()
			v := decode(t, e.Call(t, "merge_series", args))
			if len(ans.asked) != 2 {
				t.Fatalf("asked %d times, want 2", len(ans.asked))
			}
			// Two batch updates: Discworld, after Earthsea on The Tombs of
			// Atuan, is taken off and put back after The Expanse, so the
			// book's series keep their order (Discworld has other books to
			// keep it in between).
			wantMutations(t, e.Standin, "POST /api/items/batch/update", "POST /api/items/batch/update")
			var bodies []string
			for _, r := range e.Standin.Requests() {
				if r.Method == "POST" && r.Path == "/api/items/batch/update" {
					var sent []map[string]any
					if err := json.Unmarshal(r.Body, &sent); err != nil {
						t.Fatal(err)
					}
					got, _ := json.Marshal(sent)
					bodies = append(bodies, string(got))
				}
			}
			wantSent := []string{`[{"id":"` + sd.ItemWizardOfEarthsea + `","mediaPayload":{"metadata":{"series":[{"name":"The Expanse","sequence":"9"}]}}},` +
				`{"id":"` + sd.ItemTombsOfAtuan + `","mediaPayload":{"metadata":{"series":[{"name":"The Expanse","sequence":"2"}]}}}]`,
				`[{"id":"` + sd.ItemTombsOfAtuan + `","mediaPayload":{"metadata":{"series":[{"name":"The Expanse","sequence":"2"},{"name":"Discworld","sequence":"0.5"}]}}}]`}
			if !slices.Equal(bodies, wantSent) {
				t.Errorf("sent\n %s\nwant\n %s", bodies, wantSent)
			}
			if at(t, v, "merged") != true || str(at(t, v, "kept_series_id")) != sd.SeriesExpanse || str(at(t, v, "removed_series_id")) != sd.SeriesEarthsea ||
				str(at(t, v, "books_moved")) != "2" || str(at(t, v, "books_in_both")) != "1" || str(at(t, v, "items_updated")) != "2" ||
				at(t, v, "gone", "description") != true || at(t, v, "not_put_back") == nil || at(t, v, "put_back") != nil {
				t.Errorf("the answer: %v", v)
			}
			want := before
			var kept []sd.Series
			for _, se := range want.Series {
				if se.ID != sd.SeriesEarthsea {
					kept = append(kept, se)
				}
			}
			want.Series = kept
			itemOf(want, sd.ItemWizardOfEarthsea).Book.Series = []sd.SeriesSequence{{SeriesID: sd.SeriesExpanse, Sequence: "9"}}
			itemOf(want, sd.ItemTombsOfAtuan).Book.Series = []sd.SeriesSequence{{SeriesID: sd.SeriesExpanse, Sequence: "2"}, {SeriesID: sd.SeriesDiscworld, Sequence: "0.5"}}
			wantState(t, e.Standin, want)
			after := updatedAts(e.Standin.Snapshot())
			for id, u := range updatedAts(before) {
				moved := id == sd.ItemWizardOfEarthsea || id == sd.ItemTombsOfAtuan
				if (after[id] != u) != moved {
					t.Errorf("item %s: updatedAt %d, was %d (moved want %v)", id, after[id], u, moved)
				}
			}

			e.Standin.ResetRequests()
			res = e.Call(t, "merge_series", args)
			if !res.IsError || !strings.Contains(apptest.Text(res), `"series_id"`) || len(ans.asked) != 2 || len(mutations(e.Standin)) != 0 {
				t.Errorf("a replay: asked %d, sent %v: %s", len(ans.asked), mutations(e.Standin), apptest.Text(res))
			}
		})
	}
}

// TestMergeRefusesBadInput: the same record twice, an id that is none,
// records of two libraries, two authors of one name, two series whose
// names differ only in case: an error naming the argument, nothing
// asked or sent.
func TestMergeRefusesBadInput(t *testing.T) {
	t.Parallel()
	var asked int
	e := start(t, apptest.Options{Elicit: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return approve(ctx, r)
	}})
	const otherLib = "0f1e2d3c-4b5a-4697-8877-665544332211"
	const otherAuthor, otherSeries = "0a0b0c0d-1111-4222-8333-944445555666", "0a0b0c0d-1111-4222-8333-944445555777"
	const twinAuthor, caseSeries = "0a0b0c0d-1111-4222-8333-944445555888", "0a0b0c0d-1111-4222-8333-944445555999"
	e.Standin.Update(func(d *sd.Data) {
		lib := d.Libraries[0]
		lib.ID, lib.Name, lib.Folders = otherLib, "Second books", nil
		d.Libraries = append(d.Libraries, lib)
		d.Authors = append(d.Authors, sd.Author{ID: otherAuthor, LibraryID: otherLib, Name: "Somebody Else"},
			sd.Author{ID: twinAuthor, LibraryID: sd.LibraryBooksID, Name: "Neil Gaiman"})
		d.Series = append(d.Series, sd.Series{ID: otherSeries, LibraryID: otherLib, Name: "Elsewhere"},
			sd.Series{ID: caseSeries, LibraryID: sd.LibraryBooksID, Name: "the expanse"})
		// A book in each new series, so Audiobookshelf's series route
		// answers for them.
		it := *itemOf(d, sd.ItemHostile)
		it.ID, it.LibraryID = "0a0b0c0d-1111-4222-8333-944445555000", otherLib
		b := *it.Book
		b.ID, b.AuthorIDs, b.Series = "0a0b0c0d-1111-4222-8333-944445555001", []string{otherAuthor}, []sd.SeriesSequence{{SeriesID: otherSeries, Sequence: "1"}}
		it.Book = &b
		d.Items = append(d.Items, it)
		itemOf(d, sd.ItemNeverwhere).Book.Series = []sd.SeriesSequence{{SeriesID: caseSeries, Sequence: "1"}}
	})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": sd.AuthorGaiman}, `"into_author_id": they are the same author`},
		{"merge_authors", map[string]any{"author_id": "0a0b0c0d-1111-4222-8333-944445555aaa", "into_author_id": sd.AuthorGaiman}, `argument "author_id" (author "0a0b0c0d-1111-4222-8333-944445555aaa")`},
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": "0a0b0c0d-1111-4222-8333-944445555aaa"}, `argument "into_author_id"`},
		{"merge_authors", map[string]any{"author_id": sd.AuthorGaiman, "into_author_id": otherAuthor}, `argument "into_author_id": author "` + otherAuthor + `" is of library "` + otherLib + `"`},
		{"merge_authors", map[string]any{"author_id": twinAuthor, "into_author_id": sd.AuthorGaiman}, `argument "into_author_id": authors "` + twinAuthor + `" and "` + sd.AuthorGaiman + `" have exactly the same name`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesEarthsea}, `"into_series_id": they are the same series`},
		{"merge_series", map[string]any{"series_id": "0a0b0c0d-1111-4222-8333-944445555aaa", "into_series_id": sd.SeriesExpanse}, `argument "series_id" (series "0a0b0c0d-1111-4222-8333-944445555aaa";`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": "0a0b0c0d-1111-4222-8333-944445555aaa"}, `argument "into_series_id"`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": otherSeries}, `argument "into_series_id": series "` + otherSeries + `" is of library "` + otherLib + `"`},
		{"merge_series", map[string]any{"series_id": otherSeries, "into_series_id": sd.SeriesEarthsea}, `argument "into_series_id": series "` + sd.SeriesEarthsea + `" is of library "` + sd.LibraryBooksID + `"`},
		{"merge_series", map[string]any{"series_id": caseSeries, "into_series_id": sd.SeriesExpanse}, `argument "into_series_id": the names of series "` + caseSeries + `" and "` + sd.SeriesExpanse + `" differ only in case`},
		{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea}, `into_series_id`},
	} {
		before := e.Standin.SnapshotJSON()
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), c.want) {
			t.Errorf("%s %v: want an error with %q, got isError=%v: %s", c.tool, c.args, c.want, res.IsError, apptest.Text(res))
		}
		if m := mutations(e.Standin); len(m) != 0 || string(e.Standin.SnapshotJSON()) != string(before) {
			t.Errorf("%s %v: sent %v", c.tool, c.args, m)
		}
	}
	if asked != 0 {
		t.Errorf("bad input asked the person %d times", asked)
	}
}

// TestMergeByName: the records may be named instead of given by id.
func TestMergeByName(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	v := decode(t, e.Call(t, "merge_series", map[string]any{"series_id": "Earthsea", "into_series_id": "The Expanse"}))
	if str(at(t, v, "kept_series_id")) != sd.SeriesExpanse || str(at(t, v, "removed_series_id")) != sd.SeriesEarthsea {
		t.Errorf("merge_series by name: %v", v)
	}
	v = decode(t, e.Call(t, "merge_authors", map[string]any{"author_id": "Franz Kafka", "into_author_id": "Andy Weir"}))
	if str(at(t, v, "kept_author_id")) != sd.AuthorWeir || str(at(t, v, "removed_author_id")) != sd.AuthorKafka {
		t.Errorf("merge_authors by name: %v", v)
	}
}
