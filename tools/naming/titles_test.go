package naming

import (
	"slices"
	"testing"
)

// TestParseTitleLine: what a pasted line carries beside its title is
// taken off, and the whole line stays the first key.
func TestParseTitleLine(t *testing.T) {
	for _, c := range []struct {
		line   string
		key    string // among the keys
		author string
	}{
		{"1. The Colour of Magic", "colourofmagic", ""},
		{"• “Mort”", "mort", ""},
		{"Mort by Terry Pratchett", "mort", "terrypratchett"},
		{"Leviathan Wakes (The Expanse #1)", "leviathanwakes", ""},
		{"Equal Rites: Discworld, Book 3", "equalrites", ""},
		{"The Expanse 1: Leviathan Wakes", "leviathanwakes", ""},
		{"Neverwhere - Neil Gaiman", "neverwhere", ""},
		{"Stand by Me", "standbyme", "me"},
	} {
		tl := ParseTitleLine(c.line)
		if !slices.Contains(tl.Keys, c.key) || tl.Author != c.author {
			t.Errorf("%q: keys %v, author %q; want %q among the keys, author %q", c.line, tl.Keys, tl.Author, c.key, c.author)
		}
	}
	if k := ParseTitleLine("Stand by Me").Keys; k[0] != "standbyme" {
		t.Errorf("the whole line is not the first key: %v", k)
	}
}

// TestMatchTitle: typos are forgiven by length, never across numbers or
// in a short title; a part of a title is only a candidate.
func TestMatchTitle(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want TitleMatch
	}{
		{"mort", "mort", Same},
		{"morte", "mort", NoMatch},
		{"leviathenwakes", "leviathanwakes", Close},
		{"leviathanfalls", "leviathanwakes", NoMatch},
		{"abbadonsgate", "abaddonsgate", Close},
		{"book2", "book3", NoMatch},
		{"hailmary", "projecthailmary", Partial},
		{"nevermore", "neverwhere", NoMatch},
	} {
		if got := MatchTitle(c.a, c.b); got != c.want {
			t.Errorf("MatchTitle(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
