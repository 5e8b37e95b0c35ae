package tools

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

// getItem reads one expanded item with this user's progress.
func (d *Deps) getItem(ctx context.Context, id string) ([]byte, *absItem, error) {
	return d.getItemEpisode(ctx, id, nil)
}

// getItemEpisode is getItem whose userMediaProgress is the episode's record
// when episodeID is given (Audiobookshelf's ?episode=).
func (d *Deps) getItemEpisode(ctx context.Context, id string, episodeID *string) ([]byte, *absItem, error) {
	body, err := d.get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, &abs.GetLibraryItemParams{Expanded: ptrOf(abs.GetLibraryItemParamsExpandedN1), Include: ptrOf("progress"), Episode: episodeID})
	})
	if err != nil {
		return nil, nil, err
	}
	var it absItem
	if err := decode(body, &it); err != nil {
		return nil, nil, err
	}
	return body, &it, nil
}

// GetLibraryItem is get_library_item.
func GetLibraryItem(ctx context.Context, d *Deps, a toolargs.GetLibraryItem) (*mcp.CallToolResult, error) {
	body, it, err := d.getItem(ctx, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	return jsonResult(detail(it))
}

// Chapter is one chapter.
type Chapter struct {
	Index  int     `json:"index"`
	Title  string  `json:"title"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// GetItemChapters is get_item_chapters.
func GetItemChapters(ctx context.Context, d *Deps, a toolargs.GetItemChapters) (*mcp.CallToolResult, error) {
	_, it, err := d.getItem(ctx, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	if it.MediaType == "podcast" {
		return nil, Errorf(Unchanged, "Library item %s is a podcast: its chapters belong to episodes. Use get_podcast_episode with an episode_id (get_library_item lists them).", a.LibraryItemID)
	}
	out := make([]Chapter, 0, len(it.Media.Chapters))
	for i, c := range pageOf(it.Media.Chapters, int(a.Page), int(a.Limit)) {
		out = append(out, Chapter{Index: int(a.Page*a.Limit) + i, Title: c.Title, StartS: round1(c.Start), EndS: round1(c.End)})
	}
	return pageResult(d, "chapters", out, len(it.Media.Chapters), int(a.Page), int(a.Limit),
		field{"library_item_id", it.ID}, field{"title", it.Media.Metadata.Title}, field{"duration_s", seconds(it.Media.Duration)})
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// EpisodeDetail is one episode in compact form.
type EpisodeDetail struct {
	EpisodeBrief
	Subtitle          string `json:"subtitle,omitempty"`
	Type              string `json:"episode_type,omitempty"`
	Chapters          int    `json:"chapters,omitempty"`
	Description       string `json:"description,omitempty"`
	DescriptionLength int    `json:"description_length,omitempty"`
}

// GetPodcastEpisode is get_podcast_episode.
func GetPodcastEpisode(ctx context.Context, d *Deps, a toolargs.GetPodcastEpisode) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "episode "+a.EpisodeID+" of podcast "+a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPodcastEpisode(ctx, a.LibraryItemID, a.EpisodeID)
	})
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var e absEpisode
	if err := decode(body, &e); err != nil {
		return nil, err
	}
	out := EpisodeDetail{EpisodeBrief: episodeBrief(&e, ""), Subtitle: e.Subtitle, Type: e.EpisodeType, Chapters: len(e.Chapters)}
	out.Description, out.DescriptionLength = collapse(e.Description.String(), DescriptionLimit)
	return jsonResult(out)
}

// ListRecentEpisodes is list_recent_episodes.
func ListRecentEpisodes(ctx context.Context, d *Deps, a toolargs.ListRecentEpisodes) (*mcp.CallToolResult, error) {
	params := &abs.ListRecentEpisodesParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page))}
	body, err := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListRecentEpisodes(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var v struct {
		Episodes []absEpisode `json:"episodes"`
		Total    *int         `json:"total"`
	}
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]EpisodeBrief, 0, len(v.Episodes))
	for i := range v.Episodes {
		e := &v.Episodes[i]
		podcast := ""
		if e.Podcast != nil {
			podcast = e.Podcast.Metadata.Title
		}
		out = append(out, episodeBrief(e, podcast))
	}
	total := len(out) + int(a.Page)*int(a.Limit)
	if v.Total != nil {
		total = *v.Total
	} else if len(out) == int(a.Limit) {
		total++ // Audiobookshelf does not count; there may be more
	}
	return pageResult(d, "results", out, total, int(a.Page), int(a.Limit))
}

var _ = json.Marshal
