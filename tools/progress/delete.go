package progress

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanDeleteMediaProgress plans delete_media_progress: it finds the record
// among the user's progress so the question can say whose it is.
func PlanDeleteMediaProgress(ctx context.Context, d *kit.Deps, a toolargs.DeleteMediaProgress) (*kit.Plan, error) {
	recs, err := d.ProgressRecords(ctx)
	if err != nil {
		return nil, err
	}
	var rec *absdata.Progress
	for i := range recs {
		if recs[i].ID == a.MediaProgressID {
			rec = &recs[i]
		}
	}
	if rec == nil {
		hint := ""
		for _, p := range recs {
			if p.LibraryItemID == a.MediaProgressID {
				hint = fmt.Sprintf(" %s is a library item id; its progress record id is %s.", a.MediaProgressID, p.ID)
				break
			}
		}
		return nil, kit.Errorf(kit.Unchanged, `argument "media_progress_id": the user has no progress record %s.%s Take the record id (field id) from get_media_progress.`, a.MediaProgressID, hint)
	}
	// Everything that goes into the question is an id checked as such,
	// whatever Audiobookshelf answered: a record whose ids are not plain ids
	// is refused before anything is asked or sent.
	ids := map[string]string{"id": rec.ID, "libraryItemId": rec.LibraryItemID}
	if rec.EpisodeID != nil && *rec.EpisodeID != "" {
		ids["episodeId"] = *rec.EpisodeID
	}
	for _, field := range []string{"id", "libraryItemId", "episodeId"} {
		if v, ok := ids[field]; ok && !guard.ValidID(v) {
			return nil, kit.Errorf(kit.Unchanged, "progress record %s: Audiobookshelf answered with a %s that is not a plain id (letters, digits and _ . : - only), so it cannot be put into the question; it is not shown. Check the record in Audiobookshelf's own interface.", a.MediaProgressID, field)
		}
	}
	// The record carries no title: the item is read for the question's
	// name (by its id alone when that read fails).
	of := naming.ItemName(ctx, d, rec.LibraryItemID, rec.EpisodeID)
	state := fmt.Sprintf("at %d s, %d%%", compact.Seconds(rec.CurrentTime), compact.Pct(rec.Progress))
	if rec.IsFinished {
		state = "finished"
	}
	targets := []string{rec.ID, rec.LibraryItemID}
	if ep, ok := ids["episodeId"]; ok {
		targets = append(targets, ep)
	}
	return &kit.Plan{
		Targets: targets,
		Action:  fmt.Sprintf("This will delete progress record %s of %s (%s).", rec.ID, of, state),
		// The record's last update, with what the question says about it:
		// listening moves lastUpdate, and a record made again after this
		// one is deleted has another id.
		Read: struct {
			ID          string  `json:"id"`
			LastUpdate  int64   `json:"lastUpdate"`
			CurrentTime float64 `json:"currentTime"`
			IsFinished  bool    `json:"isFinished"`
		}{rec.ID, rec.LastUpdate, rec.CurrentTime, rec.IsFinished},
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, err := d.Mutate(ctx, "progress record "+kit.ShowID(rec.ID), func(ctx context.Context) (*http.Response, error) {
				return d.API.DeleteMediaProgress(ctx, rec.ID)
			})
			if err != nil {
				return nil, err
			}
			return result.JSONResult(map[string]any{"deleted": true, "media_progress_id": rec.ID, "library_item_id": rec.LibraryItemID})
		},
	}, nil
}
