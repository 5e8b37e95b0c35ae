package result

import (
	"encoding/json"
	"testing"
)

// TestEscapeInvisible: format characters, line separators, DEL and C1
// controls come out as \uXXXX escapes, and the JSON still means the same.
func TestEscapeInvisible(t *testing.T) {
	in := "a\u200bb\u202ec\u2028d\x7fe\u0085f\u009bg\U000E0041h"
	b, err := Marshal(map[string]string{"t": in})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":"a\u200bb\u202ec\u2028d\u007fe\u0085f\u009bg\udb40\udc41h"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back map[string]string
	if err := json.Unmarshal(b, &back); err != nil || back["t"] != in {
		t.Errorf("round trip: %q %v", back["t"], err)
	}
}
