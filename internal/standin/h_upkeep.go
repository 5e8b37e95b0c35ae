package standin

// The routes of the upkeep tools: library scans (LibraryController.scan,
// LibraryScanner.scan, TaskManager), the task list (MiscController.getTasks),
// the log (MiscController.getLoggerData), media updates
// (LibraryItemController.updateMedia, Book.updateFromRequest), quick match
// (LibraryItemController.match, Scanner.quickMatchLibraryItem) and covers
// (LibraryItemController.getCover, CacheManager.handleCoverCache,
// LibraryItemController.removeCover).
//
// A scan finds what a test put "on disk" beforehand (ScanAdds, ScanMisses,
// ScanUpdates) and takes ScanDuration (0: it is over before POST .../scan
// has answered, as a tiny library's scan is on a real server). Metadata
// providers are not asked: MatchResult gives what the "provider" answers
// (by default a fixed result derived from the book, without a cover; a book
// whose title holds "Unmatchable" gets no match). A result with a Cover is
// "downloaded" as Audiobookshelf does with storeCoverWithItem off (its
// default): into the metadata folder, /metadata/items/<item id>/cover.jpg.

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// upkeepState is the stand-in's scanner, task manager and log.
type upkeepState struct {
	tasks        []jobj
	logs         []jobj
	scanning     map[string]bool
	scanDuration time.Duration
	adds         []LibraryItem
	misses       []string
	updates      []string
	matchResult  func(provider string, b *Book, authors []string) *MatchData
	// providersReachable and batchMatches: batch quick matches
	// (h_curation.go).
	providersReachable bool
	batchMatches       []BatchMatch
	// bookSearches are the provider answers GET /api/search/books gives,
	// by provider and title (h_providers.go).
	bookSearches map[string][]map[string]any
}

// MatchData is what a metadata provider answers a quick match with (the
// first result), as BookFinder.search returns it.
type MatchData struct {
	Title, Subtitle, Description, Narrator, Publisher, PublishedYear, Language, ISBN, ASIN string
	Genres, Tags, Authors                                                                  []string
	// Cover is the result's cover URL ("": none).
	Cover string
}

func upkeepRoutes() []route {
	const G, P, A, D = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	return []route{
		api(P, "/libraries/:id/scan", withLibrary(hLibraryScan)),
		api(A, "/items/:id/media", withItem(hItemUpdateMedia)),
		api(G, "/items/:id/cover", hItemCover),
		api(D, "/items/:id/cover", withItem(hItemRemoveCover)),
		api(P, "/items/:id/match", withItem(hItemMatch)),
		api(G, "/tasks", hTasks),
		api(G, "/logger-data", hLoggerData),
	}
}

// SetScanDuration makes every scan take d.
func (s *Server) SetScanDuration(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.scanDuration = d
}

// ScanAdds puts items on disk: the next scan of their library adds them.
func (s *Server) ScanAdds(items ...LibraryItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.adds = append(s.upkeep.adds, items...)
}

// ScanMisses takes the files of items away: the next scan of their library
// marks them missing.
func (s *Server) ScanMisses(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.misses = append(s.upkeep.misses, ids...)
}

// ScanUpdates changes the files of items: the next scan of their library
// updates them.
func (s *Server) ScanUpdates(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.updates = append(s.upkeep.updates, ids...)
}

// SetMatchResult replaces what the metadata providers answer; f returns nil
// for no match.
func (s *Server) SetMatchResult(f func(provider string, b *Book, authors []string) *MatchData) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upkeep.matchResult = f
}

// Logs are the log lines the stand-in has written (messages).
func (s *Server) Logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.upkeep.logs {
		out = append(out, l.get("message").(string))
	}
	return out
}

func (s *Server) logInfo(source, msg string) {
	s.upkeep.logs = append(s.upkeep.logs, jobj{
		{"timestamp", s.now().Format("2006-01-02 15:04:05.000")},
		{"source", source},
		{"message", msg},
		{"levelName", "INFO"},
		{"level", 2},
	})
	if len(s.upkeep.logs) > 5000 { // LogManager.getMostRecentCurrentDailyLogs: the last 5000
		s.upkeep.logs = s.upkeep.logs[len(s.upkeep.logs)-5000:]
	}
}

// POST /api/libraries/:id/scan: LibraryController.scan. Admins only; the
// answer is sent before LibraryScanner.scan runs, which skips a library
// already being scanned or without folders.
func hLibraryScan(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	s, lib := c.s, c.lib
	if s.upkeep.scanning == nil {
		s.upkeep.scanning = map[string]bool{}
	}
	switch {
	case s.upkeep.scanning[lib.ID]:
		s.logInfo("LibraryScanner.js", "[LibraryScanner] Already scanning "+lib.ID)
	case len(lib.Folders) == 0:
		s.logInfo("LibraryScanner.js", `[LibraryScanner] Library has no folders to scan "`+lib.Name+`"`)
	default:
		s.upkeep.scanning[lib.ID] = true
		scanID := s.newID()
		started := s.now().UnixMilli()
		task := jobj{
			{"id", s.newID()}, {"action", "library-scan"},
			{"data", jobj{{"libraryId", lib.ID}, {"libraryName", lib.Name}, {"libraryMediaType", lib.MediaType}}},
			{"title", `Scanning "` + lib.Name + `" library`}, {"titleKey", "MessageTaskScanningLibrary"}, {"titleSubs", []string{lib.Name}},
			{"description", nil}, {"descriptionKey", nil}, {"descriptionSubs", nil},
			{"error", nil}, {"errorKey", nil}, {"errorSubs", nil},
			{"showSuccess", true}, {"isFailed", false}, {"isFinished", false},
			{"startedAt", started}, {"finishedAt", nil},
		}
		s.upkeep.tasks = append(s.upkeep.tasks, task)
		s.logInfo("LibraryScanner.js", fmt.Sprintf("[LibraryScanner] Starting library scan %s for %s", scanID, lib.Name))
		// LibraryScanner.scanLibrary loads the filter data first.
		c.cachedFilterData(lib)
		libID := lib.ID
		if d := s.upkeep.scanDuration; d > 0 {
			time.AfterFunc(d, func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.finishScan(libID, scanID, started)
			})
		} else {
			s.finishScan(libID, scanID, started)
		}
	}
	c.sendStatus(http.StatusOK)
}

// finishScan applies what is on disk to the library, logs the result line,
// moves lastScan and takes the task out (TaskManager.taskFinished).
// Callers hold s.mu.
func (s *Server) finishScan(libID, scanID string, started int64) {
	lib := s.library(libID)
	if lib == nil {
		return
	}
	now := s.now().UnixMilli()
	added, updated, missing := 0, 0, 0
	var keep []LibraryItem
	for _, it := range s.upkeep.adds {
		if it.LibraryID != libID {
			keep = append(keep, it)
			continue
		}
		it.AddedAt, it.UpdatedAt, it.LastScan = now, now, now
		s.data.Items = append(s.data.Items, it)
		s.addScannedToFilterCopy(&s.data.Items[len(s.data.Items)-1])
		added++
	}
	s.upkeep.adds = keep
	var rest []string
	for _, id := range s.upkeep.misses {
		li := s.item(id)
		if li == nil || li.LibraryID != libID {
			rest = append(rest, id)
			continue
		}
		missing++
		if !li.IsMissing {
			li.IsMissing = true
			li.UpdatedAt = now
		}
	}
	s.upkeep.misses = rest
	rest = nil
	for _, id := range s.upkeep.updates {
		li := s.item(id)
		if li == nil || li.LibraryID != libID {
			rest = append(rest, id)
			continue
		}
		updated++
		li.UpdatedAt, li.LastScan = now, now
	}
	s.upkeep.updates = rest
	lib.LastScan = now
	lib.LastScanVersion = s.version
	elapsed := time.Duration(now-started) * time.Millisecond
	// secondsToTimestamp: m:ss below an hour ("0:01"), h:mm:ss above.
	took := fmt.Sprintf("%d:%02d", int(elapsed.Minutes()), int(elapsed.Seconds())%60)
	if elapsed >= time.Hour {
		took = fmt.Sprintf("%d:%02d:%02d", int(elapsed.Hours()), int(elapsed.Minutes())%60, int(elapsed.Seconds())%60)
	}
	s.logInfo("LibraryScanner.js", fmt.Sprintf(`[LibraryScanner] Library scan "%s" completed in %s | %d Added | %d Updated | %d Missing`,
		scanID, took, added, updated, missing))
	s.logInfo("LibraryController.js", "[LibraryController] Scan complete")
	var tasks []jobj
	for _, t := range s.upkeep.tasks {
		if d, _ := t.get("data").(jobj); d != nil && d.get("libraryId") == libID && t.get("action") == "library-scan" {
			continue
		}
		tasks = append(tasks, t)
	}
	s.upkeep.tasks = tasks
	delete(s.upkeep.scanning, libID)
}

// GET /api/tasks: MiscController.getTasks.
func hTasks(c *ctx) {
	tasks := c.s.upkeep.tasks
	if tasks == nil {
		tasks = []jobj{}
	}
	c.sendJSON(jobj{{"tasks", tasks}})
}

// GET /api/logger-data: MiscController.getLoggerData, admins only.
func hLoggerData(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	logs := c.s.upkeep.logs
	if logs == nil {
		logs = []jobj{}
	}
	c.sendJSON(jobj{{"currentDailyLogs", logs}})
}

// PATCH /api/items/:id/media: LibraryItemController.updateMedia with
// Book.updateFromRequest, updateSeriesFromRequest and
// updateAuthorsFromRequest. A podcast's fields are not reproduced (its
// answer says nothing changed). The HTML sanitizer of descriptions is not
// reproduced: a description is stored as sent.
func hItemUpdateMedia(c *ctx) {
	body, _ := c.body.(map[string]any)
	li := c.li
	updated := c.s.applyMediaUpdate(li, body)
	// 2.36 sends updated only when something changed: hasUpdates is
	// `updateFromRequest(...) || mediaPayload.url`, undefined when
	// nothing did, and res.json drops an undefined key.
	if !updated {
		c.sendJSON(jobj{{"libraryItem", c.s.itemOld(li, viewOpts{})}})
		return
	}
	c.sendJSON(jobj{{"updated", updated}, {"libraryItem", c.s.itemOld(li, viewOpts{})}})
}

// applyMediaUpdate is what updateMedia and batchUpdate do with one item's
// media payload: Book.updateFromRequest, updateSeriesFromRequest and
// updateAuthorsFromRequest, and the item's updatedAt moved when something
// changed. Callers hold s.mu.
func (s *Server) applyMediaUpdate(li *LibraryItem, body map[string]any) bool {
	updated := false
	if b := li.Book; b != nil {
		meta, _ := body["metadata"].(map[string]any)
		if meta != nil {
			for _, k := range []struct {
				key string
				p   *string
			}{{"title", &b.Title}, {"subtitle", &b.Subtitle}, {"publishedYear", &b.PublishedYear}, {"publishedDate", &b.PublishedDate},
				{"publisher", &b.Publisher}, {"description", &b.Description}, {"isbn", &b.ISBN}, {"asin", &b.ASIN}, {"language", &b.Language}} {
				v, present := meta[k.key]
				if !present {
					continue
				}
				if f, ok := v.(float64); ok {
					v = strconv.FormatFloat(f, 'f', -1, 64) // String(number)
				}
				sv, isStr := v.(string)
				if !isStr && v != nil {
					continue
				}
				// this[key] !== payload.metadata[key]: a stored null ("")
				// differs from "" sent, so "" counts as a change.
				if (v == nil && *k.p == "") || (isStr && sv == *k.p && sv != "") {
					continue
				}
				*k.p = sv // value || null: "" stays null
				updated = true
			}
			// explicit !== undefined && this.explicit !== !!explicit
			for _, k := range []struct {
				key string
				p   *bool
			}{{"explicit", &b.Explicit}, {"abridged", &b.Abridged}} {
				if v, present := meta[k.key]; present && *k.p != truthy(v) {
					*k.p = truthy(v)
					updated = true
				}
			}
			for _, k := range []struct {
				key string
				p   *[]string
			}{{"narrators", &b.Narrators}, {"genres", &b.Genres}} {
				if l, ok := stringList(meta[k.key]); ok && !sameStrings(*k.p, l) {
					*k.p = l
					updated = true
				}
			}
		}
		if l, ok := stringList(body["tags"]); ok && !sameStrings(b.Tags, l) {
			b.Tags = l
			updated = true
		}
		if meta != nil {
			if series, ok := meta["series"].([]any); ok && s.updateSeries(li, b, series) {
				updated = true
			}
			if authors, ok := meta["authors"].([]any); ok && s.updateAuthors(li, b, authors) {
				updated = true
			}
		}
	}
	if updated {
		now := s.now().UnixMilli()
		li.UpdatedAt = now
		if li.Book != nil {
			li.Book.UpdatedAt = now
		}
	}
	return updated
}

func stringList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// updateSeries is Book.updateSeriesFromRequest followed by
// ApiRouter.checkRemoveEmptySeries (a series left with no book is always
// deleted; the stand-in opens no RSS feeds, so none is closed with it).
// Callers hold s.mu.
func (s *Server) updateSeries(li *LibraryItem, b *Book, list []any) bool {
	type entry struct{ name, seq string }
	var want []entry
	for _, e := range list {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			return false // any entry without a name: nothing is done
		}
		seq, _ := m["sequence"].(string)
		want = append(want, entry{name, seq})
	}
	changed := false
	var removed []string
	var kept []SeriesSequence
	for _, ss := range b.Series {
		se := s.seriesByID(ss.SeriesID)
		found := false
		for _, w := range want {
			if se != nil && strings.EqualFold(se.Name, w.name) {
				found = true
			}
		}
		if found {
			kept = append(kept, ss)
		} else {
			removed = append(removed, ss.SeriesID)
			changed = true
		}
	}
	b.Series = kept
	for _, w := range want {
		done := false
		for i := range b.Series {
			if se := s.seriesByID(b.Series[i].SeriesID); se != nil && strings.EqualFold(se.Name, w.name) {
				if b.Series[i].Sequence != w.seq {
					b.Series[i].Sequence = w.seq
					changed = true
				}
				done = true
			}
		}
		if done {
			continue
		}
		var id string
		for _, se := range s.data.Series {
			if se.LibraryID == li.LibraryID && strings.EqualFold(se.Name, w.name) {
				id = se.ID
			}
		}
		if id == "" {
			id = s.newID()
			now := s.now().UnixMilli()
			s.data.Series = append(s.data.Series, Series{ID: id, LibraryID: li.LibraryID, Name: w.name, AddedAt: now, UpdatedAt: now})
		}
		b.Series = append(b.Series, SeriesSequence{SeriesID: id, Sequence: w.seq})
		if se := s.seriesByID(id); se != nil {
			s.addToFilterCopy(li.LibraryID, "series", id, se.Name)
		}
		changed = true
	}
	// checkRemoveEmptySeries: a series with no book left is deleted (by
	// batchUpdate once every entry is applied).
	if s.pending != nil {
		s.pending.series = append(s.pending.series, removed...)
		return changed
	}
	s.removeEmptySeries(removed)
	return changed
}

// removeEmptySeries is ApiRouter.checkRemoveEmptySeries: of the series
// ids, those with no book left are deleted. Callers hold s.mu.
func (s *Server) removeEmptySeries(removed []string) {
	for _, id := range removed {
		if !s.seriesHasBooks(id) {
			var out []Series
			for _, se := range s.data.Series {
				if se.ID != id {
					out = append(out, se)
				}
			}
			s.data.Series = out
			s.removeFromFilterCopies("series", id)
		}
	}
}

func (s *Server) seriesHasBooks(id string) bool {
	for _, it := range s.data.Items {
		if it.Book == nil {
			continue
		}
		for _, ss := range it.Book.Series {
			if ss.SeriesID == id {
				return true
			}
		}
	}
	return false
}

func (s *Server) authorHasBooks(id string) bool {
	for _, it := range s.data.Items {
		if it.Book == nil {
			continue
		}
		for _, a := range it.Book.AuthorIDs {
			if a == id {
				return true
			}
		}
	}
	return false
}

// updateAuthors is Book.updateAuthorsFromRequest (names trimmed, empty ones
// dropped) followed by ApiRouter.checkRemoveAuthorsWithNoBooks (an author
// left with no book is deleted unless it has an asin, a description or an
// image). Callers hold s.mu.
func (s *Server) updateAuthors(li *LibraryItem, b *Book, list []any) bool {
	var names []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		if n, ok := m["name"].(string); ok && strings.TrimSpace(n) != "" {
			names = append(names, strings.TrimSpace(n))
		}
	}
	changed := false
	var kept, removed []string
	for _, id := range b.AuthorIDs {
		a := s.author(id)
		found := false
		for _, n := range names {
			if a != nil && strings.EqualFold(a.Name, n) {
				found = true
			}
		}
		if found {
			kept = append(kept, id)
		} else {
			removed = append(removed, id)
			changed = true
		}
	}
	b.AuthorIDs = kept
	for _, n := range names {
		has := false
		for _, id := range b.AuthorIDs {
			if a := s.author(id); a != nil && strings.EqualFold(a.Name, n) {
				has = true
			}
		}
		if has {
			continue
		}
		var id string
		for _, a := range s.data.Authors {
			if a.LibraryID == li.LibraryID && strings.EqualFold(a.Name, n) {
				id = a.ID
			}
		}
		if id == "" {
			id = s.newID()
			now := s.now().UnixMilli()
			s.data.Authors = append(s.data.Authors, Author{ID: id, LibraryID: li.LibraryID, Name: n, AddedAt: now, UpdatedAt: now})
		}
		b.AuthorIDs = append(b.AuthorIDs, id)
		if a := s.author(id); a != nil {
			s.addToFilterCopy(li.LibraryID, "authors", id, a.Name)
		}
		changed = true
	}
	// checkRemoveAuthorsWithNoBooks: an author with no book left is
	// deleted only when its asin, description and imagePath are all empty
	// (by batchUpdate once every entry is applied).
	if s.pending != nil {
		s.pending.authors = append(s.pending.authors, removed...)
		return changed
	}
	s.removeAuthorsWithNoBooks(removed)
	return changed
}

// removeAuthorsWithNoBooks is ApiRouter.checkRemoveAuthorsWithNoBooks.
// Callers hold s.mu.
func (s *Server) removeAuthorsWithNoBooks(removed []string) {
	for _, id := range removed {
		if a := s.author(id); a != nil && !s.authorHasBooks(id) && a.ASIN == "" && a.Description == "" && a.ImagePath == "" {
			var out []Author
			for _, a := range s.data.Authors {
				if a.ID != id {
					out = append(out, a)
				}
			}
			s.data.Authors = out
			s.removeFromFilterCopies("authors", id)
		}
	}
}

// defaultMatch is the stand-in's provider: a result made from the book
// itself, or none for a title holding "Unmatchable".
func defaultMatch(provider string, b *Book, authors []string) *MatchData {
	if strings.Contains(b.Title, "Unmatchable") {
		return nil
	}
	return &MatchData{
		Title: b.Title, Subtitle: "A Novel", Description: "Matched by " + provider + ".", Narrator: "Stand-in Narrator",
		Publisher: "Stand-in Press", PublishedYear: "1990", Language: "English", Genres: []string{"Fiction"}, Authors: authors,
	}
}

// POST /api/items/:id/match: Scanner.quickMatchLibraryItem for a book.
// Without overrides (and with scannerPreferMatchedMetadata off, the
// default) only empty fields are filled; overrideDetails replaces them.
// A result's cover is taken when the book has none, or with overrideCover
// (CoverManager.downloadCoverFromUrlNew: the metadata folder's
// items/<id>/cover.jpg).
func hItemMatch(c *ctx) {
	body, _ := c.body.(map[string]any)
	provider, _ := body["provider"].(string)
	if provider == "" {
		provider = "google"
	}
	override, _ := body["overrideDetails"].(bool)
	overrideCover, _ := body["overrideCover"].(bool)
	updated, warning := c.quickMatch(c.li, provider, override, overrideCover, nil)
	if warning != "" {
		c.sendJSON(jobj{{"warning", warning}})
		return
	}
	c.sendJSON(jobj{{"updated", updated}, {"libraryItem", c.s.itemExpanded(c.li, viewOpts{})}})
}

// quickMatch is Scanner.quickMatchLibraryItem for a book with the
// provider's first result (f, or the server's MatchResult): whether the
// book changed, or the warning of no match.
func (c *ctx) quickMatch(li *LibraryItem, provider string, override, overrideCover bool, f func(provider string, b *Book, authors []string) *MatchData) (bool, string) {
	b := li.Book
	if b == nil {
		return false, "No " + provider + " match found"
	}
	var authors []string
	for _, id := range b.AuthorIDs {
		if a := c.s.author(id); a != nil {
			authors = append(authors, a.Name)
		}
	}
	if f == nil {
		f = c.s.upkeep.matchResult
	}
	if f == nil {
		f = defaultMatch
	}
	m := f(provider, b, authors)
	if m == nil {
		return false, "No " + provider + " match found"
	}
	updated := false
	if m.Cover != "" && (b.CoverPath == "" || overrideCover) {
		b.CoverPath = "/metadata/items/" + li.ID + "/cover.jpg"
		updated = true // changed('coverPath', true): even the same path counts
	}
	setStr := func(p *string, v string) {
		if v != "" && (*p == "" || override) && *p != v {
			*p = v
			updated = true
		}
	}
	setStr(&b.Title, m.Title)
	setStr(&b.Subtitle, m.Subtitle)
	setStr(&b.Description, m.Description)
	setStr(&b.Publisher, m.Publisher)
	setStr(&b.PublishedYear, m.PublishedYear)
	setStr(&b.Language, m.Language)
	setStr(&b.ISBN, m.ISBN)
	setStr(&b.ASIN, m.ASIN)
	setList := func(p *[]string, v []string) {
		if len(v) > 0 && (len(*p) == 0 || override) && !sameStrings(*p, v) {
			*p = append([]string(nil), v...)
			updated = true
		}
	}
	if m.Narrator != "" {
		var ns []string
		for _, n := range strings.Split(m.Narrator, ",") {
			if n = strings.TrimSpace(n); n != "" {
				ns = append(ns, n)
			}
		}
		setList(&b.Narrators, ns)
	}
	setList(&b.Genres, m.Genres)
	setList(&b.Tags, m.Tags)
	if len(m.Authors) > 0 && (len(b.AuthorIDs) == 0 || override) {
		list := make([]any, 0, len(m.Authors))
		for _, n := range m.Authors {
			list = append(list, map[string]any{"name": n})
		}
		if c.s.updateAuthors(li, b, list) {
			updated = true
		}
	}
	if updated {
		now := c.nowMs()
		li.UpdatedAt, b.UpdatedAt = now, now
	}
	return updated, ""
}

// GET /api/items/:id/cover: LibraryItemController.getCover (no item
// middleware, no access check) and CacheManager.handleCoverCache. The
// stand-in has no cover files: it draws one, width wide (default 400, at
// most 4096) and 1.5 times as high, of noise seeded by the item id, so a
// large width makes a large file as a photo would.
func hItemCover(c *ctx) {
	li := c.s.item(c.params["id"])
	cover := ""
	if li != nil && li.Book != nil {
		cover = li.Book.CoverPath
	} else if li != nil && li.Podcast != nil {
		cover = li.Podcast.CoverPath
	}
	if cover == "" {
		c.sendStatus(http.StatusNotFound)
		return
	}
	width := 400
	if v, ok := c.query("width"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			width = min(n, 4096)
		}
	}
	format := "jpeg"
	if v, ok := c.query("format"); ok && v != "" {
		format = v
	}
	// Scaled to width, the shape kept (ffmpeg's scale=width:-1).
	height := width * 3 / 2
	if li.Book != nil && li.Book.CoverAspect > 0 {
		height = max(1, int(math.Round(float64(width)*li.Book.CoverAspect)))
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	seed := int64(0)
	for _, ch := range li.ID {
		seed = seed*31 + int64(ch)
	}
	rng := rand.New(rand.NewSource(seed))
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			img.Set(x, y, color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		c.sendStatus(http.StatusInternalServerError)
		return
	}
	c.w.Header().Set("Content-Type", "image/"+format)
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(buf.Bytes())
}

// DELETE /api/items/:id/cover: LibraryItemController.removeCover (behind
// the item middleware: the delete permission). It forgets the cover
// (media.coverPath null) and moves the item's updatedAt; the image file is
// not touched. An item without a cover is left as it is. Either way: "OK".
func hItemRemoveCover(c *ctx) {
	li := c.li
	var cover *string
	switch {
	case li.Book != nil:
		cover = &li.Book.CoverPath
	case li.Podcast != nil:
		cover = &li.Podcast.CoverPath
	}
	if cover != nil && *cover != "" {
		*cover = ""
		now := c.nowMs()
		li.UpdatedAt = now
		if li.Book != nil {
			li.Book.UpdatedAt = now
		} else {
			li.Podcast.UpdatedAt = now
		}
	}
	c.sendStatus(http.StatusOK)
}
