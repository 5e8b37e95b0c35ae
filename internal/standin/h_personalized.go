package standin

// GET /api/libraries/:id/personalized: LibraryController.getUserPersonalizedShelves
// and LibraryItem.getPersonalizedShelves with the loaders of
// server/utils/queries/libraryFilters.js.

import "math"

func hPersonalized(c *ctx) {
	limit := intOf(c.num("limit"))
	if limit == 0 {
		limit = 10
	}
	lib := c.lib
	shelves := []jobj{}
	shelf := func(id, label, key, typ string, entities []jobj, total int) {
		shelves = append(shelves, jobj{{"id", id}, {"label", label}, {"labelStringKey", key}, {"type", typ}, {"entities", entities}, {"total", total}})
	}
	audioOrPodcast := func(j jobj) bool {
		media := j.get("media").(jobj)
		n, _ := media.get("numTracks").(int)
		return n > 0 || j.get("mediaType") == "podcast"
	}
	ebookOnly := func(j jobj) bool {
		media := j.get("media").(jobj)
		n, _ := media.get("numTracks").(int)
		return !isUndefined(media.get("ebookFormat")) && n == 0
	}
	split := func(items []jobj) (audio, ebook []jobj) {
		for _, j := range items {
			if ebookOnly(j) {
				ebook = append(ebook, j)
			}
			if audioOrPodcast(j) {
				audio = append(audio, j)
			}
		}
		return
	}
	episodeEntities := func(rows []*episodeRow) []jobj {
		out := []jobj{}
		for _, r := range rows {
			j := c.s.itemMinified(r.li, viewOpts{noEpisodes: true})
			j.set("recentEpisode", episodeOld(r.li.ID, r.li.Podcast.ID, *r.ep))
			out = append(out, j)
		}
		return out
	}
	bookEntities := func(rows []*bookRow) []jobj {
		out := []jobj{}
		for _, r := range rows {
			out = append(out, c.s.itemMinified(r.li, viewOpts{}))
		}
		return out
	}
	typ := "book"
	if lib.MediaType == "podcast" {
		typ = "episode"
	}

	// "Continue Listening" / "Continue Reading": getMediaItemsInProgress.
	var inProgress []jobj
	var inProgressCount int
	if lib.MediaType == "book" {
		rows, n := c.queryBooks(lib, bookQuery{group: "progress", value: "in-progress", hasValue: true, sortBy: "progress", desc: true, limit: limit, homePage: true})
		inProgress, inProgressCount = bookEntities(rows), n
	} else {
		rows, n := c.queryEpisodes(lib, "progress", "in-progress", "progress", true, limit, 0, true)
		inProgress, inProgressCount = episodeEntities(rows), n
	}
	if len(inProgress) > 0 {
		audio, ebook := split(inProgress)
		if len(audio) > 0 {
			shelf("continue-listening", "Continue Listening", "LabelContinueListening", typ, audio, inProgressCount)
		}
		if len(ebook) > 0 {
			shelf("continue-reading", "Continue Reading", "LabelContinueReading", "book", ebook, inProgressCount)
		}
	}

	finished := func() ([]jobj, int) {
		if lib.MediaType == "book" {
			rows, n := c.queryBooks(lib, bookQuery{group: "progress", value: "finished", hasValue: true, sortBy: "progress", desc: true, limit: limit})
			return bookEntities(rows), n
		}
		rows, n := c.queryEpisodes(lib, "progress", "finished", "progress", true, limit, 0, false)
		return episodeEntities(rows), n
	}
	recentlyAdded := func() ([]jobj, int) {
		if lib.MediaType == "book" {
			rows, n := c.queryBooks(lib, bookQuery{group: "recent", sortBy: "addedAt", desc: true, limit: limit})
			return bookEntities(rows), n
		}
		rows, n := c.queryPodcasts(lib, podcastQuery{group: "recent", sortBy: "addedAt", desc: true, limit: limit})
		out := []jobj{}
		for _, li := range rows {
			j := c.s.itemMinified(li, viewOpts{noEpisodes: true})
			media := j.get("media").(jobj)
			if li.Size != 0 {
				media.set("size", li.Size)
			}
			out = append(out, j)
		}
		return out, n
	}
	listenAgain := func(items []jobj, n int, typ string) {
		if len(items) == 0 {
			return
		}
		audio, ebook := split(items)
		if len(audio) > 0 {
			shelf("listen-again", "Listen Again", "LabelListenAgain", typ, audio, n)
		}
		if len(ebook) > 0 {
			shelf("read-again", "Read Again", "LabelReadAgain", "book", ebook, n)
		}
	}

	if lib.MediaType == "book" {
		if items, n := c.continueSeries(lib, limit); len(items) > 0 {
			shelf("continue-series", "Continue Series", "LabelContinueSeries", "book", items, n)
		}
		if items, n := recentlyAdded(); len(items) > 0 {
			shelf("recently-added", "Recently Added", "LabelRecentlyAdded", lib.MediaType, items, n)
		}
		if series, n := c.recentSeries(lib, 5); len(series) > 0 {
			shelf("recent-series", "Recent Series", "LabelRecentSeries", "series", series, n)
		}
		if items, n := c.discover(lib, limit); len(items) > 0 {
			shelf("discover", "Discover", "LabelDiscover", lib.MediaType, items, n)
		}
		items, n := finished()
		listenAgain(items, n, "book")
		if authors, n := c.newestAuthors(lib, limit); len(authors) > 0 {
			shelf("newest-authors", "Newest Authors", "LabelNewestAuthors", "authors", authors, n)
		}
	} else {
		rows, n := c.queryEpisodes(lib, "recent", "", "createdAt", true, limit, 0, false)
		if len(rows) > 0 {
			shelf("newest-episodes", "Newest Episodes", "LabelNewestEpisodes", "episode", episodeEntities(rows), n)
		}
		if items, n := recentlyAdded(); len(items) > 0 {
			shelf("recently-added", "Recently Added", "LabelRecentlyAdded", lib.MediaType, items, n)
		}
		items, n2 := finished()
		listenAgain(items, n2, "episode")
	}
	c.sendJSON(shelves)
}

// continueSeries is libraryItemsBookFilters.getContinueSeriesLibraryItems:
// series with a finished book, no book in progress and an unfinished book,
// most recently listened first; each gives its first unfinished book.
func (c *ctx) continueSeries(lib *Library, limit int) ([]jobj, int) {
	type cand struct {
		se     *Series
		book   *LibraryItem
		seq    string
		recent int64
	}
	var cands []cand
	for i := range c.s.data.Series {
		se := &c.s.data.Series[i]
		if se.LibraryID != lib.ID || contains(c.user.SeriesHideFromContinueListening, se.ID) {
			continue
		}
		var books []*LibraryItem
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book != nil {
				if _, ok := seqOf(li.Book, se.ID); ok {
					books = append(books, li)
				}
			}
		}
		nFinished, nNotFinished, nInProgress := 0, 0, 0
		var maxSeqFinished float64
		hasMax := false
		var recent int64
		for _, li := range books {
			mp := c.progressFor(li.Book.ID, false)
			if mp != nil && mp.LastUpdate > recent {
				recent = mp.LastUpdate
			}
			if mp != nil && mp.IsFinished {
				nFinished++
				sq, _ := seqOf(li.Book, se.ID)
				if f, ok := sqliteCastFloat(sq, sq == ""); ok && (!hasMax || f > maxSeqFinished) {
					maxSeqFinished, hasMax = f, true
				}
			}
			if mp != nil && !mp.IsFinished && mp.CurrentTime > 0 {
				nInProgress++
			}
		}
		for _, li := range books {
			mp := c.progressFor(li.Book.ID, false)
			if mp != nil && mp.IsFinished {
				continue
			}
			if lib.Settings.OnlyShowLaterBooksInContinueSeries {
				sq, _ := seqOf(li.Book, se.ID)
				f, ok := sqliteCastFloat(sq, sq == "")
				if !ok || !hasMax || !(f > maxSeqFinished) {
					continue
				}
			}
			nNotFinished++
		}
		if nFinished < 1 || nNotFinished < 1 || nInProgress != 0 {
			continue
		}
		// The series' bookSeries rows whose book is not finished and that the
		// user may see, in sequence order.
		var unfinished []*LibraryItem
		for _, li := range books {
			mp := c.progressFor(li.Book.ID, false)
			if (mp == nil || !mp.IsFinished) && c.user.itemPermitted(li) {
				unfinished = append(unfinished, li)
			}
		}
		stableSortBy(unfinished, func(a, b *LibraryItem) int {
			as, _ := seqOf(a.Book, se.ID)
			bs, _ := seqOf(b.Book, se.ID)
			av, aok := sqliteCastFloat(as, as == "")
			bv, bok := sqliteCastFloat(bs, bs == "")
			return nullableCmp(av, bv, aok, bok, false, "last")
		})
		if len(unfinished) == 0 {
			cands = append(cands, cand{se: se, recent: recent})
			continue
		}
		pick := -1
		if lib.Settings.OnlyShowLaterBooksInContinueSeries {
			for k, li := range unfinished {
				sq, _ := seqOf(li.Book, se.ID)
				if f := stringToNumber(sq); !math.IsNaN(f) && hasMax && f > maxSeqFinished {
					pick = k
					break
				}
			}
		} else {
			pick = 0
		}
		if pick < 0 {
			cands = append(cands, cand{se: se, recent: recent})
			continue
		}
		sq, _ := seqOf(unfinished[pick].Book, se.ID)
		cands = append(cands, cand{se: se, book: unfinished[pick], seq: sq, recent: recent})
	}
	stableSortBy(cands, func(a, b cand) int { return cmpInt64(b.recent, a.recent) })
	count := len(cands)
	out := []jobj{}
	for _, cd := range page(cands, limit, 0) {
		if cd.book == nil {
			continue
		}
		// book.series = [] before toOldJSONMinified, then metadata.series is
		// set to {id, name, sequence}.
		j := c.s.itemMinified(cd.book, viewOpts{noSeries: true})
		media := j.get("media").(jobj)
		md := media.get("metadata").(jobj)
		md.set("series", jobj{{"id", cd.se.ID}, {"name", cd.se.Name}, {"sequence", ns(cd.seq)}})
		media.set("metadata", md)
		j.set("media", media)
		out = append(out, j)
	}
	return out, count
}

// recentSeries is libraryFilters.getSeriesMostRecentlyAdded.
func (c *ctx) recentSeries(lib *Library, limit int) ([]jobj, int) {
	var list []*Series
	for i := range c.s.data.Series {
		se := &c.s.data.Series[i]
		if se.LibraryID != lib.ID || se.AddedAt < c.recentCutoff() {
			continue
		}
		n, permitted := 0, 0
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book != nil {
				if _, ok := seqOf(li.Book, se.ID); ok {
					n++
					if c.user.itemPermitted(li) {
						permitted++
					}
				}
			}
		}
		if lib.Settings.HideSingleBookSeries && n <= 1 {
			continue
		}
		if c.user.hasPermissionWhere() && permitted == 0 {
			continue
		}
		list = append(list, se)
	}
	stableSortBy(list, func(a, b *Series) int { return cmpInt64(b.AddedAt, a.AddedAt) })
	count := len(list)
	out := []jobj{}
	for _, se := range page(list, limit, 0) {
		sj := seriesJSON(se)
		var books []*LibraryItem
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book != nil && c.user.itemPermitted(li) {
				if _, ok := seqOf(li.Book, se.ID); ok {
					books = append(books, li)
				}
			}
		}
		stableSortBy(books, func(a, b *LibraryItem) int {
			as, _ := seqOf(a.Book, se.ID)
			bs, _ := seqOf(b.Book, se.ID)
			switch {
			case as == "" && bs == "":
				return 0
			case as == "":
				return 1
			case bs == "":
				return -1
			}
			return naturalCompare(as, bs)
		})
		bj := []jobj{}
		for _, li := range books {
			bj = append(bj, c.s.itemMinified(li, viewOpts{noAuthors: true, noSeries: true}))
		}
		sj.set("books", bj)
		out = append(out, sj)
	}
	return out, count
}

// discover is libraryItemsBookFilters.getDiscoverLibraryItems: books not
// started that are either in no series or first in a series nobody started.
// Upstream picks at random; the stand-in keeps data order.
func (c *ctx) discover(lib *Library, limit int) ([]jobj, int) {
	firstOf := map[string]bool{}
	nSeries := 0
	for i := range c.s.data.Series {
		se := &c.s.data.Series[i]
		if se.LibraryID != lib.ID || nSeries >= limit {
			continue
		}
		started := false
		var books []*LibraryItem
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book == nil {
				continue
			}
			if _, ok := seqOf(li.Book, se.ID); ok {
				if mp := c.progressFor(li.Book.ID, false); mp != nil && (mp.IsFinished || mp.CurrentTime > 0) {
					started = true
				}
				if c.user.itemPermitted(li) {
					books = append(books, li)
				}
			}
		}
		if started || len(books) == 0 {
			continue
		}
		nSeries++
		stableSortBy(books, func(a, b *LibraryItem) int {
			as, _ := seqOf(a.Book, se.ID)
			bs, _ := seqOf(b.Book, se.ID)
			av, aok := sqliteCastFloat(as, as == "")
			bv, bok := sqliteCastFloat(bs, bs == "")
			return nullableCmp(av, bv, aok, bok, false, "last")
		})
		firstOf[books[0].Book.ID] = true
	}
	var rows []*LibraryItem
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != lib.ID || li.Book == nil || !c.user.itemPermitted(li) {
			continue
		}
		mp := c.progressFor(li.Book.ID, false)
		if mp != nil && (mp.IsFinished || mp.CurrentTime != 0) {
			continue
		}
		if len(li.Book.Series) == 0 || firstOf[li.Book.ID] {
			rows = append(rows, li)
		}
	}
	count := len(rows)
	out := []jobj{}
	for _, li := range page(rows, limit, 0) {
		out = append(out, c.s.itemMinified(li, viewOpts{}))
	}
	return out, count
}

// newestAuthors is libraryFilters.getNewestAuthors: authors added in the last
// 60 days with at least one book.
func (c *ctx) newestAuthors(lib *Library, limit int) ([]jobj, int) {
	type row struct {
		a *Author
		n int
	}
	var rows []row
	counts := c.authorBookCounts(true)
	for i := range c.s.data.Authors {
		a := &c.s.data.Authors[i]
		if a.LibraryID != lib.ID || a.AddedAt < c.recentCutoff() {
			continue
		}
		if n := counts[a.ID]; n > 0 {
			rows = append(rows, row{a, n})
		}
	}
	stableSortBy(rows, func(x, y row) int { return cmpInt64(y.a.AddedAt, x.a.AddedAt) })
	out := []jobj{}
	for _, r := range page(rows, limit, 0) {
		out = append(out, authorExpanded(r.a, r.n))
	}
	return out, len(rows)
}
