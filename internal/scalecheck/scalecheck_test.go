package scalecheck

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// Every placeholder cmd/toolgen lets a widest call name is one Targets
// fills, and the stand-in's targets fill each.
func TestTargetsFillEveryPlaceholder(t *testing.T) {
	st := StandinTargets()
	for name := range toolgen.ScalePlaceholders {
		v, known := st.value(name)
		if !known {
			t.Errorf("{%s}: tools.yaml's widest may name it (toolgen.ScalePlaceholders) and Targets does not fill it", name)
		} else if v == "" || v == 0 {
			t.Errorf("{%s}: StandinTargets has nothing for it", name)
		}
	}
}

// Every read tool of the registry has widest calls, and on the stand-in's
// targets none keeps a placeholder or an empty value.
func TestWidestFilled(t *testing.T) {
	w := Widest(StandinTargets())
	for _, tool := range ReadTools() {
		calls := w[tool.Name]
		if len(calls) == 0 {
			t.Errorf("%s: no widest call", tool.Name)
		}
		for _, c := range calls {
			for k, v := range c {
				if s, ok := v.(string); ok && (s == "" || strings.Contains(s, "{")) {
					t.Errorf("%s: %s is %q", tool.Name, k, s)
				}
			}
		}
	}
	if got := w["get_listening_by_period"]; len(got) != 1 || got[0]["from"] != "2024-01-01" {
		t.Errorf("get_listening_by_period: a placeholder in a text: %v", got)
	}
	if got := w["get_year_stats"]; len(got) != 1 || got[0]["year"] != 2024 {
		t.Errorf("get_year_stats: a year stays a number: %v", got)
	}
	// A target the server has not got empties the value: the call is skipped.
	if got := Widest(Targets{BookLibrary: "lib"})["get_listening_by_period"]; got[0]["from"] != "" {
		t.Errorf("without a year: %v", got)
	}
}
