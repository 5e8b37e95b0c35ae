package curation

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sweepAudit is one audit audit_library runs: its name in the answer
// (and in the audit argument), the kind of library it looks at, and how
// it runs.
type sweepAudit struct {
	name    string
	podcast bool // a podcast library's audit; the others are of books
	alone   bool // run only when asked for by name (it reads much)
	run     func(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error)
}

// viaTool runs one of the audits that has a tool of its own, its
// findings handed back instead of answered.
func viaTool(call func(ctx context.Context, d *kit.Deps, libraryID string) (*mcp.CallToolResult, error)) func(context.Context, *kit.Deps, string) (*collected, error) {
	return func(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
		c := &collected{}
		if _, err := call(collecting(ctx, c), d, libraryID); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// sweepAudits are the audits in the order the worklist gives them: the
// five with a tool of their own, then those without.
var sweepAudits = []sweepAudit{
	{name: "series", run: viaTool(func(ctx context.Context, d *kit.Deps, id string) (*mcp.CallToolResult, error) {
		return AuditSeries(ctx, d, toolargs.AuditSeries{LibraryID: id, Limit: 1})
	})},
	{name: "people", run: viaTool(func(ctx context.Context, d *kit.Deps, id string) (*mcp.CallToolResult, error) {
		return AuditPeople(ctx, d, toolargs.AuditPeople{LibraryID: id, Limit: 1})
	})},
	{name: "duplicates", run: viaTool(func(ctx context.Context, d *kit.Deps, id string) (*mcp.CallToolResult, error) {
		return AuditDuplicates(ctx, d, toolargs.AuditDuplicates{LibraryID: id, Limit: 1})
	})},
	{name: "missing", run: viaTool(func(ctx context.Context, d *kit.Deps, id string) (*mcp.CallToolResult, error) {
		return AuditMissing(ctx, d, toolargs.AuditMissing{LibraryID: id, Limit: 1})
	})},
	{name: "tags_and_genres", run: viaTool(func(ctx context.Context, d *kit.Deps, id string) (*mcp.CallToolResult, error) {
		return AuditTagsAndGenres(ctx, d, toolargs.AuditTagsAndGenres{LibraryID: id, Limit: 1})
	})},
	{name: "no_audio", run: auditNoAudio},
	{name: "one_chapter", run: auditOneChapter},
	{name: "author_in_title", run: auditAuthorInTitle},
	{name: "author_images", run: auditAuthorImages},
	{name: "covers", alone: true, run: auditCovers},
	{name: "podcasts", podcast: true, run: func(ctx context.Context, d *kit.Deps, id string) (*collected, error) {
		return auditPodcasts(ctx, d, id, time.Now())
	}},
}

// SweepSummary is one audit's line at the head of every page of the
// worklist.
type SweepSummary struct {
	Audit    string         `json:"audit"`
	Findings int            `json:"findings"`
	Counts   map[string]int `json:"counts"`
	Read     string         `json:"read"`
}

// sweepEntry is one finding of the worklist: the audit's name and the
// finding as the audit's own tool gives it.
type sweepEntry struct {
	audit   string
	finding any
}

func (e sweepEntry) MarshalJSON() ([]byte, error) {
	b, err := result.Marshal(e.finding)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	head, err := json.Marshal(e.audit)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"audit":`), head...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// AuditLibrary is audit_library: every audit of the library's kind (or
// the one named), each listing read once, answered as one worklist paged
// across the audits, with every audit's counts on every page.
func AuditLibrary(ctx context.Context, d *kit.Deps, a toolargs.AuditLibrary) (*mcp.CallToolResult, error) {
	ctx = withListings(ctx)
	lib, err := readLibrary(ctx, d, a.LibraryID)
	if err != nil {
		return nil, err
	}
	podcasts := lib.MediaType == "podcast"
	only := ""
	if a.Audit != nil {
		only = *a.Audit
	}
	var run []sweepAudit
	var fit []string
	for _, s := range sweepAudits {
		if s.podcast != podcasts {
			continue
		}
		fit = append(fit, s.name)
		if (only == "" && !s.alone) || only == s.name {
			run = append(run, s)
		}
	}
	if len(run) == 0 {
		known := false
		for _, s := range sweepAudits {
			known = known || s.name == only
		}
		what := "is not an audit"
		if known {
			what = "does not look at a " + lib.MediaType + " library"
		}
		return nil, kit.Errorf(kit.Unchanged, "argument \"audit\": %q %s; for library %s it is one of %s, or left out for all of them (but covers).",
			kit.Clip(kit.CleanText(only), 40), what, a.LibraryID, strings.Join(fit, ", "))
	}
	var summaries []SweepSummary
	var entries []sweepEntry
	for _, s := range run {
		c, err := s.run(ctx, d, a.LibraryID)
		if err != nil {
			return nil, err
		}
		summaries = append(summaries, SweepSummary{Audit: s.name, Findings: len(c.findings), Counts: c.counts, Read: c.read})
		for _, f := range c.findings {
			entries = append(entries, sweepEntry{s.name, f})
		}
	}
	return result.Page(d, "findings", result.PagingOf(a.Page, a.Limit), entries, nil, result.AsIs,
		result.Extra("library_id", lib.ID), result.Extra("library", lib.Name), result.Extra("audits", summaries))
}
