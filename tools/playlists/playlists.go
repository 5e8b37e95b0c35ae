package playlists

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/orderedlist"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func keyOf(p *absdata.PlaylistItem) argdec.PlaylistItem {
	k := argdec.PlaylistItem{LibraryItemID: p.LibraryItemID}
	if p.EpisodeID != nil {
		k.EpisodeID = *p.EpisodeID
	}
	return k
}

// kind is a playlist as the tools it shares with collections see it.
var kind = orderedlist.Kind{Noun: "playlist", Entries: "entries", Counted: "entries", IDParam: "playlist_id", OrderParam: "items", IgnoresEmpty: true}

// playlistRead is what an approval about a playlist is bound to: its
// entries in their order and its updatedAt (lastUpdate). Audiobookshelf
// moves updatedAt on a rename, not on a reorder (only the entries' order is
// saved) nor on a batch add or remove.
type playlistRead struct {
	ID         string   `json:"id"`
	LastUpdate int64    `json:"lastUpdate"`
	Entries    []string `json:"entries"`
}

func readOf(p *absdata.Playlist) playlistRead {
	return playlistRead{ID: p.ID, LastUpdate: p.LastUpdate, Entries: entryIDs(keysOf(p))}
}

// entryTitles lists entries for a question by the titles the playlist read
// holds: a book's title, an episode's title with its podcast's.
func entryTitles(p *absdata.Playlist, items []argdec.PlaylistItem) []naming.Titled {
	byKey := make(map[argdec.PlaylistItem]string, len(p.Items))
	for i := range p.Items {
		e := &p.Items[i]
		var title string
		if e.LibraryItem != nil {
			title = e.LibraryItem.Media.Metadata.Title.Value
		}
		if e.Episode != nil && e.Episode.Title != "" {
			if title != "" {
				title = e.Episode.Title + " (" + title + ")"
			} else {
				title = e.Episode.Title
			}
		}
		byKey[keyOf(e)] = title
	}
	ids := entryIDs(items)
	out := make([]naming.Titled, len(items))
	for i, k := range items {
		out[i] = naming.Titled{ID: ids[i], Name: byKey[k]}
	}
	return out
}

func keysOf(p *absdata.Playlist) []argdec.PlaylistItem {
	out := make([]argdec.PlaylistItem, 0, len(p.Items))
	for i := range p.Items {
		out = append(out, keyOf(&p.Items[i]))
	}
	return out
}

// PlaylistBrief is a playlist in a list.
type PlaylistBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	LibraryID string `json:"library_id"`
	Entries   int    `json:"entries"`
}

// briefOf is a playlist in a list.
func briefOf(p *absdata.Playlist) PlaylistBrief {
	return PlaylistBrief{ID: p.ID, Name: p.Name, LibraryID: p.LibraryID, Entries: len(p.Items)}
}

// PlaylistEntry is one entry of a playlist.
type PlaylistEntry struct {
	ItemID    string `json:"library_item_id"`
	EpisodeID string `json:"episode_id,omitempty"`
	Title     string `json:"title,omitempty"`
	Podcast   string `json:"podcast,omitempty"`
	Authors   string `json:"authors,omitempty"`
	DurationS int64  `json:"duration_s,omitempty"`
}

// PlaylistDetail is one playlist with its entries in order.
type PlaylistDetail struct {
	orderedlist.Head
	Entries []PlaylistEntry `json:"entries"`
	// Cut says how many entries are left out of a write's answer.
	Cut map[string]result.Cut `json:"cut,omitempty"`
}

// playlistDetail is the playlist with its first ListCap entries (a write's
// answer; get_playlist pages them).
func playlistDetail(p *absdata.Playlist) PlaylistDetail {
	out := playlistAll(p)
	out.Entries, out.Cut = orderedlist.First(kind, out.Entries)
	return out
}

func playlistAll(p *absdata.Playlist) PlaylistDetail {
	out := PlaylistDetail{Head: kind.HeadOf(p.ID, p.Name, p.LibraryID, p.Description, ""), Entries: []PlaylistEntry{}}
	for i := range p.Items {
		it := &p.Items[i]
		e := PlaylistEntry{ItemID: it.LibraryItemID}
		if it.EpisodeID != nil {
			e.EpisodeID = *it.EpisodeID
		}
		if it.Episode != nil {
			e.Title = it.Episode.Title
			e.DurationS = compact.Seconds(it.Episode.Length())
			if it.LibraryItem != nil {
				e.Podcast = it.LibraryItem.Media.Metadata.Title.Value
			}
		} else if it.LibraryItem != nil {
			e.Title = it.LibraryItem.Media.Metadata.Title.Value
			e.Authors = compact.AuthorNames(&it.LibraryItem.Media.Metadata)
			e.DurationS = compact.Seconds(it.LibraryItem.Media.Duration)
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

// getPlaylist reads a playlist, and returns Audiobookshelf's JSON too.
func getPlaylist(ctx context.Context, d *kit.Deps, id string) (*absdata.Playlist, []byte, error) {
	return orderedlist.Read[absdata.Playlist](ctx, d, "playlist "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPlaylist(ctx, id)
	})
}

func toABSItems(items []argdec.PlaylistItem) []abs.PlaylistItemRef {
	out := make([]abs.PlaylistItemRef, 0, len(items))
	for _, it := range items {
		r := abs.PlaylistItemRef{LibraryItemId: it.LibraryItemID}
		if it.EpisodeID != "" {
			ep := it.EpisodeID
			r.EpisodeId = &ep
		}
		out = append(out, r)
	}
	return out
}

func entryIDs(items []argdec.PlaylistItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it.EpisodeID != "" {
			out = append(out, it.LibraryItemID+":"+it.EpisodeID)
		} else {
			out = append(out, it.LibraryItemID)
		}
	}
	return out
}

// GetPlaylist is get_playlist.
func GetPlaylist(ctx context.Context, d *kit.Deps, a toolargs.GetPlaylist) (*mcp.CallToolResult, error) {
	return orderedlist.Get(d, kind, func() (*absdata.Playlist, []byte, error) { return getPlaylist(ctx, d, a.PlaylistID) },
		a.Detail, a.Page, a.Limit, func(p *absdata.Playlist) (orderedlist.Head, []PlaylistEntry) {
			all := playlistAll(p)
			return all.Head, all.Entries
		})
}

// ListPlaylists is list_playlists.
func ListPlaylists(ctx context.Context, d *kit.Deps, a toolargs.ListPlaylists) (*mcp.CallToolResult, error) {
	return result.ListLibraryOrServer(ctx, d, result.ListRoutes{Noun: "playlist", Tool: "list_playlists",
		Library: func(ctx context.Context, id string, p result.Paging) (*http.Response, error) {
			return d.API.ListLibraryPlaylists(ctx, id, &abs.ListLibraryPlaylistsParams{Limit: &p.Limit, Page: &p.Page})
		},
		Server: func(ctx context.Context) (*http.Response, error) { return d.API.ListPlaylists(ctx) },
	}, a.LibraryID, result.PagingOf(a.Page, a.Limit), briefOf)
}

// CreatePlaylist is create_playlist.
func CreatePlaylist(ctx context.Context, d *kit.Deps, a toolargs.CreatePlaylist) (*mcp.CallToolResult, error) {
	req := abs.CreatePlaylistJSONRequestBody{LibraryId: a.LibraryID, Name: a.Name, Description: a.Description}
	if a.Items != nil {
		if err := checkEntries(ctx, d, a.LibraryID, a.Items); err != nil {
			return nil, err
		}
		items := toABSItems(a.Items)
		req.Items = &items
	}
	p, err := orderedlist.Change[absdata.Playlist](ctx, d, "a new playlist in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreatePlaylist(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	return result.JSONResult(map[string]any{"created": true, "playlist": playlistDetail(p),
		"put_back": &result.PutBack{Tool: "delete_playlist", Arguments: map[string]any{"playlist_id": p.ID},
			Note: "Deleting it asks the person first."}})
}
