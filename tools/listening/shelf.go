package listening

import (
	"context"
	"net/http"
	"slices"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shelfChange is the answer of the two Continue Series tools.
type shelfChange struct {
	SeriesID string `json:"series_id"`
	// Hidden is whether the series is hidden from Continue Series now,
	// WasHidden whether it was before the call.
	Hidden    bool            `json:"hidden_from_continue_series"`
	WasHidden bool            `json:"was_hidden"`
	Note      string          `json:"note,omitempty"`
	PutBack   *result.PutBack `json:"put_back,omitempty"`
}

// HideSeriesFromContinueSeries is hide_series_from_continue_series.
func HideSeriesFromContinueSeries(ctx context.Context, d *kit.Deps, a toolargs.HideSeriesFromContinueSeries) (*mcp.CallToolResult, error) {
	return changeShelf(ctx, d, a.SeriesID, true)
}

// ReaddSeriesToContinueSeries is readd_series_to_continue_series.
func ReaddSeriesToContinueSeries(ctx context.Context, d *kit.Deps, a toolargs.ReaddSeriesToContinueSeries) (*mcp.CallToolResult, error) {
	return changeShelf(ctx, d, a.SeriesID, false)
}

// changeShelf hides the series (hide) or shows it again, and answers with
// the call that gives back what was there: nothing to give back when the
// series already was as asked.
func changeShelf(ctx context.Context, d *kit.Deps, seriesID string, hide bool) (*mcp.CallToolResult, error) {
	_, me, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	was := slices.Contains(me.SeriesHideFromCL, seriesID)
	what := "series " + seriesID + " on Continue Series"
	body, err := d.Mutate(ctx, what, func(ctx context.Context) (*http.Response, error) {
		if hide {
			return d.API.HideSeriesFromContinueListening(ctx, seriesID)
		}
		return d.API.ReaddSeriesToContinueListening(ctx, seriesID)
	})
	if err != nil {
		return nil, err
	}
	var after absdata.User
	if err := kit.Decode(body, &after); err != nil {
		return nil, kit.Errorf(kit.MaybeChanged, "Audiobookshelf's answer could not be read (%v); what_next or get_me shows whether the series is hidden", err)
	}
	now := slices.Contains(after.SeriesHideFromCL, seriesID)
	out := shelfChange{SeriesID: seriesID, Hidden: now, WasHidden: was}
	switch {
	case was == now:
		out.Note = "nothing changed: the series already was as asked"
	case hide:
		out.PutBack = &result.PutBack{Tool: "readd_series_to_continue_series", Arguments: map[string]any{"series_id": seriesID}}
	default:
		out.PutBack = &result.PutBack{Tool: "hide_series_from_continue_series", Arguments: map[string]any{"series_id": seriesID}}
	}
	return result.JSONResult(out)
}
