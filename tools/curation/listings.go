package curation

import (
	"context"
	"sync"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The sweep (audit_library) runs every audit over one library in one call;
// two hooks let it do so with the audits' own code:
//
//   - listings: each listing an audit reads (the library, its items under
//     one filter, its series, authors, narrators) is read once a sweep,
//     however many audits read it, and at the same time by one of them only;
//   - findings: an audit hands its findings and counts to the sweep instead
//     of answering a page of them (answer).
//
// Outside a sweep neither is in the context: each audit reads and answers
// as it always did.

type listingsKey struct{}

// listings holds what a sweep has read, by what was read.
type listings struct {
	mu   sync.Mutex
	read map[string]*listing
}

type listing struct {
	once sync.Once
	v    any
	err  error
}

// withListings is ctx reading each listing once from here on.
func withListings(ctx context.Context) context.Context {
	return context.WithValue(ctx, listingsKey{}, &listings{read: map[string]*listing{}})
}

// once reads what key names with read, or, in a sweep, answers what was
// read under key before (waiting for a read under way).
func once[T any](ctx context.Context, key string, read func() (T, error)) (T, error) {
	ls, _ := ctx.Value(listingsKey{}).(*listings)
	if ls == nil {
		return read()
	}
	ls.mu.Lock()
	l := ls.read[key]
	if l == nil {
		l = &listing{}
		ls.read[key] = l
	}
	ls.mu.Unlock()
	l.once.Do(func() { l.v, l.err = read() })
	if l.err != nil {
		var zero T
		return zero, l.err
	}
	return l.v.(T), nil
}

// readLibrary reads a library (once a sweep).
func readLibrary(ctx context.Context, d *kit.Deps, id string) (*absdata.Library, error) {
	return once(ctx, "library "+id, func() (*absdata.Library, error) {
		_, lib, err := d.ReadLibrary(ctx, id)
		return lib, err
	})
}

type collectorKey struct{}

// collected is what one audit found, handed to the sweep.
type collected struct {
	findings []any
	counts   map[string]int
	read     string
}

// answer is an audit's answer: page p of its findings with the count of
// each kind and what it read; in a sweep, nothing: they go to the sweep.
func answer[T any](ctx context.Context, d *kit.Deps, p result.Paging, findings []T, counts map[string]int, read string) (*mcp.CallToolResult, error) {
	if c, _ := ctx.Value(collectorKey{}).(*collected); c != nil {
		for i := range findings {
			c.findings = append(c.findings, findings[i])
		}
		c.counts, c.read = counts, read
		return nil, nil
	}
	return result.Page(d, "findings", p, findings, nil, result.AsIs, result.Extra("counts", counts), result.Extra("read", read))
}

// collecting is ctx with c receiving an audit's findings.
func collecting(ctx context.Context, c *collected) context.Context {
	return context.WithValue(ctx, collectorKey{}, c)
}
