package items

import (
	"context"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GetLibraryItem is get_library_item.
func GetLibraryItem(ctx context.Context, d *kit.Deps, a toolargs.GetLibraryItem) (*mcp.CallToolResult, error) {
	body, it, err := d.ReadItem(ctx, a.LibraryItemID, nil)
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	return result.JSONResult(compact.Detail(it))
}

// Chapter is one chapter.
type Chapter struct {
	Index  int     `json:"index"`
	Title  string  `json:"title"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// GetItemChapters is get_item_chapters.
func GetItemChapters(ctx context.Context, d *kit.Deps, a toolargs.GetItemChapters) (*mcp.CallToolResult, error) {
	_, it, err := d.ReadItem(ctx, a.LibraryItemID, nil)
	if err != nil {
		return nil, err
	}
	if it.MediaType == "podcast" {
		return nil, kit.Errorf(kit.Unchanged, "Library item %s is a podcast: its chapters belong to episodes. Use get_podcast_episode with an episode_id (get_library_item lists them).", a.LibraryItemID)
	}
	chapters := make([]Chapter, 0, len(it.Media.Chapters))
	for i, c := range it.Media.Chapters {
		chapters = append(chapters, Chapter{Index: i, Title: c.Title, StartS: compact.Round1(c.Start), EndS: compact.Round1(c.End)})
	}
	return result.Page(d, "chapters", result.PagingOf(a.Page, a.Limit), chapters, nil, result.AsIs,
		result.Extra("library_item_id", it.ID), result.Extra("title", it.Media.Metadata.Title.Value), result.Extra("duration_s", compact.Seconds(it.Media.Duration)))
}
