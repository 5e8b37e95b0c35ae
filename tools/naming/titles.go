package naming

import (
	"regexp"
	"strings"
	"unicode"
)

// Titles as a person writes them in a list (check_owned): the same fold
// as names (fold), and what a pasted line carries beside the title: a list
// marker, a "by Author" tail, a subtitle, a series and its number.

// TitleLine is one line of a pasted list, taken apart.
type TitleLine struct {
	Line string // the line, trimmed
	// Keys are the folded forms of the title it may mean, the likeliest
	// first: the line without its marker, series number and parentheses,
	// then without its "by" tail, then the part before a subtitle, then
	// the part after a " - " (an "Author - Title" line).
	Keys   []string
	Author string // the "by" tail, folded; "" when none
}

var (
	listMarker  = regexp.MustCompile(`^\s*(?:[-*•·–—>]+|\(?\d{1,3}[.)]|#\d{1,3}[.:)]?)\s+`)
	bracketed   = regexp.MustCompile(`\s*[(\[{][^)\]}]*[)\]}]`)
	seriesNum   = regexp.MustCompile(`(?i)(?:,|;)?\s*\b(?:book|bk\.?|vol\.?|volume|part|no\.?|nr\.?|number)\s*#?\s*\d+(?:\.\d+)?\b|\s*#\s*\d+(?:\.\d+)?\b`)
	subtitleSep = regexp.MustCompile(`\s*(?::|\s[-–—]\s)\s*`)
	byTail      = regexp.MustCompile(`(?i)^(.*\S)\s*(?:,\s*)?\bby\s+(\S.*)$`)
	quotes      = "\"'“”‘’«»„"
)

// ParseTitleLine takes a pasted line apart.
func ParseTitleLine(line string) TitleLine {
	t := TitleLine{Line: strings.TrimSpace(line)}
	s := listMarker.ReplaceAllString(t.Line, "")
	s = strings.Trim(s, " \t"+quotes)
	var cands []string
	add := func(v string) {
		v = bracketed.ReplaceAllString(v, "")
		v = seriesNum.ReplaceAllString(v, "")
		v = strings.Trim(strings.TrimSpace(v), " ,;:-–—"+quotes)
		if k := TitleKey(v); k != "" {
			for _, c := range cands {
				if c == k {
					return
				}
			}
			cands = append(cands, k)
		}
	}
	add(s)
	title := s
	if m := byTail.FindStringSubmatch(s); m != nil {
		title = m[1]
		t.Author = Fold(bracketed.ReplaceAllString(m[2], ""))
		add(title)
	}
	if parts := subtitleSep.Split(bracketed.ReplaceAllString(title, ""), -1); len(parts) > 1 {
		add(parts[0])
		add(parts[len(parts)-1])
	}
	t.Keys = cands
	return t
}

// TitleKey is a title as titles are compared: a leading article
// dropped, then folded.
func TitleKey(s string) string {
	w := strings.Fields(lowerWords(s))
	if len(w) > 1 {
		switch w[0] {
		case "the", "a", "an":
			w = w[1:]
		}
	}
	return Fold(strings.Join(w, " "))
}

// ItemTitleKeys are the keys a book is known by: its title, the title
// before a subtitle written into it, and title and subtitle together.
func ItemTitleKeys(title, subtitle string) []string {
	keys := []string{TitleKey(title)}
	if parts := subtitleSep.Split(title, 2); len(parts) == 2 {
		keys = append(keys, TitleKey(parts[0]))
	}
	if subtitle != "" {
		keys = append(keys, TitleKey(title+" "+subtitle))
	}
	return keys
}

// TitleMatch is how a line's key meets a book's.
type TitleMatch int

const (
	NoMatch TitleMatch = iota
	// Partial: the line's words are a part of the title, or the title a
	// part of the line's: a candidate, never taken as the book.
	Partial
	// Close: a few letters apart (a typo), the same numbers.
	Close
	// Same: equal once folded.
	Same
)

// MatchTitle is how key (a line's) meets a book's key.
func MatchTitle(key, book string) TitleMatch {
	if key == "" || book == "" {
		return NoMatch
	}
	if key == book {
		return Same
	}
	if digitsOf(key) == digitsOf(book) {
		if tol := typoTolerance(min(runeLen(key), runeLen(book))); tol > 0 && editDistance(key, book, tol) <= tol {
			return Close
		}
	}
	short, long := key, book
	if len(short) > len(long) {
		short, long = long, short
	}
	if runeLen(short) >= 8 && strings.Contains(long, short) {
		return Partial
	}
	return NoMatch
}

// AuthorFits says whether a "by" tail (folded) names one of the authors:
// the same once folded, a typo apart, or the same surname.
func AuthorFits(by string, authors []string) bool {
	for _, a := range authors {
		fa := Fold(a)
		if fa == by || editDistance(fa, by, typoTolerance(runeLen(by))) <= typoTolerance(runeLen(by)) {
			return true
		}
		if w := strings.Fields(lowerWords(a)); len(w) > 0 {
			if last := Fold(w[len(w)-1]); last != "" && (by == last || strings.HasSuffix(by, last) && runeLen(last) >= 4) {
				return true
			}
		}
	}
	return false
}

// typoTolerance is how many letters a title of n letters may be off by:
// none up to 5 (Mort is not Morte), then one per 8 or so, at most 3.
func typoTolerance(n int) int {
	switch {
	case n <= 5:
		return 0
	case n <= 9:
		return 1
	case n <= 16:
		return 2
	}
	return 3
}

func runeLen(s string) int { return len([]rune(s)) }

func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions, adjacent swaps), or limit+1 once
// it is sure to be more than limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
