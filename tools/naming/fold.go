package naming

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FoldWords is a name cut into the words names are compared by: accents
// taken off (NFD, combining marks dropped), lower case, letters and
// digits only; an apostrophe is dropped ("O'Brien" is one word) and
// anything else (spaces, hyphens, full stops, other punctuation)
// separates words. The resolution of names (Fold) and the curation
// audits' keys are both made from it.
func FoldWords(s string) []string {
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

// Fold is a name's joined form, as names are compared: its FoldWords
// written together, so that spacing, hyphens, full stops and other
// punctuation do not count ("Non-Fiction", "Non Fiction" and
// "Nonfiction" are all "nonfiction"; "Ursula K. Le Guin" and "Ursula K.
// LeGuin" are both "ursulakleguin"), while every letter does ("George R.
// R. Martin" is not "George Martin"). A name with no letter or digit
// folds to its lower-cased words, so that "!!!" is not every other name
// without one.
func Fold(s string) string {
	if w := FoldWords(s); len(w) > 0 {
		return strings.Join(w, "")
	}
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// lowerWords is a name as a part of a name is looked for in it: accents
// dropped, lower case, spacing collapsed, punctuation kept (so that "_a"
// is not the "a" of every name).
func lowerWords(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
