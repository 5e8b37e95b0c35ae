package progress

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mediaTarget checks an item/episode pair: a podcast needs an episode id
// (Audiobookshelf's progress route without one answers the first episode
// that matches), a book takes none. It returns the item and the episode's
// duration in seconds (the book's when no episode).
func mediaTarget(ctx context.Context, d *kit.Deps, itemID string, episodeID *string) (*absdata.Item, float64, error) {
	_, it, err := d.ReadItem(ctx, itemID, episodeID)
	if err != nil {
		return nil, 0, err
	}
	if it.MediaType == "podcast" {
		if episodeID == nil {
			ids := make([]string, 0, 5)
			more := ""
			for i, e := range it.Media.Episodes {
				if i == 5 {
					more = ", …"
					break
				}
				ids = append(ids, e.ID)
			}
			return nil, 0, kit.Errorf(kit.NotSent, `argument "episode_id": library item %s is a podcast, so episode_id is required (for example %s; get_library_item lists them all).`, itemID, result.ListIDs(ids)+more)
		}
		for i := range it.Media.Episodes {
			if e := &it.Media.Episodes[i]; e.ID == *episodeID {
				return it, e.Length(), nil
			}
		}
		return nil, 0, kit.Errorf(kit.NotSent, `argument "episode_id": podcast %s has no episode %s (get_library_item lists its episodes).`, itemID, *episodeID)
	}
	if episodeID != nil {
		return nil, 0, kit.Errorf(kit.NotSent, `argument "episode_id": library item %s is a book, which has no episodes; leave episode_id out.`, itemID)
	}
	return it, it.Media.Duration, nil
}

func readProgress(ctx context.Context, d *kit.Deps, itemID string, episodeID *string) (*kit.Response, error) {
	return d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) {
		if episodeID != nil {
			return d.API.GetEpisodeMediaProgress(ctx, itemID, *episodeID)
		}
		return d.API.GetMediaProgress(ctx, itemID)
	})
}

func target(itemID string, episodeID *string) string {
	if episodeID != nil {
		return fmt.Sprintf("episode %s of item %s", *episodeID, itemID)
	}
	return "library item " + itemID
}

// GetMediaProgress is get_media_progress. It asks for the progress first
// and reads the item only when the answer alone cannot be trusted: a 404
// (never started, or a wrong id, or a podcast without episode_id, or a book
// with one: the item tells which), or a record of an episode when none was
// asked for (Audiobookshelf answers a podcast's id alone with whichever
// episode's record it finds first). A record for the item, or for the
// episode asked for, is the answer, in one request.
func GetMediaProgress(ctx context.Context, d *kit.Deps, a toolargs.GetMediaProgress) (*mcp.CallToolResult, error) {
	r, err := readProgress(ctx, d, a.LibraryItemID, a.EpisodeID)
	if err != nil {
		return nil, err
	}
	var p absdata.Progress
	if r.Status/100 == 2 {
		if err := kit.Decode(r.Body, &p); err != nil {
			return nil, err
		}
	}
	if r.Status == http.StatusNotFound || (r.Status/100 == 2 && a.EpisodeID == nil && p.EpisodeID != nil && *p.EpisodeID != "") {
		if _, _, err := mediaTarget(ctx, d, a.LibraryItemID, a.EpisodeID); err != nil {
			return nil, err
		}
	}
	if r.Status == http.StatusNotFound {
		out := map[string]any{"library_item_id": a.LibraryItemID, "started": false, "note": "No progress recorded: never started."}
		if a.EpisodeID != nil {
			out["episode_id"] = *a.EpisodeID
		}
		return result.JSONResult(out)
	}
	if r.Status/100 != 2 {
		return nil, kit.StatusError(r, target(a.LibraryItemID, a.EpisodeID), false)
	}
	return result.JSONResult(compact.ProgressOf(&p))
}
