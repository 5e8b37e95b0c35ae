package standin

import "net/http"

// curationRoutes are the routes of the curation toolset's batch fixes.
func curationRoutes() []route {
	const P = http.MethodPost
	return []route{
		api(P, "/tags/rename", hTagRename),
		api(P, "/genres/rename", hGenreRename),
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
