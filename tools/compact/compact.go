package compact

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// DescriptionLimit is how many characters of a description a compact
// single-item result keeps; lists keep none (get_library_item has it).
const DescriptionLimit = 1000

// ListCap is the most entries a list inside one object carries (a
// podcast's episodes, a collection's books in a write's answer).
const ListCap = 100

// Inner caps: how many of a short list inside one item a compact answer
// shows before it says how many more there are.
const (
	// NamesCap is for authors, narrators and series.
	NamesCap = 10
	// TermsCap is for genres and tags.
	TermsCap = 20
	// BriefNamesCap is how many author names an item in a list shows.
	BriefNamesCap = 5
)

// restOfItem is where the rest of a list inside an item is.
const restOfItem = `detail "full" (all of them, when it fits the result budget)`

func Seconds(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return int64(math.Round(f))
}

func Pct(f float64) int {
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	if f > 1 {
		f = 1
	}
	return int(math.Round(f * 100))
}

// Date renders a millisecond timestamp as a UTC date; "" for none.
func Date(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02")
}

// Stamp renders a millisecond timestamp as UTC date and time.
func Stamp(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05Z")
}

// Collapse folds white space and strips HTML tags from a description, then
// cuts it at limit characters. It returns the text and the full length (in
// characters, after folding) when it was cut, else 0.
func Collapse(s string, limit int) (string, int) {
	s = stripTags(s)
	s = strings.Join(strings.Fields(s), " ")
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0
	}
	r := []rune(s)
	return string(r[:limit]) + "…", n
}

func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	in := false
	for _, c := range s {
		switch {
		case c == '<':
			in = true
			b.WriteByte(' ')
		case c == '>' && in:
			in = false
		case !in:
			b.WriteRune(c)
		}
	}
	r := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ")
	return r.Replace(b.String())
}

func Round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
