package result

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// SameMembers reports how want differs from have as sets.
func SameMembers(have, want []string) (missing, extra []string) {
	in := make(map[string]bool, len(have))
	for _, h := range have {
		in[h] = true
	}
	wanted := make(map[string]bool, len(want))
	for _, w := range want {
		wanted[w] = true
		if !in[w] {
			extra = append(extra, w)
		}
	}
	for _, h := range have {
		if !wanted[h] {
			missing = append(missing, h)
		}
	}
	return missing, extra
}

// ListIDs names ids for a sentence, each as ShowID shows it: at most 10,
// then how many more.
func ListIDs(ids []string) string {
	more := ""
	if len(ids) > 10 {
		ids, more = ids[:10], fmt.Sprintf(" and %d more", len(ids)-10)
	}
	shown := make([]string, len(ids))
	for i, id := range ids {
		shown[i] = kit.ShowID(id)
	}
	return strings.Join(shown, ", ") + more
}

func PluralBe(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// PlainIDs refuses, before anything is asked, a question that would carry
// an id Audiobookshelf answered that is not a plain id (letters, digits
// and _ . : - only): the ids in a question stand beside quoted names as
// they are, so they are checked as such, whatever Audiobookshelf answers.
func PlainIDs(what string, ids ...string) error {
	for _, id := range ids {
		if !guard.ValidID(id) {
			return kit.Errorf(kit.NotAsked, "%s: Audiobookshelf answered with an id that is not a plain id (letters, digits and _ . : - only), so it cannot be put into the question; it is not shown. Check it in Audiobookshelf's own interface.", what)
		}
	}
	return nil
}
