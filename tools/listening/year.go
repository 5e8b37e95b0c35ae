package listening

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// YearBook is a book finished in the year.
type YearBook struct {
	ID        string `json:"library_item_id"`
	Title     string `json:"title"`
	Authors   string `json:"authors,omitempty"`
	Finished  string `json:"finished"`
	DurationS int64  `json:"duration_s,omitempty"`
	DaysTaken *int   `json:"days_taken,omitempty"`
}

// GetListeningYear is get_listening_year.
func GetListeningYear(ctx context.Context, d *kit.Deps, a toolargs.GetListeningYear) (*mcp.CallToolResult, error) {
	from := time.Date(int(a.Year), 1, 1, 0, 0, 0, 0, time.UTC)
	lo, hi := from.Format(day), time.Date(int(a.Year), 12, 31, 0, 0, 0, 0, time.UTC).Format(day)
	inYear := func(date string) bool { return date >= lo && date <= hi }

	l, err := readListened(ctx, d, from, true)
	if err != nil {
		return nil, err
	}
	sessions, cut := l.sessions, l.cut

	// Time per month and days listened: Audiobookshelf's own days.
	months := make([]Period, 12)
	for i := range months {
		months[i].Period = fmt.Sprintf("%04d-%02d", a.Year, i+1)
	}
	total, days := 0.0, 0
	perMonth := make([]float64, 12)
	for k, t := range l.stats.Days {
		if !inYear(k) || t <= 0 {
			continue
		}
		dt, err := time.Parse(day, k)
		if err != nil {
			continue
		}
		perMonth[dt.Month()-1] += t
		total += t
		days++
	}
	for i := range months {
		months[i].TimeS = compact.Seconds(perMonth[i])
	}

	// Authors, narrators, genres and books by time, from the sessions.
	authors, narrators, genres, books := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	titles := map[string]string{}
	for i := range sessions {
		s := &sessions[i]
		if s.Date == "" || s.TimeListening <= 0 || !inYear(s.Date) {
			continue
		}
		t := s.TimeListening
		name := s.DisplayTitle
		if m := s.MediaMetadata; m != nil {
			if s.EpisodeID != nil && *s.EpisodeID != "" {
				name = m.Title.Value
			}
			people(m, t, authors, narrators, genres)
		}
		books[s.LibraryItemID] += t
		titles[s.LibraryItemID] = name
	}

	// Finished in the year, in order, named and timed by one batched read.
	var done []*absdata.Progress
	episodes := 0
	for i := range l.recs {
		p := &l.recs[i]
		if !p.IsFinished || p.FinishedAt == nil || !inYear(compact.Date(*p.FinishedAt)) {
			continue
		}
		if p.EpisodeID != nil && *p.EpisodeID != "" {
			episodes++
			continue
		}
		done = append(done, p)
	}
	sort.Slice(done, func(i, j int) bool { return *done[i].FinishedAt < *done[j].FinishedAt })
	nBooks := len(done)
	// The longest: the records' durations, over the whole year.
	var longestP *absdata.Progress
	for _, p := range done {
		if longestP == nil || p.Duration > longestP.Duration {
			longestP = p
		}
	}
	// The page's books, and the longest when it is on another page.
	done = result.PageOf(done, int(a.Page), int(a.Limit))
	all := done
	if longestP != nil && !slices.Contains(done, longestP) {
		all = append(slices.Clone(done), longestP)
	}
	ids := make([]string, len(all))
	for i, p := range all {
		ids[i] = p.LibraryItemID
	}
	items := map[string]*absdata.Item{}
	if len(ids) > 0 {
		if items, _, err = d.ReadItemsByID(ctx, ids); err != nil {
			return nil, err
		}
	}
	finished := []YearBook{}
	var longest *YearBook
	untitled := 0
	for _, p := range all {
		b := YearBook{ID: p.LibraryItemID, Finished: compact.Date(*p.FinishedAt), DurationS: compact.Seconds(p.Duration)}
		if it := items[p.LibraryItemID]; it != nil {
			b.Title, b.Authors = it.Media.Metadata.Title.Value, compact.AuthorNames(&it.Media.Metadata)
			if it.Media.Duration > 0 {
				b.DurationS = compact.Seconds(it.Media.Duration)
			}
		} else {
			b.Title = titles[p.LibraryItemID]
			if b.Title == "" {
				untitled++
			}
		}
		b.DaysTaken = daysTaken(p)
		if p == longestP {
			l := b
			longest = &l
		}
		if len(finished) < len(done) {
			finished = append(finished, b)
		}
	}
	var most *Named
	for id, t := range books {
		if most == nil || compact.Seconds(t) > most.TimeS || compact.Seconds(t) == most.TimeS && titles[id] < most.Name {
			most = &Named{Name: titles[id], TimeS: compact.Seconds(t)}
		}
	}
	first := func(m map[string]float64) *Named {
		if t := top(m); len(t) > 0 {
			return &t[0]
		}
		return nil
	}
	// The counts and the tops are always there (0 and null when none), so
	// that every year answers the same fields.
	head := []result.Field{result.Extra("year", a.Year), result.Extra("total_s", compact.Seconds(total)), result.Extra("by_month", months),
		result.Extra("counts", map[string]int{"books_finished": nBooks, "episodes_finished": episodes, "days_listened": days})}
	if longest != nil {
		head = append(head, result.Extra("longest_finished", longest))
	}
	head = append(head, result.Extra("top", map[string]*Named{"book": most, "author": first(authors), "narrator": first(narrators), "genre": first(genres)}))
	if untitled > 0 {
		head = append(head, result.Extra("untitled", fmt.Sprintf("%d finished books have no title: they are gone from Audiobookshelf or in a library this user no longer sees", untitled)))
	}
	if cut {
		head = append(head, result.Extra("sessions_cut", fmt.Sprintf("only the %d most recent sessions were read: the top author, narrator, genre and book count those alone (the totals are Audiobookshelf's own)", len(sessions))))
	}
	// The page's books, in the order finished; the whole count is
	// books_finished.
	return result.Page(d, "finished", result.PagingOf(a.Page, a.Limit), finished, &nBooks, result.AsIs[YearBook], head...)
}
