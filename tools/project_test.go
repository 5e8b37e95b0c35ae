package tools

import (
	"encoding/json"
	"testing"
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
		var it absItem
		if err := json.Unmarshal([]byte(c.body), &it); err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if got := detail(&it).AudioFiles; got != c.want {
			t.Errorf("%s: audio_files %d, want %d", c.body, got, c.want)
		}
	}
}
