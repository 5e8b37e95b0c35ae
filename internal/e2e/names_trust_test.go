package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Records the cases below add to the sample library.
const (
	kidsArchiveCollection = "0a0b0c0d-3333-4444-8555-000000000001"
	twinsCollection1      = "0a0b0c0d-3333-4444-8555-000000000002"
	twinsCollection2      = "0a0b0c0d-3333-4444-8555-000000000003"
	authorLowe            = "0a0b0c0d-3333-4444-8555-000000000004"
	authorQuill           = "0a0b0c0d-3333-4444-8555-000000000005"
	kidsArchiveBook       = "0a0b0c0d-4444-4555-8666-000000000000"
	// kidsBook is titled exactly "Kids", after kidsShelfSize books with
	// "Kids" in their title or subtitle.
	kidsBook = "0a0b0c0d-4444-4555-8666-999999999999"
)

// kidsShelfSize is how many books hold "Kids" before the one titled so:
// the search for it is cut at 25 before it.
const kidsShelfSize = 25

// kidsShelf adds "A Kids Archive (do not touch)", 24 books with "Kids" in
// their subtitle only, and then a book titled exactly "Kids": as on the
// server of issue 40, Audiobookshelf's search for "Kids" (25 a group)
// sends the first 25 and never the one titled so.
func kidsShelf(s *sd.Server) {
	s.Update(func(d *sd.Data) {
		add := func(id, title, subtitle string) {
			it := *itemOf(d, sd.ItemMort)
			b := *it.Book
			it.ID = id
			it.Ino, it.Path, it.RelPath = "ino-"+id, it.Path+"-"+id, it.RelPath+"-"+id
			b.ID, b.Title, b.Subtitle, b.Series, b.ASIN, b.ISBN = "b"+id[1:], title, subtitle, nil, "", ""
			it.Book = &b
			d.Items = append(d.Items, it)
		}
		add(kidsArchiveBook, "A Kids Archive (do not touch)", "")
		for i := 1; i < kidsShelfSize; i++ {
			add(fmt.Sprintf("0a0b0c0d-4444-4555-8666-%012d", i), fmt.Sprintf("Shelf Book %d", i), "Bedtime stories for kids")
		}
		add(kidsBook, "Kids", "")
	})
}

// TestNamesPartialMatchIsSaid: a guarded write given a name that only a
// part of a name holds asks, and its question says which words were used
// and what they matched.
func TestNamesPartialMatchIsSaid(t *testing.T) {
	t.Parallel()
	t.Run("delete_collection", func(t *testing.T) {
		t.Parallel()
		a := &answerer{}
		e := start(t, apptest.Options{Elicit: a.elicit})
		e.Standin.Update(func(d *sd.Data) {
			d.Collections = append(d.Collections, sd.Collection{ID: kidsArchiveCollection, LibraryID: sd.LibraryBooksID,
				Name: "Kids Archive (do not delete)", Books: []string{sd.ItemMort}})
		})
		e.Call(t, "delete_collection", map[string]any{"collection_id": "Kids"})
		if len(a.asked) != 1 {
			t.Fatalf("asked %d times", len(a.asked))
		}
		want := `You said "Kids"; no collection is named that, and the only collection whose name holds it is "Kids Archive (do not delete)".`
		if !strings.Contains(a.asked[0], want) {
			t.Errorf("the question does not state the match (%s): %s", want, a.asked[0])
		}
		if m := mutations(e.Standin); len(m) != 0 {
			t.Errorf("declined, yet changed: %v", m)
		}
	})
	t.Run("merge_authors", func(t *testing.T) {
		t.Parallel()
		a := &answerer{}
		e := start(t, apptest.Options{Elicit: a.elicit})
		e.Standin.Update(func(d *sd.Data) {
			d.Authors = append(d.Authors, sd.Author{ID: authorLowe, LibraryID: sd.LibraryBooksID, Name: "Mara Lowe"},
				sd.Author{ID: authorQuill, LibraryID: sd.LibraryBooksID, Name: "Tobias Quill"})
			itemOf(d, sd.ItemMort).Book.AuthorIDs = append(itemOf(d, sd.ItemMort).Book.AuthorIDs, authorLowe)
			itemOf(d, sd.ItemSourcery).Book.AuthorIDs = append(itemOf(d, sd.ItemSourcery).Book.AuthorIDs, authorQuill)
		})
		res := e.Call(t, "merge_authors", map[string]any{"author_id": "Lowe", "into_author_id": "Quill"})
		if len(a.asked) != 1 {
			t.Fatalf("asked %d times: %s", len(a.asked), apptest.Text(res))
		}
		for _, want := range []string{
			`You said "Lowe"; no author is named that, and the only author whose name holds it is "Mara Lowe".`,
			`You said "Quill"; no author is named that, and the only author whose name holds it is "Tobias Quill".`,
		} {
			if !strings.Contains(a.asked[0], want) {
				t.Errorf("the question does not state the match (%s): %s", want, a.asked[0])
			}
		}
		if m := mutations(e.Standin); len(m) != 0 {
			t.Errorf("declined, yet changed: %v", m)
		}
	})
}

// TestNamesPartialMatchRefusedByAWriteThatDoesNotAsk: a write that does
// not ask acts on no guess: a partial match is refused with the
// candidate, title and id quoted, and nothing changing is sent.
func TestNamesPartialMatchRefusedByAWriteThatDoesNotAsk(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	res := e.Call(t, "update_item_metadata", map[string]any{"library_item_id": "Colour", "fields": map[string]any{"description": "rewritten"}})
	if !res.IsError {
		t.Fatalf("a partial title drove a write: %s", apptest.Text(res))
	}
	for _, want := range []string{`argument "library_item_id"`, `"Colour"`, `"The Colour of Magic" (id "` + sd.ItemColourOfMagic + `")`, "call again with the id", "Nothing was changed"} {
		if !strings.Contains(apptest.Text(res), want) {
			t.Errorf("%q not in %s", want, apptest.Text(res))
		}
	}
	if m := mutations(e.Standin); len(m) != 0 {
		t.Errorf("changed: %v", m)
	}
	// A read may still use it: its answer shows what it read.
	if res := e.Call(t, "get_library_item", map[string]any{"library_item_id": "Colour"}); res.IsError || !strings.Contains(apptest.Text(res), sd.ItemColourOfMagic) {
		t.Errorf("a read by a partial title: %s", apptest.Text(res))
	}
}

// TestNamesExactTitleBeyondTheSearchCut: a book titled exactly "Kids"
// that Audiobookshelf's search (25 a group) never sends is still found,
// and wins over the books whose title holds "Kids".
func TestNamesExactTitleBeyondTheSearchCut(t *testing.T) {
	t.Parallel()
	t.Run("update_item_metadata", func(t *testing.T) {
		t.Parallel()
		e := start(t, apptest.Options{Elicit: approve})
		kidsShelf(e.Standin)
		res := e.Call(t, "update_item_metadata", map[string]any{"library_item_id": "Kids", "fields": map[string]any{"description": "rewritten"}})
		if res.IsError {
			t.Fatalf("%s", apptest.Text(res))
		}
		if m := mutations(e.Standin); len(m) != 1 || !strings.Contains(m[0], kidsBook) {
			t.Errorf("wrote %v, want the book titled Kids (%s)", m, kidsBook)
		}
	})
	t.Run("remove_item_cover", func(t *testing.T) {
		t.Parallel()
		a := &answerer{}
		e := start(t, apptest.Options{Elicit: a.elicit})
		kidsShelf(e.Standin)
		e.Call(t, "remove_item_cover", map[string]any{"library_item_id": "kids"})
		if len(a.asked) != 1 {
			t.Fatalf("asked %d times", len(a.asked))
		}
		if !strings.Contains(a.asked[0], kidsBook) || strings.Contains(a.asked[0], kidsArchiveBook) {
			t.Errorf("the question is not about the book titled Kids (%s): %s", kidsBook, a.asked[0])
		}
	})
}

// TestNamesExactAsidePunctuationAndAccents: case, accents, spacing and
// punctuation do not count in an exact name, so a write that does not ask
// takes it, and a guarded one says which name the words stood for.
func TestNamesExactAsidePunctuationAndAccents(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) { itemOf(d, sd.ItemMort).Book.Title = "Mört" })
	for words, id := range map[string]string{"the colour-of-magic": sd.ItemColourOfMagic, "MORT": sd.ItemMort, "Equal  Rites!": sd.ItemEqualRites} {
		e.Standin.ResetRequests()
		res := e.Call(t, "update_item_metadata", map[string]any{"library_item_id": words, "fields": map[string]any{"description": "rewritten"}})
		if res.IsError {
			t.Errorf("%q: %s", words, apptest.Text(res))
			continue
		}
		if m := mutations(e.Standin); len(m) != 1 || !strings.Contains(m[0], id) {
			t.Errorf("%q wrote %v, want %s", words, m, id)
		}
	}
	a := &answerer{}
	e = start(t, apptest.Options{Elicit: a.elicit})
	e.Call(t, "delete_collection", map[string]any{"collection_id": "space-opera picks"})
	if len(a.asked) != 1 || !strings.Contains(a.asked[0], `You said "space-opera picks": the collection named so (case, accents and punctuation aside) is "Space Opera Picks".`) {
		t.Errorf("the question: %q", a.asked)
	}
}

// TestNamesAmbiguousExactListsQuotedIDs: two names that are the same but
// for case and punctuation are both exact: the call is refused with both
// candidates, their ids quoted, and nothing is sent.
func TestNamesAmbiguousExactListsQuotedIDs(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) {
		d.Collections = append(d.Collections,
			sd.Collection{ID: twinsCollection1, LibraryID: sd.LibraryBooksID, Name: "Twins", Books: []string{sd.ItemMort}},
			sd.Collection{ID: twinsCollection2, LibraryID: sd.LibraryBooksID, Name: "twins!", Books: []string{sd.ItemMort}},
			sd.Collection{ID: kidsArchiveCollection, LibraryID: sd.LibraryBooksID, Name: "Twins and more", Books: []string{sd.ItemMort}})
	})
	res := e.Call(t, "delete_collection", map[string]any{"collection_id": "TWINS"})
	if !res.IsError {
		t.Fatalf("accepted: %s", apptest.Text(res))
	}
	for _, want := range []string{`"TWINS" names 2 collections`, `"` + twinsCollection1 + `" "Twins"`, `"` + twinsCollection2 + `" "twins!"`} {
		if !strings.Contains(apptest.Text(res), want) {
			t.Errorf("%q not in %s", want, apptest.Text(res))
		}
	}
	if strings.Contains(apptest.Text(res), kidsArchiveCollection) {
		t.Errorf("a partial match listed beside exact ones: %s", apptest.Text(res))
	}
	if m := mutations(e.Standin); len(m) != 0 {
		t.Errorf("changed: %v", m)
	}
}
