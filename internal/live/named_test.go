package live

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
)

// namedIn is a record as a question names it: its quoted, cleaned, clipped
// name beside its id.
func namedIn(name, id string) string { return guard.Quote(name) + " (id " + id + ")" }

// titleOf is a book's title in its raw record.
func titleOf(v map[string]any) string {
	s, _ := at(v, "media", "metadata", "title").(string)
	return s
}

// quotedOnly fails when the run's own text stands in a question outside a
// quoted name: a name is data there, never a sentence.
func quotedOnly(t *testing.T, what, q, run string) {
	t.Helper()
	if outside, _ := apptest.Unquoted(q); strings.Contains(outside, run) {
		t.Errorf("%s: a name of the run stands outside quotes:\n%s", what, q)
	}
}
