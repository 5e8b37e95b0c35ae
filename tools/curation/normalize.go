package curation

import (
	"regexp"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

// NameKey is the spelling of a name (a series, a tag, a genre, a title)
// that the audits compare: naming.Fold's joined form (accents, case,
// spaces, hyphens, full stops and other punctuation aside) without a
// leading "the". "The  Stormlight Archive", "stormlight archive" and
// "Stormlight-Archive" are alike, and so are "re-read" and "reread",
// "Non-Fiction", "Non Fiction" and "Nonfiction".
func NameKey(s string) string {
	words := naming.FoldWords(s)
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	return strings.Join(words, "")
}

// PersonKey is the spelling of a person's name that the people audit
// compares: "Last, First" turned to "First Last", then naming.Fold's joined
// form ("J. R. R. Tolkien" and "J.R.R. Tolkien" are "jrrtolkien";
// "Ursula K. Le Guin" and "Le Guin, Ursula K." and "Ursula K. LeGuin"
// are one). Every letter counts: "George R. R. Martin" is not "George
// Martin", nor "Robert B. Parker" "Robert Parker".
func PersonKey(s string) string {
	return strings.Join(naming.FoldWords(firstLast(s)), "")
}

// InitialsKey is a person's name with every given name cut to its
// initial ("John Ronald Reuel Tolkien" and "J. R. R. Tolkien" are both
// "jrr tolkien"), and whether some given name was spelt out.
func InitialsKey(s string) (key string, spelt bool) {
	words := naming.FoldWords(firstLast(s))
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

// editionWords is a note in parentheses or brackets that says which
// edition of a recording a title is, not which work: "(Unabridged)",
// "[Abridged Edition]". A dramatisation is another work and is not one.
var editionWords = regexp.MustCompile(`(?i)\s*[(\[]\s*(un)?abridged(\s+(edition|version|audiobook|audio\s*book|recording))?\s*[)\]]`)

// TitleKey is a title as the duplicates audit compares it: its edition
// notes taken out (editionWords), then NameKey. "The Martian
// (Unabridged)" is "The Martian"; "Good Omens (Dramatised)" is not "Good
// Omens".
func TitleKey(s string) string {
	return NameKey(editionWords.ReplaceAllString(s, " "))
}
