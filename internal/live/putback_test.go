package live

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestLivePutBack runs, against a real Audiobookshelf, the free writes of
// bookmarks, collections and playlists and then the put-back each answer names, and
// compares Audiobookshelf's raw records before and after field by field
// (ignoring only updatedAt/lastUpdate, which it moves on every save). It
// makes its own throwaway bookmark, collection and playlist and removes
// them.
func TestLivePutBack(t *testing.T) {
	target, key, a := liveABS(t)
	base := target.String()
	lib := a.libraries()["book"]
	claimed := claimBooks(a, lib, 2, nil)
	book, other := claimed[0], claimed[1]
	var asked atomic.Int32
	// Upkeep on too (update_item_metadata, below); the person approves.
	cs := connectEvery(t, base, key, &asked)
	call := func(tool string, args any) map[string]any {
		t.Helper()
		return callJSON(t, cs, tool, args)
	}
	putBack := func(v map[string]any) {
		t.Helper()
		pb, ok := v["put_back"].(map[string]any)
		if !ok {
			t.Fatalf("the answer names no put_back: %v", v)
		}
		call(fmt.Sprint(pb["tool"]), pb["arguments"])
	}
	bookmarks := func() map[string]any {
		var me struct{ Bookmarks []map[string]any }
		a.get("/api/me", &me)
		out := map[string]any{}
		for _, b := range me.Bookmarks {
			if b["libraryItemId"] == book {
				out[fmt.Sprint(b["time"])] = b
			}
		}
		return out
	}
	compare := func(what string, before, after map[string]any) {
		t.Helper()
		if n := compareRaw(t, what, before, after); n > 0 {
			t.Errorf("%s: %d field(s) differ after the put-back", what, n)
		} else {
			t.Logf("%s: %d field(s) compared, all the same", what, leaves(before))
		}
	}

	// create_bookmark, then its put-back (delete_bookmark, approved).
	tm := 7.25 + float64(time.Now().UnixNano()%1000)/1000
	// Whatever fails, what this run made goes: its bookmark time, and the
	// collections and playlists named with this run's name.
	name := fmt.Sprintf("put-back test %d", time.Now().UnixNano())
	t.Cleanup(func() {
		a.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%v", book, tm), nil, nil)
		var cl struct{ Collections []map[string]any }
		a.do("GET", "/api/collections", nil, &cl)
		for _, c := range cl.Collections {
			if c["name"] == name {
				a.do("DELETE", fmt.Sprintf("/api/collections/%v", c["id"]), nil, nil)
			}
		}
		var pl struct{ Playlists []map[string]any }
		a.do("GET", "/api/playlists", nil, &pl)
		for _, p := range pl.Playlists {
			if p["name"] == name {
				a.do("DELETE", fmt.Sprintf("/api/playlists/%v", p["id"]), nil, nil)
			}
		}
	})
	// A throwaway bookmark at another time, there before create_bookmark:
	// the list compared holds at least this one record, which the create
	// and its put-back must leave as it was.
	kept := tm + 100
	t.Cleanup(func() { a.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%v", book, kept), nil, nil) })
	if st := a.do("POST", "/api/me/item/"+book+"/bookmark", map[string]any{"time": kept, "title": "put-back test, kept"}, nil); st/100 != 2 {
		t.Fatalf("making a throwaway bookmark: %d", st)
	}
	before := bookmarks()
	putBack(call("create_bookmark", map[string]any{"library_item_id": book, "time": tm, "title": "put-back test"}))
	compare("bookmarks after create_bookmark", before, bookmarks())

	// update_bookmark of a throwaway bookmark, then its put-back.
	if st := a.do("POST", "/api/me/item/"+book+"/bookmark", map[string]any{"time": tm, "title": "put-back test <b>old</b>  title"}, nil); st/100 != 2 {
		t.Fatalf("making a throwaway bookmark: %d", st)
	}
	before = bookmarks()
	putBack(call("update_bookmark", map[string]any{"library_item_id": book, "time": tm, "title": "renamed"}))
	compare("bookmarks after update_bookmark", before, bookmarks())

	// A throwaway collection, there before create_collection: the list
	// compared holds at least this one record, which the create and its
	// put-back must leave as it was.
	var c map[string]any
	if st := a.do("POST", "/api/collections", map[string]any{"libraryId": lib, "name": name, "description": "put-back <b>test</b>\n  collection",
		"books": []string{book}}, &c); st/100 != 2 {
		t.Fatalf("making a throwaway collection: %d", st)
	}
	id := fmt.Sprint(c["id"])

	// create_collection, then its put-back (delete_collection, approved):
	// the raw record of every collection this run made (its books
	// expanded, its description and dates), by id.
	collections := func() map[string]any {
		var l struct{ Collections []map[string]any }
		a.get("/api/collections", &l)
		out := map[string]any{}
		for _, c := range l.Collections {
			if wasMade(fmt.Sprint(c["id"])) { // another run's are not this one's to compare
				out[fmt.Sprint(c["id"])] = c
			}
		}
		return out
	}
	before = collections()
	if before[id] == nil {
		t.Fatalf("the throwaway collection %s is not in GET /api/collections", id)
	}
	v := call("create_collection", map[string]any{"library_id": lib, "name": name, "library_item_ids": []string{book}})
	if mid := collections(); len(mid) != len(before)+1 {
		t.Fatalf("create_collection: %d collections before, %d after", len(before), len(mid))
	}
	putBack(v)
	compare("collections after create_collection", before, collections())

	// add_books_to_collection on the throwaway collection, then its put-back.
	var cb map[string]any
	a.get("/api/collections/"+id, &cb)
	putBack(call("add_books_to_collection", map[string]any{"collection_id": id, "library_item_ids": []string{other, book}}))
	var ca map[string]any
	a.get("/api/collections/"+id, &ca)
	compare("collection after add_books_to_collection", cb, ca)

	// A throwaway playlist, there before create_playlist (as for the
	// collections).
	var p map[string]any
	if st := a.do("POST", "/api/playlists", map[string]any{"libraryId": lib, "name": name, "description": "put-back <i>test</i>\n  playlist",
		"items": []map[string]any{{"libraryItemId": book}}}, &p); st/100 != 2 {
		t.Fatalf("making a throwaway playlist: %d", st)
	}
	pid := fmt.Sprint(p["id"])

	// create_playlist, then its put-back (delete_playlist, approved):
	// the raw record of every playlist of the user this run made (its
	// entries expanded), by id.
	playlists := func() map[string]any {
		var l struct{ Playlists []map[string]any }
		a.get("/api/playlists", &l)
		out := map[string]any{}
		for _, p := range l.Playlists {
			if wasMade(fmt.Sprint(p["id"])) { // another run's are not this one's to compare
				out[fmt.Sprint(p["id"])] = p
			}
		}
		return out
	}
	before = playlists()
	if before[pid] == nil {
		t.Fatalf("the throwaway playlist %s is not in GET /api/playlists", pid)
	}
	v = call("create_playlist", map[string]any{"library_id": lib, "name": name, "items": []map[string]any{{"library_item_id": book}}})
	if mid := playlists(); len(mid) != len(before)+1 {
		t.Fatalf("create_playlist: %d playlists before, %d after", len(before), len(mid))
	}
	putBack(v)
	compare("playlists after create_playlist", before, playlists())

	// add_items_to_playlist on the throwaway playlist, then its put-back.
	var pb, pa map[string]any
	a.get("/api/playlists/"+pid, &pb)
	putBack(call("add_items_to_playlist", map[string]any{"playlist_id": pid, "items": []map[string]any{{"library_item_id": other}}}))
	a.get("/api/playlists/"+pid, &pa)
	compare("playlist after add_items_to_playlist", pb, pa)

	// Where the put-back could not restore the record, the call asks: an
	// addition to a throwaway playlist that holds no entries (taking them
	// out again deletes the playlist; the cleanup above removes it by name),
	// and taking a made-up author off the one book it is on (Audiobookshelf
	// deletes the author).
	var ep map[string]any
	if st := a.do("POST", "/api/playlists", map[string]any{"libraryId": lib, "name": name}, &ep); st/100 != 2 {
		t.Fatalf("making an empty throwaway playlist: %d", st)
	}
	n := asked.Load()
	v = call("add_items_to_playlist", map[string]any{"playlist_id": fmt.Sprint(ep["id"]), "items": []map[string]any{{"library_item_id": book}}})
	if asked.Load() != n+1 || v["put_back"] != nil || v["not_put_back"] == nil {
		t.Errorf("adding to an empty playlist: asked %d time(s), want 1, and an answer with not_put_back and no put_back: %v", asked.Load()-n, v)
	}
	var itemBefore map[string]any
	a.get("/api/items/"+book, &itemBefore)
	var authors []map[string]any
	for _, au := range at(itemBefore, "media", "metadata", "authors").([]any) {
		authors = append(authors, map[string]any{"name": au.(map[string]any)["name"]})
	}
	t.Cleanup(func() {
		a.do("PATCH", "/api/items/"+book+"/media", map[string]any{"metadata": map[string]any{"authors": authors}}, nil)
	})
	var added struct {
		LibraryItem map[string]any `json:"libraryItem"`
	}
	if st := a.do("PATCH", "/api/items/"+book+"/media", map[string]any{"metadata": map[string]any{
		"authors": append(append([]map[string]any{}, authors...), map[string]any{"name": name + " author"})}}, &added); st/100 != 2 {
		t.Fatalf("adding a made-up author: %d", st)
	}
	madeUp := ""
	for _, au := range at(added.LibraryItem, "media", "metadata", "authors").([]any) {
		if au.(map[string]any)["name"] == name+" author" {
			madeUp = fmt.Sprint(au.(map[string]any)["id"])
		}
	}
	if madeUp == "" {
		t.Fatalf("the made-up author is not on the book: %v", at(added.LibraryItem, "media", "metadata", "authors"))
	}
	var names []string
	for _, au := range authors {
		names = append(names, fmt.Sprint(au["name"]))
	}
	n = asked.Load()
	v = call("update_item_metadata", map[string]any{"library_item_id": book, "fields": map[string]any{"authors": names}})
	if asked.Load() != n+1 || fmt.Sprint(at(v, "deleted", "author_ids")) != "["+madeUp+"]" {
		t.Errorf("taking the made-up author %s off its one book: asked %d time(s), want 1, and an answer naming it deleted: %v", madeUp, asked.Load()-n, v)
	}
	if st := a.do("GET", "/api/authors/"+madeUp, nil, nil); st != http.StatusNotFound {
		t.Errorf("the made-up author %s is still there (GET answered %d), but Audiobookshelf deletes an author left with no book", madeUp, st)
	}
	var itemAfter map[string]any
	a.get("/api/items/"+book, &itemAfter)
	compare("book after its made-up author was taken off again", itemBefore, itemAfter)
	t.Logf("put-backs compared: 6; the two calls whose put-back could not restore asked; questions approved: %d", asked.Load())
}
