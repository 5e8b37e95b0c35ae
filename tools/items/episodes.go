package items

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EpisodeDetail is one episode in compact form.
type EpisodeDetail struct {
	compact.EpisodeBrief
	Subtitle          string `json:"subtitle,omitempty"`
	Type              string `json:"episode_type,omitempty"`
	Chapters          int    `json:"chapters,omitempty"`
	Description       string `json:"description,omitempty"`
	DescriptionLength int    `json:"description_length,omitempty"`
}

// GetPodcastEpisode is get_podcast_episode.
func GetPodcastEpisode(ctx context.Context, d *kit.Deps, a toolargs.GetPodcastEpisode) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "episode "+a.EpisodeID+" of podcast "+a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPodcastEpisode(ctx, a.LibraryItemID, a.EpisodeID)
	})
	if err != nil {
		return nil, err
	}
	if kit.Full(a.Detail) {
		return kit.RawResult(body)
	}
	var e absdata.Episode
	if err := kit.Decode(body, &e); err != nil {
		return nil, err
	}
	out := EpisodeDetail{EpisodeBrief: compact.Episode(&e, ""), Subtitle: e.Subtitle, Type: e.EpisodeType, Chapters: len(e.Chapters)}
	out.Description, out.DescriptionLength = compact.Collapse(e.Description.String(), compact.DescriptionLimit)
	return kit.JSONResult(out)
}

// ListRecentEpisodes is list_recent_episodes.
func ListRecentEpisodes(ctx context.Context, d *kit.Deps, a toolargs.ListRecentEpisodes) (*mcp.CallToolResult, error) {
	params := &abs.ListRecentEpisodesParams{Limit: kit.Ptr(int(a.Limit)), Page: kit.Ptr(int(a.Page))}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListRecentEpisodes(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if kit.Full(a.Detail) {
		return kit.RawResult(body)
	}
	var v struct {
		Episodes []absdata.Episode `json:"episodes"`
		Total    *int              `json:"total"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	total := len(v.Episodes) + int(a.Page)*int(a.Limit)
	if v.Total != nil {
		total = *v.Total
	} else if len(v.Episodes) == int(a.Limit) {
		total++ // Audiobookshelf does not count; there may be more
	}
	return kit.Page(d, "results", kit.PagingOf(a.Page, a.Limit), v.Episodes, &total, func(e *absdata.Episode) compact.EpisodeBrief {
		podcast := ""
		if e.Podcast != nil {
			podcast = e.Podcast.Metadata.Title.Value
		}
		return compact.Episode(e, podcast)
	})
}
