package standin

import (
	_ "embed"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strings"
)

// Metadata providers: the book, cover and chapter searches
// (SearchController, BookFinder, Audnexus) answered from recorded provider
// answers (providers/books.json, providers/chapters.json), so no test needs
// the internet; setting a cover from a URL (LibraryItemController.uploadCover)
// and a book's chapters (updateMediaChapters).

//go:embed providers/books.json
var recordedBooks []byte

// bookResultKeys are the keys of a provider's result in the order
// Audiobookshelf writes them (Audible.cleanResult, then the keys only other
// providers give).
var bookResultKeys = []string{"id", "title", "subtitle", "author", "narrator", "publisher", "publishedYear", "description", "cover",
	"asin", "isbn", "genres", "tags", "series", "language", "duration", "region", "rating", "abridged"}

// bookProviders is BookFinder.providers, the order `all` asks them in.
var bookProviders = []string{"google", "itunes", "openlibrary", "fantlab", "audiobookcovers", "audible", "audible.ca", "audible.uk",
	"audible.au", "audible.fr", "audible.de", "audible.jp", "audible.it", "audible.in", "audible.es"}

func providerRoutes() []route {
	const G, P = http.MethodGet, http.MethodPost
	return []route{
		api(G, "/search/books", hSearchBooks),
		api(G, "/search/covers", hSearchCovers),
		api(P, "/items/:id/cover", withItem(hItemSetCover)),
		api(G, "/search/chapters", hSearchChapters),
		api(P, "/items/:id/chapters", withItem(hItemSetChapters)),
	}
}

// SetBookSearch records what provider answers a book search for title
// with (a custom provider is custom-<id>); nil forgets it.
func (s *Server) SetBookSearch(provider, title string, results []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadBookSearches()
	key := provider + "\x00" + strings.ToLower(strings.TrimSpace(title))
	if results == nil {
		delete(s.upkeep.bookSearches, key)
		return
	}
	s.upkeep.bookSearches[key] = results
}

func (s *Server) loadBookSearches() {
	if s.upkeep.bookSearches != nil {
		return
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(recordedBooks, &rec); err != nil {
		panic("standin: providers/books.json: " + err.Error())
	}
	s.upkeep.bookSearches = map[string][]map[string]any{}
	for provider, raw := range rec {
		if strings.HasPrefix(provider, "_") {
			continue
		}
		var byTitle map[string][]map[string]any
		if err := json.Unmarshal(raw, &byTitle); err != nil {
			panic("standin: providers/books.json: " + provider + ": " + err.Error())
		}
		for title, results := range byTitle {
			s.upkeep.bookSearches[provider+"\x00"+title] = results
		}
	}
}

// bookSearch is a provider's results for title, copied. An unknown
// provider or title has none (BookFinder answers [] when a provider fails).
func (s *Server) bookSearch(provider, title string) []map[string]any {
	s.loadBookSearches()
	var out []map[string]any
	for _, r := range s.upkeep.bookSearches[provider+"\x00"+strings.ToLower(strings.TrimSpace(title))] {
		c := make(map[string]any, len(r))
		for k, v := range r {
			c[k] = v
		}
		out = append(out, c)
	}
	return out
}

func resultJSON(r map[string]any) jobj {
	var o jobj
	for _, k := range bookResultKeys {
		if v, ok := r[k]; ok {
			o = append(o, kv{k, v})
		}
	}
	return o
}

// GET /api/search/books: SearchController.findBooks and BookFinder.search.
// Without a title no provider is asked but a custom one. With id (404 for
// an unknown item) audible results are sorted by how near their duration
// (minutes) is to the book's, as BookFinder does; its matchConfidence is
// not reproduced, nor its fuzzy searches after a search without results.
func hSearchBooks(c *ctx) {
	for _, k := range []string{"provider", "title", "author", "id"} {
		if len(c.q[k]) > 1 {
			c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "` + k + `" is an array`}})
			return
		}
	}
	provider := c.queryOr("provider", "google")
	title := c.queryOr("title", "")
	var li *LibraryItem
	if id, ok := c.query("id"); ok {
		if li = c.s.item(id); li == nil {
			c.sendJSONStatus(http.StatusNotFound, jobj{{"error", `library item "` + id + `" not found`}})
			return
		}
	}
	out := []jobj{}
	if title == "" && !strings.HasPrefix(provider, "custom-") {
		c.sendJSON(out)
		return
	}
	results := c.s.bookSearch(provider, title)
	if li != nil && li.Book != nil && strings.HasPrefix(provider, "audible") {
		if mins := li.Book.Duration / 60; mins > 0 {
			off := func(r map[string]any) float64 {
				d, _ := r["duration"].(float64)
				if d == 0 {
					return math.Inf(1)
				}
				return math.Abs(d - mins)
			}
			sort.SliceStable(results, func(i, j int) bool { return off(results[i]) < off(results[j]) })
		}
	}
	for _, r := range results {
		out = append(out, resultJSON(r))
	}
	c.sendJSON(out)
}

// GET /api/search/covers: SearchController.findCovers and
// BookFinder.findCovers: the covers of the results of one provider, of
// google, fantlab and audible (best) or of every provider (all), each URL
// once.
func hSearchCovers(c *ctx) {
	vals, ok := c.q["title"]
	switch {
	case !ok:
		c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "title" is required`}})
		return
	case len(vals) > 1:
		c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "title" is an array`}})
		return
	}
	provider := c.queryOr("provider", "google")
	providers := []string{provider}
	switch provider {
	case "best":
		providers = []string{"google", "fantlab", "audible"}
	case "all":
		providers = bookProviders
	}
	covers := []string{}
	seen := map[string]bool{}
	for _, p := range providers {
		if vals[0] == "" && !strings.HasPrefix(p, "custom-") {
			continue
		}
		for _, r := range c.s.bookSearch(p, vals[0]) {
			if u, _ := r["cover"].(string); u != "" && !seen[u] {
				seen[u] = true
				covers = append(covers, u)
			}
		}
	}
	c.sendJSON(jobj{{"results", covers}})
}

// POST /api/items/:id/cover with {url}: LibraryItemController.uploadCover
// (after the item middleware's update check: the upload permission, 403)
// and CoverManager.downloadCoverFromUrlNew. The stand-in downloads
// nothing: a URL whose path ends in .jpg, .jpeg, .png or .webp (or an
// image URL a recorded provider answer holds) is an image it could fetch;
// any other is the download that failed (400). The cover becomes the
// metadata folder's items/<id>/cover.<ext>, and updatedAt moves.
func hItemSetCover(c *ctx) {
	if !c.user.Permissions.Upload || !c.user.IsActive {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	url, _ := body["url"].(string)
	if url == "" {
		c.send(http.StatusBadRequest, "Invalid request no file or url")
		return
	}
	ext := ""
	path := strings.ToLower(strings.SplitN(url, "?", 2)[0])
	for _, e := range []string{"jpg", "jpeg", "png", "webp"} {
		if strings.HasSuffix(path, "."+e) {
			ext = e
		}
	}
	if ext == "" && c.s.knownCover(url) {
		ext = "jpg"
	}
	if ext == "" || !(strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://")) {
		c.send(http.StatusBadRequest, "Failed to download image from url")
		return
	}
	if ext == "jpeg" {
		ext = "jpg" // image-type names a JPEG jpg
	}
	cover := "/metadata/items/" + c.li.ID + "/cover." + ext
	now := c.nowMs()
	c.li.UpdatedAt = now
	switch {
	case c.li.Book != nil:
		c.li.Book.CoverPath, c.li.Book.UpdatedAt = cover, now
	case c.li.Podcast != nil:
		c.li.Podcast.CoverPath, c.li.Podcast.UpdatedAt = cover, now
	}
	c.sendJSON(jobj{{"success", true}, {"cover", cover}})
}

// knownCover reports whether a recorded provider answer offers url as a
// cover.
func (s *Server) knownCover(url string) bool {
	s.loadBookSearches()
	for _, results := range s.upkeep.bookSearches {
		for _, r := range results {
			if u, _ := r["cover"].(string); u == url {
				return true
			}
		}
	}
	return false
}

//go:embed providers/chapters.json
var recordedChapters []byte

// GET /api/search/chapters: SearchController.findChapters and
// Audnexus.getChaptersByASIN, from recorded Audnexus answers. No asin is a
// 500; an ASIN that is not ten letters and digits, and one Audnexus has no
// chapters for, answer 200 with {error, stringKey}.
func hSearchChapters(c *ctx) {
	asin, ok := c.query("asin")
	if !ok || len(c.q["asin"]) > 1 || len(c.q["region"]) > 1 {
		c.sendJSONStatus(http.StatusInternalServerError, jobj{{"error", "Internal server error"}})
		return
	}
	region := strings.ToLower(c.queryOr("region", "us"))
	valid := len(asin) == 10
	for _, r := range strings.ToUpper(asin) {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			valid = false
		}
	}
	if !valid {
		c.sendJSON(jobj{{"error", "Invalid ASIN"}, {"stringKey", "MessageInvalidAsin"}})
		return
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(recordedChapters, &rec); err != nil {
		panic("standin: providers/chapters.json: " + err.Error())
	}
	var byASIN map[string]json.RawMessage
	if r, ok := rec[region]; ok && !strings.HasPrefix(region, "_") {
		if err := json.Unmarshal(r, &byASIN); err != nil {
			panic("standin: providers/chapters.json: " + region + ": " + err.Error())
		}
	}
	raw, ok := byASIN[strings.ToUpper(asin)]
	if !ok {
		c.sendJSON(jobj{{"error", "Chapters not found"}, {"stringKey", "MessageChaptersNotFound"}})
		return
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(raw)
}

// POST /api/items/:id/chapters: LibraryItemController.updateMediaChapters
// (after the item middleware's update check). A podcast, a missing book
// or one without audio files is a 500; chapters that are not a list of
// {title, start, end} a 400. The list replaces the book's chapters, ids
// renumbered; the book's updatedAt moves, the library item's does not.
func hItemSetChapters(c *ctx) {
	b := c.li.Book
	if b == nil || c.li.IsMissing || len(b.AudioFiles) == 0 {
		c.sendStatus(http.StatusInternalServerError)
		return
	}
	body, _ := c.body.(map[string]any)
	list, ok := body["chapters"].([]any)
	if !ok {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	chapters := make([]Chapter, 0, len(list))
	for i, x := range list {
		m, _ := x.(map[string]any)
		title, _ := m["title"].(string)
		start, sok := m["start"].(float64)
		end, eok := m["end"].(float64)
		if title == "" || !sok || !eok {
			c.sendStatus(http.StatusBadRequest)
			return
		}
		chapters = append(chapters, Chapter{ID: i, Start: start, End: end, Title: title})
	}
	updated := len(chapters) != len(b.Chapters)
	if !updated {
		for i := range chapters {
			o := b.Chapters[i]
			if o.Title != chapters[i].Title || o.Start != chapters[i].Start || o.End != chapters[i].End {
				updated = true
			}
		}
	}
	if updated {
		if len(chapters) == len(b.Chapters) {
			for i := range chapters {
				chapters[i].ID = b.Chapters[i].ID
			}
		}
		b.Chapters = chapters
		b.UpdatedAt = c.nowMs()
	}
	c.sendJSON(jobj{{"success", true}, {"updated", updated}})
}
