package playlists

import (
	"context"
	"fmt"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// entryReads bounds the item reads checkEntries has in flight at once.
const entryReads = 4

// checkEntries reads each entry's item before a playlist gets it:
// Audiobookshelf's create and batch add do not check that an episode
// belongs to its item, or that a book has no episode id, and its process
// dies on such an entry (PlaylistController.create / addBatch). Entries
// must also be of the playlist's library.
//
// Each distinct item is read once, up to entryReads of them at the same
// time (the reads do not depend on each other); the entries are then
// checked in order, so the error is about the first entry that fails.
func checkEntries(ctx context.Context, d *kit.Deps, libraryID string, items []argdec.PlaylistItem) error {
	var ids []string
	index := map[string]int{}
	for _, e := range items {
		if _, ok := index[e.LibraryItemID]; !ok {
			index[e.LibraryItemID] = len(ids)
			ids = append(ids, e.LibraryItemID)
		}
	}
	got := make([]*absdata.Item, len(ids))
	failed := make([]error, len(ids))
	kit.EachLimit(len(ids), entryReads, func(i int) {
		_, got[i], failed[i] = d.ReadItem(ctx, ids[i], nil)
	})
	for i, e := range items {
		at := fmt.Sprintf("items[%d]", i)
		j := index[e.LibraryItemID]
		if failed[j] != nil {
			return failed[j]
		}
		it := got[j]
		if libraryID != "" && it.LibraryID != libraryID {
			return kit.Errorf(kit.Unchanged, `argument "%s": library item %s is in library %s, not in the playlist's library %s.`, at, e.LibraryItemID, kit.ShowID(it.LibraryID), kit.ShowID(libraryID))
		}
		switch {
		case it.MediaType == "podcast" && e.EpisodeID == "":
			return kit.Errorf(kit.Unchanged, `argument "%s": library item %s is a podcast; give the episode_id of one of its episodes (get_library_item lists them).`, at, e.LibraryItemID)
		case it.MediaType != "podcast" && e.EpisodeID != "":
			return kit.Errorf(kit.Unchanged, `argument "%s": library item %s is a book, which has no episodes; leave episode_id out.`, at, e.LibraryItemID)
		case e.EpisodeID != "":
			found := false
			for _, ep := range it.Media.Episodes {
				if ep.ID == e.EpisodeID {
					found = true
					break
				}
			}
			if !found {
				return kit.Errorf(kit.Unchanged, `argument "%s": podcast %s has no episode %s.`, at, e.LibraryItemID, e.EpisodeID)
			}
		}
	}
	return nil
}
