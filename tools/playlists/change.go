package playlists

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/orderedlist"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanUpdatePlaylist plans update_playlist. A new order must be a
// permutation of the current entries, checked before anything is sent:
// Audiobookshelf rejects another length with 400 but saves a new name in
// the same request anyway.
func PlanUpdatePlaylist(ctx context.Context, d *kit.Deps, a toolargs.UpdatePlaylist) (*kit.Plan, error) {
	// The playlist is read first in every case: the answer carries what
	// the call replaces, and the call that puts it back.
	p, _, err := getPlaylist(ctx, d, a.PlaylistID)
	if err != nil {
		return nil, err
	}
	order, err := reorder(p, a.Items)
	if err != nil {
		return nil, err
	}
	body := abs.UpdatePlaylistJSONRequestBody{Name: a.Name, Description: a.Description}
	if order != nil {
		items := toABSItems(a.Items)
		body.Items = &items
	}
	return kind.PlanUpdate(d, orderedlist.Update{ID: a.PlaylistID, Name: p.Name, Description: p.Description, NewName: a.Name, NewDescription: a.Description,
		Order: order, Read: readOf(p), Show: orderedlist.Shows(playlistDetail),
		Send: func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdatePlaylist(ctx, a.PlaylistID, body)
		}}), nil
}

// reorder checks a new order of playlist p's entries (nil: none given): a
// permutation of the entries, each episode with its episode_id.
func reorder(p *absdata.Playlist, items []argdec.PlaylistItem) (*orderedlist.Reorder, error) {
	if items == nil {
		return nil, nil
	}
	if err := missingEpisodeIDs(p, items); err != nil {
		return nil, err
	}
	cur := keysOf(p)
	missing, extra := result.SameMembers(entryIDs(cur), entryIDs(items))
	if len(missing) > 0 || len(extra) > 0 || len(items) != len(p.Items) {
		var why string
		if len(missing) > 0 {
			why += "; it leaves out " + result.ListIDs(missing) + " (to take entries out use remove_items_from_playlist)"
		}
		if len(extra) > 0 {
			why += "; " + result.ListIDs(extra) + result.PluralBe(len(extra)) + " not in the playlist (to add entries use add_items_to_playlist)"
		}
		return nil, kit.Errorf(kit.Unchanged, `argument "items": must list each of the %d entries of playlist %s exactly once, in the new order%s.`, len(p.Items), p.ID, why)
	}
	return &orderedlist.Reorder{IDs: entryIDs(items), Moved: orderedlist.Moved(cur, items), Titles: entryTitles(p, items), Old: itemArgs(cur)}, nil
}

// itemArgs is entries as update_playlist's items argument takes them.
func itemArgs(keys []argdec.PlaylistItem) []map[string]any {
	items := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		e := map[string]any{"library_item_id": k.LibraryItemID}
		if k.EpisodeID != "" {
			e["episode_id"] = k.EpisodeID
		}
		items = append(items, e)
	}
	return items
}

// EffectFillsEmptyPlaylist is add_items_to_playlist's effect that makes it
// ask (tools.yaml): the playlist holds no entries, so the put-back (taking
// the new entries out again) would make Audiobookshelf delete it
// (PlaylistController.removeItem / removeBatch), and the empty playlist,
// with its id, name and description, could not be given back.
const EffectFillsEmptyPlaylist = "fills_empty_playlist"

// PlanAddItemsToPlaylist plans add_items_to_playlist. It reads the playlist
// (its library, and its entries: the answer's put-back takes out only the
// ones this call appends) and checks each entry's item. Appending to a
// playlist that holds no entries asks first: its put-back would delete the
// playlist. Anywhere else the call is free.
func PlanAddItemsToPlaylist(ctx context.Context, d *kit.Deps, a toolargs.AddItemsToPlaylist) (*kit.Plan, error) {
	p, _, err := getPlaylist(ctx, d, a.PlaylistID)
	if err != nil {
		return nil, err
	}
	if err := checkEntries(ctx, d, p.LibraryID, a.Items); err != nil {
		return nil, err
	}
	had := map[argdec.PlaylistItem]bool{}
	for _, k := range keysOf(p) {
		had[k] = true
	}
	var added []argdec.PlaylistItem
	for _, k := range a.Items {
		if !had[k] {
			had[k] = true
			added = append(added, k)
		}
	}
	plan := &kit.Plan{Targets: []string{a.PlaylistID}}
	empty := len(p.Items) == 0
	if empty {
		plan.Effects = []string{EffectFillsEmptyPlaylist}
		plan.Read = readOf(p)
		plan.Action = fmt.Sprintf("This will add %d entr%s to %s, which holds 0 entries now.", len(added), map[bool]string{true: "y", false: "ies"}[len(added) == 1], naming.Named("playlist", p.Name, a.PlaylistID))
		plan.Consequences = []string{fmt.Sprintf("Taking the %d entr%s out again would make Audiobookshelf delete the playlist itself (it deletes a playlist whose last entry is removed): the empty playlist, with its id, name and description, could not be given back from here.",
			len(added), map[bool]string{true: "y", false: "ies"}[len(added) == 1])}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		updated, err := orderedlist.Change[absdata.Playlist](ctx, d, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
			return d.API.AddItemsToPlaylist(ctx, a.PlaylistID, abs.AddItemsToPlaylistJSONRequestBody{Items: toABSItems(a.Items)})
		})
		if err != nil {
			return nil, err
		}
		out := map[string]any{"updated": true, "playlist": playlistDetail(updated)}
		switch {
		case len(added) > 0 && empty:
			out["not_put_back"] = "The playlist was empty before: taking these entries out again makes Audiobookshelf delete the playlist, so no call here gives back the empty one. remove_items_from_playlist with these entries deletes it (and asks)."
		case len(added) > 0:
			out["put_back"] = &result.PutBack{Tool: "remove_items_from_playlist", Arguments: map[string]any{"playlist_id": a.PlaylistID, "items": added},
				Note: "Takes out only the entries this call appended, which leaves the old order; it asks the person first, as every removal does."}
		default:
			out["note"] = "Every entry given was in the playlist already; nothing changed, so nothing needs putting back."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// PlanRemoveItemsFromPlaylist plans remove_items_from_playlist. It reads the
// playlist first: removing its last entries makes Audiobookshelf delete the
// playlist, and the question says so.
func PlanRemoveItemsFromPlaylist(ctx context.Context, d *kit.Deps, a toolargs.RemoveItemsFromPlaylist) (*kit.Plan, error) {
	p, _, err := getPlaylist(ctx, d, a.PlaylistID)
	if err != nil {
		return nil, err
	}
	if err := missingEpisodeIDs(p, a.Items); err != nil {
		return nil, err
	}
	_, extra := result.SameMembers(entryIDs(keysOf(p)), entryIDs(a.Items))
	if len(extra) > 0 {
		return nil, kit.Errorf(kit.Unchanged, `argument "items": %s not in playlist %s (get_playlist lists its entries).`, result.ListIDs(extra)+result.PluralBe(len(extra)), a.PlaylistID)
	}
	stay := len(p.Items) - len(a.Items)
	plan := &kit.Plan{
		Targets: append([]string{a.PlaylistID}, entryIDs(a.Items)...),
		Action: fmt.Sprintf("This will remove %d of the %d entries (%s) of %s; %d stay.", len(a.Items), len(p.Items), naming.ListTitled(entryTitles(p, a.Items)),
			naming.Named("playlist", p.Name, a.PlaylistID), stay),
		Read: readOf(p),
	}
	if stay == 0 {
		plan.Consequences = []string{fmt.Sprintf("These are all of its entries: Audiobookshelf deletes playlist %s itself when its last entry is removed.", a.PlaylistID)}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, err := d.Mutate(ctx, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
			return d.API.RemoveItemsFromPlaylist(ctx, a.PlaylistID, abs.RemoveItemsFromPlaylistJSONRequestBody{Items: toABSItems(a.Items)})
		})
		if err != nil {
			return nil, err
		}
		if stay == 0 {
			return result.JSONResult(map[string]any{"removed": len(a.Items), "playlist_deleted": true, "playlist_id": a.PlaylistID,
				"note": "Audiobookshelf deleted the playlist with its last entry."})
		}
		left, err := orderedlist.Shows(playlistDetail)(rb)
		if err != nil {
			return nil, err
		}
		return result.JSONResult(map[string]any{"removed": len(a.Items), "playlist": left})
	}
	return plan, nil
}

// missingEpisodeIDs refuses entries that name a podcast of the playlist
// without the episode_id of its episode: they would otherwise read as
// entries that are not in the playlist.
func missingEpisodeIDs(p *absdata.Playlist, items []argdec.PlaylistItem) error {
	podcasts := map[string]bool{}
	for _, k := range keysOf(p) {
		if k.EpisodeID != "" {
			podcasts[k.LibraryItemID] = true
		}
	}
	var missing []string
	for i, it := range items {
		if it.EpisodeID == "" && podcasts[it.LibraryItemID] {
			missing = append(missing, fmt.Sprintf("entry %d (library item %s)", i, kit.ShowID(it.LibraryItemID)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	n, more := len(missing), ""
	if n > 10 {
		missing, more = missing[:10], fmt.Sprintf(" and %d more", n-10)
	}
	return kit.Errorf(kit.Unchanged, `argument "items": %s%s %s no episode_id, and playlist %s holds episodes of that podcast: give each entry the episode_id of its episode (get_playlist lists them).`,
		strings.Join(missing, ", "), more, map[bool]string{true: "has", false: "have"}[n == 1], kit.ShowID(p.ID))
}

// PlanDeletePlaylist plans delete_playlist.
func PlanDeletePlaylist(ctx context.Context, d *kit.Deps, a toolargs.DeletePlaylist) (*kit.Plan, error) {
	p, _, err := getPlaylist(ctx, d, a.PlaylistID)
	if err != nil {
		return nil, err
	}
	return kind.PlanDelete(d, orderedlist.Delete{ID: a.PlaylistID, Name: p.Name, Count: len(p.Items), Read: readOf(p),
		Send: func(ctx context.Context) (*http.Response, error) { return d.API.DeletePlaylist(ctx, a.PlaylistID) }}), nil
}
