package guard

import (
	"regexp"
	"strings"
	"testing"
)

// ValidID accepts exactly what the regular expression it replaces accepts.
func TestValidIDMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)
	cases := []string{"", "a", "_", ".a", ":a", "-a", "a_", "a.b:c-d_e", "8ccef7cc-04fb-4142-89eb-2e429fc820d8",
		"a b", "a\n", "\na", "ä", "a/b", strings.Repeat("a", 128), strings.Repeat("a", 129),
		"a" + strings.Repeat(".", 127), "a" + strings.Repeat(":", 128)}
	for c := 0; c < 256; c++ {
		cases = append(cases, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	for _, s := range cases {
		if got, want := ValidID(s), re.MatchString(s); got != want {
			t.Errorf("ValidID(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}
