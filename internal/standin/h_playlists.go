package standin

// Playlist routes: server/controllers/PlaylistController.js and
// server/models/Playlist.js. Playlists belong to one user: only the owner may
// use them (403 otherwise); no update/delete permission is checked.

import "net/http"

// withPlaylist is PlaylistController.middleware.
func withPlaylist(h func(*ctx)) func(*ctx) {
	return func(c *ctx) {
		i := c.s.playlistIndex(c.params["id"])
		if i < 0 {
			c.send(http.StatusNotFound, "Playlist not found")
			return
		}
		p := &c.s.data.Playlists[i]
		if p.UserID != c.user.ID {
			c.sendStatus(http.StatusForbidden)
			return
		}
		if !c.user.canAccessLibrary(p.LibraryID) {
			c.send(http.StatusNotFound, "Playlist not found")
			return
		}
		c.pl = i
		h(c)
	}
}

func (c *ctx) playlist() *Playlist { return &c.s.data.Playlists[c.pl] }

// mediaItemID is a playlistMediaItem's mediaItemId: the episode id, or the
// book id of the library item.
func (c *ctx) mediaItemID(it PlaylistItem) string {
	if it.EpisodeID != "" {
		return it.EpisodeID
	}
	if li := c.s.item(it.LibraryItemID); li != nil {
		if li.Book != nil {
			return li.Book.ID
		}
		return li.Podcast.ID
	}
	return it.LibraryItemID
}

// propOf reads i.key of an array element the way JS does; null and undefined
// elements throw (the process dies).
func (c *ctx) propOf(el any, key string) any {
	if el == nil {
		c.crash()
	}
	return field(el, key)
}

// POST /api/playlists: PlaylistController.create.
func hPlaylistCreate(c *ctx) {
	name := stripAllTags(field(c.body, "name"))
	libID := field(c.body, "libraryId")
	if name == "" || !truthy(libID) {
		c.send(http.StatusBadRequest, "Invalid playlist data")
		return
	}
	desc := field(c.body, "description")
	if truthy(desc) && jsTypeof(desc) != "string" {
		c.send(http.StatusBadRequest, "Invalid playlist description")
		return
	}
	libraryID := toJSString(libID)
	if !c.user.canAccessLibrary(libraryID) {
		c.sendStatus(http.StatusForbidden)
		return
	}
	var items []any
	if v := field(c.body, "items"); truthy(v) {
		arr, ok := v.([]any)
		if !ok {
			c.crash() // items.some is not a function
		}
		items = arr
	}
	isPodcast := false
	for _, it := range items {
		if truthy(c.propOf(it, "episodeId")) {
			isPodcast = true
			break
		}
	}
	var ids []string
	for _, it := range items {
		lid, ok := field(it, "libraryItemId").(string)
		if !ok || lid == "" {
			c.send(http.StatusBadRequest, "Invalid playlist item")
			return
		}
		ep := field(it, "episodeId")
		if isPodcast {
			if s, ok := ep.(string); !ok || s == "" {
				c.send(http.StatusBadRequest, "Invalid playlist item episodeId")
				return
			}
		} else if truthy(ep) {
			c.send(http.StatusBadRequest, "Invalid playlist item episodeId")
			return
		}
		if !contains(ids, lid) {
			ids = append(ids, lid)
		}
	}
	wantType := "book"
	if isPodcast {
		wantType = "podcast"
	}
	for _, id := range ids {
		li := c.s.item(id)
		if li == nil || li.LibraryID != libraryID || li.MediaType != wantType {
			c.send(http.StatusBadRequest, "Invalid playlist data. Invalid items")
			return
		}
	}
	var entries []PlaylistItem
	if isPodcast {
		// The episode ids must all exist (anywhere); a repeated id makes the
		// counts differ.
		seen := map[string]bool{}
		for _, it := range items {
			ep := field(it, "episodeId").(string)
			if _, e := c.s.episode(ep); e == nil || seen[ep] {
				c.send(http.StatusBadRequest, "Invalid playlist data. Invalid podcast episodes")
				return
			}
			seen[ep] = true
		}
		for _, it := range items {
			owner, _ := c.s.episode(field(it, "episodeId").(string))
			entries = append(entries, PlaylistItem{LibraryItemID: owner.ID, EpisodeID: field(it, "episodeId").(string)})
		}
	} else {
		for _, it := range items {
			entries = append(entries, PlaylistItem{LibraryItemID: field(it, "libraryItemId").(string)})
		}
	}
	now := c.nowMs()
	p := Playlist{ID: c.s.newID(), LibraryID: libraryID, UserID: c.user.ID, Name: name, Items: entries, LastUpdate: now, CreatedAt: now}
	if truthy(desc) {
		d := desc.(string)
		p.Description = &d
	}
	c.s.data.Playlists = append(c.s.data.Playlists, p)
	c.sendJSON(c.s.playlistExpanded(&c.s.data.Playlists[len(c.s.data.Playlists)-1]))
}

// GET /api/playlists: PlaylistController.findAllForUser ({playlists}, by name).
func hPlaylists(c *ctx) {
	c.sendJSON(jobj{{"playlists", c.userPlaylists("")}})
}

// GET /api/playlists/:id: PlaylistController.findOne.
func hPlaylist(c *ctx) { c.sendJSON(c.s.playlistExpanded(c.playlist())) }

// PATCH /api/playlists/:id: PlaylistController.update. name and description
// are saved before the items are checked, so a request whose items are
// rejected ("Items not found", "Length mismatch") still renames the playlist.
func hPlaylistUpdate(c *ctx) {
	p := c.playlist()
	if truthy(field(c.body, "libraryId")) || truthy(field(c.body, "userId")) {
		c.send(http.StatusBadRequest, "Invalid playlist data. Cannot update libraryId or userId")
		return
	}
	if n := field(c.body, "name"); truthy(n) && jsTypeof(n) != "string" {
		c.send(http.StatusBadRequest, "Invalid playlist name")
		return
	}
	desc := field(c.body, "description")
	if truthy(desc) && jsTypeof(desc) != "string" {
		c.send(http.StatusBadRequest, "Invalid playlist description")
		return
	}
	items := field(c.body, "items")
	var arr []any
	if truthy(items) {
		a, ok := items.([]any)
		if !ok {
			c.send(http.StatusBadRequest, "Invalid playlist items")
			return
		}
		for _, it := range a {
			lid, ok := c.propOf(it, "libraryItemId").(string)
			ep := field(it, "episodeId")
			if !ok || lid == "" || (truthy(ep) && jsTypeof(ep) != "string") {
				c.send(http.StatusBadRequest, "Invalid playlist items")
				return
			}
		}
		arr = a
	}
	now := c.nowMs()
	if name := stripAllTags(field(c.body, "name")); name != "" && name != p.Name {
		p.Name = name
		p.LastUpdate = now
	}
	if truthy(desc) && (p.Description == nil || *p.Description != desc.(string)) {
		d := desc.(string)
		p.Description = &d
		p.LastUpdate = now
	}
	if len(arr) > 0 {
		var ids []string
		for _, it := range arr {
			if lid := field(it, "libraryItemId").(string); !contains(ids, lid) {
				ids = append(ids, lid)
			}
		}
		for _, id := range ids {
			if c.s.item(id) == nil {
				c.send(http.StatusBadRequest, "Invalid playlist items. Items not found")
				return
			}
		}
		if len(p.Items) != len(arr) {
			c.send(http.StatusBadRequest, "Invalid playlist items. Length mismatch")
			return
		}
		var order []string
		for _, it := range arr {
			if ep, ok := field(it, "episodeId").(string); ok && ep != "" {
				order = append(order, ep)
			} else {
				order = append(order, c.mediaItemID(PlaylistItem{LibraryItemID: field(it, "libraryItemId").(string)}))
			}
		}
		index := func(it PlaylistItem) int {
			id := c.mediaItemID(it)
			for i, v := range order {
				if v == id {
					return i
				}
			}
			return -1
		}
		sorted := append([]PlaylistItem(nil), p.Items...)
		stableSortBy(sorted, func(a, b PlaylistItem) int { return cmpInt(index(a), index(b)) })
		// Only the playlistMediaItems' order changes; the playlist row (and
		// its updatedAt) is not saved.
		p.Items = sorted
	}
	c.sendJSON(c.s.playlistExpanded(p))
}

// DELETE /api/playlists/:id: PlaylistController.delete (200 "OK").
func hPlaylistDelete(c *ctx) {
	c.s.data.Playlists = append(c.s.data.Playlists[:c.pl], c.s.data.Playlists[c.pl+1:]...)
	c.sendStatus(http.StatusOK)
}

// POST /api/playlists/:id/item {libraryItemId, episodeId?}: PlaylistController.addItem.
func hPlaylistAddItem(c *ctx) {
	p := c.playlist()
	lidV := field(c.body, "libraryItemId")
	if !truthy(lidV) {
		c.send(http.StatusBadRequest, "Request body has no libraryItemId")
		return
	}
	li := c.s.item(toJSString(lidV))
	if li == nil {
		c.send(http.StatusBadRequest, "Library item not found")
		return
	}
	if li.LibraryID != p.LibraryID {
		c.send(http.StatusBadRequest, "Library item in different library")
		return
	}
	epV := field(c.body, "episodeId")
	if (truthy(epV) && li.Podcast == nil) || (li.Podcast != nil && !truthy(epV)) {
		c.send(http.StatusBadRequest, "Invalid item to add for this library type")
		return
	}
	epID := ""
	if truthy(epV) {
		epID = toJSString(epV)
		found := false
		for _, e := range li.Podcast.Episodes {
			if e.ID == epID {
				found = true
			}
		}
		if !found {
			c.send(http.StatusBadRequest, "Episode not found in library item")
			return
		}
	}
	// Playlist.checkHasMediaItem
	for _, it := range p.Items {
		if epID != "" {
			if it.EpisodeID == epID {
				c.send(http.StatusBadRequest, "Item already in playlist")
				return
			}
		} else {
			if it.EpisodeID != "" {
				c.crash() // pmi.mediaItem.libraryItem is undefined for an episode
			}
			if it.LibraryItemID == li.ID {
				c.send(http.StatusBadRequest, "Item already in playlist")
				return
			}
		}
	}
	j := c.s.playlistExpanded(p)
	items := j.get("items").([]jobj)
	if epID != "" {
		_, ep := c.s.episode(epID)
		items = append(items, jobj{{"episodeId", epID}, {"episode", episodeExpanded(li.ID, li.Podcast.ID, *ep)}, {"libraryItemId", li.ID}, {"libraryItem", c.s.itemMinified(li, viewOpts{})}})
	} else {
		items = append(items, jobj{{"libraryItemId", li.ID}, {"libraryItem", c.s.itemExpanded(li, viewOpts{})}})
	}
	j.set("items", items)
	p.Items = append(p.Items, PlaylistItem{LibraryItemID: li.ID, EpisodeID: epID})
	c.sendJSON(j)
}

// afterRemoval renders the playlist after an entry was removed (items []
// for the last one) and destroys a playlist left empty.
func (c *ctx) afterRemoval(p *Playlist) jobj {
	j := c.s.playlistExpanded(p)
	if len(p.Items) == 0 {
		c.s.data.Playlists = append(c.s.data.Playlists[:c.pl], c.s.data.Playlists[c.pl+1:]...)
	}
	return j
}

// DELETE /api/playlists/:id/item/:libraryItemId/:episodeId?:
// PlaylistController.removeItem: 404 "Media item not found in playlist" when
// the entry is not there; removing the last entry deletes the playlist.
func hPlaylistRemoveItem(c *ctx) {
	p := c.playlist()
	idx := -1
	for i, it := range p.Items {
		if ep, ok := c.params["episodeId"]; ok {
			if it.EpisodeID == ep {
				idx = i
				break
			}
		} else if it.EpisodeID == "" && it.LibraryItemID == c.params["libraryItemId"] {
			idx = i
			break
		}
	}
	if idx < 0 {
		c.send(http.StatusNotFound, "Media item not found in playlist")
		return
	}
	p.Items = append(p.Items[:idx], p.Items[idx+1:]...)
	c.sendJSON(c.afterRemoval(p))
}

// validBatchItems is the check shared by addBatch and removeBatch.
func (c *ctx) validBatchItems() ([]any, bool) {
	items := field(c.body, "items")
	arr, isArray := items.([]any)
	if !jsLengthTruthy(items) || !isArray {
		c.send(http.StatusBadRequest, "Invalid request body items")
		return nil, false
	}
	for _, it := range arr {
		lid, ok := field(it, "libraryItemId").(string)
		ep := field(it, "episodeId")
		if !ok || lid == "" || (truthy(ep) && jsTypeof(ep) != "string") {
			c.send(http.StatusBadRequest, "Invalid request body items")
			return nil, false
		}
	}
	return arr, true
}

// POST /api/playlists/:id/batch/add {items}: PlaylistController.addBatch.
// Items may come from any library; entries already in the playlist are
// skipped.
func hPlaylistBatchAdd(c *ctx) {
	p := c.playlist()
	arr, ok := c.validBatchItems()
	if !ok {
		return
	}
	for _, it := range arr {
		if c.s.item(field(it, "libraryItemId").(string)) == nil {
			c.send(http.StatusBadRequest, "Invalid request body items")
			return
		}
	}
	existing := map[string]bool{}
	for _, it := range p.Items {
		existing[c.mediaItemID(it)] = true
	}
	j := c.s.playlistExpanded(p)
	items := j.get("items").([]jobj)
	var add []PlaylistItem
	for _, it := range arr {
		li := c.s.item(field(it, "libraryItemId").(string))
		epID, _ := field(it, "episodeId").(string)
		mid := epID
		if mid == "" {
			if li.Book != nil {
				mid = li.Book.ID
			} else {
				mid = li.Podcast.ID
			}
		}
		if existing[mid] {
			continue
		}
		if epID != "" {
			// libraryItem.media.podcastEpisodes.find(...).toOldJSONExpanded():
			// a book has no episodes, an unknown episode is undefined.
			if li.Podcast == nil {
				c.crash()
			}
			var ep *Episode
			for k := range li.Podcast.Episodes {
				if li.Podcast.Episodes[k].ID == epID {
					ep = &li.Podcast.Episodes[k]
				}
			}
			if ep == nil {
				c.crash()
			}
			items = append(items, jobj{{"episodeId", epID}, {"episode", episodeExpanded(li.ID, li.Podcast.ID, *ep)}, {"libraryItemId", li.ID}, {"libraryItem", c.s.itemMinified(li, viewOpts{})}})
			add = append(add, PlaylistItem{LibraryItemID: li.ID, EpisodeID: epID})
		} else {
			items = append(items, jobj{{"libraryItemId", li.ID}, {"libraryItem", c.s.itemExpanded(li, viewOpts{})}})
			add = append(add, PlaylistItem{LibraryItemID: li.ID})
		}
	}
	j.set("items", items)
	p.Items = append(p.Items, add...)
	c.sendJSON(j)
}

// POST /api/playlists/:id/batch/remove {items}: PlaylistController.removeBatch.
// Entries that are not in the playlist are skipped (200, nothing changes);
// removing the last entry deletes the playlist and still answers 200 with
// items [].
func hPlaylistBatchRemove(c *ctx) {
	p := c.playlist()
	arr, ok := c.validBatchItems()
	if !ok {
		return
	}
	removed := false
	for _, it := range arr {
		lid := field(it, "libraryItemId").(string)
		epID, _ := field(it, "episodeId").(string)
		idx := -1
		for i, e := range p.Items {
			if epID != "" {
				if e.EpisodeID == epID {
					idx = i
					break
				}
			} else if e.EpisodeID == "" && e.LibraryItemID == lid {
				idx = i
				break
			}
		}
		if idx < 0 {
			continue
		}
		p.Items = append(p.Items[:idx], p.Items[idx+1:]...)
		removed = true
	}
	j := c.s.playlistExpanded(p)
	if removed && len(p.Items) == 0 {
		c.s.data.Playlists = append(c.s.data.Playlists[:c.pl], c.s.data.Playlists[c.pl+1:]...)
	}
	c.sendJSON(j)
}
