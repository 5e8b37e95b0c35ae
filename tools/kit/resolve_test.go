package kit

import (
	"reflect"
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
		if got := ids(pick(cands, name)); !reflect.DeepEqual(got, want) {
			t.Errorf("pick(%q) = %v, want %v", name, got, want)
		}
	}
}
