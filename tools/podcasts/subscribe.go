package podcasts

import (
	"context"
	"net/http"
	"path"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PodcastResult is one result of search_podcasts.
type PodcastResult struct {
	ITunesID int64  `json:"itunes_id,omitempty"`
	Title    string `json:"title"`
	Author   string `json:"author,omitempty"`
	FeedURL  string `json:"feed_url,omitempty"`
	Episodes int    `json:"episodes,omitempty"`
	Genres   string `json:"genres,omitempty"`
	Explicit bool   `json:"explicit,omitempty"`
}

// SearchPodcasts is search_podcasts.
func SearchPodcasts(ctx context.Context, d *kit.Deps, a toolargs.SearchPodcasts) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the podcast search", func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchPodcasts(ctx, &abs.SearchPodcastsParams{Term: a.Term})
	})
	if err != nil {
		return nil, err
	}
	var v []absdata.PodcastSearchResult
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]PodcastResult, 0, len(v))
	for _, r := range v {
		g := r.Genres
		if len(g) > 3 {
			g = g[:3]
		}
		out = append(out, PodcastResult{ITunesID: r.ID, Title: r.Title, Author: r.ArtistName, FeedURL: r.FeedURL, Episodes: r.TrackCount, Genres: strings.Join(g, ", "), Explicit: r.Explicit})
	}
	var extra []result.Field
	if len(out) == 0 {
		extra = append(extra, result.Extra("note", "No results. Audiobookshelf asks iTunes and answers an empty list when it cannot reach it too (its server needs internet access); a feed URL known otherwise works with get_podcast_feed and create_podcast."))
	}
	return result.Page(d, "podcasts", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs, extra...)
}

// GetPodcastFeed is get_podcast_feed.
func GetPodcastFeed(ctx context.Context, d *kit.Deps, a toolargs.GetPodcastFeed) (*mcp.CallToolResult, error) {
	f, err := readFeed(ctx, d, a.FeedUrl)
	if err != nil {
		return nil, err
	}
	eps := make([]FeedEpisode, 0, len(f.Episodes))
	for _, e := range f.Episodes {
		eps = append(eps, feedEpisodeBrief(e))
	}
	m := f.Metadata
	desc := m.DescriptionPlain
	if desc == "" {
		desc = m.Description
	}
	desc, descLen := compact.Collapse(desc, FeedTextLimit)
	cats := m.Categories
	if len(cats) > compact.TermsCap {
		cats = cats[:compact.TermsCap]
	}
	return result.Page(d, "episodes", result.PagingOf(a.Page, a.Limit), eps, nil, result.AsIs,
		result.Extra("title", m.Title), result.Extra("author", m.Author), result.Extra("feed_url", m.FeedURL), result.Extra("language", m.Language),
		result.Extra("type", m.Type), result.Extra("categories", strings.Join(cats, ", ")),
		result.Extra("description", desc), result.Extra("description_length", descLen))
}

// CreatePodcast is create_podcast.
func CreatePodcast(ctx context.Context, d *kit.Deps, a toolargs.CreatePodcast) (*mcp.CallToolResult, error) {
	_, lib, err := d.ReadLibrary(ctx, a.LibraryID)
	if err != nil {
		return nil, err
	}
	if lib.MediaType != "podcast" {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_id": library %s is a %s library; podcasts go into a podcast library (list_libraries shows each library's media type).`, a.LibraryID, lib.MediaType)
	}
	var folderID, folderPath string
	var ids []string
	for _, f := range lib.Folders {
		ids = append(ids, f.ID)
		if a.FolderID != nil && f.ID == *a.FolderID {
			folderID, folderPath = f.ID, f.FullPath
		}
	}
	switch {
	case a.FolderID != nil && folderID == "":
		return nil, kit.Errorf(kit.Unchanged, `argument "folder_id": library %s has no folder %s; its folders are %s.`, a.LibraryID, *a.FolderID, result.ListIDs(ids))
	case a.FolderID == nil && len(lib.Folders) == 1:
		folderID, folderPath = lib.Folders[0].ID, lib.Folders[0].FullPath
	case a.FolderID == nil && len(lib.Folders) == 0:
		return nil, kit.Errorf(kit.Unchanged, "Library %s has no folder to put a podcast in (add one in Audiobookshelf's library settings).", a.LibraryID)
	case a.FolderID == nil:
		return nil, kit.Errorf(kit.Unchanged, `argument "folder_id": library %s has %d folders (%s); name the one to put the podcast in.`, a.LibraryID, len(ids), result.ListIDs(ids))
	}
	f, err := readFeed(ctx, d, a.FeedUrl)
	if err != nil {
		return nil, err
	}
	m := f.Metadata
	dir := sanitizeFilename(m.Title)
	if dir == "" {
		return nil, kit.Errorf(kit.Unchanged, "The feed at %s has no usable title, which Audiobookshelf needs for the podcast's folder name.", a.FeedUrl)
	}
	req := abs.CreatePodcastJSONRequestBody{LibraryId: lib.ID, FolderId: folderID, Path: path.Join(folderPath, dir)}
	// PodcastController.create takes over a folder that is already on disk
	// (fs.ensureDir), writes the feed's cover into it (replacing any
	// cover.* there) and, deleted with its files, would take the folder's
	// other files with it. So a folder that exists is refused: what this
	// call makes is then exactly what its put-back deletes.
	if exists, err := folderExists(ctx, d, req.Path); err != nil {
		return nil, err
	} else if exists {
		return nil, kit.Errorf(kit.Unchanged, `Library %s already has a folder %s on disk: a podcast with this title is subscribed already (list_library_items shows it), or the folder was left by a podcast deleted without its files, or made by somebody else. Audiobookshelf would refuse the first and take over the others with what is in it, write this feed's cover over any cover there, and deleting the podcast with its files would then take files this call did not make; so nothing was sent. Move or remove that folder, or scan_library to add what it holds.`, a.LibraryID, req.Path)
	}
	md := &req.Media.Metadata
	md.Title = kit.Ptr(m.Title)
	md.Author = kit.Ptr(m.Author)
	md.Description = kit.Ptr(m.DescriptionPlain)
	md.FeedUrl = kit.Ptr(a.FeedUrl)
	md.ImageUrl = kit.Ptr(m.Image)
	md.Language = kit.Ptr(m.Language)
	md.Explicit = kit.Ptr(m.Explicit == "yes" || m.Explicit == "true")
	md.Genres = kit.Ptr(append([]string{}, m.Categories...))
	typ := m.Type
	if typ == "" {
		typ = "episodic"
	}
	md.Type = kit.Ptr(typ)
	req.Media.AutoDownloadEpisodes = kit.Ptr(a.AutoDownload)
	rb, err := podMutate(ctx, d, "a new podcast in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreatePodcast(ctx, req)
	})
	if err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf refused: library %s already has an item at %s (a podcast with this title).", a.LibraryID, req.Path)
		}
		return nil, err
	}
	var it absdata.Item
	if err := kit.Decode(rb, &it); err != nil {
		return nil, err
	}
	return result.JSONResult(map[string]any{
		"created": true, "library_item_id": it.ID, "library_id": it.LibraryID, "title": it.Media.Metadata.Title.Value,
		"folder_id": folderID, "path": req.Path, "feed_url": a.FeedUrl, "feed_episodes": len(f.Episodes),
		"auto_download": a.AutoDownload,
		"next":          "It has no episodes yet: check_new_episodes lists the feed's, download_podcast_episodes fetches them.",
		"put_back": &result.PutBack{Tool: "delete_podcast", Arguments: map[string]any{"library_item_id": it.ID, "delete_files": true},
			Note: "Deletes the podcast with its folder " + req.Path + ", which this call made (it was not on disk before), with what is in it then: the cover Audiobookshelf downloaded into it, and any episode downloaded since. It asks the person first, as every delete does."},
	})
}

// folderExists reports whether path is on the server's disk (a folder or
// a file): GET /api/filesystem answers 200 for a path that exists and 400
// for one that does not (FileSystemController.getPaths, admins only).
func folderExists(ctx context.Context, d *kit.Deps, p string) (bool, error) {
	r, err := d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetFilesystemPaths(ctx, &abs.GetFilesystemPathsParams{Path: &p})
	})
	if err != nil {
		return false, err
	}
	switch r.Status {
	case http.StatusOK:
		return true, nil
	case http.StatusBadRequest:
		return false, nil
	}
	return false, podcastRefusal(ctx, d, r, "the check whether "+p+" is on disk", false)
}
