package result

import (
	"fmt"
	"unicode/utf8"
)

// A write tool either asks first (guard/) or answers with what it replaced
// and the call that puts it back (docs/guards.md, "Every write either asks
// or can be undone"). PutBack is that call.
type PutBack struct {
	// Tool and Arguments are the call, as a model would make it.
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// Note says what the call does beyond giving the old values back, for
	// example that it asks the person first.
	Note string `json:"note,omitempty"`
	// Then is a second call that puts back what this one cannot, made
	// after it (match_library_item: the metadata, then a fetched cover).
	Then *PutBack `json:"then,omitempty"`
}

// Excerpt is s as Audiobookshelf holds it, never altered: whole when it has
// at most limit characters, else its first limit characters, with the
// total and a sentence saying where it was cut and how to get it whole
// (how names the call).
func Excerpt(s string, limit int, how string) (shown string, total int, cut string) {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0, ""
	}
	i := 0
	for k := 0; k < limit; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], n, fmt.Sprintf("cut after character %d of %d; %s returns it whole (raise AUDIOBOOKSHELF_MAX_RESULT_CHARS if that answer is over the budget)", limit, n, how)
}

// ListTextLimit is how many characters of a collection's or playlist's
// description a compact answer shows whole: somebody typed it, and an
// update takes it out, so it is shown as it is up to this length (well
// inside the result budget), and beyond it cut with a note that says where.
const ListTextLimit = 10000

// MaxNameLen and maxDescriptionLen are the longest name and description
// the update tools take (tools.yaml): an older text longer than that could
// not be given back through them.
const (
	MaxNameLen        = 500
	MaxDescriptionLen = 5000
)

// EffectUnrestorableText is the effect of update_collection and
// update_playlist that makes them ask (tools.yaml): the call replaces a
// name or description that the put-back could not give back exactly.
const EffectUnrestorableText = "replaces_unrestorable_text"

// ControlWhy says why a text holding n characters that the tools' text
// arguments refuse (argdec.RefusedControls) could not be given back. The
// question says the count, never the text.
func ControlWhy(what string, n int) string {
	return fmt.Sprintf("the %s holds %d control character(s) (a CR, as in a CRLF line end, or VT, FF, NUL, ESC, DEL or a C1 control) that the tool's arguments refuse, so a put-back carrying it would be refused", what, n)
}

// UnrestorableWhy says why the text named by lost ("description", "name",
// "name and description") could not be given back.
func UnrestorableWhy(lost string, nullDescription, playlist bool) string {
	switch {
	case lost == "name":
		return fmt.Sprintf("the name is longer than the %d characters the tool takes", MaxNameLen)
	case playlist:
		return fmt.Sprintf("the playlist has no description now, or one longer than the %d characters the tool takes, and Audiobookshelf ignores an empty description on a playlist, so none could be given back", MaxDescriptionLen)
	case nullDescription:
		return "the collection has no description at all now (Audiobookshelf holds null), and the tool can give back only text, not null"
	}
	return fmt.Sprintf("the text is longer than the %d characters the tool takes", MaxDescriptionLen)
}
