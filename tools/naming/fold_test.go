package naming

import "testing"

// TestFold: the joined form counts every letter and digit and nothing
// else, so spellings apart by a space, a hyphen or a full stop are one
// and different people stay apart.
func TestFold(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Non-Fiction", "Nonfiction"},
		{"Non Fiction", "non-fiction"},
		{"re-read", "Reread"},
		{"Ursula K. Le Guin", "Ursula K. LeGuin"},
		{"Élan-Vital", "elan vital"},
		{"O'Brien", "OBrien"},
	} {
		if Fold(c.a) != Fold(c.b) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q: want alike", c.a, Fold(c.a), c.b, Fold(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"George R. R. Martin", "George Martin"},
		{"Robert B. Parker", "Robert Parker"},
		{"!!!", "???"},
	} {
		if Fold(c.a) == Fold(c.b) {
			t.Errorf("Fold(%q) and Fold(%q) are both %q: want apart", c.a, c.b, Fold(c.a))
		}
	}
	if w := FoldWords("Ursula K. Le-Guin's"); len(w) != 4 || w[3] != "guins" {
		t.Errorf("FoldWords = %q, want [ursula k le guins]", w)
	}
}
