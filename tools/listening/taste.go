package listening

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// tasteShown is how many authors, narrators, genres and series each
	// list of the profile holds.
	tasteShown = 8
	// suggestionsShown is how many unstarted books are suggested.
	suggestionsShown = 10
)

// Liked is an author, narrator, genre or series in the person's taste.
type Liked struct {
	Name     string `json:"name"`
	TimeS    int64  `json:"time_s"`
	Finished int    `json:"finished"`
	Started  int    `json:"started"`
}

// Suggestion is an unstarted book of the library that fits the taste.
type Suggestion struct {
	ID      string `json:"library_item_id"`
	Title   string `json:"title"`
	Authors string `json:"authors,omitempty"`
	// Because names what it shares with the taste.
	Because   string `json:"because"`
	DurationS int64  `json:"duration_s,omitempty"`
}

// tally is the time, finished and started counts per name.
type tally map[string]*Liked

func (t tally) add(name string, time float64, finished, started int) {
	if name == "" {
		return
	}
	l := t[name]
	if l == nil {
		l = &Liked{Name: name}
		t[name] = l
	}
	l.TimeS += compact.Seconds(time)
	l.Finished += finished
	l.Started += started
}

// ranked is the tasteShown names with most time, then most finished.
func (t tally) ranked() []Liked {
	out := make([]Liked, 0, len(t))
	for _, l := range t {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.TimeS != b.TimeS {
			return a.TimeS > b.TimeS
		}
		if a.Finished != b.Finished {
			return a.Finished > b.Finished
		}
		return a.Name < b.Name
	})
	return out[:min(len(out), tasteShown)]
}

// GetTasteProfile is get_taste_profile.
func GetTasteProfile(ctx context.Context, d *kit.Deps, a toolargs.GetTasteProfile) (*mcp.CallToolResult, error) {
	recsP := kit.Alongside(ctx, func(ctx context.Context) recordsOrErr {
		r, err := d.ProgressRecords(ctx)
		return recordsOrErr{r, err}
	})
	type booksOrErr struct {
		items []absdata.Item
		err   error
	}
	libP := kit.Alongside(ctx, func(ctx context.Context) booksOrErr {
		items, _, err := readBooks(ctx, d, a.LibraryID)
		return booksOrErr{items, err}
	})
	sessions, cut, err := readSessionsSince(ctx, d, time.Time{})
	if err != nil {
		recsP.Abandon()
		libP.Abandon()
		return nil, err
	}
	r := recsP.Wait()
	if r.err != nil {
		libP.Abandon()
		return nil, r.err
	}
	// The books the person touched, the most recent first, read for their
	// authors, narrators, genres, series and length.
	var touched []*absdata.Progress
	for i := range r.recs {
		p := &r.recs[i]
		if (p.EpisodeID == nil || *p.EpisodeID == "") && (p.IsFinished || p.Progress > 0 || p.CurrentTime > 0) {
			touched = append(touched, p)
		}
	}
	sort.Slice(touched, func(i, j int) bool { return touched[i].LastUpdate > touched[j].LastUpdate })
	nTouched := len(touched)
	touched = touched[:min(len(touched), touchedRead)]
	ids := make([]string, len(touched))
	for i, p := range touched {
		ids[i] = p.LibraryItemID
	}
	items := map[string]*absdata.Item{}
	if len(ids) > 0 {
		if items, _, err = d.ReadItemsByID(ctx, ids); err != nil {
			libP.Abandon()
			return nil, err
		}
	}
	lib := libP.Wait()
	if lib.err != nil {
		return nil, lib.err
	}

	authors, narrators, genres, series := tally{}, tally{}, tally{}, tally{}
	for i := range sessions {
		s := &sessions[i]
		m := s.MediaMetadata
		if s.TimeListening <= 0 || m == nil || (s.EpisodeID != nil && *s.EpisodeID != "") {
			continue
		}
		for _, au := range m.Authors {
			authors.add(au.Name, s.TimeListening, 0, 0)
		}
		for _, n := range m.Narrators {
			narrators.add(n, s.TimeListening, 0, 0)
		}
		for _, g := range m.Genres {
			genres.add(g, s.TimeListening, 0, 0)
		}
		for _, se := range m.Series {
			series.add(se.Name, s.TimeListening, 0, 0)
		}
	}
	finished, started := 0, 0
	var lengths []float64
	for _, p := range touched {
		it := items[p.LibraryItemID]
		if it == nil {
			continue
		}
		f := 0
		started++
		if p.IsFinished {
			f = 1
			finished++
			if it.Media.Duration > 0 {
				lengths = append(lengths, it.Media.Duration)
			}
		}
		m := &it.Media.Metadata
		for _, au := range m.Authors {
			authors.add(au.Name, 0, f, 1)
		}
		for _, n := range m.Narrators {
			narrators.add(n, 0, f, 1)
		}
		for _, g := range m.Genres {
			genres.add(g, 0, f, 1)
		}
		for _, se := range m.Series {
			series.add(se.Name, 0, f, 1)
		}
	}
	head := []result.Field{result.Extra("books_started", started), result.Extra("books_finished", finished)}
	if started > 0 {
		head = append(head, result.Extra("finish_rate_pct", finished*100/started))
	}
	if len(lengths) > 0 {
		sort.Float64s(lengths)
		head = append(head, result.Extra("typical_length_s", compact.Seconds(lengths[len(lengths)/2])),
			result.Extra("length_range_s", []int64{compact.Seconds(lengths[0]), compact.Seconds(lengths[len(lengths)-1])}))
	}
	tAuthors, tNarrators, tGenres, tSeries := authors.ranked(), narrators.ranked(), genres.ranked(), series.ranked()
	head = append(head, result.Extra("authors", tAuthors), result.Extra("narrators", tNarrators), result.Extra("genres", tGenres), result.Extra("series", tSeries))

	// Unstarted books sharing the most with the top of each list.
	weight := func(list []Liked) map[string]int {
		w := map[string]int{}
		for i, l := range list {
			w[naming.TitleKey(l.Name)] = len(list) - i
		}
		return w
	}
	wa, wn, wg, ws := weight(tAuthors), weight(tNarrators), weight(tGenres), weight(tSeries)
	seen := map[string]bool{}
	for _, p := range r.recs {
		seen[p.LibraryItemID] = true
	}
	type scored struct {
		s     Suggestion
		score int
	}
	var cands []scored
	for i := range lib.items {
		it := &lib.items[i]
		if it.MediaType != "book" || seen[it.ID] {
			continue
		}
		m := &it.Media.Metadata
		score := 0
		var why []string
		match := func(w map[string]int, names []string, kind string, mult int) {
			for _, n := range names {
				if v := w[naming.TitleKey(n)]; v > 0 {
					score += v * mult
					why = append(why, kind+" "+n)
					return
				}
			}
		}
		match(ws, seriesNames(m), "series", 3)
		match(wa, authorList(m), "author", 2)
		match(wn, listOrSplit(m.Narrators, m.NarratorName), "narrator", 1)
		match(wg, m.Genres, "genre", 1)
		if score == 0 {
			continue
		}
		cands = append(cands, scored{Suggestion{ID: it.ID, Title: m.Title.Value, Authors: compact.AuthorNames(m), Because: strings.Join(why, "; "),
			DurationS: compact.Seconds(it.Media.Duration)}, score})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		return cands[i].score > cands[j].score || cands[i].score == cands[j].score && cands[i].s.Title < cands[j].s.Title
	})
	sugg := make([]Suggestion, 0, suggestionsShown)
	for _, c := range cands[:min(len(cands), suggestionsShown)] {
		sugg = append(sugg, c.s)
	}
	head = append(head, result.Extra("unstarted_that_fit", len(cands)))
	if nTouched > len(touched) {
		head = append(head, result.Extra("books_read", fmt.Sprintf("the finished and started counts are of the %d books touched most recently, of %d", len(touched), nTouched)))
	}
	if cut {
		head = append(head, result.Extra("sessions_cut", fmt.Sprintf("time counts the %d most recent sessions alone", len(sessions))))
	}
	head = append(head, result.Extra("suggestions", sugg))
	out := make(map[string]any, len(head))
	for _, f := range head {
		out[f.Key] = f.Value
	}
	return result.JSONResult(out)
}

// seriesNames are a book's series names (minified items carry one
// seriesName, "Name #2, Other #1").
func seriesNames(m *absdata.Metadata) []string {
	var out []string
	for _, s := range m.Series {
		out = append(out, s.Name)
	}
	if len(out) == 0 && m.SeriesName != "" {
		for _, s := range strings.Split(m.SeriesName, ", ") {
			if i := strings.LastIndex(s, " #"); i > 0 {
				s = s[:i]
			}
			out = append(out, s)
		}
	}
	return out
}

func authorList(m *absdata.Metadata) []string {
	var out []string
	for _, a := range m.Authors {
		out = append(out, a.Name)
	}
	return listOrSplit(out, m.AuthorName)
}

func listOrSplit(list []string, joined string) []string {
	if len(list) > 0 || joined == "" {
		return list
	}
	return strings.Split(joined, ", ")
}
