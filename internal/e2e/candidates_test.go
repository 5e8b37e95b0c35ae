package e2e

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// find_match_candidates shows every result of the provider beside the
// book, best fit first: the unabridged reading with the book's ASIN and
// duration fits, its dramatisation (another duration, another narrator)
// does not. Each carries the update_item_metadata call that fills the
// book's empty fields, and that call, made, answers with its put-back.
func TestFindMatchCandidates(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemLeviathanWakes {
				d.Items[i].Book.Subtitle = ""
			}
		}
	})
	e.Standin.ResetRequests()
	v := decode(t, e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "provider": "audible"}))
	search := lastRequest(t, e.Standin, "GET", "/api/search/books")
	if q := search.Query; q.Get("provider") != "audible" || q.Get("title") != "Leviathan Wakes" || q.Get("author") != "James S. A. Corey" || q.Get("id") != sd.ItemLeviathanWakes {
		t.Errorf("the search sent: %v", q)
	}
	cands, _ := at(t, v, "candidates").([]any)
	if len(cands) != 3 {
		t.Fatalf("candidates: %v", v)
	}
	first, last := cands[0], cands[2]
	if at(t, first, "asin") != "B004YE8ZYA" || at(t, first, "fit").(float64) < 0.9 || at(t, first, "narrator") != "Jefferson Mays" ||
		str(at(t, first, "series")) != "[The Expanse #1]" || at(t, first, "duration_minutes").(float64) != 1211 {
		t.Errorf("best fit: %v", first)
	}
	if why := str(at(t, first, "why")); !strings.Contains(why, "ASIN the same") || !strings.Contains(why, "duration 0.5 min off") || !strings.Contains(why, "narrator the same") {
		t.Errorf("why it fits: %s", why)
	}
	if at(t, last, "asin") != "B08GRAPHIC" || at(t, last, "fit").(float64) > 0.6 {
		t.Errorf("the dramatisation fits too well: %v", last)
	}
	if why := str(at(t, last, "why")); !strings.Contains(why, "ASIN different") || !strings.Contains(why, "narrator different") {
		t.Errorf("why the dramatisation does not fit: %s", why)
	}
	// The book's ASIN and publisher hold values: the fill leaves them,
	// differs names the publisher; the empty subtitle is filled.
	if at(t, first, "fill", "arguments", "fields", "subtitle") != "Expanse, Book 1" || !strings.Contains(str(at(t, first, "differs")), "publisher") {
		t.Errorf("fill and differs: %v", first)
	}
	if _, ok := at(t, first, "fill", "arguments", "fields").(map[string]any)["asin"]; ok {
		t.Errorf("a filled field in the fill call: %v", at(t, first, "fill"))
	}
	if at(t, v, "book", "duration_minutes").(float64) != 1210.5 || len(e.Standin.Mutations()) != 0 {
		t.Errorf("book: %v; changes: %v", at(t, v, "book"), mutations(e.Standin))
	}
	// The chosen one, applied: the fill call answers with its put-back.
	fill := at(t, first, "fill").(map[string]any)
	u := decode(t, e.Call(t, fill["tool"].(string), fill["arguments"].(map[string]any)))
	if it, _ := e.Standin.Item(sd.ItemLeviathanWakes); it.Book.Subtitle != "Expanse, Book 1" || at(t, u, "put_back", "arguments", "fields", "subtitle") != "" {
		t.Errorf("applied: %v", u)
	}

	// Google: no duration, narrator or ASIN; the play beside the novel
	// fits less.
	v = decode(t, e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort}))
	cands, _ = at(t, v, "candidates").([]any)
	if len(cands) != 2 || at(t, cands[0], "title") != "Mort" || at(t, cands[1], "title") != "Mort: The Play" ||
		at(t, cands[0], "fit").(float64) <= at(t, cands[1], "fit").(float64) || at(t, cands[1], "rank").(float64) != 2 {
		t.Errorf("google: %v", v)
	}
	// No result: an empty page and a note.
	v = decode(t, e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort, "provider": "itunes"}))
	if c, _ := at(t, v, "candidates").([]any); len(c) != 0 || !strings.Contains(str(at(t, v, "note")), "no result") {
		t.Errorf("no result: %v", v)
	}
	// A custom provider, and search words given.
	e.Standin.SetBookSearch("custom-7", "death's apprentice", []map[string]any{{"title": "Mort", "author": "Terry Pratchett", "duration": 452.0}})
	v = decode(t, e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort, "provider": "custom-7", "title": "Death's Apprentice", "author": "Pratchett"}))
	if c, _ := at(t, v, "candidates").([]any); len(c) != 1 || at(t, c[0], "title") != "Mort" || at(t, v, "searched", "author") != "Pratchett" {
		t.Errorf("custom provider: %v", v)
	}
	// 25 results with long descriptions on a book without one: a fill call
	// carries a description of up to 5,000 characters (a longer one is
	// named in not_filled), the default page fits the budget, and all 25 at
	// once are refused saying how many to ask for.
	var big []map[string]any
	for i := 0; i < 25; i++ {
		big = append(big, map[string]any{"title": "Mort", "author": "Terry Pratchett", "description": strings.Repeat("Death takes an apprentice. ", 2000)})
	}
	e.Standin.SetBookSearch("custom-big", "mort", big)
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemMort {
				d.Items[i].Book.Description = ""
			}
		}
	})
	res := e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort, "provider": "custom-big"})
	if text := apptest.Text(res); res.IsError || len(text) > result.DefaultMaxResultChars || !strings.Contains(text, `"next"`) ||
		!strings.Contains(text, "description (53999 characters, more than 5000)") {
		t.Errorf("5 of 25 long results (%d characters): %.300s", len(text), text)
	}
	big[0]["description"] = strings.Repeat("Death takes an apprentice. ", 150) + "The end."
	e.Standin.SetBookSearch("custom-big", "mort", big)
	v = decode(t, e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort, "provider": "custom-big", "limit": 1}))
	if d, _ := at(t, v, "candidates").([]any)[0].(map[string]any)["fill"].(map[string]any)["arguments"].(map[string]any)["fields"].(map[string]any)["description"].(string); len(d) != 4058 {
		t.Errorf("a description of 4058 characters in the fill call: %d", len(d))
	}
	res = e.Call(t, "find_match_candidates", map[string]any{"library_item_id": sd.ItemMort, "provider": "custom-big", "limit": 25})
	if text := apptest.Text(res); len(text) > result.DefaultMaxResultChars || (res.IsError && !strings.Contains(text, "a smaller limit")) {
		t.Errorf("25 long results (%d characters): %.300s", len(text), text)
	}
	// Refused before anything is sent: a podcast, a provider not known.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"library_item_id": sd.ItemPodcastTinyThings}, "books only"},
		{map[string]any{"library_item_id": sd.ItemMort, "provider": "amazon"}, `"provider"`},
	} {
		e.Standin.ResetRequests()
		res = e.Call(t, "find_match_candidates", c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), c.want) || len(e.Standin.Mutations()) != 0 {
			t.Errorf("%v: %s", c.args, apptest.Text(res))
		}
	}
}

// search_covers gives the covers of best (google, fantlab, audible, in
// that order, each once; a result without one adds none); set_item_cover takes the one chosen: an item
// with a cover asks (the old file is overwritten), one without answers
// with remove_item_cover as its put-back; a URL that is not an image is
// refused naming the argument.
func TestSearchAndSetCover(t *testing.T) {
	t.Parallel()
	var answer string
	e, rec := startAnswering(t, &answer)
	v := decode(t, e.Call(t, "search_covers", map[string]any{"library_item_id": sd.ItemLeviathanWakes}))
	covers, _ := at(t, v, "covers").([]any)
	if len(covers) != 5 || !strings.Contains(at(t, covers[0], "url").(string), "books.google.com") || !strings.Contains(at(t, covers[1], "url").(string), "fantlab") ||
		at(t, covers[4], "n").(float64) != 5 || at(t, v, "has_cover") != true {
		t.Fatalf("covers: %v", v)
	}
	chosen := at(t, covers[3], "url").(string)

	answer = "decline"
	e.Standin.ResetRequests()
	res := e.Call(t, "set_item_cover", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "url": chosen})
	q := rec.asked()
	if !res.IsError || len(q) != 1 || !strings.Contains(q[0], `"Leviathan Wakes"`) || !strings.Contains(q[0], chosen) || !strings.Contains(q[0], "cannot be set back") || len(e.Standin.Mutations()) != 0 {
		t.Errorf("declined: %s; asked %q; %v", apptest.Text(res), q, mutations(e.Standin))
	}
	answer = "accept"
	v = decode(t, e.Call(t, "set_item_cover", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "url": chosen}))
	if at(t, v, "set") != true || v.(map[string]any)["put_back"] != nil {
		t.Errorf("replaced: %v", v)
	}
	if it, _ := e.Standin.Item(sd.ItemLeviathanWakes); it.Book.CoverPath != "/metadata/items/"+sd.ItemLeviathanWakes+"/cover.jpg" {
		t.Errorf("cover: %q", it.Book.CoverPath)
	}

	coverless(sd.ItemMort)(e.Standin)
	n := len(rec.asked())
	v = decode(t, e.Call(t, "set_item_cover", map[string]any{"library_item_id": sd.ItemMort, "url": "https://covers.example/mort.png"}))
	if len(rec.asked()) != n || at(t, v, "put_back", "tool") != "remove_item_cover" || at(t, v, "cover_file") != "/metadata/items/"+sd.ItemMort+"/cover.png" {
		t.Errorf("a book without a cover: %v (asked %d)", v, len(rec.asked())-n)
	}

	coverless(sd.ItemSourcery)(e.Standin)
	e.Standin.ResetRequests()
	res = e.Call(t, "set_item_cover", map[string]any{"library_item_id": sd.ItemSourcery, "url": "https://example.org/page.html"})
	if !res.IsError || !strings.Contains(apptest.Text(res), `argument "url"`) || !strings.Contains(apptest.Text(res), "Failed to download") {
		t.Errorf("not an image: %s", apptest.Text(res))
	}
	if it, _ := e.Standin.Item(sd.ItemSourcery); it.Book.CoverPath != "" {
		t.Errorf("a cover was set: %q", it.Book.CoverPath)
	}
	res = e.Call(t, "set_item_cover", map[string]any{"library_item_id": sd.ItemSourcery, "url": "file:///etc/passwd"})
	if !res.IsError || !strings.Contains(apptest.Text(res), `"url"`) {
		t.Errorf("a file URL: %s", apptest.Text(res))
	}
}

// get_provider_chapters shows Audnexus's chapters for the book's ASIN
// beside its own count and whether the runtimes agree; set_item_chapters
// applies them: a book with chapters asks first (no tool here sets a list
// of chapters back), one without answers with the put-back (clear, which
// asks). An ASIN Audnexus does not know, or a book without one, is refused
// naming the argument, nothing sent.
func TestProviderChapters(t *testing.T) {
	t.Parallel()
	var answer string
	e, rec := startAnswering(t, &answer)
	v := decode(t, e.Call(t, "get_provider_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes}))
	ch, _ := at(t, v, "chapters").([]any)
	if len(ch) != 6 || at(t, ch[1], "title") != "Prologue: Julie" || at(t, ch[1], "start").(float64) != 30 || at(t, ch[1], "end").(float64) != 1830 ||
		at(t, v, "book_chapters").(float64) != 40 || at(t, v, "runtimes") != "agree" || at(t, v, "asin") != "B004YE8ZYA" {
		t.Errorf("chapters: %v", v)
	}
	// An ASIN Audnexus has no chapters for: none, and a note why.
	v = decode(t, e.Call(t, "get_provider_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "asin": "B000000000"}))
	if c, _ := at(t, v, "chapters").([]any); len(c) != 0 || !strings.Contains(str(at(t, v, "note")), "Chapters not found") {
		t.Errorf("no chapters: %v", v)
	}
	// Another edition's ASIN: the runtimes disagree, and the chapters
	// are still shown.
	v = decode(t, e.Call(t, "get_provider_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes, "asin": "B00ABRIDGD"}))
	if at(t, v, "runtimes") != "differ" || !strings.Contains(str(at(t, v, "note")), "another edition") {
		t.Errorf("another edition: %v", v)
	}

	answer = "decline"
	e.Standin.ResetRequests()
	res := e.Call(t, "set_item_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes})
	q := rec.asked()
	if !res.IsError || len(q) != 1 || !strings.Contains(q[0], `"Leviathan Wakes"`) || !strings.Contains(q[0], "40 chapter(s)") || len(e.Standin.Mutations()) != 0 {
		t.Errorf("declined: %s; asked %q; %v", apptest.Text(res), q, mutations(e.Standin))
	}
	answer = "accept"
	v = decode(t, e.Call(t, "set_item_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes}))
	it, _ := e.Standin.Item(sd.ItemLeviathanWakes)
	if at(t, v, "updated") != true || v.(map[string]any)["put_back"] != nil || len(it.Book.Chapters) != 6 || it.Book.Chapters[5].End != 72630 || it.Book.Chapters[2].Title != "Chapter 1: Holden" {
		t.Errorf("replaced: %v; chapters %v", v, it.Book.Chapters)
	}

	chapterless(sd.ItemLeviathanWakes)(e.Standin)
	n := len(rec.asked())
	v = decode(t, e.Call(t, "set_item_chapters", map[string]any{"library_item_id": sd.ItemLeviathanWakes}))
	if len(rec.asked()) != n || at(t, v, "put_back", "tool") != "set_item_chapters" || at(t, v, "put_back", "arguments", "clear") != true {
		t.Fatalf("a book without chapters: %v (asked %d)", v, len(rec.asked())-n)
	}
	pb := at(t, v, "put_back").(map[string]any)
	e.Call(t, "set_item_chapters", pb["arguments"].(map[string]any))
	if it, _ := e.Standin.Item(sd.ItemLeviathanWakes); len(it.Book.Chapters) != 0 || len(rec.asked()) != n+1 {
		t.Errorf("the put-back: chapters %v, asked %d", it.Book.Chapters, len(rec.asked())-n)
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"library_item_id": sd.ItemMort}, "has no ASIN"},
		{map[string]any{"library_item_id": sd.ItemLeviathanWakes, "asin": "B000000000"}, "Chapters not found"},
		{map[string]any{"library_item_id": sd.ItemLeviathanWakes, "asin": "B004YE8ZYA", "clear": true}, `argument "clear"`},
		{map[string]any{"library_item_id": sd.ItemLeviathanWakes, "clear": true}, "no chapters"},
	} {
		e.Standin.ResetRequests()
		res := e.Call(t, "set_item_chapters", c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), c.want) || len(e.Standin.Mutations()) != 0 {
			t.Errorf("%v: %s", c.args, apptest.Text(res))
		}
	}
}

// startAnswering starts a server whose questions rec records and answers
// by *answer when asked: "decline" declines, anything else approves.
func startAnswering(t *testing.T, answer *string) (e *apptest.Env, rec *recorder) {
	rec = &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult {
		if *answer == "decline" {
			return &mcp.ElicitResult{Action: "decline"}
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	}}
	return start(t, apptest.Options{Elicit: rec.handle}), rec
}
