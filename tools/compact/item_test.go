package compact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// The audio files of an expanded item are counted, not decoded; a minified
// item gives the count in numAudioFiles.
func TestDetailCountsAudioFiles(t *testing.T) {
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"id":"li","media":{"audioFiles":[{"index":1,"metaTags":{"tagTitle":"[a]"}},{"index":2},{}]}}`, 3},
		{`{"id":"li","media":{"numAudioFiles":4}}`, 4},
		{`{"id":"li","media":{"audioFiles":null,"numAudioFiles":2}}`, 2},
		{`{"id":"li","media":{"audioFiles":[]}}`, 0},
	} {
		var it absdata.Item
		if err := json.Unmarshal([]byte(c.body), &it); err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if got := Detail(&it).AudioFiles; got != c.want {
			t.Errorf("%s: audio_files %d, want %d", c.body, got, c.want)
		}
	}
}

// TestCollapseCutsAtTheLimit: a text of exactly limit characters stays
// whole; one more is cut to limit characters and an ellipsis, with its
// length said; characters count, not bytes.
func TestCollapseCutsAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    string
		wantLen int
	}{
		{strings.Repeat("é", 10), strings.Repeat("é", 10), 0},
		{strings.Repeat("é", 11), strings.Repeat("é", 10) + "…", 11},
		{"<p>a  b</p>\n" + strings.Repeat("c", 8), "a b " + strings.Repeat("c", 6) + "…", 12},
	} {
		got, n := Collapse(c.in, 10)
		if got != c.want || n != c.wantLen {
			t.Errorf("collapse(%q, 10) = %q, %d; want %q, %d", c.in, got, n, c.want, c.wantLen)
		}
	}
}
