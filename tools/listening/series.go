package listening

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RecentBooks is how many books with progress, the most recently touched
// first, are read to learn which series the person has started: a
// progress record names its item, not the item's series.
const RecentBooks = 50

// SeriesBooksMax is how many books of one series are read; a longer series
// is cut there, and the answer says so.
const SeriesBooksMax = 500

// parallel is how many reads run at the same time.
const parallel = 4

// startedSeries is a series the person has a book of with progress.
type startedSeries struct {
	ID, Name, LibraryID string
	// Last is the latest lastUpdate of the person's records of its books.
	Last int64
}

// bookRecords is the records of books (not episodes) by library item id.
func bookRecords(recs []absdata.Progress) map[string]*absdata.Progress {
	out := make(map[string]*absdata.Progress, len(recs))
	for i := range recs {
		p := &recs[i]
		if p.EpisodeID == nil || *p.EpisodeID == "" {
			out[p.LibraryItemID] = p
		}
	}
	return out
}

// findStartedSeries reads the RecentBooks most recently touched books with
// progress (in libraryID, when given) and answers their series, the most
// recently touched first, how many books with progress were not read, and
// the books the user may no longer see: Audiobookshelf keeps a user's
// progress of a library they have lost, and answers 403 for its book
// (LibraryItemController.middleware), which is left out.
func findStartedSeries(ctx context.Context, d *kit.Deps, books map[string]*absdata.Progress, libraryID *string) (started []startedSeries, left int, unseen []string, err error) {
	recs := make([]*absdata.Progress, 0, len(books))
	for _, p := range books {
		recs = append(recs, p)
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].LastUpdate != recs[j].LastUpdate {
			return recs[i].LastUpdate > recs[j].LastUpdate
		}
		return recs[i].LibraryItemID < recs[j].LibraryItemID
	})
	if len(recs) > RecentBooks {
		left = len(recs) - RecentBooks
		recs = recs[:RecentBooks]
	}
	items := make([]*absdata.Item, len(recs))
	errs := make([]error, len(recs))
	kit.EachLimit(len(recs), parallel, func(i int) {
		items[i], errs[i] = d.ReadItemRecord(ctx, recs[i].LibraryItemID)
	})
	byID := map[string]*startedSeries{}
	var order []*startedSeries
	for i, it := range items {
		if errs[i] != nil {
			// A record can outlive its item (removed from the library):
			// that book has no series to offer.
			if e := kit.AsError(errs[i]); e != nil && e.Status == http.StatusNotFound {
				continue
			}
			if e := kit.AsError(errs[i]); e != nil && e.Status == http.StatusForbidden {
				unseen = append(unseen, recs[i].LibraryItemID)
				continue
			}
			return nil, 0, nil, errs[i]
		}
		if libraryID != nil && it.LibraryID != *libraryID {
			continue
		}
		for _, s := range it.Media.Metadata.Series {
			if s.ID == "" {
				continue
			}
			if cur := byID[s.ID]; cur != nil {
				cur.Last = max(cur.Last, recs[i].LastUpdate)
				continue
			}
			ss := &startedSeries{ID: s.ID, Name: s.Name, LibraryID: it.LibraryID, Last: recs[i].LastUpdate}
			byID[s.ID] = ss
			order = append(order, ss)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Last > order[j].Last })
	out := make([]startedSeries, len(order))
	for i, s := range order {
		out[i] = *s
	}
	return out, left, unseen, nil
}

// Book states.
const (
	Finished   = "finished"
	InProgress = "in_progress"
	NotStarted = "not_started"
)

// SeriesBook is one book of a series, with the person's state of it.
type SeriesBook struct {
	ID          string `json:"library_item_id"`
	Title       string `json:"title"`
	Sequence    string `json:"sequence,omitempty"`
	DurationS   int64  `json:"duration_s,omitempty"`
	State       string `json:"state"`
	ProgressPct *int   `json:"progress_pct,omitempty"`
	LeftS       *int64 `json:"left_s,omitempty"`
	FinishedAt  string `json:"finished_at,omitempty"`
	// seq is Sequence as a number; ok false when it is none.
	seq   float64
	seqOK bool
}

// Duplicate is a sequence number that more than one book has, with the
// books' titles beside their ids.
type Duplicate struct {
	Sequence string   `json:"sequence"`
	BookIDs  []string `json:"library_item_ids"`
	Titles   []string `json:"titles"`
}

// SeriesView is a series with the person's state of each book.
type SeriesView struct {
	ID         string       `json:"series_id"`
	Name       string       `json:"name"`
	LibraryID  string       `json:"library_id"`
	Finished   int          `json:"finished"`
	InProgress int          `json:"in_progress"`
	NotStarted int          `json:"not_started"`
	Complete   bool         `json:"complete,omitempty"`
	Gaps       []string     `json:"gaps,omitempty"`
	Duplicates []Duplicate  `json:"duplicate_sequences,omitempty"`
	Unnumbered int          `json:"books_without_sequence,omitempty"`
	Books      []SeriesBook `json:"books"`
	// Cut says that the series has more books than were read.
	Cut string `json:"cut,omitempty"`
}

// stateOf is a book's state from the person's record of it.
func stateOf(p *absdata.Progress) string {
	switch {
	case p == nil:
		return NotStarted
	case p.IsFinished:
		return Finished
	case p.CurrentTime > 0 || p.Progress > 0:
		return InProgress
	}
	return NotStarted
}

// viewOf is a series' books in sequence order with the person's state of
// each, its gaps and its duplicated sequence numbers.
func viewOf(id, name, libraryID string, items []absdata.Item, total int, books map[string]*absdata.Progress) SeriesView {
	v := SeriesView{ID: id, Name: name, LibraryID: libraryID, Books: make([]SeriesBook, 0, len(items))}
	for i := range items {
		it := &items[i]
		b := SeriesBook{ID: it.ID, Title: it.Media.Metadata.Title.Value, DurationS: compact.Seconds(it.Media.Duration)}
		for _, s := range it.Media.Metadata.Series {
			if s.ID == id || len(it.Media.Metadata.Series) == 1 {
				b.Sequence = s.Sequence.Value
			}
		}
		if f, err := strconv.ParseFloat(b.Sequence, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			b.seq, b.seqOK = f, true
		}
		p := books[it.ID]
		b.State = stateOf(p)
		switch b.State {
		case Finished:
			v.Finished++
			if p.FinishedAt != nil {
				b.FinishedAt = compact.Date(*p.FinishedAt)
			}
		case InProgress:
			v.InProgress++
			pct := compact.Pct(p.Progress)
			b.ProgressPct = &pct
			if dur := max(p.Duration, it.Media.Duration); dur > 0 {
				left := compact.Seconds(max(dur-p.CurrentTime, 0))
				b.LeftS = &left
			}
		default:
			v.NotStarted++
		}
		v.Books = append(v.Books, b)
	}
	// Audiobookshelf orders by its own comparison; numbers first, in order,
	// then the books without one, is the order a listener reads.
	sort.SliceStable(v.Books, func(i, j int) bool {
		a, b := v.Books[i], v.Books[j]
		if a.seqOK != b.seqOK {
			return a.seqOK
		}
		return a.seqOK && a.seq < b.seq
	})
	bySeq := map[string][]string{}
	titleOf := map[string]string{}
	var seqs []string
	whole := map[int64]bool{}
	var top int64
	for _, b := range v.Books {
		if !b.seqOK {
			v.Unnumbered++
			continue
		}
		key := strconv.FormatFloat(b.seq, 'f', -1, 64)
		if _, ok := bySeq[key]; !ok {
			seqs = append(seqs, key)
		}
		bySeq[key] = append(bySeq[key], b.ID)
		titleOf[b.ID] = b.Title
		if b.seq == math.Trunc(b.seq) && b.seq >= 0 {
			whole[int64(b.seq)] = true
			top = max(top, int64(b.seq))
		}
	}
	for _, k := range seqs {
		if ids := bySeq[k]; len(ids) > 1 {
			titles := make([]string, len(ids))
			for i, id := range ids {
				titles[i] = titleOf[id]
			}
			v.Duplicates = append(v.Duplicates, Duplicate{Sequence: k, BookIDs: ids, Titles: titles})
		}
	}
	for k := int64(1); k < top; k++ {
		if !whole[k] {
			v.Gaps = append(v.Gaps, strconv.FormatInt(k, 10))
			if len(v.Gaps) == 50 {
				v.Gaps = append(v.Gaps, "…")
				break
			}
		}
	}
	v.Complete = len(v.Books) > 0 && v.Finished == len(v.Books) && total <= len(items)
	if total > len(items) {
		v.Cut = fmt.Sprintf("the series has %d books; the first %d by sequence are shown and counted", total, len(items))
	}
	return v
}

// missingBefore is the whole sequence numbers missing from the series
// between the book before next in order and next.
func missingBefore(v *SeriesView, next int) []string {
	b := v.Books[next]
	if !b.seqOK {
		return nil
	}
	from := 0.0
	if next > 0 && v.Books[next-1].seqOK {
		from = v.Books[next-1].seq
	}
	var out []string
	for k := math.Floor(from) + 1; k < b.seq; k++ {
		out = append(out, strconv.FormatFloat(k, 'f', -1, 64))
		if len(out) == 20 {
			break
		}
	}
	return out
}

// readViews reads the books of each series and makes its view.
func readViews(ctx context.Context, d *kit.Deps, series []startedSeries, books map[string]*absdata.Progress) ([]SeriesView, error) {
	views := make([]SeriesView, len(series))
	errs := make([]error, len(series))
	kit.EachLimit(len(series), parallel, func(i int) {
		s := series[i]
		items, total, err := d.ReadSeriesBooks(ctx, s.LibraryID, s.ID, SeriesBooksMax)
		if err != nil {
			errs[i] = err
			return
		}
		views[i] = viewOf(s.ID, s.Name, s.LibraryID, items, total, books)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return views, nil
}

// GetSeriesProgress is get_series_progress.
func GetSeriesProgress(ctx context.Context, d *kit.Deps, a toolargs.GetSeriesProgress) (*mcp.CallToolResult, error) {
	if a.SeriesID != nil {
		recs := kit.Alongside(ctx, func(ctx context.Context) recordsOrErr {
			r, err := d.ProgressRecords(ctx)
			return recordsOrErr{r, err}
		})
		body, err := d.Get(ctx, "series "+*a.SeriesID, func(ctx context.Context) (*http.Response, error) {
			return d.API.GetSeries(ctx, *a.SeriesID, nil)
		})
		if err != nil {
			recs.Abandon()
			return nil, err
		}
		var s absdata.Series
		if err := kit.Decode(body, &s); err != nil {
			recs.Abandon()
			return nil, err
		}
		r := recs.Wait()
		if r.err != nil {
			return nil, r.err
		}
		items, total, err := d.ReadSeriesBooks(ctx, s.LibraryID, s.ID, SeriesBooksMax)
		if e := kit.AsError(err); e != nil && e.Status == http.StatusForbidden {
			// Audiobookshelf answers a series of any library by id, and
			// 403 for the books of a library the user does not see: the
			// series is not told of.
			return nil, kit.NotSeen("series_id", "series", *a.SeriesID)
		}
		if err != nil {
			return nil, err
		}
		v := viewOf(s.ID, s.Name, s.LibraryID, items, total, bookRecords(r.recs))
		return result.JSONResult(fitView(d, v))
	}
	recs, err := d.ProgressRecords(ctx)
	if err != nil {
		return nil, err
	}
	books := bookRecords(recs)
	started, left, _, err := findStartedSeries(ctx, d, books, nil)
	if err != nil {
		return nil, err
	}
	p := result.PagingOf(a.Page, a.Limit)
	pageSeries := result.PageOf(started, p.Page, p.Limit)
	views, err := readViews(ctx, d, pageSeries, books)
	if err != nil {
		return nil, err
	}
	total := len(started)
	var extra []result.Field
	if left > 0 {
		extra = append(extra, result.Extra("not_looked_at", fmt.Sprintf("%d books with progress touched longer ago were not read for their series; get_series_progress with series_id reads any series", left)))
	}
	return result.Page(d, "series", p, views, &total, result.AsIs[SeriesView], extra...)
}

// fitView cuts a long series' books to the budget, saying where.
func fitView(d *kit.Deps, v SeriesView) any {
	b, err := result.Marshal(v)
	if err != nil || len(b) <= result.Room(d) {
		return v
	}
	keep := len(v.Books)
	for keep > 1 {
		keep /= 2
		w := v
		w.Books = v.Books[:keep]
		if b, err := result.Marshal(w); err == nil && len(b) < result.Room(d)-300 {
			break
		}
	}
	w := v
	w.Books = v.Books[:keep]
	w.Cut = fmt.Sprintf("books cut after %d of %d to fit the result budget; list_library_items with filter_group series, filter_value %s, sort sequence pages through them", keep, len(v.Books), v.ID)
	return w
}

type recordsOrErr struct {
	recs []absdata.Progress
	err  error
}
