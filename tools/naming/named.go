package naming

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"context"
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Titled is one target as a question lists it: its id, and its title or
// name as Audiobookshelf (or the call) gave it.
type Titled struct {
	ID, Name string
}

// MaxListed is how many targets a question lists by name before saying how
// many more there are.
const MaxListed = 5

// ListTitled lists targets for a question: each by its quoted, cleaned,
// clipped name beside its id (`"Mort" (id li_1)`), or by its id alone when
// it has no name; at most MaxListed, then how many more.
func ListTitled(ts []Titled) string {
	more := ""
	if len(ts) > MaxListed {
		ts, more = ts[:MaxListed], fmt.Sprintf(" and %d more", len(ts)-MaxListed)
	}
	shown := make([]string, len(ts))
	for i, t := range ts {
		shown[i] = NamedID(t.Name, t.ID)
	}
	return strings.Join(shown, ", ") + more
}

// NamedID is a target's quoted name beside its id, without a noun
// (`"Mort" (id li_1)`); with no name, the id alone.
func NamedID(name, id string) string {
	return strings.TrimPrefix(guard.Named("", name, kit.ShowID(id)), " ")
}

// Named is guard.Named with the id shown as ShowID shows it:
// `collection "Space Opera Picks" (id col_1)`.
func Named(noun, name, id string) string {
	return guard.Named(noun, name, kit.ShowID(id))
}

// NewName says, after a record a call renames, the name it is given
// (` (new name "Later")`); "" when the call gives none.
func NewName(name *string) string {
	if name == nil {
		return ""
	}
	return " (new name " + guard.Quote(*name) + ")"
}

// Titles lists ids by the titles of the items in byID (an id not there is
// listed by its id alone).
func Titles(ids []string, byID map[string]string) []Titled {
	out := make([]Titled, len(ids))
	for i, id := range ids {
		out[i] = Titled{ID: id, Name: byID[id]}
	}
	return out
}

// ItemTitles maps each item's id to its title.
func ItemTitles(items []absdata.Item) map[string]string {
	out := make(map[string]string, len(items))
	for i := range items {
		out[items[i].ID] = items[i].Media.Metadata.Title.Value
	}
	return out
}

// ItemName reads an item for a question that would otherwise name it by
// its id alone, and names it: `book "Mort" (id li_1)`, or for an episode
// `episode "Ep 1" (id ep_1) of podcast "Orbital" (id li_2)`. A read that
// fails names it by its id alone: a record can outlive its item, and the
// question is still asked.
func ItemName(ctx context.Context, d *kit.Deps, id string, episodeID *string) string {
	it, err := d.ReadItemRecord(ctx, id)
	if err != nil {
		it = &absdata.Item{ID: id}
	}
	return ItemNamed(it, id, episodeID)
}

// ItemNamed names an item that was read (or one of its episodes) for a
// question: `book "Mort" (id li_1)`, `podcast "Orbital" (id li_2)`,
// `episode "Ep 1" (id ep_1) of podcast "Orbital" (id li_2)`; "library
// item li_1" when it has no title.
func ItemNamed(it *absdata.Item, id string, episodeID *string) string {
	noun := "library item"
	switch it.MediaType {
	case "book":
		noun = "book"
	case "podcast":
		noun = "podcast"
	}
	of := Named(noun, it.Media.Metadata.Title.Value, id)
	if episodeID == nil || *episodeID == "" {
		return of
	}
	var title string
	for i := range it.Media.Episodes {
		if it.Media.Episodes[i].ID == *episodeID {
			title = it.Media.Episodes[i].Title
		}
	}
	return Named("episode", title, *episodeID) + " of " + of
}

// Emptied says which playlists (names by id) a removal leaves without an
// entry, and that Audiobookshelf deletes them.
func Emptied(ids []string, names map[string]string) string {
	return fmt.Sprintf("%s %s no other entry, so Audiobookshelf deletes %s.", ListTitled(Titles(ids, names)), map[bool]string{true: "has", false: "have"}[len(ids) == 1], map[bool]string{true: "it", false: "them"}[len(ids) == 1])
}
