package argdec

import (
	"regexp"
	"strings"
	"testing"
)

// IsID accepts exactly what the regular expression it replaces accepts.
func TestIsIDMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)
	cases := []string{"", "a", "_", "-a", "a_", "a-b_c", "li_8ccef7cc", "8ccef7cc-04fb-4142-89eb-2e429fc820d8",
		"a.b", "a:b", "a b", "a\n", "\na", "ä", "a/b", "a%2F", strings.Repeat("a", 128), strings.Repeat("a", 129),
		"a" + strings.Repeat("-", 127), "a" + strings.Repeat("-", 128)}
	for c := 0; c < 256; c++ {
		cases = append(cases, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	for _, s := range cases {
		if got, want := IsID(s), re.MatchString(s); got != want {
			t.Errorf("IsID(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}

func FuzzIsID(f *testing.F) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)
	f.Add("li_1")
	f.Add("8ccef7cc-04fb-4142-89eb-2e429fc820d8")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsID(s), re.MatchString(s); got != want {
			t.Fatalf("IsID(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
