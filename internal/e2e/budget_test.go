package e2e

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// A raw answer (detail "full") longer than the result budget is refused,
// never cut: the error names its size, the budget and the compact form that
// fits; nothing is changed. The compact form of the same item fits.
func TestRawAnswerOverBudgetIsRefused(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Config: func(c *config.Config) { c.MaxResultChars = result.MinMaxResultChars }})
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemMort {
				d.Items[i].Book.Description = strings.Repeat("A long description. ", 300)
			}
		}
	})
	res := e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemMort, "detail": "full"})
	text := apptest.Text(res)
	if !res.IsError {
		t.Fatalf("a raw answer of %d characters passed a budget of %d", result.ResultChars(res), result.MinMaxResultChars)
	}
	for _, want := range []string{"get_library_item", "characters", "10,000", "AUDIOBOOKSHELF_MAX_RESULT_CHARS", `leave out detail "full"`, "Nothing was changed."} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal lacks %q: %s", want, text)
		}
	}
	compact := e.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemMort})
	if compact.IsError || result.ResultChars(compact) > result.MinMaxResultChars {
		t.Errorf("the compact form must fit: error %v, %d characters", compact.IsError, result.ResultChars(compact))
	}
	// With a larger budget the same raw answer passes whole.
	e2 := start(t, apptest.Options{Config: func(c *config.Config) { c.MaxResultChars = 100000 }})
	e2.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemMort {
				d.Items[i].Book.Description = strings.Repeat("A long description. ", 300)
			}
		}
	})
	if res := e2.Call(t, "get_library_item", map[string]any{"library_item_id": sd.ItemMort, "detail": "full"}); res.IsError {
		t.Errorf("within the default budget the raw answer is refused: %s", apptest.Text(res))
	}
}

// A list answer over the budget names a smaller limit.
func TestBudgetNamesASmallerLimit(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Config: func(c *config.Config) { c.MaxResultChars = result.MinMaxResultChars }})
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].Book != nil {
				d.Items[i].Book.Description = strings.Repeat("Long. ", 400)
			}
		}
	})
	res := e.Call(t, "list_library_items", map[string]any{"library_id": sd.LibraryBooksID, "limit": 16, "detail": "full"})
	text := apptest.Text(res)
	if !res.IsError || !strings.Contains(text, "a smaller limit (about ") || !strings.Contains(text, "instead of 16") || !strings.Contains(text, "then page") {
		t.Errorf("want a refusal naming a smaller limit and paging: %v %s", res.IsError, text)
	}
}
