package listening

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// maxListLines is how many lines one check_owned call takes.
	maxListLines = 100
	// maxCandidates is how many books a line that matches several names.
	maxCandidates = 5
)

// The states of a book for the person.
const (
	stateUnstarted  = "unstarted"
	stateInProgress = "in_progress"
	stateFinished   = "finished"
)

// OwnedBook is a book of the library and where the person is in it.
type OwnedBook struct {
	ID          string `json:"library_item_id"`
	Title       string `json:"title"`
	Authors     string `json:"authors,omitempty"`
	State       string `json:"state"`
	ProgressPct int    `json:"progress_pct,omitempty"`
	Finished    string `json:"finished,omitempty"`
}

// OwnedLine is the answer for one line of the list.
type OwnedLine struct {
	Line string `json:"line"`
	// Status: owned (one book), several (the title names more than one
	// book, or a book by another author), maybe (the line is only a part
	// of a title, or a title a part of the line) or not_found.
	Status string `json:"status"`
	// Match is "close" when the title was taken a few letters apart.
	Match      string      `json:"match,omitempty"`
	Book       *OwnedBook  `json:"book,omitempty"`
	Candidates []OwnedBook `json:"candidates,omitempty"`
}

// ownedItem is a book of the library with its keys.
type ownedItem struct {
	book    OwnedBook
	keys    []string
	authors []string
}

// listLines is the call's lines: the list's entries, or the text's lines,
// trimmed, without empty lines and repeats.
func listLines(a toolargs.CheckOwned) ([]string, error) {
	raw := a.Titles
	arg := "titles"
	if a.Text != nil {
		raw = strings.Split(strings.ReplaceAll(*a.Text, "\r", "\n"), "\n")
		arg = "text"
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range raw {
		l = strings.TrimSpace(l)
		k := strings.ToLower(l)
		if l == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, kit.ArgumentError(fmt.Errorf("argument %q: holds no title; give one title a line", arg))
	}
	if len(out) > maxListLines {
		return nil, kit.ArgumentError(fmt.Errorf("argument %q: holds %d titles; give at most %d a call (split the list)", arg, len(out), maxListLines))
	}
	return out, nil
}

// CheckOwned is check_owned.
func CheckOwned(ctx context.Context, d *kit.Deps, a toolargs.CheckOwned) (*mcp.CallToolResult, error) {
	lines, err := listLines(a)
	if err != nil {
		return nil, err
	}
	recsP := kit.Alongside(ctx, func(ctx context.Context) recordsOrErr {
		r, err := d.ProgressRecords(ctx)
		return recordsOrErr{r, err}
	})
	items, libs, err := readBooks(ctx, d, a.LibraryID)
	if err != nil {
		recsP.Abandon()
		return nil, err
	}
	r := recsP.Wait()
	if r.err != nil {
		return nil, r.err
	}
	progress := map[string]*absdata.Progress{}
	for i := range r.recs {
		if p := &r.recs[i]; p.EpisodeID == nil || *p.EpisodeID == "" {
			progress[p.LibraryItemID] = p
		}
	}
	books := make([]ownedItem, 0, len(items))
	for i := range items {
		it := &items[i]
		if it.MediaType != "book" {
			continue
		}
		m := &it.Media.Metadata
		b := OwnedBook{ID: it.ID, Title: m.Title.Value, Authors: compact.AuthorNames(m)}
		setState(&b, progress[it.ID])
		var authors []string
		for _, au := range m.Authors {
			authors = append(authors, au.Name)
		}
		if len(authors) == 0 && m.AuthorName != "" {
			authors = strings.Split(m.AuthorName, ", ")
		}
		books = append(books, ownedItem{book: b, keys: naming.ItemTitleKeys(m.Title.Value, m.Subtitle.Value), authors: authors})
	}

	counts := map[string]int{}
	out := make([]OwnedLine, 0, len(lines))
	for _, l := range lines {
		ol := matchLine(l, books)
		counts[ol.Status]++
		if ol.Book != nil {
			counts[ol.Book.State]++
		}
		out = append(out, ol)
	}
	head := []result.Field{result.Extra("lines", len(lines)), result.Extra("counts", counts), result.Extra("books_searched", len(books)), result.Extra("libraries", libs)}
	return result.Page(d, "results", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs[OwnedLine], head...)
}

// setState sets a book's state from the person's record.
func setState(b *OwnedBook, p *absdata.Progress) {
	switch {
	case p == nil || (!p.IsFinished && p.Progress == 0 && p.CurrentTime == 0):
		b.State = stateUnstarted
	case p.IsFinished:
		b.State = stateFinished
		if p.FinishedAt != nil {
			b.Finished = compact.Date(*p.FinishedAt)
		}
	default:
		b.State = stateInProgress
		b.ProgressPct = compact.Pct(p.Progress)
	}
}

// matchLine finds what one line names. Its keys are tried in turn (the
// whole line first); the first that meets a book the same or a typo apart
// decides. A "by" tail keeps the books by that author when any is; a
// title a typo apart by another author is not taken.
func matchLine(line string, books []ownedItem) OwnedLine {
	tl := naming.ParseTitleLine(line)
	ol := OwnedLine{Line: line, Status: "not_found"}
	var partial []int
	for _, key := range tl.Keys {
		best := naming.NoMatch
		var at []int
		for i := range books {
			m := naming.NoMatch
			for _, bk := range books[i].keys {
				m = max(m, naming.MatchTitle(key, bk))
			}
			switch {
			case m > best:
				best, at = m, []int{i}
			case m == best && m != naming.NoMatch:
				at = append(at, i)
			}
		}
		if best == naming.Partial {
			if partial == nil {
				partial = at
			}
			continue
		}
		if best < naming.Close {
			continue
		}
		if tl.Author != "" {
			var fit []int
			for _, i := range at {
				if naming.AuthorFits(tl.Author, books[i].authors) {
					fit = append(fit, i)
				}
			}
			if len(fit) == 0 && best == naming.Close {
				continue
			}
			if len(fit) == 0 {
				ol.Status = "several"
				ol.Candidates = candidates(books, at)
				return ol
			}
			at = fit
		}
		if len(at) > 1 {
			ol.Status = "several"
			ol.Candidates = candidates(books, at)
			return ol
		}
		b := books[at[0]].book
		ol.Status, ol.Book = "owned", &b
		if best == naming.Close {
			ol.Match = "close"
		}
		return ol
	}
	if partial != nil {
		ol.Status = "maybe"
		ol.Candidates = candidates(books, partial)
	}
	return ol
}

func candidates(books []ownedItem, at []int) []OwnedBook {
	out := make([]OwnedBook, 0, min(len(at), maxCandidates))
	for _, i := range at {
		if len(out) == maxCandidates {
			break
		}
		out = append(out, books[i].book)
	}
	return out
}

// readBooks reads every item of the library named, or of every book
// library, 4 libraries at a time; with the ids of the libraries read.
func readBooks(ctx context.Context, d *kit.Deps, libraryID *string) ([]absdata.Item, []string, error) {
	ids := []string{}
	if libraryID != nil {
		ids = append(ids, *libraryID)
	} else {
		libs, err := d.ReadLibraries(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range libs {
			if l.MediaType == "book" {
				ids = append(ids, l.ID)
			}
		}
		if len(ids) == 0 {
			return nil, nil, kit.Errorf(kit.Unchanged, "%s", errors.New("this user sees no book library"))
		}
	}
	got := make([][]absdata.Item, len(ids))
	errs := make([]error, len(ids))
	kit.EachLimit(len(ids), 4, func(i int) { got[i], errs[i] = d.ReadAllItems(ctx, ids[i]) })
	var out []absdata.Item
	for i := range ids {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		out = append(out, got[i]...)
	}
	return out, ids, nil
}
