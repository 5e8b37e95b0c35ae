package curation

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold is the spelling of a name that the audits compare: diacritics taken
// off (NFD, combining marks dropped), lower case, every run of punctuation
// and white space one space, and a leading "the" dropped. "The  Stormlight
// Archive", "stormlight archive" and "Stormlight-Archive" fold alike.
func Fold(s string) string {
	words := foldWords(s)
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// foldWords is s without diacritics, in lower case, cut into its words
// (letters and digits; everything else separates them, except an
// apostrophe, which is dropped: "O'Brien" is one word).
func foldWords(s string) []string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

// PersonKey is the spelling of a person's name that the people audit
// compares: "Last, First" turned to "First Last", then folded as Fold
// does (no "the" dropped), with a run of single letters written together
// ("J. R. R. Tolkien" and "J.R.R. Tolkien" are "jrr tolkien").
func PersonKey(s string) string {
	var out []string
	run := ""
	for _, w := range foldWords(firstLast(s)) {
		if len([]rune(w)) == 1 {
			run += w
			continue
		}
		if run != "" {
			out = append(out, run)
			run = ""
		}
		out = append(out, w)
	}
	if run != "" {
		out = append(out, run)
	}
	return strings.Join(out, " ")
}

// InitialsKey is a person's name with every given name cut to its
// initial ("John Ronald Reuel Tolkien" and "J. R. R. Tolkien" are both
// "jrr tolkien"), and whether some given name was spelt out.
func InitialsKey(s string) (key string, spelt bool) {
	words := foldWords(firstLast(s))
	if len(words) < 2 {
		return strings.Join(words, " "), false
	}
	initials := ""
	for _, w := range words[:len(words)-1] {
		r := []rune(w)
		initials += string(r[0])
		if len(r) > 1 {
			spelt = true
		}
	}
	return initials + " " + words[len(words)-1], spelt
}

// firstLast turns "Last, First" into "First Last"; a name with no comma,
// or more than one, is left as it is.
func firstLast(s string) string {
	if last, first, ok := strings.Cut(s, ","); ok && !strings.Contains(first, ",") && strings.TrimSpace(first) != "" && strings.TrimSpace(last) != "" {
		return first + " " + last
	}
	return s
}
