package me

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListItemsInProgress is list_items_in_progress.
func ListItemsInProgress(ctx context.Context, d *kit.Deps, a toolargs.ListItemsInProgress) (*mcp.CallToolResult, error) {
	// Audiobookshelf takes only a limit (MeController.
	// getAllLibraryItemsInProgress: the first limit, most recent first),
	// so a page is cut here from the first (page+1)*limit, and one more
	// tells whether there is more after it.
	page, limit := int(a.Page), int(a.Limit)
	// The entries carry no progress but its time (progressLastUpdate:
	// MeController.getAllLibraryItemsInProgress), so the compact form asks
	// for the user's progress records at the same time.
	var records *kit.Pending[[]absdata.Progress]
	if !result.Full(a.Detail) {
		records = kit.Alongside(ctx, func(ctx context.Context) []absdata.Progress {
			recs, _ := d.ProgressRecords(ctx)
			return recs
		})
	}
	// Entries of libraries the user no longer sees are left out (kit.
	// ItemsInProgress); with some left out of a full answer, the list is
	// read again, longer, so the page is not cut short by them.
	want := (page+1)*limit + 1
	body, sent, hidden, err := d.ItemsInProgress(ctx, want)
	for tries := 0; err == nil && len(hidden) > 0 && sent == want && tries < 3; tries++ {
		want = sent + 4*len(hidden)
		body, sent, hidden, err = d.ItemsInProgress(ctx, want)
	}
	if err != nil {
		if records != nil {
			records.Abandon()
		}
		return nil, err
	}
	if result.Full(a.Detail) {
		var raw struct {
			LibraryItems []json.RawMessage `json:"libraryItems"`
		}
		if err := kit.Decode(body, &raw); err != nil {
			return nil, err
		}
		rows := result.PageOf(raw.LibraryItems, page, limit)
		if rows == nil {
			rows = []json.RawMessage{}
		}
		b, err := json.Marshal(map[string]any{"libraryItems": rows})
		if err != nil {
			return nil, kit.Errorf(kit.Stated, "internal error: could not encode the result: %v", err)
		}
		return result.RawResult(b)
	}
	var v struct {
		LibraryItems []absdata.InProgressItem `json:"libraryItems"`
	}
	if err := kit.Decode(body, &v); err != nil {
		records.Abandon()
		return nil, err
	}
	// The page is cut here from the first (page+1)*limit+1 Audiobookshelf
	// sent; the total is counted below.
	all := v.LibraryItems
	rows := result.PageOf(all, page, limit)
	// Minified entries name their series in one text ("Discworld #4"):
	// the series' ids come from the filter data of each library with such
	// a book on the page, read while the progress records are on their way.
	series := seriesIDs(ctx, d, rows)
	recs := records.Wait()
	byKey := make(map[[2]string]*absdata.Progress, len(recs))
	inProgress := 0
	for i := range recs {
		p := &recs[i]
		ep := ""
		if p.EpisodeID != nil {
			ep = *p.EpisodeID
		}
		byKey[[2]string{p.LibraryItemID, ep}] = p
		if !p.IsFinished && p.CurrentTime > 0 {
			inProgress++
		}
	}
	type entry struct {
		compact.ItemBrief
		LibraryID string                `json:"library_id"`
		Episode   *compact.EpisodeBrief `json:"episode,omitempty"`
		Progress  *compact.ProgressIn   `json:"progress,omitempty"`
	}
	total := len(all)
	if total > (page+1)*limit && len(hidden) == 0 {
		// There is more: as many as the user's records in progress say,
		// and at least one more than this page. With entries left out
		// the records would count those too: the total is then what was
		// read.
		total = max(inProgress, total)
	}
	entries := make([]entry, 0, len(rows))
	for i := range rows {
		it := &rows[i].Item
		e := entry{ItemBrief: compact.Brief(it, nil), LibraryID: it.LibraryID}
		e.Added = "" // what is in progress, not what is new
		if refs := seriesRefsOf(it.Media.Metadata.SeriesName, series[it.LibraryID]); refs != nil {
			e.Series, e.SeriesName = refs, ""
		}
		ep, duration := "", e.DurationS
		if it.RecentEpisode != nil {
			// The entry is the episode's podcast: its id is the entry's.
			b := compact.Episode(it.RecentEpisode, "")
			b.ItemID = ""
			e.Episode = &b
			ep, duration = it.RecentEpisode.ID, b.DurationS
		}
		if p := byKey[[2]string{it.ID, ep}]; p != nil {
			// The record of this entry (and of its episode), without what
			// the entry says.
			e.Progress = compact.ProgressOf(p).Within(duration)
			e.ProgressPct, e.Finished = nil, false
		}
		entries = append(entries, e)
	}
	cut := nextInSeries(ctx, d, entries, func(e *entry) (string, string, []compact.SeriesRef) { return e.ID, e.LibraryID, e.Series })
	var note string
	if cut > 0 {
		note = fmt.Sprintf("The next book is given in the first %d series on this page; search_library with a series' name lists its books in order.", NextSeriesCap)
	}
	return result.Page(d, "items", result.Paging{Page: page, Limit: limit}, entries, &total, result.AsIs[entry], result.Extra("next_cut", note))
}

// NextSeriesCap is how many series of a page of items in progress get
// the book after the entry's (their books read at the same time).
const NextSeriesCap = 3

// seriesBooksRead is how many books of a series are read for the next
// one: a book further on gets none.
const seriesBooksRead = 100

// nextInSeries sets, in the first NextSeriesCap series of the entries
// (by library and series id, in page order), the book after each entry's,
// from the series' books in series order, read 4 at a time. A failed read
// leaves that series without it. It returns how many series were left
// out.
func nextInSeries[E any](ctx context.Context, d *kit.Deps, entries []E, of func(*E) (id, library string, series []compact.SeriesRef)) (cut int) {
	type key struct{ library, series string }
	var keys []key
	seen := map[key]bool{}
	for i := range entries {
		_, lib, refs := of(&entries[i])
		for _, r := range refs {
			k := key{lib, r.ID}
			if r.ID == "" || seen[k] {
				continue
			}
			seen[k] = true
			if len(keys) == NextSeriesCap {
				cut++
				continue
			}
			keys = append(keys, k)
		}
	}
	books := make([][]absdata.Item, len(keys))
	kit.EachLimit(len(keys), 4, func(i int) {
		books[i], _, _ = d.ReadSeriesBooks(ctx, keys[i].library, keys[i].series, seriesBooksRead)
	})
	byKey := make(map[key][]absdata.Item, len(keys))
	for i, k := range keys {
		byKey[k] = books[i]
	}
	for i := range entries {
		id, lib, refs := of(&entries[i])
		for j := range refs {
			bs := byKey[key{lib, refs[j].ID}]
			for n := 0; n+1 < len(bs); n++ {
				if bs[n].ID != id {
					continue
				}
				next := &bs[n+1]
				ref := &compact.BookRef{ID: next.ID, Title: next.Media.Metadata.Title.Value}
				for _, sr := range next.Media.Metadata.Series {
					if sr.ID == refs[j].ID || len(next.Media.Metadata.Series) == 1 {
						ref.Sequence = sr.Sequence.Value
					}
				}
				refs[j].Next = ref
				break
			}
		}
	}
	return cut
}

// seriesIDs reads the filter data of each library whose books among the
// items are in a series (all at the same time): each library's series
// ids by name, a name two series share left out. A failed read leaves the
// names without ids.
func seriesIDs(ctx context.Context, d *kit.Deps, items []absdata.InProgressItem) map[string]map[string]string {
	var libs []string
	seen := map[string]bool{}
	for i := range items {
		it := &items[i].Item
		if it.MediaType != "podcast" && it.Media.Metadata.SeriesName != "" && len(it.Media.Metadata.Series) == 0 && !seen[it.LibraryID] {
			seen[it.LibraryID] = true
			libs = append(libs, it.LibraryID)
		}
	}
	out := make(map[string]map[string]string, len(libs))
	found := make([]map[string]string, len(libs))
	kit.EachLimit(len(libs), 4, func(i int) {
		body, err := d.Get(ctx, "library "+libs[i], func(ctx context.Context) (*http.Response, error) {
			return d.API.GetLibraryFilterData(ctx, libs[i])
		})
		if err != nil {
			return
		}
		var fd struct {
			Series []absdata.Ref `json:"series"`
		}
		if kit.Decode(body, &fd) != nil {
			return
		}
		m := make(map[string]string, len(fd.Series))
		for _, s := range fd.Series {
			k := strings.ToLower(s.Name)
			if _, dup := m[k]; dup {
				m[k] = ""
				continue
			}
			m[k] = s.ID
		}
		found[i] = m
	})
	for i, l := range libs {
		if found[i] != nil {
			out[l] = found[i]
		}
	}
	return out
}

// seriesRefsOf splits a minified book's seriesName ("Discworld #4, Other")
// into its series with their ids, as Book.seriesName joins them; nil when
// a series' id is not known.
func seriesRefsOf(seriesName string, ids map[string]string) []compact.SeriesRef {
	if seriesName == "" || ids == nil {
		return nil
	}
	var refs []compact.SeriesRef
	for _, part := range strings.Split(seriesName, ", ") {
		name, seq := part, ""
		if i := strings.LastIndex(part, " #"); i > 0 {
			name, seq = part[:i], part[i+2:]
		}
		id := ids[strings.ToLower(name)]
		if id == "" {
			return nil
		}
		refs = append(refs, compact.SeriesRef{ID: id, Name: name, Sequence: seq})
	}
	return refs
}

// What the compact listening stats hold.
const (
	topItems   = 5
	recentDays = 7
)

// GetListeningStats is get_listening_stats.
func GetListeningStats(ctx context.Context, d *kit.Deps, a toolargs.GetListeningStats) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the listening stats", func(ctx context.Context) (*http.Response, error) { return d.API.GetListeningStats(ctx) })
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var v absdata.ListeningStats
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	type top struct {
		ID    string `json:"library_item_id"`
		Title string `json:"title,omitempty"`
		TimeS int64  `json:"time_s"`
	}
	tops := make([]top, 0, len(v.Items))
	for _, it := range v.Items {
		t := top{ID: it.ID, TimeS: compact.Seconds(it.TimeListening)}
		if it.MediaItem != nil {
			t.Title = it.MediaItem.Metadata.Title.Value
		}
		tops = append(tops, t)
	}
	sort.Slice(tops, func(i, j int) bool {
		if tops[i].TimeS != tops[j].TimeS {
			return tops[i].TimeS > tops[j].TimeS
		}
		return tops[i].ID < tops[j].ID
	})
	// The compact answer: the totals, the topItems most listened and the
	// recentDays; the sessions only when asked for (a.Sessions), every
	// one a page of list_listening_sessions away.
	itemsMore := 0
	if len(tops) > topItems {
		itemsMore = len(tops) - topItems
		tops = tops[:topItems]
	}
	days := make([]string, 0, len(v.Days))
	for k := range v.Days {
		days = append(days, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(days)))
	if len(days) > recentDays {
		days = days[:recentDays]
	}
	byDay := make([]map[string]any, 0, len(days))
	for _, k := range days {
		byDay = append(byDay, map[string]any{"day": k, "time_s": compact.Seconds(v.Days[k])})
	}
	out := map[string]any{"total_time_s": compact.Seconds(v.TotalTime), "today_s": compact.Seconds(v.Today), "items_listened": len(v.Items),
		"top_items": tops, "recent_days": byDay}
	if n := int(a.Sessions); n > 0 {
		sessions := make([]SessionBrief, 0, n)
		for i := range v.RecentSessions {
			if i == n {
				break
			}
			sessions = append(sessions, sessionBrief(&v.RecentSessions[i]))
		}
		out["recent_sessions"] = sessions
	}
	more := "sessions: list_listening_sessions (or sessions N here); a year: get_year_stats"
	if itemsMore > 0 {
		more = fmt.Sprintf("%d more items and every day: detail full; ", itemsMore) + more
	}
	out["more"] = more
	return result.JSONResult(out)
}

// GetYearStats is get_year_stats.
func GetYearStats(ctx context.Context, d *kit.Deps, a toolargs.GetYearStats) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the year stats", func(ctx context.Context) (*http.Response, error) {
		return d.API.GetYearStats(ctx, int(a.Year))
	})
	if err != nil {
		return nil, err
	}
	var v map[string]json.RawMessage
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	// Cover lists are file paths for the web UI's collage, no use to a model.
	delete(v, "booksWithCovers")
	delete(v, "finishedBooksWithCovers")
	return result.JSONResult(v)
}
