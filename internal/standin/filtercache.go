package standin

import "math"

// Audiobookshelf 2.36 keeps each library's filter data
// (libraryFilters.getFilterData, Database.libraryFilterData) once loaded:
// by GET /api/libraries/:id/filterdata (or ?include=filterdata) and at the
// start of every library scan. For 30 minutes the copy is answered as it
// is; after them, it is loaded again when a book (or podcast), series or
// author of the library was updated since, or their counts changed, and
// otherwise answered again with its time moved on. In between, only some
// writes touch the copy: a metadata patch (or a match) adds the authors
// and series it gives a book and takes out those it deletes; renaming a
// tag, a genre or a narrator replaces it in every library's copy; deleting an item
// takes out the authors and series it leaves without books and counts
// the issues again. Narrators, genres, tags, publishers, languages and
// decades a metadata patch sets are not added: the copy lacks them until
// it is loaded again.

// filterCacheMs is how long a copy is answered without looking: 30 minutes.
const filterCacheMs = 30 * 60 * 1000

// filterCopy is one library's copy and when it was loaded.
type filterCopy struct {
	data     jobj
	loadedAt int64
	// The counts it was loaded with.
	books, podcasts, series, authors int
}

// cachedFilterData is libraryFilters.getFilterData: the library's copy,
// loaded again as 2.36 would. Callers hold s.mu.
func (c *ctx) cachedFilterData(lib *Library) jobj {
	s := c.s
	if s.filters == nil {
		s.filters = map[string]*filterCopy{}
	}
	now := c.nowMs()
	cp := s.filters[lib.ID]
	if cp != nil && now-cp.loadedAt < filterCacheMs {
		return cp.data
	}
	var last int64
	if cp != nil {
		last = cp.loadedAt
	}
	books, podcasts, series, authors, changed := 0, 0, 0, 0, false
	for i := range s.data.Items {
		li := &s.data.Items[i]
		if li.LibraryID != lib.ID {
			continue
		}
		switch {
		case lib.MediaType == "podcast" && li.Podcast != nil:
			podcasts++
			changed = changed || (li.UpdatedAt > last && li.Podcast.UpdatedAt > last)
		case lib.MediaType != "podcast" && li.Book != nil:
			books++
			changed = changed || (li.UpdatedAt > last && li.Book.UpdatedAt > last)
		}
	}
	if lib.MediaType != "podcast" {
		for _, se := range s.data.Series {
			if se.LibraryID == lib.ID {
				series++
				changed = changed || se.UpdatedAt > last
			}
		}
		for _, a := range s.data.Authors {
			if a.LibraryID == lib.ID {
				authors++
				changed = changed || a.UpdatedAt > last
			}
		}
	}
	if cp != nil && !changed && cp.books == books && cp.podcasts == podcasts && cp.series == series && cp.authors == authors {
		cp.loadedAt = now
		cp.data.set("loadedAt", now)
		return cp.data
	}
	data := c.filterData(lib)
	s.filters[lib.ID] = &filterCopy{data: data, loadedAt: now, books: books, podcasts: podcasts, series: series, authors: authors}
	return data
}

// filterCopyOf is the library's copy, nil when none is kept.
func (s *Server) filterCopyOf(libraryID string) *filterCopy {
	if s.filters == nil {
		return nil
	}
	return s.filters[libraryID]
}

// addToFilterCopy is Database.addAuthorToFilterData and
// addSeriesToFilterData (group "authors" or "series"): appended at the
// end, unless the id is there.
func (s *Server) addToFilterCopy(libraryID, group, id, name string) {
	cp := s.filterCopyOf(libraryID)
	if cp == nil {
		return
	}
	l, _ := cp.data.get(group).([]jobj)
	for _, e := range l {
		if e.get("id") == id {
			return
		}
	}
	cp.data.set(group, append(l, jobj{{"id", id}, {"name", name}}))
}

// removeFromFilterCopies is Database.removeAuthorFromFilterData and
// removeSeriesFromFilterData: the id out of its library's copy (ids are
// unique across libraries, so every copy is looked at).
func (s *Server) removeFromFilterCopies(group, id string) {
	for _, cp := range s.filters {
		l, _ := cp.data.get(group).([]jobj)
		out := []jobj{}
		for _, e := range l {
			if e.get("id") != id {
				out = append(out, e)
			}
		}
		cp.data.set(group, out)
	}
}

// replaceInFilterCopies is Database.replaceTagInFilterData,
// replaceGenreInFilterData and replaceNarratorInFilterData (group "tags",
// "genres" or "narrators"): in every library's
// copy, the first entry equal to old becomes new.
func (s *Server) replaceInFilterCopies(group, old, new string) {
	for _, cp := range s.filters {
		l, _ := cp.data.get(group).([]string)
		for i, v := range l {
			if v == old {
				l[i] = new
				break
			}
		}
	}
}

// resetIssuesInFilterCopy is Database.resetLibraryIssuesFilterData: the
// items missing or invalid, counted again.
func (s *Server) resetIssuesInFilterCopy(libraryID string) {
	cp := s.filterCopyOf(libraryID)
	if cp == nil {
		return
	}
	n := 0
	for _, li := range s.data.Items {
		if li.LibraryID == libraryID && (li.IsMissing || li.IsInvalid) {
			n++
		}
	}
	cp.data.set("numIssues", n)
}

// addNamesToFilterCopy is Database.addNarratorsToFilterData,
// addGenresToFilterData, addTagsToFilterData, addPublisherToFilterData,
// addLanguageToFilterData and addPublishedDecadeToFilterData: each value
// not there appended at the end.
func (s *Server) addNamesToFilterCopy(libraryID, group string, values ...string) {
	cp := s.filterCopyOf(libraryID)
	if cp == nil {
		return
	}
	l, _ := cp.data.get(group).([]string)
	for _, v := range values {
		if v != "" && !contains(l, v) {
			l = append(l, v)
		}
	}
	cp.data.set(group, l)
}

// addScannedToFilterCopy is what a scan that adds an item puts in the
// library's copy (BookScanner.scanNewBookLibraryItem,
// PodcastScanner.scanNewPodcastLibraryItem).
func (s *Server) addScannedToFilterCopy(li *LibraryItem) {
	if s.filterCopyOf(li.LibraryID) == nil {
		return
	}
	if p := li.Podcast; p != nil {
		s.addNamesToFilterCopy(li.LibraryID, "genres", p.Genres...)
		s.addNamesToFilterCopy(li.LibraryID, "tags", p.Tags...)
		return
	}
	b := li.Book
	if b == nil {
		return
	}
	for _, ss := range b.Series {
		if se := s.seriesByID(ss.SeriesID); se != nil {
			s.addToFilterCopy(li.LibraryID, "series", se.ID, se.Name)
		}
	}
	for _, id := range b.AuthorIDs {
		if a := s.author(id); a != nil {
			s.addToFilterCopy(li.LibraryID, "authors", a.ID, a.Name)
		}
	}
	s.addNamesToFilterCopy(li.LibraryID, "narrators", b.Narrators...)
	s.addNamesToFilterCopy(li.LibraryID, "genres", b.Genres...)
	s.addNamesToFilterCopy(li.LibraryID, "tags", b.Tags...)
	s.addNamesToFilterCopy(li.LibraryID, "publishers", b.Publisher)
	s.addNamesToFilterCopy(li.LibraryID, "languages", b.Language)
	if y := stringToNumber(b.PublishedYear); b.PublishedYear != "" && !math.IsNaN(y) {
		s.addNamesToFilterCopy(li.LibraryID, "publishedDecades", jsNumberToString(math.Floor(y/10)*10))
	}
}
