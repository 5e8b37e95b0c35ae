package standin

import "net/http"

// curationRoutes are the routes of the curation toolset's batch fixes.
func curationRoutes() []route {
	const P, A = http.MethodPost, http.MethodPatch
	return []route{
		api(P, "/tags/rename", hTagRename),
		api(P, "/genres/rename", hGenreRename),
		api(A, "/libraries/:id/narrators/:narratorId", withLibrary(hNarratorRename)),
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
	now := c.nowMs()
	updated := 0
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.Book == nil {
			continue
		}
		l := &li.Book.Narrators
		hasOld, hasNew := false, false
		for _, v := range *l {
			hasOld = hasOld || v == oldName
			hasNew = hasNew || v == newName
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
		li.Book.UpdatedAt = now
		updated++
	}
	c.sendJSON(jobj{{"updated", updated}})
}
