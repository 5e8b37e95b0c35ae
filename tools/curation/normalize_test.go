package curation

import (
	"reflect"
	"testing"
)

func TestNameKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"The Stormlight Archive", "stormlight  archive"},
		{"Ender's Saga", "Endér’s Saga"},
		{"Sci-Fi", "sci fi"},
		{"Scifi", "Sci-Fi"},
		{"Les Misérables", "LES MISERABLES"},
		{"reread", "re-read"},
		{"Non-Fiction", "Non Fiction"},
		{"Nonfiction", "Non-Fiction"},
		{"Nonfiction", "non.fiction"},
	} {
		if NameKey(c.a) != NameKey(c.b) {
			t.Errorf("NameKey(%q) = %q, NameKey(%q) = %q: want alike", c.a, NameKey(c.a), c.b, NameKey(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"The Expanse", "Expanses"},
		{"The", "Them"},
		{"Fiction", "Non-Fiction"},
	} {
		if NameKey(c.a) == NameKey(c.b) {
			t.Errorf("NameKey(%q) and NameKey(%q) are both %q: want apart", c.a, c.b, NameKey(c.a))
		}
	}
	if got := NameKey("The"); got != "the" {
		t.Errorf(`NameKey("The") = %q: a name that is only "The" keeps it`, got)
	}
	if got := NameKey("!!!"); got != "" {
		t.Errorf(`NameKey("!!!") = %q: a name without a letter or digit has no key (it is put with none)`, got)
	}
}

func TestTitleKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"The Martian (Unabridged)", "The Martian"},
		{"Red Rising [Unabridged Edition]", "red rising"},
		{"Dune (Abridged)", "Dune"},
	} {
		if TitleKey(c.a) != TitleKey(c.b) {
			t.Errorf("TitleKey(%q) = %q, TitleKey(%q) = %q: want alike", c.a, TitleKey(c.a), c.b, TitleKey(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"Good Omens (Dramatised)", "Good Omens"},
		{"The Martian (Unabridged Collection of Essays)", "The Martian"},
		{"Unabridged", "The Martian"},
	} {
		if TitleKey(c.a) == TitleKey(c.b) {
			t.Errorf("TitleKey(%q) and TitleKey(%q) are both %q: want apart", c.a, c.b, TitleKey(c.a))
		}
	}
}

func TestPersonKeys(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Sanderson, Brandon", "Brandon Sanderson"},
		{"J. R. R. Tolkien", "J.R.R. Tolkien"},
		{"Gabriel García Márquez", "gabriel garcia marquez"},
		{"Michael Kramer.", "Kramer, Michael"},
		{"Ursula K. Le Guin", "Ursula K. LeGuin"},
		{"Le Guin, Ursula K.", "Ursula K. LeGuin"},
	} {
		if PersonKey(c.a) != PersonKey(c.b) {
			t.Errorf("PersonKey(%q) = %q, PersonKey(%q) = %q: want alike", c.a, PersonKey(c.a), c.b, PersonKey(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"John Smith", "Jane Smith"},
		{"George R. R. Martin", "George Martin"},
		{"Robert B. Parker", "Robert Parker"},
	} {
		if PersonKey(c.a) == PersonKey(c.b) {
			t.Errorf("%s and %s share a PersonKey (%q): different people", c.a, c.b, PersonKey(c.a))
		}
	}
	if k, spelt := InitialsKey("John Ronald Reuel Tolkien"); k != "jrr tolkien" || !spelt {
		t.Errorf("InitialsKey(John Ronald Reuel Tolkien) = %q, %v", k, spelt)
	}
	if k, spelt := InitialsKey("J. R. R. Tolkien"); k != "jrr tolkien" || spelt {
		t.Errorf("InitialsKey(J. R. R. Tolkien) = %q, %v", k, spelt)
	}
	// "Last, First, Jr." has two commas: left as it is.
	if got := PersonKey("King, Martin Luther, Jr."); got != "kingmartinlutherjr" {
		t.Errorf("PersonKey with two commas = %q", got)
	}
}

func TestSamePeople(t *testing.T) {
	names := []string{"John Smith", "Jane Smith", "J. Smith", "J. R. R. Tolkien", "John Ronald Reuel Tolkien", "Ray Porter",
		"George R. R. Martin", "George Martin", "Robert B. Parker", "Robert Parker", "Ursula K. Le Guin", "Ursula K. LeGuin"}
	groups := samePeople(names)
	var got [][]string
	for _, g := range groups {
		var ns []string
		for _, i := range g {
			ns = append(ns, names[i])
		}
		got = append(got, ns)
	}
	want := [][]string{{"J. R. R. Tolkien", "John Ronald Reuel Tolkien"}, {"Ursula K. Le Guin", "Ursula K. LeGuin"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samePeople = %q: want only %q (J. Smith fits two people; George R. R. and George Martin, Robert B. and Robert Parker are two each)", got, want)
	}
}

func TestSequenceIn(t *testing.T) {
	for _, c := range []struct{ seriesName, name, want string }{
		{"Discworld #1", "Discworld", "1"},
		{"Discworld, City Watch #2", "City Watch", "2"},
		{"Discworld #4, City Watch #2", "Discworld", "4"},
		{"Discworld", "Discworld", ""},
		{"Watch #3, City Watch #2", "Watch", "3"},
		{"City Watch #2", "Watch", ""},
	} {
		if got := sequenceIn(c.seriesName, c.name); got != c.want {
			t.Errorf("sequenceIn(%q, %q) = %q, want %q", c.seriesName, c.name, got, c.want)
		}
	}
}

// TestEmptyToReader: a description is missing when nothing of it shows
// once its markup and entities are taken out.
func TestEmptyToReader(t *testing.T) {
	for _, c := range []struct {
		desc  string
		empty bool
	}{
		{"", true},
		{"<p></p>", true},
		{"<p><br/></p>\n", true},
		{"<p>&nbsp;</p>", true},
		{"<p>\u200b</p>", true},
		{"<p>A book.</p>", false},
		{"<p><em>x</em></p>", false},
		{"&amp;", false},
	} {
		if got := emptyToReader(c.desc); got != c.empty {
			t.Errorf("emptyToReader(%q) = %v, want %v", c.desc, got, c.empty)
		}
	}
}
