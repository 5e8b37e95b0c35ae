package listening

import (
	"context"
	"fmt"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// titleSlot is an entry of an answer that names an item: where its title
// (the podcast's, for an episode) and its episode's title go.
type titleSlot struct {
	ID, EpisodeID  string
	Title, Episode *string
}

// fillTitles gives every slot without its title the title Audiobookshelf
// holds, read in one batched request for all of them (a book marked
// finished without a session, say, is named by no session). An item that
// is gone, or in a library the user may no longer access, keeps no title;
// the note says how many, or is "".
func fillTitles(ctx context.Context, d *kit.Deps, slots []titleSlot) (string, error) {
	var ids []string
	for _, s := range slots {
		if *s.Title == "" || (s.EpisodeID != "" && *s.Episode == "") {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	items, _, err := d.ReadItemsByID(ctx, ids)
	if err != nil {
		return "", err
	}
	untitled := 0
	for _, s := range slots {
		if *s.Title != "" && (s.EpisodeID == "" || *s.Episode != "") {
			continue
		}
		it := items[s.ID]
		if it == nil {
			untitled++
			continue
		}
		if *s.Title == "" {
			*s.Title = it.Media.Metadata.Title.Value
		}
		if s.EpisodeID != "" && *s.Episode == "" {
			*s.Episode = episodeTitle(it, s.EpisodeID)
		}
	}
	if untitled == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d entries have no title: their items are gone from Audiobookshelf or in a library this user no longer sees", untitled), nil
}

// episodeTitle is the title of an item's episode, or "".
func episodeTitle(it *absdata.Item, episodeID string) string {
	for i := range it.Media.Episodes {
		if it.Media.Episodes[i].ID == episodeID {
			return it.Media.Episodes[i].Title
		}
	}
	return ""
}
