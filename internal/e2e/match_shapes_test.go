package e2e

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// matchAnswering makes the stand-in answer a quick match with shape
// instead of {updated, libraryItem}, what a proxy or another version of
// Audiobookshelf may give, after making the change a match makes: the
// book's subtitle set. When failReads is set, every read of an item after
// the match fails (404, an answer the spec allows).
func matchAnswering(s *sd.Server, shape string, failReads bool) {
	var matched atomic.Bool
	s.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/match") {
			id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/items/"), "/match")
			s.Update(func(d *sd.Data) {
				for i := range d.Items {
					if d.Items[i].ID == id {
						d.Items[i].Book.Subtitle = "A Discworld Novel"
						d.Items[i].UpdatedAt++
					}
				}
			})
			matched.Store(true)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(shape))
			return true
		}
		if failReads && matched.Load() && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/items/") {
			http.Error(w, "Not Found", http.StatusNotFound)
			return true
		}
		return false
	})
}

// TestMatchAnswerOfAnotherShape: when Audiobookshelf's answer to a quick
// match is not {updated, libraryItem}, the tool does not report that
// nothing changed: it reads the book again and answers with what changed
// and its put-back; when that read fails too, it says the outcome is
// unknown and how to look.
func TestMatchAnswerOfAnotherShape(t *testing.T) {
	t.Parallel()
	for _, shape := range []string{`{}`, `{"updated":true}`} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			e := startApproving(t)
			matchAnswering(e.Standin, shape, false)
			res := e.Call(t, "match_library_item", map[string]any{"library_item_id": sd.ItemMort})
			if txt := apptest.Text(res); strings.Contains(txt, "nothing was changed") || strings.Contains(txt, "had no match") {
				t.Fatalf("reports no change after a match that changed the book: %s", txt)
			}
			v := decode(t, res)
			if at(t, v, "matched") != true || str(at(t, v, "changed")) != "[subtitle]" || at(t, v, "previous", "subtitle") != nil {
				t.Errorf("want the subtitle as changed, read back: %v", v)
			}
			pb := at(t, v, "put_back").(map[string]any)
			if pb["tool"] != "update_item_metadata" {
				t.Fatalf("put_back: %v", pb)
			}
			e.Standin.SetFault(nil)
			if back := e.Call(t, "update_item_metadata", pb["arguments"].(map[string]any)); back.IsError {
				t.Fatalf("put-back: %s", apptest.Text(back))
			}
			if it, _ := e.Standin.Item(sd.ItemMort); it.Book.Subtitle != "" {
				t.Errorf("the put-back left subtitle %q", it.Book.Subtitle)
			}
		})
		t.Run(shape+" and the read back fails", func(t *testing.T) {
			t.Parallel()
			e := startApproving(t)
			matchAnswering(e.Standin, shape, true)
			res := e.Call(t, "match_library_item", map[string]any{"library_item_id": sd.ItemMort})
			txt := apptest.Text(res)
			if !res.IsError || strings.Contains(txt, "Nothing was changed") || !strings.Contains(txt, "get_library_item") || !strings.Contains(txt, "cannot be told") || !strings.Contains(txt, "not known whether") {
				t.Errorf("want an error saying the outcome is unknown and how to look: %s", txt)
			}
		})
	}
}
