package listening

import (
	"context"
	"fmt"
	"sort"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caps of what_next's fixed lists (the series are paged).
const (
	inProgressCap = 10
	finishedCap   = 5
)

// Listening is a book or an episode the person is in the middle of.
type Listening struct {
	ID          string `json:"library_item_id"`
	EpisodeID   string `json:"episode_id,omitempty"`
	LibraryID   string `json:"library_id"`
	Title       string `json:"title"`
	Episode     string `json:"episode,omitempty"`
	Authors     string `json:"authors,omitempty"`
	PositionS   int64  `json:"position_s"`
	DurationS   int64  `json:"duration_s,omitempty"`
	LeftS       int64  `json:"left_s"`
	ProgressPct int    `json:"progress_pct"`
	LastUpdate  string `json:"last_listened,omitempty"`
}

// NextInSeries is a started series and its next unstarted book.
type NextInSeries struct {
	SeriesID  string `json:"series_id"`
	Series    string `json:"series"`
	LibraryID string `json:"library_id"`
	Finished  int    `json:"finished"`
	Books     int    `json:"books"`
	// Next is the first book by sequence the person has not started.
	Next *SeriesBook `json:"next,omitempty"`
	// GapBefore is the sequence numbers missing from the library just
	// before Next: the series has a gap there.
	GapBefore []string `json:"gap_before,omitempty"`
	Complete  bool     `json:"complete,omitempty"`
	Status    string   `json:"status,omitempty"`
}

// Finish is a recently finished book or episode.
type Finish struct {
	ID        string `json:"library_item_id"`
	EpisodeID string `json:"episode_id,omitempty"`
	Title     string `json:"title"`
	Episode   string `json:"episode,omitempty"`
	Finished  string `json:"finished"`
}

// WhatNext is what_next.
func WhatNext(ctx context.Context, d *kit.Deps, a toolargs.WhatNext) (*mcp.CallToolResult, error) {
	wantBooks := a.MediaType == nil || *a.MediaType == "book"
	wantEpisodes := a.MediaType == nil || *a.MediaType == "podcast"
	var maxLeft float64
	if a.MaxHours != nil {
		maxLeft = *a.MaxHours * 3600
	}
	fits := func(left float64) bool { return maxLeft == 0 || left <= maxLeft }
	inLib := func(id string) bool { return a.LibraryID == nil || id == *a.LibraryID }

	recsP := kit.Alongside(ctx, func(ctx context.Context) recordsOrErr {
		r, err := d.ProgressRecords(ctx)
		return recordsOrErr{r, err}
	})
	// Items of libraries the user no longer sees are left out, here and
	// from what was finished.
	body, _, hidden, err := d.ItemsInProgress(ctx, 100)
	if err != nil {
		recsP.Abandon()
		return nil, err
	}
	var ip struct {
		LibraryItems []absdata.InProgressItem `json:"libraryItems"`
	}
	if err := kit.Decode(body, &ip); err != nil {
		recsP.Abandon()
		return nil, err
	}
	r := recsP.Wait()
	if r.err != nil {
		return nil, r.err
	}
	type key [2]string
	byKey := make(map[key]*absdata.Progress, len(r.recs))
	for i := range r.recs {
		p := &r.recs[i]
		ep := ""
		if p.EpisodeID != nil {
			ep = *p.EpisodeID
		}
		byKey[key{p.LibraryItemID, ep}] = p
	}

	// In progress: Audiobookshelf's own list, most recent first, with the
	// position from the person's record.
	inProgress := []Listening{}
	titles := map[key]string{}
	moreInProgress := 0
	for i := range ip.LibraryItems {
		it := &ip.LibraryItems[i].Item
		ep, epTitle := "", ""
		if it.RecentEpisode != nil {
			ep, epTitle = it.RecentEpisode.ID, it.RecentEpisode.Title
		}
		titles[key{it.ID, ep}] = it.Media.Metadata.Title.Value
		isEpisode := ep != ""
		if (isEpisode && !wantEpisodes) || (!isEpisode && !wantBooks) || !inLib(it.LibraryID) {
			continue
		}
		p := byKey[key{it.ID, ep}]
		if p == nil {
			continue
		}
		dur := p.Duration
		if dur == 0 {
			dur = it.Media.Duration
			if it.RecentEpisode != nil {
				dur = it.RecentEpisode.Length()
			}
		}
		left := max(dur-p.CurrentTime, 0)
		if !fits(left) {
			continue
		}
		if len(inProgress) == inProgressCap {
			moreInProgress++
			continue
		}
		inProgress = append(inProgress, Listening{ID: it.ID, EpisodeID: ep, LibraryID: it.LibraryID, Title: it.Media.Metadata.Title.Value,
			Episode: epTitle, Authors: compact.AuthorNames(&it.Media.Metadata), PositionS: compact.Seconds(p.CurrentTime),
			DurationS: compact.Seconds(dur), LeftS: compact.Seconds(left), ProgressPct: compact.Pct(p.Progress), LastUpdate: compact.Stamp(p.LastUpdate)})
	}

	// Next in series: the series of the books the person has touched.
	books := bookRecords(r.recs)
	var started []startedSeries
	left := 0
	unseen := map[string]bool{}
	for _, id := range hidden {
		unseen[id] = true
	}
	if wantBooks {
		var notSeen []string
		started, left, notSeen, err = findStartedSeries(ctx, d, books, a.LibraryID)
		if err != nil {
			return nil, err
		}
		for _, id := range notSeen {
			unseen[id] = true
		}
	}

	// Recently finished: the person's records, newest finish first.
	var done []*absdata.Progress
	for i := range r.recs {
		p := &r.recs[i]
		if unseen[p.LibraryItemID] {
			continue
		}
		isEpisode := p.EpisodeID != nil && *p.EpisodeID != ""
		if p.IsFinished && ((isEpisode && wantEpisodes) || (!isEpisode && wantBooks)) {
			done = append(done, p)
		}
	}
	finishedAt := func(p *absdata.Progress) int64 {
		if p.FinishedAt != nil {
			return *p.FinishedAt
		}
		return p.LastUpdate
	}
	sort.Slice(done, func(i, j int) bool { return finishedAt(done[i]) > finishedAt(done[j]) })

	var next []NextInSeries
	total := 0
	p := result.PagingOf(a.Page, a.Limit)
	var extra []result.Field
	if wantBooks {
		total = len(started)
		views, err := readViews(ctx, d, result.PageOf(started, p.Page, p.Limit), books)
		if err != nil {
			return nil, err
		}
		for i := range views {
			v := &views[i]
			for _, b := range v.Books {
				titles[key{b.ID, ""}] = b.Title
			}
			n := NextInSeries{SeriesID: v.ID, Series: v.Name, LibraryID: v.LibraryID, Finished: v.Finished, Books: len(v.Books), Complete: v.Complete}
			for j := range v.Books {
				if v.Books[j].State != NotStarted {
					continue
				}
				b := v.Books[j]
				n.Next = &b
				n.GapBefore = missingBefore(v, j)
				if !fits(float64(b.DurationS)) {
					n.Status = fmt.Sprintf("the next book is longer than %g hours", *a.MaxHours)
				}
				break
			}
			switch {
			case n.Complete:
				n.Status = "complete: every book finished"
			case n.Next == nil:
				n.Status = "no unstarted book: the rest are in progress"
			case len(n.GapBefore) > 0:
				n.Status = fmt.Sprintf("gap: sequence %v missing from the library before the next book", n.GapBefore)
			}
			next = append(next, n)
		}
		if left > 0 {
			extra = append(extra, result.Extra("not_looked_at", fmt.Sprintf("%d books with progress touched longer ago were not read for their series; get_series_progress with series_id reads any series", left)))
		}
	}
	finished := []Finish{}
	for _, f := range done {
		if len(finished) == finishedCap {
			break
		}
		ep := ""
		if f.EpisodeID != nil {
			ep = *f.EpisodeID
		}
		finished = append(finished, Finish{ID: f.LibraryItemID, EpisodeID: ep, Title: titles[key{f.LibraryItemID, ep}], Finished: compact.Date(finishedAt(f))})
	}
	// Titles the reads above did not give (a book marked finished outside
	// its series, an episode), in one batched read.
	slots := make([]titleSlot, len(finished))
	for i := range finished {
		f := &finished[i]
		slots[i] = titleSlot{ID: f.ID, EpisodeID: f.EpisodeID, Title: &f.Title, Episode: &f.Episode}
	}
	untitled, err := fillTitles(ctx, d, slots)
	if err != nil {
		return nil, err
	}
	head := []result.Field{result.Extra("in_progress", inProgress)}
	if moreInProgress > 0 {
		head = append(head, result.Extra("in_progress_more", fmt.Sprintf("%d more in progress: list_items_in_progress", moreInProgress)))
	}
	head = append(head, result.Extra("recently_finished", finished))
	if len(done) > finishedCap {
		head = append(head, result.Extra("finished_more", fmt.Sprintf("%d finished in all: get_listening_by_period lists them by date", len(done))))
	}
	if untitled != "" {
		head = append(head, result.Extra("untitled", untitled))
	}
	head = append(head, extra...)
	if next == nil {
		next = []NextInSeries{}
	}
	return result.Page(d, "next_in_series", p, next, &total, result.AsIs[NextInSeries], head...)
}
