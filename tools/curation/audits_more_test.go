package curation

import (
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

func TestHoldsWords(t *testing.T) {
	for _, c := range []struct {
		title, name string
		want        bool
	}{
		{"Ann Leckie - Ancillary Justice", "Ann Leckie", true},
		{"Provenance (Leckie, Ann)", "Ann Leckie", false}, // holdsWords alone: one order
		{"Terry Pratchett's Hogfather", "Terry Pratchett", false},
		{"The King Must Die", "Mary King", false},
		{"Annals of Leckie", "Ann Leckie", false},
		{"", "Ann Leckie", false},
	} {
		if got := holdsWords(naming.FoldWords(c.title), naming.FoldWords(c.name)); got != c.want {
			t.Errorf("holdsWords(%q, %q) = %v, want %v", c.title, c.name, got, c.want)
		}
	}
}

func TestAuthorNames(t *testing.T) {
	m := absdata.Metadata{AuthorName: "Ann Leckie, Mary King"}
	if got := authorNames(&m); len(got) != 2 || got[0] != "Ann Leckie" || got[1] != "Mary King" {
		t.Errorf("authorNames from authorName: %q", got)
	}
	m.Authors = []absdata.Ref{{Name: "Leckie, Ann"}}
	if got := authorNames(&m); len(got) != 1 || got[0] != "Leckie, Ann" {
		t.Errorf("authorNames from authors: %q", got)
	}
	if got := authorNames(&absdata.Metadata{AuthorName: "  "}); got != nil {
		t.Errorf("authorNames of none: %q", got)
	}
}
