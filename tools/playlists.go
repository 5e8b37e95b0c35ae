package tools

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/argdec"
)

type absPlaylistItem struct {
	LibraryItemID string      `json:"libraryItemId"`
	EpisodeID     *string     `json:"episodeId"`
	LibraryItem   *absItem    `json:"libraryItem"`
	Episode       *absEpisode `json:"episode"`
}

func (p *absPlaylistItem) key() argdec.PlaylistItem {
	k := argdec.PlaylistItem{LibraryItemID: p.LibraryItemID}
	if p.EpisodeID != nil {
		k.EpisodeID = *p.EpisodeID
	}
	return k
}

type absPlaylist struct {
	ID          string            `json:"id"`
	LibraryID   string            `json:"libraryId"`
	UserID      string            `json:"userId"`
	Name        string            `json:"name"`
	Description *string           `json:"description"`
	Items       []absPlaylistItem `json:"items"`
	LastUpdate  int64             `json:"lastUpdate"`
}

// playlistRead is what an approval about a playlist is bound to: its
// entries in their order and its updatedAt (lastUpdate). Audiobookshelf
// moves updatedAt on a rename, not on a reorder (only the entries' order is
// saved) nor on a batch add or remove.
type playlistRead struct {
	ID         string   `json:"id"`
	LastUpdate int64    `json:"lastUpdate"`
	Entries    []string `json:"entries"`
}

func (p *absPlaylist) read() playlistRead {
	return playlistRead{ID: p.ID, LastUpdate: p.LastUpdate, Entries: entryIDs(p.keys())}
}

func (p *absPlaylist) keys() []argdec.PlaylistItem {
	out := make([]argdec.PlaylistItem, 0, len(p.Items))
	for i := range p.Items {
		out = append(out, p.Items[i].key())
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
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	LibraryID         string          `json:"library_id"`
	Description       string          `json:"description,omitempty"`
	DescriptionLength int             `json:"description_length,omitempty"`
	DescriptionCut    string          `json:"description_cut,omitempty"`
	Entries           []PlaylistEntry `json:"entries"`
	// Cut says how many entries are left out of a write's answer.
	Cut map[string]Cut `json:"cut,omitempty"`
}

func (p *absPlaylist) description() string {
	if p.Description == nil {
		return ""
	}
	return *p.Description
}

// playlistDetail is the playlist with its first ListCap entries (a write's
// answer; get_playlist pages them).
func playlistDetail(p *absPlaylist) PlaylistDetail {
	out := playlistAll(p)
	cuts := map[string]Cut{}
	out.Entries = firstOf(out.Entries, ListCap, "get_playlist with page and limit", cuts, "entries")
	if len(cuts) > 0 {
		out.Cut = cuts
	}
	return out
}

func playlistAll(p *absPlaylist) PlaylistDetail {
	out := PlaylistDetail{ID: p.ID, Name: p.Name, LibraryID: p.LibraryID, Entries: []PlaylistEntry{}}
	out.Description, out.DescriptionLength, out.DescriptionCut = excerpt(p.description(), ListTextLimit,
		fmt.Sprintf(`get_playlist {"playlist_id": %q, "detail": "full"}`, p.ID))
	for i := range p.Items {
		it := &p.Items[i]
		e := PlaylistEntry{ItemID: it.LibraryItemID}
		if it.EpisodeID != nil {
			e.EpisodeID = *it.EpisodeID
		}
		if it.Episode != nil {
			e.Title = it.Episode.Title
			e.DurationS = seconds(it.Episode.duration())
			if it.LibraryItem != nil {
				e.Podcast = it.LibraryItem.Media.Metadata.Title
			}
		} else if it.LibraryItem != nil {
			e.Title = it.LibraryItem.Media.Metadata.Title
			e.Authors = authorNames(&it.LibraryItem.Media.Metadata)
			e.DurationS = seconds(it.LibraryItem.Media.Duration)
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

func (d *Deps) getPlaylist(ctx context.Context, id string) (*absPlaylist, *mcp.CallToolResult) {
	p, _, res := d.getPlaylistRaw(ctx, id)
	return p, res
}

// getPlaylistRaw reads a playlist, and returns Audiobookshelf's JSON too.
func (d *Deps) getPlaylistRaw(ctx context.Context, id string) (*absPlaylist, []byte, *mcp.CallToolResult) {
	body, res := d.get(ctx, "playlist "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPlaylist(ctx, id)
	})
	if res != nil {
		return nil, nil, res
	}
	var p absPlaylist
	if res := decode(body, &p); res != nil {
		return nil, nil, res
	}
	return &p, body, nil
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

// ListPlaylists is list_playlists.
func ListPlaylists(ctx context.Context, d *Deps, a toolargs.ListPlaylists) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the playlists", func(ctx context.Context) (*http.Response, error) {
		if a.LibraryID != nil {
			// One library's route pages (LibraryController): only the
			// page is sent; the server-wide route sends every one.
			return d.API.ListLibraryPlaylists(ctx, *a.LibraryID, &abs.ListLibraryPlaylistsParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page))})
		}
		return d.API.ListPlaylists(ctx)
	})
	if res != nil {
		if a.LibraryID == nil {
			res = everyOneTooLarge(res, "playlist", "list_playlists")
		}
		return res, nil
	}
	var v struct {
		Playlists []absPlaylist `json:"playlists"`
		Results   []absPlaylist `json:"results"`
		Total     *int          `json:"total"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	ps := pageOf(v.Playlists, int(a.Page), int(a.Limit))
	total := len(v.Playlists)
	if a.LibraryID != nil {
		// Audiobookshelf sent the page.
		ps = v.Results
		total = len(ps)
		if v.Total != nil {
			total = *v.Total
		}
	}
	out := make([]PlaylistBrief, 0, len(ps))
	for _, p := range ps {
		out = append(out, PlaylistBrief{ID: p.ID, Name: p.Name, LibraryID: p.LibraryID, Entries: len(p.Items)})
	}
	return pageResult(d, "playlists", out, total, int(a.Page), int(a.Limit)), nil
}

// GetPlaylist is get_playlist.
func GetPlaylist(ctx context.Context, d *Deps, a toolargs.GetPlaylist) (*mcp.CallToolResult, error) {
	p, body, res := d.getPlaylistRaw(ctx, a.PlaylistID)
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	all := playlistAll(p)
	return pageResult(d, "entries", pageOf(all.Entries, int(a.Page), int(a.Limit)), len(all.Entries), int(a.Page), int(a.Limit),
		field{"id", all.ID}, field{"name", all.Name}, field{"library_id", all.LibraryID}, field{"description", all.Description},
		field{"description_length", all.DescriptionLength}, field{"description_cut", all.DescriptionCut}), nil
}

// CreatePlaylist is create_playlist.
func CreatePlaylist(ctx context.Context, d *Deps, a toolargs.CreatePlaylist) (*mcp.CallToolResult, error) {
	req := abs.CreatePlaylistJSONRequestBody{LibraryId: a.LibraryID, Name: a.Name, Description: a.Description}
	if a.Items != nil {
		if res := d.checkEntries(ctx, a.LibraryID, a.Items); res != nil {
			return res, nil
		}
		items := toABSItems(a.Items)
		req.Items = &items
	}
	body, res := d.mutate(ctx, "a new playlist in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreatePlaylist(ctx, req)
	})
	if res != nil {
		return res, nil
	}
	var p absPlaylist
	if res := decode(body, &p); res != nil {
		return res, nil
	}
	return jsonResult(map[string]any{"created": true, "playlist": playlistDetail(&p),
		"put_back": &PutBack{Tool: "delete_playlist", Arguments: map[string]any{"playlist_id": p.ID},
			Note: "Deleting it asks the person first, as every delete does."}}), nil
}

// PlanUpdatePlaylist plans update_playlist. A new order must be a
// permutation of the current entries, checked before anything is sent:
// Audiobookshelf rejects another length with 400 but saves a new name in
// the same request anyway.
func PlanUpdatePlaylist(ctx context.Context, d *Deps, a toolargs.UpdatePlaylist) (*Plan, *mcp.CallToolResult) {
	body := abs.UpdatePlaylistJSONRequestBody{Name: a.Name, Description: a.Description}
	plan := &Plan{Targets: []string{a.PlaylistID}}
	// The playlist is read first in every case: the answer carries what
	// the call replaces, and the call that puts it back.
	p, res := d.getPlaylist(ctx, a.PlaylistID)
	if res != nil {
		return nil, res
	}
	prev, putBack, lost := playlistPutBack(p, a)
	if lost != "" {
		plan.Effects = append(plan.Effects, EffectUnrestorableText)
		plan.Read = p.read()
		plan.Action = fmt.Sprintf("This will replace the %s of playlist %s.", lost, a.PlaylistID)
		plan.Consequences = []string{"The text it holds now could not be given back with update_playlist: " + unrestorableWhy(lost, false, true) + "."}
	}
	if a.Items != nil {
		if res := missingEpisodeIDs(p, a.Items); res != nil {
			return nil, res
		}
		missing, extra := sameMembers(entryIDs(p.keys()), entryIDs(a.Items))
		if len(missing) > 0 || len(extra) > 0 || len(a.Items) != len(p.Items) {
			var why string
			if len(missing) > 0 {
				why += "; it leaves out " + listIDs(missing) + " (to take entries out use remove_items_from_playlist)"
			}
			if len(extra) > 0 {
				why += "; " + listIDs(extra) + pluralBe(len(extra)) + " not in the playlist (to add entries use add_items_to_playlist)"
			}
			return nil, errorResult(`argument "items": must list each of the %d entries of playlist %s exactly once, in the new order%s. Nothing was changed.`, len(p.Items), a.PlaylistID, why)
		}
		items := toABSItems(a.Items)
		body.Items = &items
		moved := 0
		cur := p.keys()
		for i := range cur {
			if cur[i] != a.Items[i] {
				moved++
			}
		}
		plan.Targets = append(plan.Targets, entryIDs(a.Items)...)
		plan.Read = p.read()
		plan.Action = fmt.Sprintf("This will reorder the %d entries of playlist %s; %d of them change place.", len(a.Items), a.PlaylistID, moved)
		plan.Consequences = []string{"New order: " + listIDs(entryIDs(a.Items)) + "."}
		if lost != "" {
			plan.Consequences = append(plan.Consequences, "The text it holds now could not be given back with update_playlist: "+unrestorableWhy(lost, false, true)+".")
		} else if a.Name != nil || a.Description != nil {
			plan.Consequences = append(plan.Consequences, "The name or description changes too.")
		}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.mutate(ctx, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdatePlaylist(ctx, a.PlaylistID, body)
		})
		if res != nil {
			return res, nil
		}
		var p absPlaylist
		if res := decode(rb, &p); res != nil {
			return res, nil
		}
		out := map[string]any{"updated": true, "playlist": playlistDetail(&p), "previous": prev}
		if putBack != nil {
			out["put_back"] = putBack
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// playlistPutBack is what update_playlist replaces and the call that gives
// it back. lost names what could not be given back exactly ("" when all
// can): then the tool asks first. Audiobookshelf ignores an empty name or
// description on a playlist (PlaylistController.update), so a playlist
// without a description cannot be given "none" back.
func playlistPutBack(p *absPlaylist, a toolargs.UpdatePlaylist) (prev map[string]any, pb *PutBack, lost string) {
	prev = map[string]any{}
	args := map[string]any{"playlist_id": p.ID}
	var lostParts []string
	if a.Name != nil {
		prev["name"] = p.Name
		args["name"] = p.Name
		if utf8.RuneCountInString(p.Name) > maxNameLen || p.Name == "" {
			lostParts = append(lostParts, "name")
		}
	}
	if a.Description != nil {
		prev["description"] = p.Description // whole; null when none
		args["description"] = p.description()
		if d := p.description(); d == "" || utf8.RuneCountInString(d) > maxDescriptionLen {
			lostParts = append(lostParts, "description")
		}
	}
	note := ""
	if a.Items != nil {
		keys := p.keys()
		items := make([]map[string]any, 0, len(keys))
		for _, k := range keys {
			e := map[string]any{"library_item_id": k.LibraryItemID}
			if k.EpisodeID != "" {
				e["episode_id"] = k.EpisodeID
			}
			items = append(items, e)
		}
		prev["items"] = items
		args["items"] = items
		note = "Giving the old order back asks the person first, as every reorder does."
	}
	return prev, &PutBack{Tool: "update_playlist", Arguments: args, Note: note}, strings.Join(lostParts, " and ")
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
func PlanAddItemsToPlaylist(ctx context.Context, d *Deps, a toolargs.AddItemsToPlaylist) (*Plan, *mcp.CallToolResult) {
	p, res := d.getPlaylist(ctx, a.PlaylistID)
	if res != nil {
		return nil, res
	}
	if res := d.checkEntries(ctx, p.LibraryID, a.Items); res != nil {
		return nil, res
	}
	had := map[argdec.PlaylistItem]bool{}
	for _, k := range p.keys() {
		had[k] = true
	}
	var added []argdec.PlaylistItem
	for _, k := range a.Items {
		if !had[k] {
			had[k] = true
			added = append(added, k)
		}
	}
	plan := &Plan{Targets: []string{a.PlaylistID}}
	empty := len(p.Items) == 0
	if empty {
		plan.Effects = []string{EffectFillsEmptyPlaylist}
		plan.Read = p.read()
		plan.Action = fmt.Sprintf("This will add %d entr%s to playlist %s, which holds 0 entries now.", len(added), map[bool]string{true: "y", false: "ies"}[len(added) == 1], a.PlaylistID)
		plan.Consequences = []string{fmt.Sprintf("Taking the %d entr%s out again would make Audiobookshelf delete playlist %s itself (it deletes a playlist whose last entry is removed): the empty playlist, with its id, name and description, could not be given back from here.",
			len(added), map[bool]string{true: "y", false: "ies"}[len(added) == 1], a.PlaylistID)}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.mutate(ctx, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
			return d.API.AddItemsToPlaylist(ctx, a.PlaylistID, abs.AddItemsToPlaylistJSONRequestBody{Items: toABSItems(a.Items)})
		})
		if res != nil {
			return res, nil
		}
		var updated absPlaylist
		if res := decode(rb, &updated); res != nil {
			return res, nil
		}
		out := map[string]any{"updated": true, "playlist": playlistDetail(&updated)}
		switch {
		case len(added) > 0 && empty:
			out["not_put_back"] = "The playlist was empty before: taking these entries out again makes Audiobookshelf delete the playlist, so no call here gives back the empty one. remove_items_from_playlist with these entries deletes it (and asks)."
		case len(added) > 0:
			out["put_back"] = &PutBack{Tool: "remove_items_from_playlist", Arguments: map[string]any{"playlist_id": a.PlaylistID, "items": added},
				Note: "Takes out only the entries this call appended, which leaves the old order; it asks the person first, as every removal does."}
		default:
			out["note"] = "Every entry given was in the playlist already; nothing changed, so nothing needs putting back."
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// PlanRemoveItemsFromPlaylist plans remove_items_from_playlist. It reads the
// playlist first: removing its last entries makes Audiobookshelf delete the
// playlist, and the question says so.
func PlanRemoveItemsFromPlaylist(ctx context.Context, d *Deps, a toolargs.RemoveItemsFromPlaylist) (*Plan, *mcp.CallToolResult) {
	p, res := d.getPlaylist(ctx, a.PlaylistID)
	if res != nil {
		return nil, res
	}
	if res := missingEpisodeIDs(p, a.Items); res != nil {
		return nil, res
	}
	_, extra := sameMembers(entryIDs(p.keys()), entryIDs(a.Items))
	if len(extra) > 0 {
		return nil, errorResult(`argument "items": %s not in playlist %s (get_playlist lists its entries). Nothing was changed.`, listIDs(extra)+pluralBe(len(extra)), a.PlaylistID)
	}
	stay := len(p.Items) - len(a.Items)
	plan := &Plan{
		Targets: append([]string{a.PlaylistID}, entryIDs(a.Items)...),
		Action:  fmt.Sprintf("This will remove %d of the %d entries of playlist %s; %d stay.", len(a.Items), len(p.Items), a.PlaylistID, stay),
		Read:    p.read(),
	}
	if stay == 0 {
		plan.Consequences = []string{fmt.Sprintf("These are all of its entries: Audiobookshelf deletes playlist %s itself when its last entry is removed.", a.PlaylistID)}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.mutate(ctx, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
			return d.API.RemoveItemsFromPlaylist(ctx, a.PlaylistID, abs.RemoveItemsFromPlaylistJSONRequestBody{Items: toABSItems(a.Items)})
		})
		if res != nil {
			return res, nil
		}
		if stay == 0 {
			return jsonResult(map[string]any{"removed": len(a.Items), "playlist_deleted": true, "playlist_id": a.PlaylistID,
				"note": "Audiobookshelf deleted the playlist with its last entry."}), nil
		}
		var p absPlaylist
		if res := decode(rb, &p); res != nil {
			return res, nil
		}
		return jsonResult(map[string]any{"removed": len(a.Items), "playlist": playlistDetail(&p)}), nil
	}
	return plan, nil
}

// missingEpisodeIDs refuses entries that name a podcast of the playlist
// without the episode_id of its episode: they would otherwise read as
// entries that are not in the playlist.
func missingEpisodeIDs(p *absPlaylist, items []argdec.PlaylistItem) *mcp.CallToolResult {
	podcasts := map[string]bool{}
	for _, k := range p.keys() {
		if k.EpisodeID != "" {
			podcasts[k.LibraryItemID] = true
		}
	}
	var missing []string
	for i, it := range items {
		if it.EpisodeID == "" && podcasts[it.LibraryItemID] {
			missing = append(missing, fmt.Sprintf("entry %d (library item %s)", i, it.LibraryItemID))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errorResult(`argument "items": %s %s no episode_id, and playlist %s holds episodes of that podcast: give each entry the episode_id of its episode (get_playlist lists them). Nothing was changed.`,
		listIDs(missing), map[bool]string{true: "has", false: "have"}[len(missing) == 1], p.ID)
}

// PlanDeletePlaylist plans delete_playlist.
func PlanDeletePlaylist(ctx context.Context, d *Deps, a toolargs.DeletePlaylist) (*Plan, *mcp.CallToolResult) {
	p, res := d.getPlaylist(ctx, a.PlaylistID)
	if res != nil {
		return nil, res
	}
	return &Plan{
		Targets: []string{a.PlaylistID},
		Action:  fmt.Sprintf("This will delete playlist %s with its %d entries in their order.", a.PlaylistID, len(p.Items)),
		Read:    p.read(),
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, res := d.mutate(ctx, "playlist "+a.PlaylistID, func(ctx context.Context) (*http.Response, error) {
				return d.API.DeletePlaylist(ctx, a.PlaylistID)
			})
			if res != nil {
				return res, nil
			}
			return jsonResult(map[string]any{"deleted": true, "playlist_id": a.PlaylistID}), nil
		},
	}, nil
}

// entryReads bounds the item reads checkEntries has in flight at once.
const entryReads = 4

// checkEntries reads each entry's item before a playlist gets it:
// Audiobookshelf's create and batch add do not check that an episode
// belongs to its item, or that a book has no episode id, and its process
// dies on such an entry (PlaylistController.create / addBatch). Entries
// must also be of the playlist's library.
//
// Each distinct item is read once, up to entryReads of them at the same
// time (the reads do not depend on each other); the entries are then
// checked in order, so the error is about the first entry that fails.
func (d *Deps) checkEntries(ctx context.Context, libraryID string, items []argdec.PlaylistItem) *mcp.CallToolResult {
	var ids []string
	index := map[string]int{}
	for _, e := range items {
		if _, ok := index[e.LibraryItemID]; !ok {
			index[e.LibraryItemID] = len(ids)
			ids = append(ids, e.LibraryItemID)
		}
	}
	got := make([]*absItem, len(ids))
	failed := make([]*mcp.CallToolResult, len(ids))
	eachLimit(len(ids), entryReads, func(i int) {
		_, got[i], failed[i] = d.getItem(ctx, ids[i])
	})
	for i, e := range items {
		at := fmt.Sprintf("items[%d]", i)
		j := index[e.LibraryItemID]
		if failed[j] != nil {
			return failed[j]
		}
		it := got[j]
		if libraryID != "" && it.LibraryID != libraryID {
			return errorResult(`argument "%s": library item %s is in library %s, not in the playlist's library %s. Nothing was changed.`, at, e.LibraryItemID, it.LibraryID, libraryID)
		}
		switch {
		case it.MediaType == "podcast" && e.EpisodeID == "":
			return errorResult(`argument "%s": library item %s is a podcast; give the episode_id of one of its episodes (get_library_item lists them). Nothing was changed.`, at, e.LibraryItemID)
		case it.MediaType != "podcast" && e.EpisodeID != "":
			return errorResult(`argument "%s": library item %s is a book, which has no episodes; leave episode_id out. Nothing was changed.`, at, e.LibraryItemID)
		case e.EpisodeID != "":
			found := false
			for _, ep := range it.Media.Episodes {
				if ep.ID == e.EpisodeID {
					found = true
					break
				}
			}
			if !found {
				return errorResult(`argument "%s": podcast %s has no episode %s. Nothing was changed.`, at, e.LibraryItemID, e.EpisodeID)
			}
		}
	}
	return nil
}
