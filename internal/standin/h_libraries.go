package standin

// Library routes: server/controllers/LibraryController.js.

import (
	"encoding/base64"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// withLibrary is LibraryController.middleware: 403 when the user may not use
// the library, 404 "Library not found", and limit/page coerced to numbers
// (400 unless a non-negative integer).
func withLibrary(h func(*ctx)) func(*ctx) {
	return func(c *ctx) {
		id := c.params["id"]
		if !c.user.canAccessLibrary(id) {
			c.sendStatus(http.StatusForbidden)
			return
		}
		lib := c.s.library(id)
		if lib == nil {
			c.send(http.StatusNotFound, "Library not found")
			return
		}
		c.lib = lib
		c.nums = map[string]float64{}
		for _, k := range []string{"limit", "page"} {
			vals, ok := c.q[k]
			if !ok {
				continue
			}
			var v any = vals[0]
			if len(vals) > 1 { // qs turns a repeated key into an array
				arr := make([]any, len(vals))
				for i, s := range vals {
					arr[i] = s
				}
				v = arr
			}
			n := 0.0
			if !jsIsNaN(v) {
				n = toNumber(v)
			}
			if n != math.Trunc(n) || math.IsInf(n, 0) || n < 0 {
				c.send(http.StatusBadRequest, "Invalid request. "+k+" must be a positive integer")
				return
			}
			c.nums[k] = n
		}
		h(c)
	}
}

// num is req.query[k] || 0 after the middleware.
func (c *ctx) num(k string) float64 { return c.nums[k] }

// optStr is req.query[k], undefined when absent.
func (c *ctx) optStr(k string) any {
	if v, ok := c.query(k); ok {
		return v
	}
	return undefined
}

func (c *ctx) flag(k string) bool { v, _ := c.query(k); return v == "1" }

// GET /api/libraries: LibraryController.findAll.
func hLibraries(c *ctx) {
	libs := append([]Library(nil), c.s.data.Libraries...)
	sort.SliceStable(libs, func(i, j int) bool { return libs[i].DisplayOrder < libs[j].DisplayOrder })
	out := []jobj{}
	for i := range libs {
		if acc := c.user.Permissions.LibrariesAccessible; len(acc) > 0 && !contains(acc, libs[i].ID) {
			continue
		}
		out = append(out, libraryJSON(&libs[i]))
	}
	c.sendJSON(jobj{{"libraries", out}})
}

// GET /api/libraries/:id: LibraryController.findOne (include=filterdata
// wraps the library with its filter data).
func hLibrary(c *ctx) {
	if contains(strings.Split(c.queryOr("include", ""), ","), "filterdata") {
		fd := c.cachedFilterData(c.lib)
		n := 0
		for _, p := range c.s.data.Playlists {
			if p.UserID == c.user.ID && p.LibraryID == c.lib.ID {
				n++
			}
		}
		c.sendJSON(jobj{{"filterdata", fd}, {"issues", fd.get("numIssues")}, {"numUserPlaylists", n}, {"library", libraryJSON(c.lib)}})
		return
	}
	c.sendJSON(libraryJSON(c.lib))
}

func (c *ctx) queryOr(k, def string) string {
	if v, ok := c.query(k); ok {
		return v
	}
	return def
}

// GET /api/libraries/:id/items: LibraryController.getLibraryItems and
// LibraryItem.getByFilterAndSort. Results are always minified (the minified
// query parameter is only echoed), and include only matters for rssfeed and
// share, which the stand-in has none of.
func hLibraryItems(c *ctx) {
	include := c.includes(true)
	limit, pg := c.num("limit"), c.num("page")
	filterBy := c.optStr("filter")
	payload := jobj{
		{"results", []jobj{}},
		{"total", undefined},
		{"limit", limit},
		{"page", pg},
		{"sortBy", c.optStr("sort")},
		{"sortDesc", c.flag("desc")},
		{"filterBy", filterBy},
		{"mediaType", c.lib.MediaType},
		{"minified", c.flag("minified")},
		{"collapseseries", c.flag("collapseseries")},
		{"include", strings.Join(include, ",")},
	}
	payload.set("offset", pg*limit)

	fb, _ := filterBy.(string)
	sortBy, _ := c.optStr("sort").(string)
	// The controller decodes the value of any filter first (a malformed
	// %-escape makes decodeURIComponent throw: the process dies).
	if fb != "" {
		grp := strings.SplitN(fb, ".", 2)[0]
		if grp != "" {
			if _, ok := decodeFilterValue(strings.Replace(fb, grp+".", "", 1)); !ok {
				c.crash()
			}
		}
	}
	group, value, hasValue, ok := parseFilter(fb, bookFilterGroups)
	if !ok {
		c.crash()
	}

	if c.lib.MediaType == "podcast" {
		rows, count := c.queryPodcasts(c.lib, podcastQuery{group: group, value: value, sortBy: sortBy, desc: c.flag("desc"), limit: intOf(limit), offset: intOf(pg * limit)})
		results := []jobj{}
		for _, li := range rows {
			j := c.s.itemMinified(li, viewOpts{noEpisodes: true})
			media := j.get("media").(jobj)
			// getByFilterAndSort: numEpisodes comes from the podcasts.numEpisodes
			// column, and media.size falls back to the item's size.
			if n := len(li.Podcast.Episodes); n > 0 {
				media.set("numEpisodes", n)
			}
			if li.Size != 0 {
				media.set("size", li.Size)
			}
			j.set("media", media)
			results = append(results, j)
		}
		payload.set("results", results)
		payload.set("total", count)
		c.sendJSON(payload)
		return
	}

	collapse := c.flag("collapseseries")
	if group == "series" && value != "no-series" && collapse {
		// libraryHelpers.handleCollapseSubseries (sub-series are not collapsed
		// by the stand-in).
		results, total := c.seriesBooksForCollapse(value, sortBy, c.flag("desc"), intOf(limit), intOf(pg))
		payload.set("results", results)
		payload.set("total", total)
		c.sendJSON(payload)
		return
	}
	rows, count := c.queryBooks(c.lib, bookQuery{group: group, value: value, hasValue: hasValue, sortBy: sortBy, desc: c.flag("desc"),
		collapse: collapse, limit: intOf(limit), offset: intOf(pg * limit)})
	results := []jobj{}
	for _, row := range rows {
		j := c.s.itemMinified(row.li, viewOpts{})
		if row.collapsed != nil {
			j.set("collapsedSeries", row.collapsed)
		}
		if row.series != nil {
			media := j.get("media").(jobj)
			md := media.get("metadata").(jobj)
			md.set("series", row.series)
			media.set("metadata", md)
			j.set("media", media)
		}
		results = append(results, j)
	}
	payload.set("results", results)
	payload.set("total", count)
	c.sendJSON(payload)
}

// seriesBooksForCollapse is the part of libraryHelpers.handleCollapseSubseries
// that applies when no book of the series is in another series.
func (c *ctx) seriesBooksForCollapse(seriesID, sortBy string, desc bool, limit, pg int) ([]jobj, int) {
	se := c.s.seriesByID(seriesID)
	if se == nil {
		return []jobj{}, 0
	}
	var items []*LibraryItem
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.Book == nil {
			continue
		}
		if _, ok := seqOf(li.Book, se.ID); ok && c.user.canAccessItem(li) {
			items = append(items, li)
		}
	}
	stableSortBy(items, func(a, b *LibraryItem) int {
		var r int
		if sortBy == "" || sortBy == "sequence" {
			as, _ := seqOf(a.Book, se.ID)
			bs, _ := seqOf(b.Book, se.ID)
			r = naturalCompare(as, bs)
			if r == 0 {
				r = naturalCompare(a.Book.Title, b.Book.Title)
			}
		} else {
			r = naturalCompare(a.Book.Title, b.Book.Title)
		}
		return dirCmp(r, desc)
	})
	total := len(items)
	if limit > 0 {
		items = page(items, limit, pg*limit)
	}
	out := []jobj{}
	for _, li := range items {
		j := c.s.itemMinified(li, viewOpts{})
		sq, _ := seqOf(li.Book, se.ID)
		media := j.get("media").(jobj)
		md := media.get("metadata").(jobj)
		md.set("series", jobj{{"id", se.ID}, {"name", se.Name}, {"sequence", ns(sq)}})
		media.set("metadata", md)
		j.set("media", media)
		out = append(out, j)
	}
	return out, total
}

// booksOfSeries is libraryItemsBookFilters.getLibraryItemsForSeries.
func (c *ctx) booksOfSeries(se *Series) []*LibraryItem {
	lib := c.s.library(se.LibraryID)
	if lib == nil {
		return nil
	}
	rows, _ := c.queryBooks(lib, bookQuery{group: "series", value: se.ID, hasValue: true})
	out := make([]*LibraryItem, len(rows))
	for i, r := range rows {
		out[i] = r.li
	}
	return out
}

// seriesRows is seriesFilters.getFilteredSeries: the series of a library
// with their books, filtered and sorted.
func (c *ctx) seriesRows(lib *Library, filterBy, sortBy string, desc bool, limit, offset int) ([]jobj, int) {
	group, value, _, ok := parseFilter(filterBy, seriesFilterGroups)
	if !ok {
		c.crash()
	}
	type row struct {
		s     *Series
		books []*LibraryItem // every book of the series (bookSeries rows)
	}
	var rows []*row
	for i := range c.s.data.Series {
		se := &c.s.data.Series[i]
		if se.LibraryID != lib.ID {
			continue
		}
		r := &row{s: se}
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book != nil {
				if _, ok := seqOf(li.Book, se.ID); ok {
					r.books = append(r.books, li)
				}
			}
		}
		if lib.Settings.HideSingleBookSeries && len(r.books) <= 1 {
			continue
		}
		count := func(pred func(li *LibraryItem) bool) int {
			n := 0
			for _, li := range r.books {
				if c.user.hasPermissionWhere() && !c.user.itemPermitted(li) {
					continue
				}
				if pred(li) {
					n++
				}
			}
			return n
		}
		all := func(*LibraryItem) bool { return true }
		keep := true
		attr := all
		hasAttr := false
		notFinished := func(li *LibraryItem) bool {
			mp := c.progressFor(li.Book.ID, false)
			return mp == nil || !mp.IsFinished
		}
		switch group {
		case "genres", "tags", "narrators":
			hasAttr = true
			attr = func(li *LibraryItem) bool {
				switch group {
				case "genres":
					return contains(li.Book.Genres, value)
				case "tags":
					return contains(li.Book.Tags, value)
				}
				return contains(li.Book.Narrators, value)
			}
		case "authors":
			hasAttr, attr = true, func(li *LibraryItem) bool { return contains(li.Book.AuthorIDs, value) }
		case "publishers":
			hasAttr, attr = true, func(li *LibraryItem) bool { return li.Book.Publisher != "" && li.Book.Publisher == value }
		case "languages":
			hasAttr, attr = true, func(li *LibraryItem) bool { return li.Book.Language != "" && li.Book.Language == value }
		case "progress":
			switch value {
			case "not-finished":
				hasAttr, attr = true, notFinished
			case "finished":
				keep = countAll(r.books, notFinished) == 0
			case "not-started":
				keep = countAll(r.books, func(li *LibraryItem) bool {
					mp := c.progressFor(li.Book.ID, false)
					return mp != nil && (mp.IsFinished || mp.CurrentTime > 0)
				}) == 0
			case "in-progress":
				hasAttr, attr = true, func(li *LibraryItem) bool {
					mp := c.progressFor(li.Book.ID, false)
					return mp != nil && (mp.CurrentTime > 0 || mp.EbookProgress > 0) && !mp.IsFinished
				}
			}
		}
		if c.user.hasPermissionWhere() {
			hasAttr = true
		}
		if hasAttr && count(attr) == 0 {
			keep = false
		}
		if keep {
			rows = append(rows, r)
		}
	}
	totalDuration := func(r *row) (float64, bool) {
		if len(r.books) == 0 {
			return 0, false
		}
		t := 0.0
		for _, li := range r.books {
			t += li.Book.Duration
		}
		return t, true
	}
	maxOf := func(r *row, f func(*LibraryItem) int64) (float64, bool) {
		if len(r.books) == 0 {
			return 0, false
		}
		m := int64(math.MinInt64)
		for _, li := range r.books {
			if v := f(li); v > m {
				m = v
			}
		}
		return float64(m), true
	}
	var order []sortCmp[*row]
	switch sortBy {
	case "numBooks":
		order = append(order, func(a, b *row) int {
			return nullableCmp(float64(len(a.books)), float64(len(b.books)), true, true, desc, "")
		})
	case "addedAt":
		order = append(order, func(a, b *row) int {
			return nullableCmp(float64(a.s.AddedAt), float64(b.s.AddedAt), true, true, desc, "")
		})
	case "name":
		order = append(order, func(a, b *row) int { return dirCmp(nocaseCompare(a.s.Name, b.s.Name), desc) })
	case "totalDuration":
		order = append(order, func(a, b *row) int {
			av, aok := totalDuration(a)
			bv, bok := totalDuration(b)
			return nullableCmp(av, bv, aok, bok, desc, "")
		})
	case "lastBookAdded", "lastBookUpdated":
		pick := func(li *LibraryItem) int64 { return li.Book.CreatedAt }
		if sortBy == "lastBookUpdated" {
			pick = func(li *LibraryItem) int64 { return li.Book.UpdatedAt }
		}
		order = append(order, func(a, b *row) int {
			av, aok := maxOf(a, pick)
			bv, bok := maxOf(b, pick)
			return nullableCmp(av, bv, aok, bok, desc, "")
		})
	}
	applyOrder(rows, order)
	count := len(rows)
	// Sequelize sends LIMIT offset, limit even for limit 0.
	if limit == 0 {
		return []jobj{}, count
	}
	rows = page(rows, limit, offset)
	out := []jobj{}
	for _, r := range rows {
		sj := seriesJSON(r.s)
		if sortBy == "totalDuration" {
			if d, ok := totalDuration(r); ok && d != 0 {
				sj.set("totalDuration", d)
			}
		}
		books := append([]*LibraryItem(nil), r.books...)
		books = filterItems(books, func(li *LibraryItem) bool { return c.user.itemPermitted(li) })
		stableSortBy(books, func(a, b *LibraryItem) int {
			as, _ := seqOf(a.Book, r.s.ID)
			bs, _ := seqOf(b.Book, r.s.ID)
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
			bj = append(bj, c.s.itemMinified(li, viewOpts{}))
		}
		sj.set("books", bj)
		out = append(out, sj)
	}
	return out, count
}

func countAll(items []*LibraryItem, pred func(*LibraryItem) bool) int {
	n := 0
	for _, li := range items {
		if pred(li) {
			n++
		}
	}
	return n
}

func filterItems(items []*LibraryItem, keep func(*LibraryItem) bool) []*LibraryItem {
	var out []*LibraryItem
	for _, li := range items {
		if keep(li) {
			out = append(out, li)
		}
	}
	return out
}

// GET /api/libraries/:id/series: LibraryController.getAllSeriesForLibrary.
func hLibrarySeries(c *ctx) {
	include := c.includes(true)
	limit, pg := c.num("limit"), c.num("page")
	fb, _ := c.optStr("filter").(string)
	sortBy, _ := c.optStr("sort").(string)
	results, count := c.seriesRows(c.lib, fb, sortBy, c.flag("desc"), intOf(limit), intOf(pg*limit))
	c.sendJSON(jobj{
		{"results", results},
		{"total", count},
		{"limit", limit},
		{"page", pg},
		{"sortBy", c.optStr("sort")},
		{"sortDesc", c.flag("desc")},
		{"filterBy", c.optStr("filter")},
		{"minified", c.flag("minified")},
		{"include", strings.Join(include, ",")},
	})
}

// seriesProgress is the progress object of include=progress on a series.
func (c *ctx) seriesProgress(items []*LibraryItem, strict bool) jobj {
	ids, finished := []string{}, []string{}
	for _, li := range items {
		ids = append(ids, li.ID)
		if mp := c.progressFor(li.Book.ID, false); mp != nil && mp.IsFinished {
			finished = append(finished, li.ID)
		}
	}
	done := len(finished) >= len(ids)
	if strict {
		done = len(finished) == len(ids)
	}
	return jobj{{"libraryItemIds", ids}, {"libraryItemIdsFinished", finished}, {"isFinished", done}}
}

// GET /api/libraries/:id/series/:seriesId: LibraryController.getSeriesForLibrary.
func hLibrarySeriesOne(c *ctx) {
	se := c.s.seriesByID(c.params["seriesId"])
	if se == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	items := c.booksOfSeries(se)
	j := seriesJSON(se)
	if contains(c.includes(true), "progress") {
		j.set("progress", c.seriesProgress(items, false))
	}
	if contains(c.includes(true), "rssfeed") {
		j.set("rssFeed", nil)
	}
	c.sendJSON(j)
}

// GET /api/series/:id: SeriesController.middleware and findOne.
func hSeries(c *ctx) {
	se := c.s.seriesByID(c.params["id"])
	if se == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	items := c.booksOfSeries(se)
	if len(items) == 0 {
		c.sendStatus(http.StatusNotFound)
		return
	}
	inc := c.includes(false)
	j := seriesJSON(se)
	if contains(inc, "progress") {
		j.set("progress", c.seriesProgress(items, true))
	}
	if contains(inc, "rssfeed") {
		j.set("rssFeed", nil)
	}
	c.sendJSON(j)
}

// GET /api/libraries/:id/collections: LibraryController.getCollectionsForLibrary.
func hLibraryCollections(c *ctx) {
	include := c.includes(true)
	limit, pg := c.num("limit"), c.num("page")
	all := []jobj{}
	for i := range c.s.data.Collections {
		col := &c.s.data.Collections[i]
		if col.LibraryID != c.lib.ID {
			continue
		}
		// Collection.getOldCollectionsJsonExpanded: hidden only when every
		// book is hidden from the user, otherwise sent with all its books.
		if _, ok := c.collectionForUser(col); ok {
			all = append(all, c.s.collectionExpanded(col))
		}
	}
	total := len(all)
	if limit != 0 {
		s, e := jsSliceBounds(len(all), pg*limit, pg*limit+limit)
		all = all[s:e]
	}
	c.sendJSON(jobj{
		{"results", all},
		{"total", total},
		{"limit", limit},
		{"page", pg},
		{"sortBy", c.optStr("sort")},
		{"sortDesc", c.flag("desc")},
		{"filterBy", c.optStr("filter")},
		{"minified", c.flag("minified")},
		{"include", strings.Join(include, ",")},
	})
}

// GET /api/libraries/:id/playlists: LibraryController.getUserPlaylistsForLibrary.
func hLibraryPlaylists(c *ctx) {
	pls := c.userPlaylists(c.lib.ID)
	limit, pg := c.num("limit"), c.num("page")
	total := len(pls)
	if limit != 0 {
		s, e := jsSliceBounds(len(pls), pg*limit, pg*limit+limit)
		pls = pls[s:e]
	}
	c.sendJSON(jobj{{"results", pls}, {"total", total}, {"limit", limit}, {"page", pg}})
}

// userPlaylists is Playlist.getOldPlaylistsForUserAndLibrary: sorted by name.
func (c *ctx) userPlaylists(libraryID string) []jobj {
	var pls []*Playlist
	for i := range c.s.data.Playlists {
		p := &c.s.data.Playlists[i]
		if p.UserID == c.user.ID && (libraryID == "" || p.LibraryID == libraryID) {
			pls = append(pls, p)
		}
	}
	stableSortBy(pls, func(a, b *Playlist) int { return localeCompare(a.Name, b.Name) })
	out := []jobj{}
	for _, p := range pls {
		out = append(out, c.s.playlistExpanded(p))
	}
	return out
}

// GET /api/libraries/:id/filterdata: libraryFilters.getFilterData, the
// copy 2.36 keeps (filtercache.go).
func hFilterData(c *ctx) { c.sendJSON(c.cachedFilterData(c.lib)) }

// filterData is the library's filter data loaded from its books, series
// and authors.
func (c *ctx) filterData(lib *Library) jobj {
	type idName struct{ id, name string }
	genres, tags, narrators, languages, publishers, decades := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var authors, series []idName
	bookCount, podcastCount, numIssues := 0, 0, 0
	seriesCount, authorCount := 0, 0
	if lib.MediaType == "podcast" {
		for i := range c.s.data.Items {
			li := &c.s.data.Items[i]
			if li.LibraryID != lib.ID || li.Podcast == nil {
				continue
			}
			podcastCount++
			for _, t := range li.Podcast.Tags {
				tags[t] = true
			}
			for _, g := range li.Podcast.Genres {
				genres[g] = true
			}
			if li.Podcast.Language != "" {
				languages[li.Podcast.Language] = true
			}
		}
	} else {
		for i := range c.s.data.Items {
			li := &c.s.data.Items[i]
			if li.LibraryID != lib.ID || li.Book == nil {
				continue
			}
			b := li.Book
			bookCount++
			if li.IsMissing || li.IsInvalid {
				numIssues++
			}
			for _, t := range b.Tags {
				tags[t] = true
			}
			for _, g := range b.Genres {
				genres[g] = true
			}
			for _, n := range b.Narrators {
				narrators[n] = true
			}
			if b.Publisher != "" {
				publishers[b.Publisher] = true
			}
			if y := stringToNumber(b.PublishedYear); b.PublishedYear != "" && !math.IsNaN(y) && y > 0 && y < 3000 {
				decades[jsNumberToString(math.Floor(y/10)*10)] = true
			}
			if b.Language != "" {
				languages[b.Language] = true
			}
		}
		for _, se := range c.s.data.Series {
			if se.LibraryID == lib.ID {
				seriesCount++
				name := se.Name
				if name == "" {
					name = "No Title"
				}
				series = append(series, idName{se.ID, name})
			}
		}
		for _, a := range c.s.data.Authors {
			if a.LibraryID == lib.ID {
				authorCount++
				authors = append(authors, idName{a.ID, a.Name})
			}
		}
	}
	sorted := func(m map[string]bool) []string {
		out := []string{}
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		stableSortBy(out, naturalCompare)
		return out
	}
	pairs := func(v []idName) []jobj {
		stableSortBy(v, func(a, b idName) int { return naturalCompare(a.name, b.name) })
		out := []jobj{}
		for _, p := range v {
			out = append(out, jobj{{"id", p.id}, {"name", p.name}})
		}
		return out
	}
	return jobj{
		{"authors", pairs(authors)},
		{"genres", sorted(genres)},
		{"tags", sorted(tags)},
		{"series", pairs(series)},
		{"narrators", sorted(narrators)},
		{"languages", sorted(languages)},
		{"publishers", sorted(publishers)},
		{"publishedDecades", sorted(decades)},
		{"bookCount", bookCount},
		{"authorCount", authorCount},
		{"seriesCount", seriesCount},
		{"podcastCount", podcastCount},
		{"numIssues", numIssues},
		{"loadedAt", c.nowMs()},
	}
}

// GET /api/libraries/:id/search: LibraryController.search and
// libraryItemsBookFilters.search / libraryItemsPodcastFilters.search.
func hSearch(c *ctx) {
	qv, ok := c.q["q"]
	if !ok || len(qv) != 1 || qv[0] == "" {
		c.send(http.StatusBadRequest, `Invalid request. Query param "q" must be a string`)
		return
	}
	limit := intOf(c.num("limit"))
	if limit == 0 {
		limit = 12
	}
	query := strings.TrimSpace(qv[0])
	match := func(s string) bool { return s != "" && likeMatch(s, query) }
	sub := func(s string) bool { return s != "" && strings.Contains(asciiLower(s), asciiLower(query)) }

	if c.lib.MediaType == "podcast" {
		podcasts, episodes := []jobj{}, []jobj{}
		tagCount, genreCount := map[string]int{}, map[string]int{}
		var tagOrder, genreOrder []string
		for i := range c.s.data.Items {
			li := &c.s.data.Items[i]
			if li.LibraryID != c.lib.ID || li.Podcast == nil {
				continue
			}
			p := li.Podcast
			for _, t := range p.Tags {
				if match(t) {
					if tagCount[t] == 0 {
						tagOrder = append(tagOrder, t)
					}
					tagCount[t]++
				}
			}
			for _, g := range p.Genres {
				if match(g) {
					if genreCount[g] == 0 {
						genreOrder = append(genreOrder, g)
					}
					genreCount[g]++
				}
			}
			if !c.user.itemPermitted(li) {
				continue
			}
			if len(podcasts) < limit && (match(p.Title) || match(p.Author) || sub(p.ITunesID) || sub(p.ITunesArtistID)) {
				podcasts = append(podcasts, jobj{{"libraryItem", c.s.itemExpanded(li, viewOpts{noEpisodes: true})}})
			}
			for _, ep := range p.Episodes {
				if len(episodes) < limit && match(ep.Title) {
					lj := c.s.itemExpanded(li, viewOpts{noEpisodes: true})
					lj.set("recentEpisode", episodeExpanded(li.ID, p.ID, ep))
					episodes = append(episodes, jobj{{"libraryItem", lj}})
				}
			}
		}
		c.sendJSON(jobj{
			{"podcast", podcasts},
			{"tags", countedNames(tagOrder, tagCount, "numItems", limit)},
			{"genres", countedNames(genreOrder, genreCount, "numItems", limit)},
			{"episodes", episodes},
		})
		return
	}

	books := []jobj{}
	narrCount, tagCount, genreCount := map[string]int{}, map[string]int{}, map[string]int{}
	var narrOrder, tagOrder, genreOrder []string
	count := func(order *[]string, m map[string]int, v string) {
		if m[v] == 0 {
			*order = append(*order, v)
		}
		m[v]++
	}
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != c.lib.ID || li.Book == nil {
			continue
		}
		b := li.Book
		for _, n := range b.Narrators {
			if match(n) {
				count(&narrOrder, narrCount, n)
			}
		}
		for _, t := range b.Tags {
			if match(t) {
				count(&tagOrder, tagCount, t)
			}
		}
		for _, g := range b.Genres {
			if match(g) {
				count(&genreOrder, genreCount, g)
			}
		}
		if !c.user.itemPermitted(li) {
			continue
		}
		if len(books) < limit && (match(b.Title) || match(b.Subtitle) || sub(b.ASIN) || sub(b.ISBN)) {
			books = append(books, jobj{{"libraryItem", c.s.itemExpanded(li, viewOpts{})}})
		}
	}
	// Narrators are grouped without an ORDER BY: sorted by value, as SQLite's
	// GROUP BY returns them.
	sort.Strings(narrOrder)
	// Each group is cut at the limit, as SQL's LIMIT does: the series are
	// cut before those without a book the user may see are dropped, so
	// fewer than the limit may come back from a cut group.
	seriesMatches := []jobj{}
	seriesCut := 0
	for i := range c.s.data.Series {
		se := &c.s.data.Series[i]
		if se.LibraryID != c.lib.ID || !match(se.Name) || seriesCut >= limit {
			continue
		}
		seriesCut++
		bj := []jobj{}
		for j := range c.s.data.Items {
			li := &c.s.data.Items[j]
			if li.Book == nil || !c.user.itemPermitted(li) {
				continue
			}
			if _, ok := seqOf(li.Book, se.ID); ok {
				bj = append(bj, c.s.itemOld(li, viewOpts{noAuthors: true, noSeries: true}))
			}
		}
		if len(bj) > 0 {
			seriesMatches = append(seriesMatches, jobj{{"series", seriesJSON(se)}, {"books", bj}})
		}
	}
	authors := []jobj{}
	var counts map[string]int
	for i := range c.s.data.Authors {
		a := &c.s.data.Authors[i]
		if a.LibraryID == c.lib.ID && match(a.Name) && len(authors) < limit {
			if counts == nil {
				counts = c.authorBookCounts(false)
			}
			authors = append(authors, authorExpanded(a, counts[a.ID]))
		}
	}
	c.sendJSON(jobj{
		{"book", books},
		{"narrators", countedNamesUnordered(narrOrder, narrCount, limit)},
		{"tags", countedNames(tagOrder, tagCount, "numItems", limit)},
		{"genres", countedNames(genreOrder, genreCount, "numItems", limit)},
		{"series", seriesMatches},
		{"authors", authors},
	})
}

// countedNames renders {name, numItems} rows ORDER BY numItems DESC LIMIT.
func countedNames(order []string, counts map[string]int, key string, limit int) []jobj {
	order = append([]string(nil), order...)
	stableSortBy(order, func(a, b string) int { return cmpInt(counts[b], counts[a]) })
	out := []jobj{}
	for _, n := range order {
		if len(out) >= limit {
			break
		}
		out = append(out, jobj{{"name", n}, {key, counts[n]}})
	}
	return out
}

func countedNamesUnordered(order []string, counts map[string]int, limit int) []jobj {
	out := []jobj{}
	for _, n := range order {
		if len(out) >= limit {
			break
		}
		out = append(out, jobj{{"name", n}, {"numBooks", counts[n]}})
	}
	return out
}

// authorBookCounts counts the bookAuthors rows of every author (of
// permitted books only when permitted is set), in one pass.
func (c *ctx) authorBookCounts(permitted bool) map[string]int {
	out := map[string]int{}
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.Book == nil || (permitted && !c.user.itemPermitted(li)) {
			continue
		}
		for k, id := range li.Book.AuthorIDs {
			if !contains(li.Book.AuthorIDs[:k], id) {
				out[id]++
			}
		}
	}
	return out
}

// GET /api/libraries/:id/stats: LibraryController.stats.
func hLibraryStats(c *ctx) {
	var items []*LibraryItem
	for i := range c.s.data.Items {
		if c.s.data.Items[i].LibraryID == c.lib.ID {
			items = append(items, &c.s.data.Items[i])
		}
	}
	title := func(li *LibraryItem) string {
		if li.Book != nil {
			return li.Book.Title
		}
		return li.Podcast.Title
	}
	bySize := append([]*LibraryItem(nil), items...)
	stableSortBy(bySize, func(a, b *LibraryItem) int { return cmpInt64(b.Size, a.Size) })
	largest := []jobj{}
	for _, li := range page(bySize, 10, 0) {
		largest = append(largest, jobj{{"id", li.ID}, {"title", title(li)}, {"size", li.Size}})
	}
	stats := jobj{{"largestItems", largest}}

	genreCount := map[string]int{}
	var genreOrder []string
	var totalSize int64
	totalDuration := 0.0
	numAudio := 0
	duration := func(li *LibraryItem) float64 {
		if li.Book != nil {
			return li.Book.Duration
		}
		d := 0.0
		for _, e := range li.Podcast.Episodes {
			d += e.AudioFile.Duration
		}
		return d
	}
	for _, li := range items {
		var genres []string
		if li.Book != nil {
			genres = li.Book.Genres
			numAudio += len(li.Book.AudioFiles)
		} else {
			genres = li.Podcast.Genres
			numAudio += len(li.Podcast.Episodes)
		}
		for _, g := range genres {
			if genreCount[g] == 0 {
				genreOrder = append(genreOrder, g)
			}
			genreCount[g]++
		}
		totalSize += li.Size
		totalDuration += duration(li)
	}
	stableSortBy(genreOrder, func(a, b string) int { return cmpInt(genreCount[b], genreCount[a]) })
	genres := []jobj{}
	for _, g := range genreOrder {
		genres = append(genres, jobj{{"genre", g}, {"count", genreCount[g]}})
	}
	byDuration := append([]*LibraryItem(nil), items...)
	stableSortBy(byDuration, func(a, b *LibraryItem) int { return cmpFloat(duration(b), duration(a)) })
	longest := []jobj{}
	for _, li := range page(byDuration, 10, 0) {
		longest = append(longest, jobj{{"id", li.ID}, {"title", title(li)}, {"duration", duration(li)}})
	}

	if c.lib.MediaType == "book" {
		type ac struct {
			a *Author
			n int
		}
		var acs []ac
		total := 0
		counts := c.authorBookCounts(false)
		for i := range c.s.data.Authors {
			a := &c.s.data.Authors[i]
			if a.LibraryID != c.lib.ID {
				continue
			}
			total++
			if n := counts[a.ID]; n > 0 {
				acs = append(acs, ac{a, n})
			}
		}
		stableSortBy(acs, func(x, y ac) int { return cmpInt(y.n, x.n) })
		authors := []jobj{}
		for _, x := range page(acs, 10, 0) {
			authors = append(authors, jobj{{"id", x.a.ID}, {"name", x.a.Name}, {"count", x.n}})
		}
		stats.set("totalAuthors", total)
		stats.set("authorsWithCount", authors)
	}
	stats.set("totalGenres", len(genres))
	stats.set("genresWithCount", genres)
	stats.set("totalItems", len(items))
	stats.set("longestItems", longest)
	stats.set("totalSize", totalSize)
	stats.set("totalDuration", totalDuration)
	stats.set("numAudioTracks", numAudio)
	c.sendJSON(stats)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// GET /api/libraries/:id/authors: LibraryController.getAuthors. The
// response is {authors} unless both limit and page are given (and limit is
// not 0): then it is the paged payload.
func hLibraryAuthors(c *ctx) {
	_, hasLimit := c.nums["limit"]
	_, hasPage := c.nums["page"]
	paginated := hasLimit && c.num("limit") != 0 && hasPage
	var limit, pg float64
	if paginated {
		limit, pg = c.num("limit"), c.num("page")
	}
	sortBy, _ := c.optStr("sort").(string)
	desc := c.flag("desc")
	type row struct {
		a *Author
		n int
	}
	var rows []row
	counts := c.authorBookCounts(true)
	for i := range c.s.data.Authors {
		a := &c.s.data.Authors[i]
		if a.LibraryID != c.lib.ID {
			continue
		}
		n := counts[a.ID]
		// Only admins and up see authors without (accessible) books.
		if n == 0 && !c.user.isAdminOrUp() {
			continue
		}
		rows = append(rows, row{a, n})
	}
	switch sortBy {
	case "name":
		stableSortBy(rows, func(x, y row) int { return dirCmp(nocaseCompare(x.a.Name, y.a.Name), desc) })
	case "lastFirst":
		stableSortBy(rows, func(x, y row) int {
			return dirCmp(nocaseCompare(nameToLastFirst(x.a.Name), nameToLastFirst(y.a.Name)), desc)
		})
	case "addedAt":
		stableSortBy(rows, func(x, y row) int { return dirCmp(cmpInt64(x.a.AddedAt, y.a.AddedAt), desc) })
	case "updatedAt":
		stableSortBy(rows, func(x, y row) int { return dirCmp(cmpInt64(x.a.UpdatedAt, y.a.UpdatedAt), desc) })
	case "numBooks":
		stableSortBy(rows, func(x, y row) int { return dirCmp(cmpInt(x.n, y.n), desc) })
	}
	count := len(rows)
	if paginated {
		rows = page(rows, intOf(limit), intOf(pg*limit))
	}
	out := []jobj{}
	for _, r := range rows {
		j := authorExpanded(r.a, r.n)
		j.set("lastFirst", nameToLastFirst(r.a.Name))
		out = append(out, j)
	}
	if !paginated {
		c.sendJSON(jobj{{"authors", out}})
		return
	}
	c.sendJSON(jobj{
		{"results", out},
		{"total", count},
		{"limit", limit},
		{"page", pg},
		{"sortBy", c.optStr("sort")},
		{"sortDesc", desc},
		{"filterBy", c.optStr("filter")},
		{"minified", c.flag("minified")},
		{"include", c.optStr("include")},
	})
}

// GET /api/libraries/:id/recent-episodes: LibraryController.getRecentEpisodes
// and libraryItemsPodcastFilters.getRecentEpisodes: unfinished episodes,
// newest published first. The payload has no total.
func hRecentEpisodes(c *ctx) {
	if c.lib.MediaType != "podcast" {
		c.sendStatus(http.StatusNotFound)
		return
	}
	limit, pg := c.num("limit"), c.num("page")
	var rows []*episodeRow
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != c.lib.ID || li.Podcast == nil || !c.user.itemPermitted(li) {
			continue
		}
		for j := range li.Podcast.Episodes {
			ep := &li.Podcast.Episodes[j]
			mp := c.progressFor(ep.ID, false)
			if mp != nil && mp.IsFinished {
				continue
			}
			rows = append(rows, &episodeRow{li: li, ep: ep, mp: mp})
		}
	}
	stableSortBy(rows, func(a, b *episodeRow) int {
		return nullableCmp(float64(a.ep.PublishedAt), float64(b.ep.PublishedAt), a.ep.PublishedAt != 0, b.ep.PublishedAt != 0, true, "")
	})
	episodes := []jobj{}
	// Sequelize sends LIMIT offset, limit even for limit 0.
	if limit != 0 {
		for _, r := range page(rows, intOf(limit), intOf(pg*limit)) {
			e := episodeExpanded(r.li.ID, r.li.Podcast.ID, *r.ep)
			e.set("podcast", podcastView{r.li, r.li.Podcast, false}.old())
			e.set("libraryId", r.li.LibraryID)
			episodes = append(episodes, e)
		}
	}
	c.sendJSON(jobj{{"episodes", episodes}, {"limit", limit}, {"page", pg}})
}

// GET /api/libraries/:id/narrators: LibraryController.getNarrators. Read
// from the books at every call (no cache), every narrator at once: the
// names as the books hold them, in the order of the books, each counted
// once per book that holds it, then naturally sorted by name; the id is
// the name in base64, URI-encoded. A podcast library has none.
func hLibraryNarrators(c *ctx) {
	type narrator struct {
		name string
		n    int
	}
	var order []*narrator
	by := map[string]*narrator{}
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != c.lib.ID || li.Book == nil {
			continue
		}
		for _, n := range li.Book.Narrators {
			if r := by[n]; r != nil {
				r.n++
				continue
			}
			r := &narrator{name: n, n: 1}
			by[n] = r
			order = append(order, r)
		}
	}
	stableSortBy(order, func(a, b *narrator) int { return naturalCompare(a.name, b.name) })
	out := []jobj{}
	for _, r := range order {
		id := url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(r.name)))
		out = append(out, jobj{{"id", id}, {"name", r.name}, {"numBooks", r.n}})
	}
	c.sendJSON(jobj{{"narrators", out}})
}
