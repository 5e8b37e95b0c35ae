package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestMetadataNoChangeIsASuccess: a PATCH that changes nothing (another
// call set the same values first) is answered by Audiobookshelf 2.36
// without updated; that is the success it is, not a server that "may not
// be Audiobookshelf".
func TestMetadataNoChangeIsASuccess(t *testing.T) {
	t.Parallel()
	t.Run("set in between", func(t *testing.T) {
		t.Parallel()
		e := start(t, apptest.Options{Elicit: approve})
		// Another call's identical change lands between this call's read
		// and its PATCH.
		e.Standin.SetFault(func(_ http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/api/items/"+sd.ItemMort+"/media") {
				e.Standin.Update(func(d *sd.Data) { itemOf(d, sd.ItemMort).Book.Description = "Same words" })
			}
			return false
		})
		res := e.Call(t, "update_item_metadata", map[string]any{"library_item_id": sd.ItemMort, "fields": map[string]any{"description": "Same words"}})
		if res.IsError {
			t.Fatalf("a no-change PATCH reported as a failure: %s", apptest.Text(res))
		}
		if v := decode(t, res); at(t, v, "updated") != false || !strings.Contains(str(at(t, v, "notes")), "changed nothing") {
			t.Errorf("answer: %v", v)
		}
	})
	t.Run("three at once", func(t *testing.T) {
		t.Parallel()
		e := start(t, apptest.Options{Elicit: approve})
		var wg sync.WaitGroup
		errs := make([]string, 3)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := e.Call(t, "update_item_metadata", map[string]any{"library_item_id": sd.ItemMort, "fields": map[string]any{"description": "Three at once"}})
				if res.IsError {
					errs[i] = apptest.Text(res)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != "" {
				t.Errorf("%s", err)
			}
		}
	})
}
