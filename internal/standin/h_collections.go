package standin

// Collection routes: server/controllers/CollectionController.js and
// server/models/Collection.js.

import (
	"net/http"
	"sort"
)

// withCollection is CollectionController.middleware: 404 "Collection not
// found" (also for a collection in a library the user may not use); DELETE
// needs canDelete (except removing one book), PATCH and POST need canUpdate.
func withCollection(h func(*ctx)) func(*ctx) {
	return func(c *ctx) {
		c.coll = -1
		if id, ok := c.params["id"]; ok {
			i := c.s.collectionIndex(id)
			if i < 0 || !c.user.canAccessLibrary(c.s.data.Collections[i].LibraryID) {
				c.send(http.StatusNotFound, "Collection not found")
				return
			}
			c.coll = i
		}
		_, bookID := c.params["bookId"]
		if c.r.Method == http.MethodDelete && !bookID && !c.user.canDelete() {
			c.sendStatus(http.StatusForbidden)
			return
		}
		if (c.r.Method == http.MethodPatch || c.r.Method == http.MethodPost) && !c.user.canUpdate() {
			c.sendStatus(http.StatusForbidden)
			return
		}
		h(c)
	}
}

func (c *ctx) collection() *Collection { return &c.s.data.Collections[c.coll] }

// bookVisible is the user filter of Collection.getOldJsonExpanded.
func (c *ctx) bookVisible(li *LibraryItem) bool {
	if len(li.Book.Tags) > 0 && !c.user.canAccessItemWithTags(li.Book.Tags) {
		return false
	}
	if li.Book.Explicit && !c.user.canAccessExplicitContent() {
		return false
	}
	return true
}

// collectionForUser is Collection.getOldJsonExpanded(user): the books the user
// may see; ok is false when the user may see none of them.
func (c *ctx) collectionForUser(col *Collection) (jobj, bool) {
	visible, ok := c.visibleBooks(col)
	if !ok {
		return nil, false
	}
	return c.s.collectionExpanded(visible), true
}

// collectionVisible is collectionForUser's test alone: not every book of
// the collection is hidden from the user.
func (c *ctx) collectionVisible(col *Collection) bool {
	_, ok := c.visibleBooks(col)
	return ok
}

// visibleBooks is the collection with only the books the user may see;
// false when it has books and the user may see none.
func (c *ctx) visibleBooks(col *Collection) (*Collection, bool) {
	visible := *col
	visible.Books = nil
	total := 0
	for _, id := range col.Books {
		li := c.s.item(id)
		if li == nil || li.Book == nil {
			continue
		}
		total++
		if c.bookVisible(li) {
			visible.Books = append(visible.Books, id)
		}
	}
	if len(visible.Books) == 0 && total > 0 {
		return nil, false
	}
	return &visible, true
}

// GET /api/collections: CollectionController.findAll. Upstream's filter of
// Collection.getOldCollectionsJsonExpanded assigns the filtered books to the
// class instead of the collection, so a visible collection keeps all its
// books; a collection whose books are all hidden is left out.
func hCollections(c *ctx) {
	out := []jobj{}
	for i := range c.s.data.Collections {
		col := &c.s.data.Collections[i]
		if !c.user.canAccessLibrary(col.LibraryID) {
			continue
		}
		if !c.collectionVisible(col) {
			continue
		}
		out = append(out, c.s.collectionExpanded(col))
	}
	c.sendJSON(jobj{{"collections", out}})
}

// GET /api/collections/:id: CollectionController.findOne.
func hCollection(c *ctx) {
	j, ok := c.collectionForUser(c.collection())
	if !ok {
		c.sendStatus(http.StatusNotFound)
		return
	}
	c.sendJSON(j)
}

// bookIDList is `(req.body.books || []).filter((b) => !!b && typeof b == 'string')`;
// a truthy value that is not an array has no filter method: the process dies.
func (c *ctx) bookIDList(v any) []string {
	if !truthy(v) {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		c.crash()
	}
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// POST /api/collections: CollectionController.create.
func hCollectionCreate(c *ctx) {
	name := stripAllTags(field(c.body, "name"))
	libID := field(c.body, "libraryId")
	if name == "" || !truthy(libID) {
		c.send(http.StatusBadRequest, "Invalid collection data")
		return
	}
	desc := field(c.body, "description")
	if truthy(desc) && jsTypeof(desc) != "string" {
		c.send(http.StatusBadRequest, "Invalid collection description")
		return
	}
	libraryID := toJSString(libID)
	if !c.user.canAccessLibrary(libraryID) {
		c.sendStatus(http.StatusForbidden)
		return
	}
	ids := c.bookIDList(field(c.body, "books"))
	if len(ids) == 0 {
		c.send(http.StatusBadRequest, "Invalid collection data. No books")
		return
	}
	// findAll returns each matching item once: duplicates make the counts differ.
	found := map[string]bool{}
	for _, id := range ids {
		if li := c.s.item(id); li != nil && li.LibraryID == libraryID && li.MediaType == "book" {
			found[id] = true
		}
	}
	if len(found) != len(ids) {
		c.send(http.StatusBadRequest, "Invalid collection data. Invalid books")
		return
	}
	now := c.nowMs()
	col := Collection{ID: c.s.newID(), LibraryID: libraryID, Name: name, Books: ids, LastUpdate: now, CreatedAt: now}
	if truthy(desc) {
		d := desc.(string)
		col.Description = &d
	}
	c.s.data.Collections = append(c.s.data.Collections, col)
	c.sendJSON(c.s.collectionExpanded(&c.s.data.Collections[len(c.s.data.Collections)-1]))
}

// PATCH /api/collections/:id: CollectionController.update. name and
// description are saved first. A books list is only a sort key over the
// current books (findIndex: unknown ids are ignored, a book left out gets -1
// and moves to the front), then the books are renumbered. A books value that
// has a length but is not an array makes the sort comparator throw (when the
// collection has two books or more): the process dies, after the name was
// saved.
func hCollectionUpdate(c *ctx) {
	col := c.collection()
	now := c.nowMs()
	updated := false
	if desc := field(c.body, "description"); !isUndefined(desc) {
		cur := any(nil)
		if col.Description != nil {
			cur = *col.Description
		}
		if !strictEqual(desc, cur) {
			if desc == nil {
				col.Description = nil
			} else {
				d := toJSString(desc)
				col.Description = &d
			}
			updated = true
		}
	}
	if n, ok := field(c.body, "name").(string); ok {
		if cleaned := stripAllTags(n); cleaned != col.Name {
			col.Name = cleaned
			updated = true
		}
	}
	if updated {
		col.LastUpdate = now
	}
	books := field(c.body, "books")
	if jsLengthTruthy(books) {
		arr, isArray := books.([]any)
		if !isArray {
			if len(col.Books) >= 2 {
				c.crash()
			}
		} else {
			index := func(id string) int {
				for i, v := range arr {
					if s, ok := v.(string); ok && s == id {
						return i
					}
				}
				return -1
			}
			sorted := append([]string(nil), col.Books...)
			sort.SliceStable(sorted, func(i, j int) bool { return index(sorted[i]) < index(sorted[j]) })
			changed := false
			for i := range sorted {
				if sorted[i] != col.Books[i] {
					changed = true
				}
			}
			if changed {
				col.Books = sorted
				col.LastUpdate = now
			}
		}
	}
	c.sendJSON(c.s.collectionExpanded(col))
}

// jsLengthTruthy is `x?.length` being truthy.
func jsLengthTruthy(v any) bool {
	switch x := v.(type) {
	case string:
		return len([]rune(x)) > 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return truthy(x["length"])
	}
	return false
}

// DELETE /api/collections/:id: CollectionController.delete (200 "OK").
func hCollectionDelete(c *ctx) {
	c.s.data.Collections = append(c.s.data.Collections[:c.coll], c.s.data.Collections[c.coll+1:]...)
	c.sendStatus(http.StatusOK)
}

// POST /api/collections/:id/book {id}: CollectionController.addBook.
func hCollectionAddBook(c *ctx) {
	col := c.collection()
	id, _ := field(c.body, "id").(string)
	li := c.s.item(id)
	if li == nil {
		c.send(http.StatusNotFound, "Book not found")
		return
	}
	if li.LibraryID != col.LibraryID {
		c.send(http.StatusBadRequest, "Book in different library")
		return
	}
	if contains(col.Books, li.ID) {
		c.send(http.StatusBadRequest, "Book already in collection")
		return
	}
	col.Books = append(col.Books, li.ID)
	c.sendJSON(c.s.collectionExpanded(col))
}

// DELETE /api/collections/:id/book/:bookId: CollectionController.removeBook
// (bookId is a library item id; canUpdate is enough).
func hCollectionRemoveBook(c *ctx) {
	col := c.collection()
	li := c.s.item(c.params["bookId"])
	if li == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	for i, id := range col.Books {
		if id == li.ID {
			col.Books = append(col.Books[:i], col.Books[i+1:]...)
			break
		}
	}
	c.sendJSON(c.s.collectionExpanded(col))
}

// sortedByID returns the matching items in the order SQLite returns
// `WHERE id IN (...)` through the primary key index: by id.
func sortedByID(items []*LibraryItem) []*LibraryItem {
	out := append([]*LibraryItem(nil), items...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// POST /api/collections/:id/batch/add {books}: CollectionController.addBatch.
// Books of the collection's library that are not in it yet are appended.
func hCollectionBatchAdd(c *ctx) {
	col := c.collection()
	ids := c.bookIDList(field(c.body, "books"))
	if len(ids) == 0 {
		c.send(http.StatusBadRequest, "Invalid request body")
		return
	}
	var found []*LibraryItem
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if contains(ids, li.ID) && li.LibraryID == col.LibraryID && li.MediaType == "book" {
			found = append(found, li)
		}
	}
	if len(found) == 0 {
		c.send(http.StatusBadRequest, "Invalid request body. No valid books")
		return
	}
	for _, li := range sortedByID(found) {
		if !contains(col.Books, li.ID) {
			col.Books = append(col.Books, li.ID)
		}
	}
	c.sendJSON(c.s.collectionExpanded(col))
}

// POST /api/collections/:id/batch/remove {books}: CollectionController.removeBatch.
// An empty list is a 500. Books not in the collection are ignored.
func hCollectionBatchRemove(c *ctx) {
	col := c.collection()
	ids := c.bookIDList(field(c.body, "books"))
	if len(ids) == 0 {
		c.send(http.StatusInternalServerError, "Invalid request body")
		return
	}
	var found []*LibraryItem
	for i := range c.s.data.Items {
		if contains(ids, c.s.data.Items[i].ID) {
			found = append(found, &c.s.data.Items[i])
		}
	}
	found = sortedByID(found)
	kept := []string{}
	for i, bid := range col.Books {
		remove := false
		for _, li := range found {
			// libraryItems.some((li) => li.media.id === collectionBook.bookId):
			// a podcast item has no book media, so li.media.id throws (the
			// books removed so far stay removed).
			if li.Book == nil {
				col.Books = append(kept, col.Books[i:]...)
				c.crash()
			}
			if li.ID == bid {
				remove = true
				break
			}
		}
		if !remove {
			kept = append(kept, bid)
		}
	}
	col.Books = kept
	c.sendJSON(c.s.collectionExpanded(col))
}
