package standin

// The library item queries of server/utils/queries/libraryItemsBookFilters.js
// and libraryItemsPodcastFilters.js, evaluated over the in-memory state.

import (
	"math"
	"strconv"
	"strings"
	"time"
)

const sixtyDays = 60 * 24 * time.Hour

func (c *ctx) nowMs() int64 { return c.s.now().UnixMilli() }

// recentCutoff is `new Date(new Date() - 60 days)`.
func (c *ctx) recentCutoff() int64 { return c.s.now().Add(-sixtyDays).UnixMilli() }

// progressFor is the user's mediaProgress row for a book or an episode (a
// LEFT JOIN on mediaProgresses with userId). On the home page the join also
// requires hideFromContinueListening = false.
func (c *ctx) progressFor(mediaItemID string, homePage bool) *MediaProgress {
	for i := range c.user.MediaProgress {
		mp := &c.user.MediaProgress[i]
		if mp.MediaItemID == mediaItemID {
			if homePage && mp.HideFromContinueListening {
				return nil
			}
			return mp
		}
	}
	return nil
}

// bookFilterGroups and seriesFilterGroups are the searchGroups of
// libraryFilters.getFilteredLibraryItems and seriesFilters.getFilteredSeries.
var (
	bookFilterGroups   = []string{"genres", "tags", "series", "authors", "progress", "narrators", "publishers", "publishedDecades", "missing", "languages", "tracks", "ebooks"}
	seriesFilterGroups = []string{"genres", "tags", "authors", "progress", "narrators", "publishers", "languages"}
)

// decodeFilterValue is libraryFilters.decode:
// Buffer.from(decodeURIComponent(text), 'base64').toString(). ok is false
// where decodeURIComponent throws.
func decodeFilterValue(text string) (string, bool) {
	d, ok := decodeURIComponent(text)
	if !ok {
		return "", false
	}
	return strings.ToValidUTF8(string(nodeBase64Decode(d)), "\uFFFD"), true
}

// parseFilter splits filterBy into group and value as
// libraryFilters.getFilteredLibraryItems does: a known group followed by '.'
// has a base64 value; anything else is a group of its own with no value.
func parseFilter(filterBy string, groups []string) (group, value string, hasValue, ok bool) {
	if filterBy == "" {
		return "", "", false, true
	}
	for _, g := range groups {
		if strings.HasPrefix(filterBy, g+".") {
			v, ok := decodeFilterValue(strings.Replace(filterBy, g+".", "", 1))
			return g, v, true, ok
		}
	}
	return filterBy, "", false, true
}

type bookQuery struct {
	group    string
	value    string
	hasValue bool
	sortBy   string
	desc     bool
	collapse bool
	limit    int // 0: no limit
	offset   int
	homePage bool
}

// bookRow is one result of the book query with what the query attaches.
type bookRow struct {
	li           *LibraryItem
	series       jobj // libraryItem.series when filtering by a series
	collapsed    jobj // libraryItem.collapsedSeries
	displayTitle string
	collapsedID  string
}

// bookMatchesGroup is getMediaGroupQuery plus the includes that filter
// (authors, series, progress, issues, recent...).
func (c *ctx) bookMatchesGroup(li *LibraryItem, q bookQuery) bool {
	b := li.Book
	switch q.group {
	case "":
		return true
	case "progress":
		mp := c.progressFor(b.ID, q.homePage)
		finished := mp != nil && mp.IsFinished
		switch q.value {
		case "not-finished":
			return !finished
		case "not-started":
			return (mp == nil || mp.CurrentTime == 0) && !finished
		case "finished":
			return finished
		case "in-progress":
			return mp != nil && (mp.CurrentTime > 0 || mp.EbookProgress > 0) && !mp.IsFinished
		case "audio-in-progress":
			return mp != nil && mp.CurrentTime > 0 && !mp.IsFinished
		case "ebook-in-progress":
			return len(b.AudioFiles) == 0 && mp != nil && mp.EbookProgress > 0 && !mp.IsFinished
		case "ebook-finished":
			return len(b.AudioFiles) == 0 && finished && b.EbookFile != nil
		}
		return true
	case "series":
		if q.value == "no-series" {
			return len(b.Series) == 0
		}
		for _, ss := range b.Series {
			if ss.SeriesID == q.value && c.s.seriesByID(ss.SeriesID) != nil {
				return true
			}
		}
		return false
	case "authors":
		return contains(b.AuthorIDs, q.value) && c.s.author(q.value) != nil
	case "genres":
		return contains(b.Genres, q.value)
	case "tags":
		return contains(b.Tags, q.value)
	case "narrators":
		return contains(b.Narrators, q.value)
	case "publishers":
		return b.Publisher != "" && b.Publisher == q.value
	case "languages":
		return b.Language != "" && b.Language == q.value
	case "abridged":
		return b.Abridged
	case "explicit":
		return b.Explicit
	case "tracks":
		switch q.value {
		case "none":
			return len(b.AudioFiles) == 0
		case "multi":
			return len(b.AudioFiles) > 1
		}
		return len(b.AudioFiles) == 1
	case "ebooks":
		switch q.value {
		case "ebook":
			return b.EbookFile != nil
		case "no-ebook":
			return b.EbookFile == nil
		case "supplementary", "no-supplementary":
			has := false
			for _, lf := range li.LibraryFiles {
				if lf.IsSupplementary != nil && *lf.IsSupplementary {
					has = true
				}
			}
			return has == (q.value == "supplementary")
		}
		return true
	case "missing":
		switch q.value {
		case "asin":
			return b.ASIN == ""
		case "isbn":
			return b.ISBN == ""
		case "subtitle":
			return b.Subtitle == ""
		case "publishedYear":
			return b.PublishedYear == ""
		case "description":
			return b.Description == ""
		case "publisher":
			return b.Publisher == ""
		case "language":
			return b.Language == ""
		case "cover":
			return b.CoverPath == ""
		case "genres":
			return len(b.Genres) == 0
		case "tags":
			return len(b.Tags) == 0
		case "narrators":
			return len(b.Narrators) == 0
		case "chapters":
			return len(b.Chapters) == 0
		case "authors":
			return len(b.AuthorIDs) == 0
		case "series":
			return len(b.Series) == 0
		}
		return true
	case "publishedDecades":
		start, ok := jsParseInt(q.value)
		if !ok {
			return false
		}
		y, isInt := sqliteCastInt(b.PublishedYear)
		return isInt && y >= start && y <= start+9
	case "issues":
		return li.IsMissing || li.IsInvalid
	case "recent":
		return li.AddedAt >= c.recentCutoff()
	case "feed-open", "share-open":
		return false // no RSS feeds or shares exist in the stand-in
	}
	return true
}

// jsParseInt is parseInt(s): the leading integer, ok false for NaN.
func jsParseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	digits := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == digits {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	return n, err == nil
}

// sqliteCastInt is CAST(x AS INTEGER); ok is false for NULL.
func sqliteCastInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	n, ok := jsParseInt(s)
	if !ok {
		return 0, true
	}
	return n, true
}

// sortCmp is one ORDER BY term: a three-way comparison of two rows.
type sortCmp[T any] func(a, b T) int

// nullableCmp orders by a value that may be NULL. nullsFirst says where
// NULLs go regardless of direction (SQLite's default puts NULL first in ASC
// and last in DESC, i.e. it treats NULL as the smallest value).
func nullableCmp(av, bv float64, aok, bok, desc bool, nulls string) int {
	if !aok || !bok {
		if aok == bok {
			return 0
		}
		aFirst := !aok // a is NULL
		switch nulls {
		case "last":
			aFirst = aok
		case "first":
		default: // SQLite default: NULL smallest
			if desc {
				aFirst = aok
			}
		}
		if aFirst {
			return -1
		}
		return 1
	}
	r := 0
	switch {
	case av < bv:
		r = -1
	case av > bv:
		r = 1
	}
	if desc {
		r = -r
	}
	return r
}

func dirCmp(r int, desc bool) int {
	if desc {
		return -r
	}
	return r
}

func authorNamesFirstLast(s *Server, b *Book) string {
	var names []string
	for _, id := range b.AuthorIDs {
		if a := s.author(id); a != nil {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, ", ")
}

func authorNamesLastFirst(s *Server, b *Book) string {
	var names []string
	for _, id := range b.AuthorIDs {
		if a := s.author(id); a != nil {
			names = append(names, nameToLastFirst(a.Name))
		}
	}
	return strings.Join(names, ", ")
}

func seqOf(b *Book, seriesID string) (string, bool) {
	for _, ss := range b.Series {
		if ss.SeriesID == seriesID {
			return ss.Sequence, true
		}
	}
	return "", false
}

// bookOrder is libraryItemsBookFilters.getOrder (plus the secondary
// sequence order getFilteredLibraryItems adds when filtering by a series).
func (c *ctx) bookOrder(q bookQuery) []sortCmp[*bookRow] {
	desc := q.desc
	title := func(a, b *bookRow) int { return dirCmp(nocaseCompare(a.li.Book.Title, b.li.Book.Title), desc) }
	progTime := func(pick func(*MediaProgress) int64) sortCmp[*bookRow] {
		return func(a, b *bookRow) int {
			get := func(r *bookRow) (float64, bool) {
				mp := c.progressFor(r.li.Book.ID, false)
				if mp == nil || pick(mp) == 0 {
					return 0, false
				}
				return float64(pick(mp)), true
			}
			av, aok := get(a)
			bv, bok := get(b)
			return nullableCmp(av, bv, aok, bok, desc, "last")
		}
	}
	num := func(f func(*bookRow) float64) sortCmp[*bookRow] {
		return func(a, b *bookRow) int { return nullableCmp(f(a), f(b), true, true, desc, "") }
	}
	var order []sortCmp[*bookRow]
	switch q.sortBy {
	case "addedAt":
		order = append(order, num(func(r *bookRow) float64 { return float64(r.li.AddedAt) }))
	case "size":
		order = append(order, num(func(r *bookRow) float64 { return float64(r.li.Size) }))
	case "birthtimeMs":
		order = append(order, num(func(r *bookRow) float64 { return float64(r.li.BirthtimeMs) }))
	case "mtimeMs":
		order = append(order, num(func(r *bookRow) float64 { return float64(r.li.MtimeMs) }))
	case "media.duration":
		order = append(order, num(func(r *bookRow) float64 { return r.li.Book.Duration }))
	case "media.metadata.publishedYear":
		order = append(order, func(a, b *bookRow) int {
			av, aok := sqliteCastInt(a.li.Book.PublishedYear)
			bv, bok := sqliteCastInt(b.li.Book.PublishedYear)
			return nullableCmp(float64(av), float64(bv), aok, bok, desc, "")
		})
	case "media.metadata.authorNameLF":
		order = append(order, func(a, b *bookRow) int {
			return dirCmp(nocaseCompare(authorNamesLastFirst(c.s, a.li.Book), authorNamesLastFirst(c.s, b.li.Book)), desc)
		}, title)
	case "media.metadata.authorName":
		order = append(order, func(a, b *bookRow) int {
			return dirCmp(nocaseCompare(authorNamesFirstLast(c.s, a.li.Book), authorNamesFirstLast(c.s, b.li.Book)), desc)
		}, title)
	case "media.metadata.title":
		if q.collapse {
			order = append(order, func(a, b *bookRow) int { return dirCmp(nocaseCompare(a.displayTitle, b.displayTitle), desc) })
		} else {
			order = append(order, title)
		}
	case "sequence":
		nulls := "last"
		if desc {
			nulls = "first"
		}
		order = append(order, func(a, b *bookRow) int {
			as, aok := seqOf(a.li.Book, q.value)
			bs, bok := seqOf(b.li.Book, q.value)
			av, aok2 := sqliteCastFloat(as, !aok || as == "")
			bv, bok2 := sqliteCastFloat(bs, !bok || bs == "")
			return nullableCmp(av, bv, aok2, bok2, desc, nulls)
		})
	case "progress":
		order = append(order, progTime(func(mp *MediaProgress) int64 { return mp.LastUpdate }))
	case "progress.createdAt":
		order = append(order, progTime(func(mp *MediaProgress) int64 { return mp.StartedAt }))
	case "progress.finishedAt":
		order = append(order, progTime(func(mp *MediaProgress) int64 { return mp.FinishedAt }))
	}
	if q.group == "series" && q.sortBy != "sequence" {
		order = append(order, func(a, b *bookRow) int {
			as, aok := seqOf(a.li.Book, q.value)
			bs, bok := seqOf(b.li.Book, q.value)
			av, aok2 := sqliteCastFloat(as, !aok || as == "")
			bv, bok2 := sqliteCastFloat(bs, !bok || bs == "")
			return nullableCmp(av, bv, aok2, bok2, false, "last")
		})
	}
	return order
}

func applyOrder[T any](rows []T, order []sortCmp[T]) {
	if len(order) == 0 {
		return
	}
	stableSortBy(rows, func(a, b T) int {
		for _, o := range order {
			if r := o(a, b); r != 0 {
				return r
			}
		}
		return 0
	})
}

// page applies LIMIT/OFFSET (limit 0 = none).
func page[T any](rows []T, limit, offset int) []T {
	if offset > len(rows) {
		offset = len(rows)
	}
	if offset < 0 {
		offset = 0
	}
	rows = rows[offset:]
	if limit > 0 && limit < len(rows) {
		rows = rows[:limit]
	}
	return rows
}

// queryBooks is libraryItemsBookFilters.getFilteredLibraryItems.
func (c *ctx) queryBooks(lib *Library, q bookQuery) ([]*bookRow, int) {
	if q.group == "series" && q.collapse {
		q.collapse = false
	}
	if q.group != "series" && q.sortBy == "sequence" {
		q.sortBy = "media.metadata.title"
	}
	var matching []*LibraryItem
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != lib.ID || li.Book == nil {
			continue
		}
		if !c.user.itemPermitted(li) || !c.bookMatchesGroup(li, q) {
			continue
		}
		matching = append(matching, li)
	}

	// Collapsed series: getCollapseSeriesBooksToExclude keeps the first book
	// (by sequence) of every series and excludes the series' other books.
	type include struct {
		seriesID string
		numBooks int
		itemIDs  []string
	}
	included := map[string]include{} // book id -> the series it stands for
	excluded := map[string]bool{}
	if q.collapse {
		type seriesBooks struct {
			s     *Series
			books []*LibraryItem
			minSq float64
			hasSq bool
		}
		var all []*seriesBooks
		for i := range c.s.data.Series {
			se := &c.s.data.Series[i]
			sb := &seriesBooks{s: se}
			for _, li := range matching {
				if sq, ok := seqOf(li.Book, se.ID); ok {
					sb.books = append(sb.books, li)
					if f, ok := sqliteCastFloat(sq, sq == ""); ok && (!sb.hasSq || f < sb.minSq) {
						sb.minSq, sb.hasSq = f, true
					}
				}
			}
			if len(sb.books) > 0 {
				bySeq := func(a, b *LibraryItem) int {
					as, _ := seqOf(a.Book, se.ID)
					bs, _ := seqOf(b.Book, se.ID)
					av, aok := sqliteCastFloat(as, as == "")
					bv, bok := sqliteCastFloat(bs, bs == "")
					return nullableCmp(av, bv, aok, bok, false, "last")
				}
				stableSortBy(sb.books, bySeq)
				all = append(all, sb)
			}
		}
		stableSortBy(all, func(a, b *seriesBooks) int { return nullableCmp(a.minSq, b.minSq, a.hasSq, b.hasSq, false, "last") })
		for _, sb := range all {
			found := false
			numBooks := 0
			for i := range c.s.data.Items {
				if b := c.s.data.Items[i].Book; b != nil {
					if _, ok := seqOf(b, sb.s.ID); ok {
						numBooks++
					}
				}
			}
			var ids []string
			for _, li := range sb.books {
				ids = append(ids, li.ID)
			}
			for _, li := range sb.books {
				bid := li.Book.ID
				_, isIncluded := included[bid]
				if !found && !isIncluded {
					included[bid] = include{sb.s.ID, numBooks, ids}
					delete(excluded, bid)
					found = true
				} else if !excluded[bid] && !isIncluded {
					excluded[bid] = true
				}
			}
		}
	}

	var rows []*bookRow
	for _, li := range matching {
		if excluded[li.Book.ID] {
			continue
		}
		row := &bookRow{li: li, displayTitle: li.Book.Title}
		if q.group == "series" && q.value != "no-series" {
			if se := c.s.seriesByID(q.value); se != nil {
				sq, _ := seqOf(li.Book, se.ID)
				row.series = jobj{{"id", se.ID}, {"name", se.Name}, {"sequence", ns(sq)}}
			}
		}
		if inc, ok := included[li.Book.ID]; ok {
			if se := c.s.seriesByID(inc.seriesID); se != nil {
				sq, _ := seqOf(li.Book, se.ID)
				row.displayTitle = se.Name
				row.collapsedID = se.ID
				row.collapsed = jobj{
					{"id", se.ID},
					{"name", se.Name},
					{"nameIgnorePrefix", titleIgnorePrefix(se.Name)},
					{"sequence", ns(sq)},
					{"numBooks", inc.numBooks},
					{"libraryItemIds", strs(inc.itemIDs)},
				}
			}
		}
		rows = append(rows, row)
	}
	applyOrder(rows, c.bookOrder(q))
	count := len(rows)
	return page(rows, q.limit, q.offset), count
}

type podcastQuery struct {
	group, value string
	sortBy       string
	desc         bool
	limit        int
	offset       int
}

// queryPodcasts is libraryItemsPodcastFilters.getFilteredLibraryItems.
func (c *ctx) queryPodcasts(lib *Library, q podcastQuery) ([]*LibraryItem, int) {
	var rows []*LibraryItem
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != lib.ID || li.Podcast == nil || !c.user.itemPermitted(li) {
			continue
		}
		p := li.Podcast
		ok := true
		switch q.group {
		case "genres":
			ok = contains(p.Genres, q.value)
		case "tags":
			ok = contains(p.Tags, q.value)
		case "languages":
			ok = p.Language != "" && p.Language == q.value
		case "explicit":
			ok = p.Explicit
		case "issues":
			ok = li.IsMissing || li.IsInvalid
		case "recent":
			ok = li.AddedAt >= c.recentCutoff()
		case "feed-open":
			ok = false
		}
		if ok {
			rows = append(rows, li)
		}
	}
	desc := q.desc
	num := func(f func(*LibraryItem) float64) sortCmp[*LibraryItem] {
		return func(a, b *LibraryItem) int { return nullableCmp(f(a), f(b), true, true, desc, "") }
	}
	var order []sortCmp[*LibraryItem]
	switch q.sortBy {
	case "addedAt":
		order = append(order, num(func(li *LibraryItem) float64 { return float64(li.AddedAt) }))
	case "size":
		order = append(order, num(func(li *LibraryItem) float64 { return float64(li.Size) }))
	case "birthtimeMs":
		order = append(order, num(func(li *LibraryItem) float64 { return float64(li.BirthtimeMs) }))
	case "mtimeMs":
		order = append(order, num(func(li *LibraryItem) float64 { return float64(li.MtimeMs) }))
	case "media.metadata.author":
		nulls := "last"
		if desc {
			nulls = "first"
		}
		order = append(order, func(a, b *LibraryItem) int {
			if a.Podcast.Author == "" || b.Podcast.Author == "" {
				return nullableCmp(0, 0, a.Podcast.Author != "", b.Podcast.Author != "", desc, nulls)
			}
			return dirCmp(nocaseCompare(a.Podcast.Author, b.Podcast.Author), desc)
		})
	case "media.metadata.title":
		order = append(order, func(a, b *LibraryItem) int { return dirCmp(nocaseCompare(a.Podcast.Title, b.Podcast.Title), desc) })
	case "media.numTracks":
		order = append(order, num(func(li *LibraryItem) float64 { return float64(len(li.Podcast.Episodes)) }))
	}
	applyOrder(rows, order)
	return page(rows, q.limit, q.offset), len(rows)
}

type episodeRow struct {
	li *LibraryItem
	ep *Episode
	mp *MediaProgress
}

// queryEpisodes is libraryItemsPodcastFilters.getFilteredPodcastEpisodes.
func (c *ctx) queryEpisodes(lib *Library, group, value, sortBy string, desc bool, limit, offset int, homePage bool) ([]*episodeRow, int) {
	if sortBy == "progress" && group != "progress" {
		sortBy = "createdAt"
	}
	var rows []*episodeRow
	for i := range c.s.data.Items {
		li := &c.s.data.Items[i]
		if li.LibraryID != lib.ID || li.Podcast == nil || !c.user.itemPermitted(li) {
			continue
		}
		for j := range li.Podcast.Episodes {
			ep := &li.Podcast.Episodes[j]
			row := &episodeRow{li: li, ep: ep}
			switch group {
			case "progress":
				// An inner join on the user's progress rows.
				row.mp = c.progressFor(ep.ID, homePage)
				if row.mp == nil {
					continue
				}
				switch value {
				case "in-progress":
					if row.mp.IsFinished || !(row.mp.CurrentTime > 0) {
						continue
					}
				case "finished":
					if !row.mp.IsFinished {
						continue
					}
				}
			case "recent":
				if ep.AddedAt < c.recentCutoff() {
					continue
				}
			}
			rows = append(rows, row)
		}
	}
	switch sortBy {
	case "createdAt":
		applyOrder(rows, []sortCmp[*episodeRow]{func(a, b *episodeRow) int {
			return nullableCmp(float64(a.ep.AddedAt), float64(b.ep.AddedAt), true, true, desc, "")
		}})
	case "progress":
		applyOrder(rows, []sortCmp[*episodeRow]{func(a, b *episodeRow) int {
			return nullableCmp(float64(a.mp.LastUpdate), float64(b.mp.LastUpdate), true, true, desc, "")
		}})
	}
	return page(rows, limit, offset), len(rows)
}

// intOf turns a coerced limit/page number into an int for slicing.
func intOf(f float64) int {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return int(f)
}
