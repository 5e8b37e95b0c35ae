package apptest

import "strings"

// Unquoted splits a question into what stands outside its quoted names
// and the quoted names themselves (a quote or backslash inside one is
// escaped with a backslash, as guard.Quote writes it): a test reads
// hostile text in the first as a sentence of the question.
func Unquoted(q string) (outside string, quoted []string) {
	var out, cur strings.Builder
	in, esc := false, false
	for _, r := range q {
		switch {
		case !in && r == '"':
			in = true
			cur.Reset()
		case !in:
			out.WriteRune(r)
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\':
			esc = true
		case r == '"':
			in = false
			quoted = append(quoted, cur.String())
		default:
			cur.WriteRune(r)
		}
	}
	return out.String(), quoted
}
