package items

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
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
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var e absdata.Episode
	if err := kit.Decode(body, &e); err != nil {
		return nil, err
	}
	out := EpisodeDetail{EpisodeBrief: compact.Episode(&e, ""), Subtitle: e.Subtitle, Type: e.EpisodeType, Chapters: len(e.Chapters)}
	out.Description, out.DescriptionLength = compact.Collapse(e.Description.String(), compact.DescriptionLimit)
	return result.JSONResult(out)
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
	if result.Full(a.Detail) {
		return result.RawResult(body)
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
	// Episodes of the same podcast come in runs: each names its podcast by
	// title, and podcast_ids gives each title's item id once. An episode
	// whose podcast's title another podcast of the page shares (or that has
	// none) keeps its library_item_id.
	ids := map[string]string{}
	shared := map[string]bool{}
	for i := range v.Episodes {
		e := &v.Episodes[i]
		title := podcastTitle(e)
		if title == "" {
			continue
		}
		if id, seen := ids[title]; seen && id != e.LibraryItemID {
			shared[title] = true
		}
		ids[title] = e.LibraryItemID
	}
	for title := range shared {
		delete(ids, title)
	}
	var byTitle map[string]string
	if len(ids) > 0 {
		byTitle = ids
	}
	return result.Page(d, "results", result.PagingOf(a.Page, a.Limit), v.Episodes, &total, func(e *absdata.Episode) compact.EpisodeBrief {
		title := podcastTitle(e)
		b := compact.Episode(e, title)
		if _, listed := ids[title]; listed {
			b.ItemID = ""
		}
		return b
	}, result.Extra("podcast_ids", byTitle))
}

// podcastTitle is the title of an episode's podcast, when Audiobookshelf
// sent it.
func podcastTitle(e *absdata.Episode) string {
	if e.Podcast == nil {
		return ""
	}
	return e.Podcast.Metadata.Title.Value
}
