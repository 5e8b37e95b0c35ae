package curation

import "testing"

func TestFold(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"The Stormlight Archive", "stormlight  archive"},
		{"Ender's Saga", "Endér’s Saga"},
		{"Sci-Fi", "sci fi"},
		{"Les Misérables", "LES MISERABLES"},
	} {
		if Fold(c.a) != Fold(c.b) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q: want alike", c.a, Fold(c.a), c.b, Fold(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"The Expanse", "Expanses"},
		{"Scifi", "Sci-Fi"},
		{"The", "Them"},
	} {
		if Fold(c.a) == Fold(c.b) {
			t.Errorf("Fold(%q) and Fold(%q) are both %q: want apart", c.a, c.b, Fold(c.a))
		}
	}
	if got := Fold("The"); got != "the" {
		t.Errorf(`Fold("The") = %q: a name that is only "The" keeps it`, got)
	}
}

func TestPersonKeys(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Sanderson, Brandon", "Brandon Sanderson"},
		{"J. R. R. Tolkien", "J.R.R. Tolkien"},
		{"Gabriel García Márquez", "gabriel garcia marquez"},
		{"Michael Kramer.", "Kramer, Michael"},
	} {
		if PersonKey(c.a) != PersonKey(c.b) {
			t.Errorf("PersonKey(%q) = %q, PersonKey(%q) = %q: want alike", c.a, PersonKey(c.a), c.b, PersonKey(c.b))
		}
	}
	if PersonKey("John Smith") == PersonKey("Jane Smith") {
		t.Error("John Smith and Jane Smith share a PersonKey")
	}
	if k, spelt := InitialsKey("John Ronald Reuel Tolkien"); k != "jrr tolkien" || !spelt {
		t.Errorf("InitialsKey(John Ronald Reuel Tolkien) = %q, %v", k, spelt)
	}
	if k, spelt := InitialsKey("J. R. R. Tolkien"); k != "jrr tolkien" || spelt {
		t.Errorf("InitialsKey(J. R. R. Tolkien) = %q, %v", k, spelt)
	}
	// "Last, First, Jr." has two commas: left as it is.
	if got := PersonKey("King, Martin Luther, Jr."); got != "king martin luther jr" {
		t.Errorf("PersonKey with two commas = %q", got)
	}
}

func TestSamePeople(t *testing.T) {
	names := []string{"John Smith", "Jane Smith", "J. Smith", "J. R. R. Tolkien", "John Ronald Reuel Tolkien", "Ray Porter"}
	groups := samePeople(names)
	if len(groups) != 1 || len(groups[0]) != 2 || names[groups[0][0]] != "J. R. R. Tolkien" || names[groups[0][1]] != "John Ronald Reuel Tolkien" {
		t.Errorf("samePeople = %v: want only the two Tolkiens (J. Smith fits two people)", groups)
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
