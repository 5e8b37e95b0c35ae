package naming

import (
	"reflect"
	"strings"
	"testing"
)

func TestLooksLikeID(t *testing.T) {
	for s, want := range map[string]bool{
		"4b0946b6-bd96-4162-8763-923d1bb77c39": true,
		"li_8gch9ve09orgn4fdz8":                true, // an id of a server from before 2.3
		"Mort":                                 false,
		"The Colour of Magic":                  false,
		"no-such-item":                         false,
		"4b0946b6-bd96-4162-8763-923d1bb77c3":  false,
		"":                                     false,
	} {
		if got := LooksLikeID(s); got != want {
			t.Errorf("LooksLikeID(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestPick: an exact name (case and spaces aside) wins over names that
// hold it; several of either are all returned, each id once.
func TestPick(t *testing.T) {
	cands := []candidate{
		{ID: "1", Name: "Mort"}, {ID: "2", Name: "Mortality"}, {ID: "3", Name: "Post Mortem"},
		{ID: "1", Name: "Mort"}, {ID: "4", Name: "The  Colour of Magic"}, {ID: "5", Name: "Colour"}, {ID: "6", Name: "colour"},
	}
	ids := func(cs []candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for name, want := range map[string][]string{
		" MORT ":              {"1"},
		"mortal":              {"2"},
		"mor":                 {"1", "2", "3"}, // no exact one: all that hold it
		"the colour of magic": {"4"},
		"COLOUR":              {"5", "6"},
		"Sourcery":            nil,
	} {
		got, _ := pick(cands, name)
		if !reflect.DeepEqual(ids(got), want) {
			t.Errorf("pick(%q) = %v, want %v", name, ids(got), want)
		}
	}
}

// TestPickExactBeforePartial: case, accents, spacing and punctuation do
// not count in an exact match, and an exact match wins over every name
// that holds the words.
func TestPickExactBeforePartial(t *testing.T) {
	cands := []candidate{
		{ID: "a", Name: "A Kids Archive (do not touch)"}, {ID: "k", Name: "Kids"}, {ID: "b", Name: "Kids Archive"},
		{ID: "c", Name: "The Colour of Magic"}, {ID: "e", Name: "Élan Vital"}, {ID: "m", Name: "Mort"}, {ID: "q", Name: "Mort!"},
	}
	for _, tc := range []struct {
		name  string
		want  []string
		exact bool
	}{
		{"kids", []string{"k"}, true},
		{"  KIDS ", []string{"k"}, true},
		{"the colour-of-magic", []string{"c"}, true},
		{"The Colour of Magic.", []string{"c"}, true},
		{"elan vital", []string{"e"}, true},
		{"ÉLAN-VITAL", []string{"e"}, true},
		{"colour", []string{"c"}, false},
		{"Kids Arch", []string{"a", "b"}, false},
		{"kids archive (do", []string{"a"}, false},
		{"élan", []string{"e"}, false},
		{"_a", nil, false},                 // punctuation counts in a part of a name
		{"mort", []string{"m", "q"}, true}, // "Mort" and "Mort!" are the same name: ambiguous
	} {
		got, exact := pick(cands, tc.name)
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if !reflect.DeepEqual(ids, tc.want) || exact != tc.exact {
			t.Errorf("pick(%q) = %v exact %v, want %v exact %v", tc.name, ids, exact, tc.want, tc.exact)
		}
	}
	if Fold("!!!") != "!!!" || Fold("Ça va") != "cava" {
		t.Errorf("Fold: %q, %q", Fold("!!!"), Fold("Ça va"))
	}
}

// TestFoundSentences: a partial match is said with both the words and
// the name, quoted; an exact one as written says nothing; a write that
// does not ask refuses the partial one with its quoted id.
func TestFoundSentences(t *testing.T) {
	fs := Founds{
		{Arg: "collection_id", Kind: NameCollection, Words: "Kids", Name: "Kids Archive (do not delete)", ID: "col_1"},
		{Arg: "author_id", Kind: NameAuthor, Words: "Mara Lowe", Name: "Mara Lowe", ID: "au_1", Exact: true},
		{Arg: "library_item_id", Kind: NameItem, Words: "the colour-of-magic", Name: "The Colour of Magic", ID: "li_1", Exact: true},
	}
	got := fs.Sentences()
	want := []string{
		`You said "Kids"; no collection is named that, and the only collection whose name holds it is "Kids Archive (do not delete)".`,
		`You said "the colour-of-magic": the item titled so (case, accents and punctuation aside) is "The Colour of Magic".`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
	err := fs.RefusePartial()
	if err == nil || !strings.Contains(err.Error(), `argument "collection_id": no collection is named "Kids"; the only one whose name holds it is "Kids Archive (do not delete)" (id "col_1").`) {
		t.Errorf("RefusePartial = %v", err)
	}
	if err := fs[1:].RefusePartial(); err != nil {
		t.Errorf("exact matches refused: %v", err)
	}
}
