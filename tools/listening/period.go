package listening

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sessions are read in pages of sessionPage, at most sessionPages of them.
const (
	sessionPage  = 500
	sessionPages = 25
	// finishedShown is how many finished books and episodes are listed.
	finishedShown = 50
	// topShown is how many authors, narrators and genres are listed.
	topShown = 5
)

const day = "2006-01-02"

// Period is the time listened in one day, week or month.
type Period struct {
	Period string `json:"period"`
	TimeS  int64  `json:"time_s"`
}

// Named is an author, narrator, genre or library with the time listened.
type Named struct {
	Name  string `json:"name,omitempty"`
	ID    string `json:"library_id,omitempty"`
	TimeS int64  `json:"time_s"`
}

// FinishedIn is a book or episode finished in the range.
type FinishedIn struct {
	ID        string `json:"library_item_id"`
	EpisodeID string `json:"episode_id,omitempty"`
	Title     string `json:"title"`
	Episode   string `json:"episode,omitempty"`
	Finished  string `json:"finished"`
	DaysTaken *int   `json:"days_taken,omitempty"`
}

// periodOf is the period a day (YYYY-MM-DD) falls in.
func periodOf(t time.Time, by string) string {
	switch by {
	case "day":
		return t.Format(day)
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	}
	return t.Format("2006-01")
}

// parseRange checks from and to.
func parseRange(a toolargs.GetListeningByPeriod) (from, to time.Time, err error) {
	from, err = time.Parse(day, a.From)
	if err != nil {
		return from, to, kit.ArgumentError(fmt.Errorf(`argument "from": %q is not a date; give YYYY-MM-DD, for example 2026-01-01`, a.From))
	}
	to, err = time.Parse(day, a.To)
	if err != nil {
		return from, to, kit.ArgumentError(fmt.Errorf(`argument "to": %q is not a date; give YYYY-MM-DD, for example 2026-12-31`, a.To))
	}
	if to.Before(from) {
		return from, to, kit.ArgumentError(errors.New(`argument "to": is before "from"; give a last day on or after the first`))
	}
	if to.Sub(from) > 100*366*24*time.Hour {
		return from, to, kit.ArgumentError(errors.New(`argument "to": the range is longer than 100 years; give a shorter one`))
	}
	return from, to, nil
}

// GetListeningByPeriod is get_listening_by_period.
func GetListeningByPeriod(ctx context.Context, d *kit.Deps, a toolargs.GetListeningByPeriod) (*mcp.CallToolResult, error) {
	from, to, err := parseRange(a)
	if err != nil {
		return nil, err
	}
	lo, hi := from.Format(day), to.Format(day)
	inRange := func(date string) bool { return date >= lo && date <= hi }

	// Audiobookshelf's own days count every library: read only when no
	// library is named (one library's days come from its sessions).
	l, err := readListened(ctx, d, from, a.LibraryID == nil)
	if err != nil {
		return nil, err
	}
	sessions, sessionsCut := l.sessions, l.cut

	// Per period: Audiobookshelf's own days (getUserListeningStatsHelpers:
	// a session with a date and time listened counts on its date); for one
	// library, the same rule over its sessions.
	perDay := map[string]float64{}
	if a.LibraryID == nil {
		for k, t := range l.stats.Days {
			if inRange(k) {
				perDay[k] += t
			}
		}
	}
	byLib := map[string]float64{}
	authors, narrators, genres := map[string]float64{}, map[string]float64{}, map[string]float64{}
	type key [2]string
	// The title of each item (a podcast's, for an episode) and each
	// episode's: a session names the episode by its displayTitle and the
	// podcast by its metadata.
	titles, episodes := map[key]string{}, map[key]string{}
	libOf := map[string]string{}
	for i := range sessions {
		s := &sessions[i]
		ep := ""
		if s.EpisodeID != nil {
			ep = *s.EpisodeID
		}
		if _, ok := titles[key{s.LibraryItemID, ep}]; !ok {
			titles[key{s.LibraryItemID, ep}] = s.DisplayTitle
			if ep != "" && s.MediaMetadata != nil {
				titles[key{s.LibraryItemID, ep}] = s.MediaMetadata.Title.Value
				episodes[key{s.LibraryItemID, ep}] = s.DisplayTitle
			}
		}
		libOf[s.LibraryItemID] = s.LibraryID
		t := s.TimeListening
		if s.Date == "" || t <= 0 || !inRange(s.Date) {
			continue
		}
		byLib[s.LibraryID] += t
		if a.LibraryID != nil {
			if s.LibraryID != *a.LibraryID {
				continue
			}
			perDay[s.Date] += t
		}
		if m := s.MediaMetadata; m != nil {
			people(m, t, authors, narrators, genres)
		}
	}

	// Every period of the range, in order, with nothing listened as 0.
	sums := map[string]float64{}
	total := 0.0
	for k, t := range perDay {
		dt, err := time.Parse(day, k)
		if err != nil {
			continue
		}
		sums[periodOf(dt, a.By)] += t
		total += t
	}
	var periods []Period
	for dt := from; !dt.After(to); dt = dt.AddDate(0, 0, 1) {
		k := periodOf(dt, a.By)
		if n := len(periods); n > 0 && periods[n-1].Period == k {
			continue
		}
		periods = append(periods, Period{Period: k, TimeS: compact.Seconds(sums[k])})
	}

	// Finished in the range, by the person's records.
	finished := []FinishedIn{}
	nFinished := 0
	var done []*absdata.Progress
	// Books marked finished without listening have no session to name
	// them or their library: they are read in one batched request.
	var unnamed []string
	for i := range l.recs {
		p := &l.recs[i]
		ep := ""
		if p.EpisodeID != nil {
			ep = *p.EpisodeID
		}
		if p.IsFinished && p.FinishedAt != nil && inRange(compact.Date(*p.FinishedAt)) && titles[key{p.LibraryItemID, ep}] == "" {
			unnamed = append(unnamed, p.LibraryItemID)
		}
	}
	untitled := ""
	if len(unnamed) > 0 {
		items, _, err := d.ReadItemsByID(ctx, unnamed)
		if err != nil {
			return nil, err
		}
		for id, it := range items {
			libOf[id] = it.LibraryID
			titles[key{id, ""}] = it.Media.Metadata.Title.Value
			for j := range it.Media.Episodes {
				e := &it.Media.Episodes[j]
				titles[key{id, e.ID}], episodes[key{id, e.ID}] = it.Media.Metadata.Title.Value, e.Title
			}
		}
		if n := len(slices.Compact(slices.Sorted(slices.Values(unnamed)))) - len(items); n > 0 {
			untitled = fmt.Sprintf("%d finished items have no title: they are gone from Audiobookshelf or in a library this user no longer sees", n)
		}
	}
	for i := range l.recs {
		p := &l.recs[i]
		if !p.IsFinished || p.FinishedAt == nil || !inRange(compact.Date(*p.FinishedAt)) {
			continue
		}
		if a.LibraryID != nil && libOf[p.LibraryItemID] != *a.LibraryID {
			continue
		}
		done = append(done, p)
	}
	sort.Slice(done, func(i, j int) bool { return *done[i].FinishedAt > *done[j].FinishedAt })
	nFinished = len(done)
	for _, p := range done {
		if len(finished) == finishedShown {
			break
		}
		ep := ""
		if p.EpisodeID != nil {
			ep = *p.EpisodeID
		}
		f := FinishedIn{ID: p.LibraryItemID, EpisodeID: ep, Title: titles[key{p.LibraryItemID, ep}], Episode: episodes[key{p.LibraryItemID, ep}], Finished: compact.Date(*p.FinishedAt)}
		f.DaysTaken = daysTaken(p)
		finished = append(finished, f)
	}

	head := []result.Field{result.Extra("from", lo), result.Extra("to", hi), result.Extra("by", a.By), result.Extra("total_s", compact.Seconds(total))}
	if a.LibraryID != nil {
		head = append(head, result.Extra("library_id", *a.LibraryID))
	}
	libs := make([]Named, 0, len(byLib))
	for id, t := range byLib {
		libs = append(libs, Named{ID: id, TimeS: compact.Seconds(t)})
	}
	sort.Slice(libs, func(i, j int) bool {
		return libs[i].TimeS > libs[j].TimeS || libs[i].TimeS == libs[j].TimeS && libs[i].ID < libs[j].ID
	})
	head = append(head, result.Extra("by_library", libs),
		result.Extra("top_authors", top(authors)), result.Extra("top_narrators", top(narrators)), result.Extra("top_genres", top(genres)),
		result.Extra("finished", finished), result.Extra("finished_count", nFinished))
	if nFinished > len(finished) {
		head = append(head, result.Extra("finished_more", fmt.Sprintf("the %d most recent of %d are listed; a shorter range lists the others", len(finished), nFinished)))
	}
	if untitled != "" {
		head = append(head, result.Extra("untitled", untitled))
	}
	if sessionsCut {
		head = append(head, result.Extra("sessions_cut", fmt.Sprintf("only the %d most recent sessions were read: the per-library times and the top lists count those alone (the totals per period are Audiobookshelf's own)", len(sessions))))
	}
	return result.Page(d, "periods", result.PagingOf(a.Page, a.Limit), periods, nil, result.AsIs[Period], head...)
}

// top is the topShown names with the most time.
func top(m map[string]float64) []Named {
	out := make([]Named, 0, len(m))
	for k, t := range m {
		if k != "" {
			out = append(out, Named{Name: k, TimeS: compact.Seconds(t)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].TimeS > out[j].TimeS || out[i].TimeS == out[j].TimeS && out[i].Name < out[j].Name
	})
	if len(out) > topShown {
		out = out[:topShown]
	}
	return out
}

// readSessionsSince reads the person's sessions, newest update first,
// until they are older than from: a session is counted on the day it
// started, which is never after the day it was last updated (two days'
// margin for time zones). cut: sessionPages pages were read and more
// were left.
func readSessionsSince(ctx context.Context, d *kit.Deps, from time.Time) (sessions []absdata.Session, cut bool, err error) {
	stopBefore := from.Add(-48 * time.Hour).UnixMilli()
	for pg := 0; ; pg++ {
		if pg == sessionPages {
			return sessions, true, nil
		}
		body, err := d.Get(ctx, "the listening sessions", func(ctx context.Context) (*http.Response, error) {
			return d.API.ListListeningSessions(ctx, &abs.ListListeningSessionsParams{Page: kit.Ptr(pg), ItemsPerPage: kit.Ptr(sessionPage)})
		})
		if err != nil {
			return nil, false, err
		}
		var v struct {
			Total    int               `json:"total"`
			Sessions []absdata.Session `json:"sessions"`
		}
		if err := kit.Decode(body, &v); err != nil {
			return nil, false, err
		}
		sessions = append(sessions, v.Sessions...)
		if len(v.Sessions) < sessionPage || (pg+1)*sessionPage >= v.Total || v.Sessions[len(v.Sessions)-1].UpdatedAt < stopBefore {
			return sessions, false, nil
		}
	}
}
