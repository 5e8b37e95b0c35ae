package standin

import (
	"net/http"
	"strings"
)

// withItem is LibraryItemController.middleware: 404 for an unknown item, 403
// when the user may not access it; DELETE needs canDelete, PATCH and POST
// canUpdate.
func withItem(h func(*ctx)) func(*ctx) {
	return func(c *ctx) {
		li := c.s.item(c.params["id"])
		if li == nil {
			c.sendStatus(http.StatusNotFound)
			return
		}
		if !c.user.canAccessItem(li) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		if (c.r.Method == http.MethodDelete && !c.user.canDelete()) ||
			((c.r.Method == http.MethodPatch || c.r.Method == http.MethodPost) && !c.user.canUpdate()) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		c.li = li
		h(c)
	}
}

// GET /api/items/:id: LibraryItemController.findOne. expanded=1 gives
// toOldJSONExpanded (include=progress then adds userMediaProgress, for the
// episode in ?episode= when given); otherwise toOldJSON.
func hItem(c *ctx) {
	inc := strings.Split(c.queryOr("include", ""), ",")
	if v, _ := c.query("expanded"); looseEqual(v, 1.0) {
		j := c.s.itemExpanded(c.li, viewOpts{})
		if contains(inc, "progress") {
			ep, _ := c.query("episode")
			if mp := c.oldProgress(c.li.ID, ep); mp != nil {
				j.set("userMediaProgress", progressJSON(c.user.ID, mp))
			} else {
				j.set("userMediaProgress", nil)
			}
		}
		if contains(inc, "rssfeed") {
			j.set("rssFeed", nil)
		}
		if c.li.MediaType == "book" && c.user.isAdminOrUp() && contains(inc, "share") {
			j.set("mediaItemShare", nil)
		}
		if c.li.MediaType == "podcast" && contains(inc, "downloads") {
			j.set("episodeDownloadsQueued", []jobj{})
		}
		c.sendJSON(j)
		return
	}
	c.sendJSON(c.s.itemOld(c.li, viewOpts{}))
}

// POST /api/items/batch/get: LibraryItemController.batchGet. 403 ("Invalid
// payload") without ids; ids that are no item are skipped; the items found
// come in the order they are stored (findAllExpandedWhere), expanded; 403
// when the user may not access one of them.
func hItemsBatchGet(c *ctx) {
	m, _ := c.body.(map[string]any)
	list, _ := m["libraryItemIds"].([]any)
	if len(list) == 0 {
		c.send(http.StatusForbidden, "Invalid payload")
		return
	}
	want := map[string]bool{}
	for _, v := range list {
		if id, ok := v.(string); ok {
			want[id] = true
		}
	}
	out := []jobj{}
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if !want[li.ID] {
			continue
		}
		if !c.user.canAccessItem(li) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		out = append(out, c.s.itemExpanded(li, viewOpts{}))
	}
	c.sendJSON(jobj{{"libraryItems", out}})
}

// oldProgress is User.getOldMediaProgress(libraryItemId, episodeId): the
// first progress row of the item, restricted to the episode when one is
// given. For a podcast without an episode id this is whichever episode's
// progress comes first.
func (c *ctx) oldProgress(itemID, episodeID string) *MediaProgress {
	for i := range c.user.MediaProgress {
		mp := &c.user.MediaProgress[i]
		if episodeID != "" && mp.MediaItemID != episodeID {
			continue
		}
		if mp.LibraryItemID == itemID {
			return mp
		}
	}
	return nil
}

// withPodcast is PodcastController.middleware: 404 for an unknown item, 500
// for an item that is not a podcast, 403 without access; DELETE needs
// canDelete, PATCH and POST canUpdate.
func withPodcast(h func(*ctx)) func(*ctx) {
	return func(c *ctx) {
		li := c.s.item(c.params["id"])
		if li == nil {
			c.sendStatus(http.StatusNotFound)
			return
		}
		if li.Podcast == nil {
			c.sendStatus(http.StatusInternalServerError)
			return
		}
		if !c.user.canAccessItem(li) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		if (c.r.Method == http.MethodDelete && !c.user.canDelete()) ||
			((c.r.Method == http.MethodPatch || c.r.Method == http.MethodPost) && !c.user.canUpdate()) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		c.li = li
		h(c)
	}
}

// GET /api/podcasts/:id/episode/:episodeId: PodcastController.getEpisode.
func hPodcastEpisode(c *ctx) {
	for _, ep := range c.li.Podcast.Episodes {
		if ep.ID == c.params["episodeId"] {
			c.sendJSON(episodeOld(c.li.ID, c.li.Podcast.ID, ep))
			return
		}
	}
	c.sendStatus(http.StatusNotFound)
}

// GET /api/authors/:id: AuthorController.middleware and findOne.
// include=items adds libraryItems (the author's books, newest first), and
// include=items,series adds series with their items.
func hAuthor(c *ctx) {
	a := c.s.author(c.params["id"])
	if a == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	inc := strings.Split(c.queryOr("include", ""), ",")
	j := authorJSON(a)
	if contains(inc, "items") {
		lib := c.s.library(a.LibraryID)
		var rows []*bookRow
		if lib != nil {
			rows, _ = c.queryBooks(lib, bookQuery{group: "authors", value: a.ID, hasValue: true, sortBy: "addedAt", desc: true})
		}
		if contains(inc, "series") {
			type group struct {
				id, name string
				items    []jobj
				seqs     []string
			}
			var order []string
			groups := map[string]*group{}
			for _, r := range rows {
				for _, sv := range c.s.bookView(r.li, viewOpts{}).series {
					it := c.s.itemMinified(r.li, viewOpts{})
					media := it.get("media").(jobj)
					md := media.get("metadata").(jobj)
					md.set("series", jobj{{"id", sv.s.ID}, {"name", sv.s.Name}, {"nameIgnorePrefix", titleIgnorePrefix(sv.s.Name)}, {"sequence", ns(sv.seq)}})
					media.set("metadata", md)
					it.set("media", media)
					g := groups[sv.s.ID]
					if g == nil {
						g = &group{id: sv.s.ID, name: sv.s.Name}
						groups[sv.s.ID] = g
						order = append(order, sv.s.ID)
					}
					g.items = append(g.items, it)
					g.seqs = append(g.seqs, sv.seq)
				}
			}
			series := []jobj{}
			for _, id := range order {
				g := groups[id]
				idx := make([]int, len(g.items))
				for i := range idx {
					idx[i] = i
				}
				stableSortBy(idx, func(x, y int) int { return naturalCompare(g.seqs[x], g.seqs[y]) })
				items := []jobj{}
				for _, i := range idx {
					items = append(items, g.items[i])
				}
				series = append(series, jobj{{"id", g.id}, {"name", g.name}, {"items", items}})
			}
			j.set("series", series)
		}
		items := []jobj{}
		for _, r := range rows {
			items = append(items, c.s.itemMinified(r.li, viewOpts{}))
		}
		j.set("libraryItems", items)
	}
	c.sendJSON(j)
}

// GET /api/tags: MiscController.getAllTags (admins only).
func hTags(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	c.sendJSON(jobj{{"tags", c.allStrings(func(li *LibraryItem) []string { return mediaTags(li) })}})
}

// GET /api/genres: MiscController.getAllGenres (admins only).
func hGenres(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	c.sendJSON(jobj{{"genres", c.allStrings(func(li *LibraryItem) []string {
		if li.Book != nil {
			return li.Book.Genres
		}
		return li.Podcast.Genres
	})}})
}

// allStrings collects distinct values from all books, then all podcasts.
func (c *ctx) allStrings(get func(*LibraryItem) []string) []string {
	out := []string{}
	for _, wantBook := range []bool{true, false} {
		for i := range c.s.data.Items {
			li := &c.s.data.Items[i]
			if (li.Book != nil) != wantBook {
				continue
			}
			for _, v := range get(li) {
				if !contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
