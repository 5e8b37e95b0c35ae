package e2e

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The 15 write tools, end to end: a real go-sdk client (2026-07-28, with an
// elicitation handler that approves) → the server → the generated client →
// the stand-in. Each test checks the result, the stand-in's state after the
// call, and the exact mutating requests it received; each failure case
// checks that nothing was sent. The guard's own behaviour (declines,
// tokens, stale state) is in guard_matrix_test.go.

// num is a decoded JSON number, or NaN when v is none.
func num(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return math.NaN()
}

func startApproving(t *testing.T) *apptest.Env {
	t.Helper()
	return start(t, apptest.Options{Elicit: approve})
}

// wantMutations fails unless the stand-in received exactly these mutating
// requests ("METHOD /path"), in order, since the last reset.
func wantMutations(t *testing.T, s *sd.Server, want ...string) {
	t.Helper()
	got := mutations(s)
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutating requests:\n got  %q\n want %q", got, want)
	}
}

// body decodes the JSON body of the last mutating request.
func lastBody(t *testing.T, s *sd.Server) map[string]any {
	t.Helper()
	m := s.Mutations()
	if len(m) == 0 {
		t.Fatal("no mutating request")
	}
	var v map[string]any
	if err := json.Unmarshal(m[len(m)-1].Body, &v); err != nil {
		t.Fatalf("body of %s %s is not a JSON object: %v: %s", m[len(m)-1].Method, m[len(m)-1].Path, err, m[len(m)-1].Body)
	}
	return v
}

// failsWith calls a tool that must fail with a tool error containing every
// want, and checks that nothing was changed on the stand-in.
func failsWith(t *testing.T, e *apptest.Env, tool string, args map[string]any, want ...string) {
	t.Helper()
	e.Standin.ResetRequests()
	res := e.Call(t, tool, args)
	text := apptest.Text(res)
	if !res.IsError {
		t.Fatalf("%s %v: want a tool error, got %s", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s error lacks %q:\n%s", tool, w, text)
		}
	}
	wantMutations(t, e.Standin)
}

func TestSetMediaProgress(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	t.Run("position", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "current_time": 600}))
		if at(t, v, "updated") != true || num(at(t, v, "progress", "current_time_s")) != 600 {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/me/progress/"+sd.ItemMort)
		b := lastBody(t, e.Standin)
		if num(b["currentTime"]) != 600 || b["progress"] == nil {
			t.Errorf("body: %v (want currentTime 600 and a progress computed from it)", b)
		}
		if _, ok := b["isFinished"]; ok {
			t.Errorf("body carries isFinished though none was asked: %v", b)
		}
		p, ok := e.Standin.Progress(sd.ItemMort, "")
		if !ok || p.CurrentTime != 600 || p.Progress <= 0 {
			t.Errorf("stand-in progress: %+v", p)
		}
	})
	t.Run("finish sends isFinished alone", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "set_media_progress", map[string]any{"library_item_id": sd.ItemColourOfMagic, "is_finished": true}))
		if at(t, v, "progress", "finished") != true {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/me/progress/"+sd.ItemColourOfMagic)
		b := lastBody(t, e.Standin)
		if b["isFinished"] != true || b["currentTime"] != nil || b["progress"] != nil {
			t.Errorf("body: %v", b)
		}
	})
	t.Run("un-finish then position: two requests in that order", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "set_media_progress", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "is_finished": false, "current_time": 120}))
		if at(t, v, "progress", "finished") != false || num(at(t, v, "progress", "current_time_s")) != 120 {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/me/progress/"+sd.ItemLeviathanWakes, "PATCH /api/me/progress/"+sd.ItemLeviathanWakes)
		m := e.Standin.Mutations()
		if !strings.Contains(string(m[0].Body), `"isFinished":false`) || strings.Contains(string(m[0].Body), "currentTime") {
			t.Errorf("first body: %s", m[0].Body)
		}
		if p, _ := e.Standin.Progress(sd.ItemLeviathanWakes, ""); p.IsFinished || p.CurrentTime != 120 {
			t.Errorf("stand-in progress: %+v", p)
		}
	})
	t.Run("podcast episode", func(t *testing.T) {
		e.Standin.ResetRequests()
		e.Call(t, "set_media_progress", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital2, "progress": 0.5})
		wantMutations(t, e.Standin, "PATCH /api/me/progress/"+sd.ItemPodcastOrbital+"/"+sd.EpisodeOrbital2)
		if p, ok := e.Standin.Progress(sd.ItemPodcastOrbital, sd.EpisodeOrbital2); !ok || p.Progress != 0.5 || p.CurrentTime <= 0 {
			t.Errorf("stand-in progress: %+v", p)
		}
	})
	t.Run("failures send nothing", func(t *testing.T) {
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "progress": 0.5}, `"episode_id"`, "is a podcast", sd.EpisodeOrbital1)
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "episode_id": sd.EpisodeOrbital1, "progress": 0.5}, `"episode_id"`, "is a book")
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort}, "give at least one of")
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "progress": 1.5}, `"progress"`)
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "current_time": -1}, `"current_time"`)
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "current_time": "600"}, `"current_time"`)
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "current_time": 1e9}, `"current_time"`, "lasts")
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": sd.ItemMort, "is_finished": true, "current_time": 10}, `"is_finished"`, "un-finishes")
		failsWith(t, e, "set_media_progress", map[string]any{"library_item_id": unknownID, "progress": 0.5}, "404", unknownID)
	})
}

func TestDeleteMediaProgress(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	t.Run("item id instead of record id is refused with the record id", func(t *testing.T) {
		failsWith(t, e, "delete_media_progress", map[string]any{"media_progress_id": sd.ItemColourOfMagic},
			`"media_progress_id"`, "is a library item id", sd.ProgressColourOfMagic)
		if _, ok := e.Standin.Progress(sd.ItemColourOfMagic, ""); !ok {
			t.Error("progress gone after a refused call")
		}
	})
	t.Run("unknown record", func(t *testing.T) {
		failsWith(t, e, "delete_media_progress", map[string]any{"media_progress_id": unknownID}, "no progress record "+unknownID)
	})
	t.Run("approved: deletes the record by its id", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "delete_media_progress", map[string]any{"media_progress_id": sd.ProgressColourOfMagic}))
		if at(t, v, "deleted") != true || at(t, v, "library_item_id") != sd.ItemColourOfMagic {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "DELETE /api/me/progress/"+sd.ProgressColourOfMagic)
		if _, ok := e.Standin.Progress(sd.ItemColourOfMagic, ""); ok {
			t.Error("progress still there")
		}
		if _, ok := e.Standin.Progress(sd.ItemLeviathanWakes, ""); !ok {
			t.Error("another record went too")
		}
	})
}

func TestCreateBookmark(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	t.Run("new time", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": 95.5, "title": "Death takes an apprentice"}))
		if at(t, v, "created") != true {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "POST /api/me/item/"+sd.ItemMort+"/bookmark")
		b := lastBody(t, e.Standin)
		if b["time"] != 95.5 || b["title"] != "Death takes an apprentice" {
			t.Errorf("body: %v (time must be a number)", b)
		}
		if bms := e.Standin.Bookmarks(sd.ItemMort); len(bms) != 1 || bms[0].Title != "Death takes an apprentice" {
			t.Errorf("stand-in bookmarks: %+v", bms)
		}
	})
	t.Run("occupied time never overwrites the title", func(t *testing.T) {
		failsWith(t, e, "create_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 1234.5, "title": "Something else"},
			"already has a bookmark at 1234.5", "update_bookmark")
		for _, b := range e.Standin.Bookmarks(sd.ItemColourOfMagic) {
			if b.Title == "Something else" {
				t.Errorf("title overwritten: %+v", b)
			}
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		failsWith(t, e, "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": "95", "title": "x"}, `"time"`)
		failsWith(t, e, "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": -3, "title": "x"}, `"time"`)
		failsWith(t, e, "create_bookmark", map[string]any{"library_item_id": sd.ItemMort, "time": 3}, `"title"`)
		failsWith(t, e, "create_bookmark", map[string]any{"library_item_id": unknownID, "time": 3, "title": "x"}, "404")
	})
}

func TestUpdateBookmark(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "update_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 3600, "title": "Twoflower arrives"}))
	if at(t, v, "updated") != true {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "PATCH /api/me/item/"+sd.ItemColourOfMagic+"/bookmark")
	if b := lastBody(t, e.Standin); b["time"] != 3600.0 || b["title"] != "Twoflower arrives" {
		t.Errorf("body: %v", b)
	}
	found := false
	for _, b := range e.Standin.Bookmarks(sd.ItemColourOfMagic) {
		found = found || b.Title == "Twoflower arrives"
	}
	if !found {
		t.Errorf("stand-in bookmarks: %+v", e.Standin.Bookmarks(sd.ItemColourOfMagic))
	}
	// No bookmark at that time: Audiobookshelf answers 404; the tool says
	// what to do. The PATCH itself is the check, so it is sent.
	e.Standin.ResetRequests()
	res := e.Call(t, "update_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 7, "title": "x"})
	if !res.IsError || !strings.Contains(apptest.Text(res), "no bookmark at 7") || !strings.Contains(apptest.Text(res), "create_bookmark") {
		t.Errorf("missing bookmark: %s", apptest.Text(res))
	}
	if n := len(e.Standin.Bookmarks(sd.ItemColourOfMagic)); n != 2 {
		t.Errorf("bookmarks after a failed update: %d, want 2", n)
	}
	failsWith(t, e, "update_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 3600, "title": ""}, `"title"`)
}

func TestDeleteBookmark(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	failsWith(t, e, "delete_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 1234}, `"time"`, "no bookmark at 1234", "1234.5")
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "delete_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 1234.5}))
	if at(t, v, "deleted") != true {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "DELETE /api/me/item/"+sd.ItemColourOfMagic+"/bookmark/1234.5")
	bms := e.Standin.Bookmarks(sd.ItemColourOfMagic)
	if len(bms) != 1 || bms[0].Title != "Rincewind meets Twoflower" {
		t.Errorf("stand-in bookmarks: %+v", bms)
	}
}

func TestCreateCollection(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "create_collection", map[string]any{"library_id": sd.LibraryBooksID, "name": "Earthsea",
		"library_item_ids": []string{sd.ItemWizardOfEarthsea, sd.ItemTombsOfAtuan}}))
	id := str(at(t, v, "collection", "id"))
	if at(t, v, "created") != true || at(t, v, "collection", "books", 1, "id") != sd.ItemTombsOfAtuan {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "POST /api/collections")
	b := lastBody(t, e.Standin)
	if books, ok := b["books"].([]any); !ok || len(books) != 2 || b["libraryId"] != sd.LibraryBooksID || b["name"] != "Earthsea" {
		t.Errorf("body: %v (books must be a list)", b)
	}
	if c, ok := e.Standin.Collection(id); !ok || !slices.Equal(c.Books, []string{sd.ItemWizardOfEarthsea, sd.ItemTombsOfAtuan}) {
		t.Errorf("stand-in collection %s: %+v", id, c)
	}
	failsWith(t, e, "create_collection", map[string]any{"library_id": sd.LibraryBooksID, "name": "Empty", "library_item_ids": []string{}}, `"library_item_ids"`)
	failsWith(t, e, "create_collection", map[string]any{"library_id": sd.LibraryBooksID, "name": "One", "library_item_ids": sd.ItemMort}, `"library_item_ids"`)
	failsWith(t, e, "create_collection", map[string]any{"library_id": sd.LibraryBooksID, "library_item_ids": []string{sd.ItemMort}}, `"name"`)
}

func TestUpdateCollection(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	c := sd.CollectionDiscworldInOrder
	t.Run("rename does not ask and sends no books", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "update_collection", map[string]any{"collection_id": c, "name": "Discworld (publication order)"}))
		if at(t, v, "collection", "name") != "Discworld (publication order)" {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/collections/"+c)
		if _, has := lastBody(t, e.Standin)["books"]; has {
			t.Errorf("rename sent books: %v", lastBody(t, e.Standin))
		}
	})
	t.Run("approved reorder sends exactly the new order", func(t *testing.T) {
		order := []string{sd.ItemMort, sd.ItemEqualRites, sd.ItemLightFantastic, sd.ItemColourOfMagic}
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "update_collection", map[string]any{"collection_id": c, "library_item_ids": order}))
		if at(t, v, "collection", "books", 0, "id") != sd.ItemMort {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/collections/"+c)
		got, _ := e.Standin.Collection(c)
		if !slices.Equal(got.Books, order) {
			t.Errorf("stand-in order %v, want %v", got.Books, order)
		}
	})
	t.Run("a list that is not the same books is refused before anything is sent", func(t *testing.T) {
		before, _ := e.Standin.Collection(c)
		failsWith(t, e, "update_collection", map[string]any{"collection_id": c, "library_item_ids": []string{sd.ItemMort, sd.ItemEqualRites}},
			`"library_item_ids"`, "leaves out", "remove_books_from_collection")
		failsWith(t, e, "update_collection", map[string]any{"collection_id": c, "library_item_ids": append(slices.Clone(before.Books), sd.ItemGoodOmens)},
			`"library_item_ids"`, sd.ItemGoodOmens, "add_books_to_collection")
		failsWith(t, e, "update_collection", map[string]any{"collection_id": c}, "give at least one of")
		failsWith(t, e, "update_collection", map[string]any{"collection_id": unknownID, "library_item_ids": []string{sd.ItemMort}}, "404")
		if after, _ := e.Standin.Collection(c); !slices.Equal(after.Books, before.Books) {
			t.Errorf("order changed: %v → %v", before.Books, after.Books)
		}
	})
}

func TestAddBooksToCollection(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	c := sd.CollectionDiscworldInOrder
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "add_books_to_collection", map[string]any{"collection_id": c, "library_item_ids": []string{sd.ItemSourcery, sd.ItemWyrdSisters}}))
	if n := len(at(t, v, "collection", "books").([]any)); n != 6 {
		t.Errorf("result has %d books, want 6: %v", n, v)
	}
	wantMutations(t, e.Standin, "POST /api/collections/"+c+"/batch/add")
	if books, ok := lastBody(t, e.Standin)["books"].([]any); !ok || len(books) != 2 {
		t.Errorf("body: %v", lastBody(t, e.Standin))
	}
	got, _ := e.Standin.Collection(c)
	if !slices.Equal(got.Books[4:], []string{sd.ItemSourcery, sd.ItemWyrdSisters}) {
		t.Errorf("stand-in books: %v", got.Books)
	}
	// Text no title can be (a control character) is refused as an id; a
	// printable one is a title, and no book has it.
	failsWith(t, e, "add_books_to_collection", map[string]any{"collection_id": c, "library_item_ids": []string{"a\x00b"}}, `"library_item_ids[0]"`, "letters, digits")
	failsWith(t, e, "add_books_to_collection", map[string]any{"collection_id": c, "library_item_ids": []string{"a/b"}}, `"library_item_ids[0]"`, "no item is named")
	// An unknown collection: the POST is the lookup; Audiobookshelf answers
	// 404 and the tool says so.
	e.Standin.ResetRequests()
	res := e.Call(t, "add_books_to_collection", map[string]any{"collection_id": unknownID, "library_item_ids": []string{sd.ItemMort}})
	if !res.IsError || !strings.Contains(apptest.Text(res), "404") || !strings.Contains(apptest.Text(res), unknownID) {
		t.Errorf("unknown collection: %s", apptest.Text(res))
	}
	if n := len(e.Standin.Collections()); n != 2 {
		t.Errorf("%d collections after a failed add, want 2", n)
	}
}

func TestRemoveBooksFromCollection(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	c := sd.CollectionDiscworldInOrder
	failsWith(t, e, "remove_books_from_collection", map[string]any{"collection_id": c, "library_item_ids": []string{sd.ItemGoodOmens}},
		`"library_item_ids"`, sd.ItemGoodOmens, "not in collection")
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "remove_books_from_collection", map[string]any{"collection_id": c, "library_item_ids": []string{sd.ItemEqualRites}}))
	if n := len(at(t, v, "collection", "books").([]any)); n != 3 {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "POST /api/collections/"+c+"/batch/remove")
	got, _ := e.Standin.Collection(c)
	if !slices.Equal(got.Books, []string{sd.ItemColourOfMagic, sd.ItemLightFantastic, sd.ItemMort}) {
		t.Errorf("stand-in books: %v", got.Books)
	}
}

func TestDeleteCollection(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	failsWith(t, e, "delete_collection", map[string]any{"collection_id": unknownID}, "404")
	failsWith(t, e, "delete_collection", map[string]any{}, `"collection_id"`, "is required")
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "delete_collection", map[string]any{"collection_id": sd.CollectionSpaceOpera}))
	if at(t, v, "deleted") != true {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "DELETE /api/collections/"+sd.CollectionSpaceOpera)
	if _, ok := e.Standin.Collection(sd.CollectionSpaceOpera); ok {
		t.Error("collection still there")
	}
	if _, ok := e.Standin.Collection(sd.CollectionDiscworldInOrder); !ok {
		t.Error("the other collection went too")
	}
}

func TestCreatePlaylist(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "create_playlist", map[string]any{"library_id": sd.LibraryPodcastsID, "name": "Weekend",
		"items": []map[string]any{{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital3}}}))
	id := str(at(t, v, "playlist", "id"))
	if at(t, v, "playlist", "entries", 0, "episode_id") != sd.EpisodeOrbital3 {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "POST /api/playlists")
	if items, ok := lastBody(t, e.Standin)["items"].([]any); !ok || len(items) != 1 {
		t.Errorf("body: %v", lastBody(t, e.Standin))
	}
	if p, ok := e.Standin.Playlist(id); !ok || len(p.Items) != 1 || p.Items[0].EpisodeID != sd.EpisodeOrbital3 {
		t.Errorf("stand-in playlist: %+v", p)
	}
	failsWith(t, e, "create_playlist", map[string]any{"library_id": sd.LibraryPodcastsID, "name": "x",
		"items": []map[string]any{{"library_item_id": sd.ItemPodcastOrbital}}}, `"items[0]"`, "is a podcast", "episode_id")
	failsWith(t, e, "create_playlist", map[string]any{"library_id": sd.LibraryBooksID, "name": "x",
		"items": []map[string]any{{"library_item_id": sd.ItemMort, "episode_id": sd.EpisodeOrbital3}}}, "is a book")
	failsWith(t, e, "create_playlist", map[string]any{"library_id": sd.LibraryBooksID, "name": "x",
		"items": []map[string]any{{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital3}}}, "not in the playlist's library")
	failsWith(t, e, "create_playlist", map[string]any{"library_id": sd.LibraryBooksID, "name": "x", "items": "all"}, `"items"`)
}

func TestUpdatePlaylist(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	p := sd.PlaylistCommute
	t.Run("rename does not ask and sends no items", func(t *testing.T) {
		e.Standin.ResetRequests()
		e.Call(t, "update_playlist", map[string]any{"playlist_id": p, "description": "Short ones first"})
		wantMutations(t, e.Standin, "PATCH /api/playlists/"+p)
		if _, has := lastBody(t, e.Standin)["items"]; has {
			t.Errorf("description change sent items: %v", lastBody(t, e.Standin))
		}
	})
	t.Run("approved reorder", func(t *testing.T) {
		order := []map[string]any{{"library_item_id": sd.ItemProjectHailMary}, {"library_item_id": sd.ItemGoodOmens}, {"library_item_id": sd.ItemMort}}
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "update_playlist", map[string]any{"playlist_id": p, "items": order}))
		if at(t, v, "playlist", "entries", 0, "library_item_id") != sd.ItemProjectHailMary {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "PATCH /api/playlists/"+p)
		got, _ := e.Standin.Playlist(p)
		if got.Items[0].LibraryItemID != sd.ItemProjectHailMary || got.Items[2].LibraryItemID != sd.ItemMort {
			t.Errorf("stand-in order: %+v", got.Items)
		}
	})
	t.Run("wrong length: checked first, no PATCH", func(t *testing.T) {
		before, _ := e.Standin.Playlist(p)
		failsWith(t, e, "update_playlist", map[string]any{"playlist_id": p, "items": []map[string]any{{"library_item_id": sd.ItemMort}}},
			`"items"`, "each of the 3 entries")
		failsWith(t, e, "update_playlist", map[string]any{"playlist_id": p, "items": []map[string]any{
			{"library_item_id": sd.ItemMort}, {"library_item_id": sd.ItemGoodOmens}, {"library_item_id": sd.ItemSourcery}}}, `"items"`)
		for _, r := range e.Standin.Requests() {
			if r.Method == "PATCH" {
				t.Errorf("a PATCH was sent: %s", r.Path)
			}
		}
		if after, _ := e.Standin.Playlist(p); !slices.Equal(after.Items, before.Items) {
			t.Errorf("playlist changed: %v → %v", before.Items, after.Items)
		}
	})
}

func TestAddItemsToPlaylist(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	p := sd.PlaylistCatchUp
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "add_items_to_playlist", map[string]any{"playlist_id": p,
		"items": []map[string]any{{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings5}}}))
	if n := len(at(t, v, "playlist", "entries").([]any)); n != 3 {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "POST /api/playlists/"+p+"/batch/add")
	if got, _ := e.Standin.Playlist(p); len(got.Items) != 3 || got.Items[2].EpisodeID != sd.EpisodeTinyThings5 {
		t.Errorf("stand-in items: %+v", got.Items)
	}
	failsWith(t, e, "add_items_to_playlist", map[string]any{"playlist_id": p,
		"items": []map[string]any{{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": unknownID}}}, "has no episode "+unknownID)
	failsWith(t, e, "add_items_to_playlist", map[string]any{"playlist_id": p, "items": []map[string]any{}}, `"items"`)
}

func TestRemoveItemsFromPlaylist(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	t.Run("some entries", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "remove_items_from_playlist", map[string]any{"playlist_id": sd.PlaylistCommute,
			"items": []map[string]any{{"library_item_id": sd.ItemMort}}}))
		if n := len(at(t, v, "playlist", "entries").([]any)); n != 2 {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "POST /api/playlists/"+sd.PlaylistCommute+"/batch/remove")
	})
	t.Run("the last entries: the playlist is deleted and the result says so", func(t *testing.T) {
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "remove_items_from_playlist", map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
			{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2},
			{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital1}}}))
		if at(t, v, "playlist_deleted") != true {
			t.Errorf("result: %v", v)
		}
		wantMutations(t, e.Standin, "POST /api/playlists/"+sd.PlaylistCatchUp+"/batch/remove")
		if _, ok := e.Standin.Playlist(sd.PlaylistCatchUp); ok {
			t.Error("stand-in kept the emptied playlist (2.36 deletes it)")
		}
	})
	failsWith(t, e, "remove_items_from_playlist", map[string]any{"playlist_id": sd.PlaylistCommute,
		"items": []map[string]any{{"library_item_id": sd.ItemSourcery}}}, `"items"`, sd.ItemSourcery, "not in playlist")
}

func TestDeletePlaylist(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	failsWith(t, e, "delete_playlist", map[string]any{"playlist_id": unknownID}, "404")
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "delete_playlist", map[string]any{"playlist_id": sd.PlaylistCommute}))
	if at(t, v, "deleted") != true {
		t.Errorf("result: %v", v)
	}
	wantMutations(t, e.Standin, "DELETE /api/playlists/"+sd.PlaylistCommute)
	if _, ok := e.Standin.Playlist(sd.PlaylistCommute); ok {
		t.Error("playlist still there")
	}
}

// TestWriteToolsAbsentInReadOnlyMode: with AUDIOBOOKSHELF_READ_ONLY=true a
// write tool is not there to call, and nothing reaches Audiobookshelf.
func TestWriteToolsAbsentInReadOnlyMode(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve, Config: func(c *config.Config) { c.ReadOnly = true }})
	for _, tool := range []string{"delete_collection", "set_media_progress", "create_playlist"} {
		e.Standin.ResetRequests()
		res, err := e.CallErr(tool, map[string]any{"collection_id": sd.CollectionSpaceOpera, "library_item_id": sd.ItemMort, "progress": 1,
			"library_id": sd.LibraryBooksID, "name": "x", "items": []map[string]any{{"library_item_id": sd.ItemMort}}})
		if err == nil && !res.IsError {
			t.Errorf("%s ran in read-only mode: %s", tool, apptest.Text(res))
		}
		if n := len(e.Standin.Requests()); n != 0 {
			t.Errorf("%s sent %d request(s) in read-only mode", tool, n)
		}
	}
	if _, ok := e.Standin.Collection(sd.CollectionSpaceOpera); !ok {
		t.Error("collection deleted in read-only mode")
	}
}

// TestAPIKeyNeverInResults runs every write tool's success and failure
// paths above once more and searches every result and the log for the key.
func TestAPIKeyNeverInResults(t *testing.T) {
	t.Parallel()
	e := startApproving(t)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_me", map[string]any{"detail": "full"}},
		{"set_media_progress", map[string]any{"library_item_id": unknownID, "progress": 0.5}},
		{"create_bookmark", map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 1234.5, "title": "x"}},
		{"delete_collection", map[string]any{"collection_id": unknownID}},
		{"delete_playlist", map[string]any{"playlist_id": sd.PlaylistListenerQueue}},
		{"update_playlist", map[string]any{"playlist_id": sd.PlaylistCommute, "items": []map[string]any{{"library_item_id": sd.ItemMort}}}},
		{"delete_media_progress", map[string]any{"media_progress_id": sd.ProgressGoodOmens}},
	}
	for _, c := range calls {
		res := e.Call(t, c.tool, c.args)
		raw, _ := json.Marshal(res)
		if strings.Contains(string(raw), sd.DefaultAPIKey) {
			t.Errorf("%s: the API key is in the result: %s", c.tool, raw)
		}
	}
	if strings.Contains(e.Log(), sd.DefaultAPIKey) {
		t.Error("the API key is in the log")
	}
}
