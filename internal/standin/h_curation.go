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
	const P, A = http.MethodPost, http.MethodPatch
	return []route{
		api(P, "/tags/rename", hTagRename),
		api(P, "/genres/rename", hGenreRename),
		api(A, "/authors/:id", hAuthorUpdate),
		api(P, "/authors/:id/image", hAuthorImage),
		api(A, "/series/:id", hSeriesUpdate),
		api(P, "/items/batch/update", hItemsBatchUpdate),
		api(P, "/items/batch/quickmatch", hItemsBatchQuickMatch),
		api(A, "/libraries/:id/narrators/:narratorId", withLibrary(hNarratorRename)),
	}
}

// pendingRemovals are the series and authors batchUpdate took off a book,
// checked once every entry is applied.
type pendingRemovals struct{ series, authors []string }

// PATCH /api/authors/:id: AuthorController.middleware and update. name,
// description and asin are read when a string or null (400 when none
// is). A name changed to exactly the name of another author of the same
// library merges the two: each book of this author gets the other one
// instead (appended, unless the book holds it already), the books'
// updatedAt does not move, this author is deleted, and the answer is
// {author: the other one, merged: true}. Otherwise {author, updated}.
func hAuthorUpdate(c *ctx) {
	a := c.s.author(c.params["id"])
	if a == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	if !c.user.canUpdate() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	type field struct {
		p *string
		v string
	}
	var fields []field
	var name *string
	for _, k := range []struct {
		key string
		p   *string
	}{{"name", &a.Name}, {"description", &a.Description}, {"asin", &a.ASIN}} {
		v, present := body[k.key]
		if !present {
			continue
		}
		sv, isStr := v.(string)
		if !isStr && v != nil {
			continue
		}
		if k.key == "name" && isStr {
			name = &sv
		}
		fields = append(fields, field{k.p, sv})
	}
	if len(fields) == 0 {
		c.send(http.StatusBadRequest, "Invalid request payload. No valid keys found")
		return
	}
	if name != nil && *name != a.Name {
		for i := range c.s.data.Authors {
			other := &c.s.data.Authors[i]
			if other.ID == a.ID || other.LibraryID != a.LibraryID || other.Name != *name {
				continue
			}
			c.s.mergeAuthor(a.ID, other.ID)
			kept := c.s.author(other.ID)
			c.sendJSON(jobj{{"author", authorJSON(kept)}, {"merged", true}})
			return
		}
	}
	updated := false
	for _, f := range fields {
		if *f.p != f.v {
			*f.p = f.v
			updated = true
		}
	}
	if updated {
		a.UpdatedAt = c.nowMs()
	}
	c.sendJSON(jobj{{"author", authorJSON(a)}, {"updated", updated}})
}

// mergeAuthor gives every book of author from the author into instead
// (bookAuthors: the old rows removed, new ones created at the end,
// duplicates ignored) and deletes author from, taking it out of every
// library's filter-data copy as Database.removeAuthorFromFilterData does.
// Callers hold s.mu.
func (s *Server) mergeAuthor(from, into string) {
	for i := range s.data.Items {
		b := s.data.Items[i].Book
		if b == nil || !contains(b.AuthorIDs, from) {
			continue
		}
		out := make([]string, 0, len(b.AuthorIDs))
		for _, id := range b.AuthorIDs {
			if id != from {
				out = append(out, id)
			}
		}
		if !contains(out, into) {
			out = append(out, into)
		}
		b.AuthorIDs = out
	}
	var keep []Author
	for _, a := range s.data.Authors {
		if a.ID != from {
			keep = append(keep, a)
		}
	}
	s.data.Authors = keep
	s.removeFromFilterCopies("authors", from)
}

// POST /api/items/batch/update: LibraryItemController.batchUpdate. 403
// without update; 400 when the body is not a non-empty list or the
// entries' ids are not all given and distinct; 404 when one is no item;
// 403 when the user may not access one (nothing changed in those cases).
// Each entry's mediaPayload is applied as PATCH /api/items/:id/media
// applies it; the series and authors taken off books are checked once
// every entry is applied. Answers {success: true, updates}. Not
// reproduced: a podcast's fields (as in updateMedia), and an entry
// without mediaPayload (Audiobookshelf fails on it mid-way).
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
	var ids []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		if id, _ := m["id"].(string); id != "" && !contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) != len(list) {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	items := make([]*LibraryItem, len(ids))
	for i, id := range ids {
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
	pending := &pendingRemovals{}
	c.s.pending = pending
	updates := 0
	for i, e := range list {
		payload, _ := e.(map[string]any)["mediaPayload"].(map[string]any)
		if c.s.applyMediaUpdate(items[i], payload) {
			updates++
		}
	}
	c.s.pending = nil
	c.s.removeEmptySeries(pending.series)
	c.s.removeAuthorsWithNoBooks(pending.authors)
	c.sendJSON(jobj{{"success", true}, {"updates", updates}})
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
	// Database.replaceTagInFilterData / replaceGenreInFilterData, before
	// the items are read.
	c.s.replaceInFilterCopies(oldKey+"s", oldName, newName)
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
			changed, hadNew := renameIn(l, oldName, newName)
			merged = merged || hadNew
			if !changed {
				continue
			}
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

// PATCH /api/libraries/:id/narrators/:narratorId {name}:
// LibraryController.updateNarrator (Audiobookshelf 2.36), behind the
// library middleware (403 without access to the library, 404 "Library not
// found"). 403 without canUpdate (no admin needed); narratorId is
// libraryFilters.decode'd (a malformed %-escape throws: the process dies);
// 400 "Invalid request payload. Name not specified." when name is falsy.
// The library of the path is only checked: every book of the server
// holding the name (getAllLibraryItemsWithNarrators: every library, in the
// order the books were stored, whatever the user may see) has every copy
// of it removed and name appended unless it holds name already. It answers
// {updated}. A name that is not a string is stored as its text here
// (Audiobookshelf would store the JSON value; the tools never send one).
func hNarratorRename(c *ctx) {
	if !c.user.canUpdate() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	oldName, ok := decodeFilterValue(c.params["narratorId"])
	if !ok {
		c.crash()
	}
	name := field(c.body, "name")
	if !truthy(name) {
		c.send(http.StatusBadRequest, "Invalid request payload. Name not specified.")
		return
	}
	newName := toJSString(name)
	// Database.replaceNarratorInFilterData.
	c.s.replaceInFilterCopies("narrators", oldName, newName)
	now := c.nowMs()
	updated := 0
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.Book == nil {
			continue
		}
		if changed, _ := renameIn(&li.Book.Narrators, oldName, newName); !changed {
			continue
		}
		li.Book.UpdatedAt = now
		updated++
	}
	c.sendJSON(jobj{{"updated", updated}})
}

// renameIn is what Audiobookshelf's renames do to one list: every copy of
// oldName removed and newName appended at the end unless the list holds it
// already. changed is whether the list held oldName; hadNew whether it
// held newName (a merge).
func renameIn(l *[]string, oldName, newName string) (changed, hadNew bool) {
	for _, v := range *l {
		changed = changed || v == oldName
		hadNew = hadNew || v == newName
	}
	if !changed {
		return false, hadNew
	}
	out := make([]string, 0, len(*l)+1)
	for _, v := range *l {
		if v != oldName {
			out = append(out, v)
		}
	}
	if !hadNew {
		out = append(out, newName)
	}
	*l = out
	return true, hadNew
}
