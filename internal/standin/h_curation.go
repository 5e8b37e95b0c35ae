package standin

import "net/http"

// BatchMatch is one POST /api/items/batch/quickmatch the stand-in received
// (the items it found, in the order of the request, and the options).
type BatchMatch struct {
	IDs                            []string
	Provider                       string
	OverrideDetails, OverrideCover bool
}

// curationRoutes are the routes of the curation toolset's batch fixes.
func curationRoutes() []route {
	const P = http.MethodPost
	return []route{
		api(P, "/tags/rename", hTagRename),
		api(P, "/genres/rename", hGenreRename),
		api(P, "/items/batch/update", hItemsBatchUpdate),
		api(P, "/items/batch/quickmatch", hItemsBatchQuickMatch),
	}
}

// POST /api/tags/rename {tag, newTag}: MiscController.renameTag.
func hTagRename(c *ctx) {
	renameEverywhere(c, "tag", "newTag", "tagMerged", func(li *LibraryItem) *[]string {
		if li.Book != nil {
			return &li.Book.Tags
		}
		if li.Podcast != nil {
			return &li.Podcast.Tags
		}
		return nil
	})
}

// POST /api/genres/rename {genre, newGenre}: MiscController.renameGenre.
func hGenreRename(c *ctx) {
	renameEverywhere(c, "genre", "newGenre", "genreMerged", func(li *LibraryItem) *[]string {
		if li.Book != nil {
			return &li.Book.Genres
		}
		if li.Podcast != nil {
			return &li.Podcast.Genres
		}
		return nil
	})
}

// renameEverywhere is what renameTag and renameGenre do (Audiobookshelf
// 2.36): admins only (403), 400 when either name is missing or empty;
// then, on every book and podcast of the server (books first) holding
// either name, merged is true when the item holds the new name already,
// and an item holding the old name has every copy of it removed and the
// new name appended at the end unless it holds it already. The names are
// compared exactly. It answers {merged, numItemsUpdated}.
func renameEverywhere(c *ctx, oldKey, newKey, mergedKey string, list func(*LibraryItem) *[]string) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	oldName, _ := body[oldKey].(string)
	newName, _ := body[newKey].(string)
	if oldName == "" || newName == "" {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	merged, updated := false, 0
	now := c.nowMs()
	for _, wantBook := range []bool{true, false} {
		for i := range c.s.data.Items {
			li := &c.s.data.Items[i]
			if (li.Book != nil) != wantBook {
				continue
			}
			l := list(li)
			if l == nil {
				continue
			}
			hasOld, hasNew := false, false
			for _, v := range *l {
				hasOld = hasOld || v == oldName
				hasNew = hasNew || v == newName
			}
			if hasNew {
				merged = true
			}
			if !hasOld {
				continue
			}
			out := make([]string, 0, len(*l)+1)
			for _, v := range *l {
				if v != oldName {
					out = append(out, v)
				}
			}
			if !hasNew {
				out = append(out, newName)
			}
			*l = out
			if li.Book != nil {
				li.Book.UpdatedAt = now
			} else {
				li.Podcast.UpdatedAt = now
			}
			updated++
		}
	}
	c.sendJSON(jobj{{mergedKey, merged}, {"numItemsUpdated", updated}})
}

// POST /api/items/batch/update [{id, mediaPayload}]:
// LibraryItemController.batchUpdate. 403 without the update permission;
// 400 when the body is not a non-empty list or its ids are missing or not
// distinct; 404 when one is no item; 403 when the user may not access one
// (nothing changed in any of these). Then each payload is applied as PATCH
// /api/items/:id/media applies it, authors only when metadata.authors is
// sent, and {success: true, updates} answers how many items changed. The
// series and authors left without a book are deleted once every entry is
// applied (checkRemoveEmptySeries, checkRemoveAuthorsWithNoBooks), so a
// series one entry empties and another joins by name stays.
func hItemsBatchUpdate(c *ctx) {
	if !c.user.canUpdate() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	list, _ := c.body.([]any)
	if len(list) == 0 {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	seen := map[string]bool{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		id, _ := m["id"].(string)
		if id == "" || seen[id] {
			c.sendStatus(http.StatusBadRequest)
			return
		}
		seen[id] = true
	}
	items := make([]*LibraryItem, len(list))
	for i, e := range list {
		id, _ := e.(map[string]any)["id"].(string)
		if items[i] = c.s.item(id); items[i] == nil {
			c.sendStatus(http.StatusNotFound)
			return
		}
	}
	for _, li := range items {
		if !c.user.canAccessItem(li) {
			c.sendStatus(http.StatusForbidden)
			return
		}
	}
	updates := 0
	c.s.batchRemovals = &pendingRemovals{}
	for i, e := range list {
		payload, _ := e.(map[string]any)["mediaPayload"].(map[string]any)
		if c.applyMediaPayload(items[i], payload) {
			updates++
		}
	}
	removed := c.s.batchRemovals
	c.s.batchRemovals = nil
	c.s.removeEmptySeries(removed.series)
	c.s.removeAuthorsWithNoBooks(removed.authors)
	c.sendJSON(jobj{{"success", true}, {"updates", updates}})
}

// SetProvidersReachable decides what a batch quick match finds: false (the
// default, as on a machine that cannot reach the internet) no provider
// answers and nothing changes; true each book gets the stand-in's match
// (MatchResult, or the fixed one made from the book) applied as
// match_library_item's route applies it. Podcasts are never matched here.
func (s *Server) SetProvidersReachable(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.providersReachable = ok
}

// BatchMatches are the batch quick matches received, oldest first.
func (s *Server) BatchMatches() []BatchMatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]BatchMatch(nil), s.upkeep.batchMatches...)
}

// POST /api/items/batch/quickmatch {libraryItemIds, options}:
// LibraryItemController.batchQuickMatch. Admins only (403); 400 when
// libraryItemIds is empty or names no item (ids that are no item are
// skipped). It answers "OK" and then matches each item found; the stand-in
// records the call and matches before its answer is read, with the
// providers reachable or not (SetProvidersReachable).
func hItemsBatchQuickMatch(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	ids, _ := body["libraryItemIds"].([]any)
	if len(ids) == 0 {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	var items []*LibraryItem
	for _, v := range ids {
		id, _ := v.(string)
		if li := c.s.item(id); li != nil {
			items = append(items, li)
		}
	}
	if len(items) == 0 {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	opts, _ := body["options"].(map[string]any)
	m := BatchMatch{Provider: "google"}
	if p, ok := opts["provider"].(string); ok && p != "" {
		m.Provider = p
	}
	m.OverrideDetails = truthy(opts["overrideDetails"])
	m.OverrideCover = truthy(opts["overrideCover"])
	for _, li := range items {
		m.IDs = append(m.IDs, li.ID)
	}
	c.s.upkeep.batchMatches = append(c.s.upkeep.batchMatches, m)
	c.sendStatus(http.StatusOK)
	if !c.s.upkeep.providersReachable {
		return
	}
	for _, li := range items {
		c.quickMatch(li, m.Provider, m.OverrideDetails, m.OverrideCover, nil)
	}
}
