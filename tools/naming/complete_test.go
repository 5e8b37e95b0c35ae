package naming

import (
	"fmt"
	"reflect"
	"testing"
)

// TestPrefixed: a completion holds the names that start with the words
// (case, accents, spacing and punctuation aside), then those with a later
// word that does, each group by name; a name that only holds the words
// inside a word is not one.
func TestPrefixed(t *testing.T) {
	cands := []candidate{
		{ID: "1", Name: "Terry Pratchett"}, {ID: "2", Name: "Pratchett, Terry"}, {ID: "3", Name: "The Colour of Magic"},
		{ID: "4", Name: "Colour-of-Night"}, {ID: "5", Name: "Éric Vuillard"}, {ID: "6", Name: "Sprat"}, {ID: "1", Name: "Terry Pratchett"},
		{ID: "7", Name: "colour"},
	}
	ids := func(cs []candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for prefix, want := range map[string][]string{
		"prat":         {"2", "1"}, // "Pratchett, Terry" starts so; "Terry Pratchett" has a word that does; "Sprat" holds it inside
		"colour of":    {"4", "3"}, // "colour" is shorter than the words
		"COLOUR-OF-NI": {"4"},
		"eric":         {"5"},
		"vuil":         {"5"},
		"zzz":          nil,
		"":             {"7", "4", "5", "2", "6", "1", "3"}, // all, by name, each once
	} {
		if got := ids(prefixed(cands, prefix)); !reflect.DeepEqual(got, want) {
			t.Errorf("prefixed(%q) = %v, want %v", prefix, got, want)
		}
	}
}

// TestCompleteValues: a value of the enum by its prefix; in a list, the
// last entry, the ones before kept.
func TestCompleteValues(t *testing.T) {
	enum := []string{"series", "people", "duplicates", "missing", "tags_and_genres"}
	for _, c := range []struct {
		prefix string
		list   bool
		want   []string
	}{
		{"p", true, []string{"people"}},
		{"series,p", true, []string{"series,people"}},
		{"series, D", true, []string{"series,duplicates"}},
		{"series,p", false, []string{}},
		{"", false, enum},
		{"x", true, []string{}},
	} {
		got := CompleteValues(enum, c.prefix, c.list)
		if fmt.Sprint(got.Values) != fmt.Sprint(c.want) || got.Total != len(c.want) || got.HasMore() {
			t.Errorf("CompleteValues(%q, list %v) = %+v, want %v", c.prefix, c.list, got, c.want)
		}
	}
}

// TestCompletionIsCutAt100: at most MaxCompletions values, with the total
// and hasMore; a total read from Audiobookshelf above the values read
// stays.
func TestCompletionIsCutAt100(t *testing.T) {
	var many []string
	for i := range 250 {
		many = append(many, fmt.Sprintf("v%03d", i))
	}
	c := clipCompletion(many, len(many))
	if len(c.Values) != MaxCompletions || c.Total != 250 || !c.HasMore() || c.Values[99] != "v099" {
		t.Errorf("250 values: %d values, total %d, hasMore %v", len(c.Values), c.Total, c.HasMore())
	}
	if c := clipCompletion(many[:3], 40); c.Total != 40 || !c.HasMore() {
		t.Errorf("a first page of 3 of 40: %+v", c)
	}
	if c := clipCompletion(nil, 0); c.Values == nil || c.Total != 0 || c.HasMore() {
		t.Errorf("none: %+v (values must be [], not null)", c)
	}
}
