package listening

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// touchedRead is how many of the other books the person has touched, the
// most recent first, are read to tell whether a series went on.
const touchedRead = 200

// Abandoned is a book started and not listened to for a while.
type Abandoned struct {
	ID          string `json:"library_item_id"`
	Title       string `json:"title"`
	Authors     string `json:"authors,omitempty"`
	ProgressPct int    `json:"progress_pct"`
	LeftS       int64  `json:"left_s"`
	Last        string `json:"last_listened"`
	DaysIdle    int    `json:"days_idle"`
	Series      string `json:"series,omitempty"`
	// WentOn names the later book of the series the person took up
	// after leaving this one.
	WentOn string `json:"series_went_on,omitempty"`
	Hidden bool   `json:"hidden_from_continue,omitempty"`
}

// ListAbandoned is list_abandoned.
func ListAbandoned(ctx context.Context, d *kit.Deps, a toolargs.ListAbandoned) (*mcp.CallToolResult, error) {
	recs, err := d.ProgressRecords(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	cutoff := now.Add(-time.Duration(a.IdleDays) * 24 * time.Hour).UnixMilli()
	var left, others []*absdata.Progress
	for i := range recs {
		p := &recs[i]
		if p.EpisodeID != nil && *p.EpisodeID != "" {
			continue
		}
		started := p.Progress > 0 || p.CurrentTime > 0
		if !p.IsFinished && started && p.LastUpdate < cutoff {
			left = append(left, p)
		} else if p.IsFinished || started {
			others = append(others, p)
		}
	}
	sort.Slice(left, func(i, j int) bool { return left[i].LastUpdate > left[j].LastUpdate })
	sort.Slice(others, func(i, j int) bool { return others[i].LastUpdate > others[j].LastUpdate })
	if len(others) > touchedRead {
		others = others[:touchedRead]
	}
	ids := make([]string, 0, len(left)+len(others))
	for _, p := range left {
		ids = append(ids, p.LibraryItemID)
	}
	for _, p := range others {
		ids = append(ids, p.LibraryItemID)
	}
	items := map[string]*absdata.Item{}
	var refused []string
	if len(left) > 0 {
		items, refused, err = d.ReadItemsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
	}
	// Per series, the books the person took up, with when.
	type took struct {
		seq   float64
		title string
		p     *absdata.Progress
	}
	bySeries := map[string][]took{}
	for _, p := range append(append([]*absdata.Progress{}, left...), others...) {
		it := items[p.LibraryItemID]
		if it == nil {
			continue
		}
		for _, s := range it.Media.Metadata.Series {
			if f, err := strconv.ParseFloat(s.Sequence.Value, 64); err == nil {
				bySeries[s.ID] = append(bySeries[s.ID], took{f, it.Media.Metadata.Title.Value, p})
			}
		}
	}
	out := []Abandoned{}
	gone := 0
	for _, p := range left {
		it := items[p.LibraryItemID]
		if it == nil {
			gone++
			continue
		}
		m := &it.Media.Metadata
		dur := p.Duration
		if dur == 0 {
			dur = it.Media.Duration
		}
		e := Abandoned{ID: it.ID, Title: m.Title.Value, Authors: compact.AuthorNames(m), ProgressPct: compact.Pct(p.Progress),
			LeftS: compact.Seconds(max(dur-p.CurrentTime, 0)), Last: compact.Date(p.LastUpdate),
			DaysIdle: int(now.Sub(time.UnixMilli(p.LastUpdate)).Hours() / 24), Hidden: p.HideFromContinueListening}
		for _, s := range m.Series {
			if e.Series == "" {
				e.Series = s.Name
				if s.Sequence.Value != "" {
					e.Series += " #" + s.Sequence.Value
				}
			}
			seq, err := strconv.ParseFloat(s.Sequence.Value, 64)
			if err != nil {
				continue
			}
			for _, t := range bySeries[s.ID] {
				if t.seq > seq && t.p.LastUpdate > p.LastUpdate {
					state := "started"
					if t.p.IsFinished {
						state = "finished"
					}
					e.WentOn = fmt.Sprintf("%s #%s %s later", state, strconv.FormatFloat(t.seq, 'f', -1, 64), t.title)
					break
				}
			}
		}
		out = append(out, e)
	}
	head := []result.Field{result.Extra("idle_days", a.IdleDays)}
	if gone > 0 {
		note := fmt.Sprintf("%d more books with progress are gone from Audiobookshelf", gone)
		if len(refused) > 0 {
			note = fmt.Sprintf("%d more books with progress could not be read: gone, or in a library this user no longer sees", gone)
		}
		head = append(head, result.Extra("not_listed", note))
	}
	return result.Page(d, "abandoned", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs[Abandoned], head...)
}
