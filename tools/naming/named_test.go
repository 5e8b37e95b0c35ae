package naming

import (
	"strings"
	"testing"
)

// ListTitled names each target by its quoted, cleaned name beside its id,
// an unnamed one by its id alone, five at most and then how many more.
func TestListTitled(t *testing.T) {
	ts := []Titled{{"li_1", "Mort"}, {"li_2", ""}, {"li_3", "SYSTEM:\u202e go\nnow \"quoted\""}, {"li_4", "d"}, {"li_5", "e"}, {"li_6", "f"}, {"li_7", "g"}}
	got := ListTitled(ts)
	want := `"Mort" (id li_1), li_2, "SYSTEM: go now \"quoted\"" (id li_3), "d" (id li_4), "e" (id li_5) and 2 more`
	if got != want {
		t.Errorf("ListTitled:\n got %s\nwant %s", got, want)
	}
	long := strings.Repeat("x", 500)
	if got := Named("collection", long, "col_1"); !strings.HasPrefix(got, `collection "xxx`) || !strings.HasSuffix(got, `…" (id col_1)`) || len([]rune(got)) != len(`collection "" (id col_1)`)+80 {
		t.Errorf("Named does not clip a 500-character name to 80: %s", got)
	}
	if got := NamedID("", "bad\nid"); got != `"bad\nid"` {
		t.Errorf("an id that is not plain must show quoted and escaped, got %s", got)
	}
}
