package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// completeItemID completes the item resource's id from value.
func completeItemID(t *testing.T, e *apptest.Env, value string) *mcp.CompleteResult {
	t.Helper()
	r, err := e.Session.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: value}})
	if err != nil {
		t.Fatalf("complete %q: %v", value, err)
	}
	return r
}

// TestCompletionBeyondTheSearchCut: a completion goes by the one resolver's
// rule: where Audiobookshelf's search was cut at its 25 (the book titled
// "Kids" comes after 25 books that hold "Kids"), the complete listing
// decides; the title that starts with the words comes before the one with
// a later word that does, and the books that hold the words only in their
// subtitle are none.
func TestCompletionBeyondTheSearchCut(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	kidsShelf(e.Standin)
	r := completeItemID(t, e, "kid")
	if v := r.Completion.Values; fmt.Sprint(v) != fmt.Sprint([]string{kidsBook, kidsArchiveBook}) || r.Completion.Total != 2 || r.Completion.HasMore {
		t.Errorf("kid: %v (total %d, hasMore %v), want the book titled Kids, then the Kids Archive", v, r.Completion.Total, r.Completion.HasMore)
	}
}

// TestCompletionOfAnID: a value that is an id already completes to
// itself, and sends nothing to Audiobookshelf (no search, no listing).
func TestCompletionOfAnID(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Standin.ResetRequests()
	if v := completeItemID(t, e, sd.ItemMort).Completion.Values; fmt.Sprint(v) != "["+sd.ItemMort+"]" {
		t.Errorf("an id: %v", v)
	}
	if n := len(e.Standin.Requests()); n != 0 {
		t.Errorf("an id's completion sent %d requests", n)
	}
}

// TestCompletionWrittenOtherwise: a title Audiobookshelf's search does
// not find for the words (accents) is found on the complete listing, as
// a name is.
func TestCompletionWrittenOtherwise(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Standin.Update(func(d *sd.Data) { itemOf(d, sd.ItemMort).Book.Title = "Mört" })
	if v := completeItemID(t, e, "mort").Completion.Values; !slices.Contains(v, sd.ItemMort) {
		t.Errorf("mort: %v, want %s (Mört)", v, sd.ItemMort)
	}
}

// TestCompletionAtMost100: 130 titles that start alike complete with the
// first 100, the total 130, and hasMore.
func TestCompletionAtMost100(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Standin.Update(func(d *sd.Data) {
		for i := range 130 {
			it := *itemOf(d, sd.ItemMort)
			b := *it.Book
			it.ID = fmt.Sprintf("0a0b0c0d-5555-4555-8666-%012d", i)
			it.Ino, it.Path, it.RelPath = "ino-"+it.ID, it.Path+"-"+it.ID, it.RelPath+"-"+it.ID
			b.ID, b.Title, b.Series, b.ASIN, b.ISBN = "b"+it.ID[1:], fmt.Sprintf("Saga %03d", i), nil, "", ""
			it.Book = &b
			d.Items = append(d.Items, it)
		}
	})
	r := completeItemID(t, e, "saga")
	if c := r.Completion; len(c.Values) != 100 || c.Total != 130 || !c.HasMore || c.Values[0] != "0a0b0c0d-5555-4555-8666-000000000000" {
		t.Errorf("saga: %d values (first %v), total %d, hasMore %v; want 100 of 130 in title order", len(c.Values), c.Values[:min(1, len(c.Values))], c.Total, c.HasMore)
	}
}

// TestPromptNamesGoThroughTheResolver: a prompt's names are resolved as a
// tool's: case, accents and punctuation aside; a name that only a part of
// a name holds is refused with the name it holds; a library's name that
// is no library names the libraries there are, and one of the wrong kind
// says its kind (for a tool's argument as for a prompt's).
func TestPromptNamesGoThroughTheResolver(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	ctx := context.Background()
	get := func(name string, args map[string]string) (string, error) {
		r, err := e.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return "", err
		}
		return r.Messages[0].Content.(*mcp.TextContent).Text, nil
	}
	text, err := get("where_am_i_in_a_series", map[string]string{"series": "the-expanse!", "library": "BOOKS"})
	if err != nil || !strings.Contains(text, sd.SeriesExpanse) || !strings.Contains(text, `(\"the-expanse!\")`) && !strings.Contains(text, `("the-expanse!")`) {
		t.Errorf("the-expanse! in BOOKS: %q %v", text, err)
	}
	if _, err := get("where_am_i_in_a_series", map[string]string{"series": "Expanse"}); err == nil ||
		!strings.Contains(err.Error(), `argument "series": no series is named "Expanse"; the only one whose name holds it is "The Expanse"`) || strings.Contains(err.Error(), "write") {
		t.Errorf("a part of a series' name: %v", err)
	}
	if _, err := get("what_to_listen_to_next", map[string]string{"library": "Audiobooks"}); err == nil ||
		!strings.Contains(err.Error(), `argument "library": no library is named "Audiobooks"; the user's libraries are "Books", "Podcasts".`) || strings.Contains(err.Error(), "Nothing was changed") {
		t.Errorf("no such library: %v", err)
	}
	failsWith(t, e, "list_series", map[string]any{"library_id": "podcasts"}, `argument "library_id": "Podcasts" is a podcast library, and a book library is needed here.`)
}
