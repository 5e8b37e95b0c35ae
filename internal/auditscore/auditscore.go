// Package auditscore holds the curation audits to the problems planted in
// the messy library (standin.MessyData): it calls each audit, walks every
// page of its findings, and counts what it found against what was planted
// (precision and recall), failing on a planted problem not found, a
// finding not planted, a clean record or near miss named, or a count per
// kind that is not the number of its findings. The default test run uses
// it on the stand-in (internal/e2e), make test-live on the messy library
// written onto a real Audiobookshelf (internal/live); RESULTS.md has the
// figures of both.
package auditscore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Tools are the curation toolset's audits: the five with a tool of their
// own, then those audit_library runs alone with its audit argument
// ("audit_library/no_audio"), then audit_library with every audit at once
// (Sweep), which must find what all of them planted.
var Tools = append(append([]string(nil), OwnTools...),
	"audit_library/no_audio", "audit_library/one_chapter", "audit_library/author_in_title", "audit_library/author_images", "audit_library/covers", Sweep)

// Alone are the audits audit_library runs only when its audit argument
// names them (they read much): the sweep is not held to find theirs.
var Alone = map[string]bool{"audit_library/covers": true}

// OwnTools are the five audits with a tool of their own.
var OwnTools = []string{"audit_series", "audit_people", "audit_duplicates", "audit_missing", "audit_tags_and_genres"}

// Sweep is audit_library on a book library with every audit.
const Sweep = "audit_library"

// ownTool is the audit's tool for a finding of the sweep: "series" is
// audit_series; an audit without a tool of its own is
// "audit_library/NAME".
func ownTool(audit string) string {
	switch audit {
	case "series", "people", "duplicates", "missing", "tags_and_genres":
		return "audit_" + audit
	}
	return Sweep + "/" + audit
}

// Call calls a tool by name, as an MCP client does.
type Call func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error)

// finding is a finding of any audit, as its answer gives it.
type finding struct {
	Audit   string   `json:"audit"` // audit_library
	Kind    string   `json:"kind"`
	IDs     []string `json:"ids"`
	Names   []string `json:"names"`
	Items   []string `json:"library_item_ids"`
	ItemID  string   `json:"library_item_id"` // audit_missing
	Missing []string `json:"missing"`         // audit_missing
	Reasons []string `json:"reasons"`         // audit_duplicates
}

// Walk calls tool on library page after page, limit findings a page, and
// answers the key of each finding (standin.MessyKey), every id and name
// the findings name, and the counts the first page gave.
func Walk(ctx context.Context, call Call, tool, library string, limit int) (keys []string, named map[string]bool, counts map[string]int, err error) {
	keys, named, counts, _, err = walk(ctx, call, tool, library, limit)
	return keys, named, counts, err
}

// walk is Walk, with the reasons each finding gives (audit_duplicates)
// by its key.
func walk(ctx context.Context, call Call, tool, library string, limit int) (keys []string, named map[string]bool, counts map[string]int, reasons map[string][]string, err error) {
	named, reasons = map[string]bool{}, map[string][]string{}
	page := 0
	name, audit, _ := strings.Cut(tool, "/")
	for range 1000 {
		args := map[string]any{"library_id": library, "page": page, "limit": limit}
		if audit != "" {
			args["audit"] = audit
		}
		res, err := call(ctx, name, args)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s: %v", tool, err)
		}
		text := textOf(res)
		if res.IsError {
			return nil, nil, nil, nil, fmt.Errorf("%s: %s", tool, text)
		}
		var v struct {
			Total  int            `json:"total"`
			Counts map[string]int `json:"counts"`
			Audits []struct {
				Audit  string         `json:"audit"`
				Counts map[string]int `json:"counts"`
			} `json:"audits"` // audit_library
			Findings []finding `json:"findings"`
			Next     *struct {
				Page, Limit int
			} `json:"next"`
		}
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s: %v", tool, err)
		}
		if counts == nil {
			counts = v.Counts
			if name == Sweep {
				// Each audit's counts, under its finding keys' tool and
				// kind, or under the kind alone for one audit.
				counts = map[string]int{}
				for _, a := range v.Audits {
					for k, n := range a.Counts {
						if tool == Sweep {
							k = ownTool(a.Audit) + " " + k
						}
						counts[k] = n
					}
				}
			}
		}
		for _, f := range v.Findings {
			tool := tool
			if f.Audit != "" && name == Sweep && audit == "" {
				tool = ownTool(f.Audit)
			}
			if tool == "audit_missing" {
				for _, k := range f.Missing {
					keys = append(keys, standin.MessyKey(tool, k, []string{f.ItemID}))
				}
				named[f.ItemID] = true
				continue
			}
			k := f.IDs
			if len(k) == 0 {
				k = f.Names
			}
			key := standin.MessyKey(tool, f.Kind, k)
			keys = append(keys, key)
			if f.Reasons != nil {
				reasons[key] = f.Reasons
			}
			for _, s := range append(append(append([]string(nil), f.IDs...), f.Names...), f.Items...) {
				named[s] = true
			}
		}
		if v.Next == nil {
			return keys, named, counts, reasons, nil
		}
		page, limit = v.Next.Page, v.Next.Limit
	}
	return nil, nil, nil, nil, fmt.Errorf("%s: still a next page after 1,000 pages", tool)
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// Score is one audit's figures on the messy library.
type Score struct {
	Tool                     string
	Planted, Reported, Found int
	Precision, Recall        float64
}

// Run calls every audit on library (the messy library, whose ground truth
// is m), walking its pages at limit, and reports through errorf each
// planted problem not found, each finding not planted or reported twice,
// each clean record named, and each count per kind that is not the number
// of its findings. It answers each audit's figures, in Tools' order; an
// audit that could not be called is reported and has no figures.
func Run(ctx context.Context, call Call, library string, limit int, m standin.Messy, errorf func(string, ...any)) []Score {
	return RunTools(ctx, call, Tools, library, limit, m, errorf)
}

// PodcastTools are the audits of a podcast library: audit_library's
// podcasts audit alone, then the sweep.
var PodcastTools = []string{"audit_library/podcasts", Sweep}

// RunTools is Run with the audits tools (of Tools or PodcastTools).
func RunTools(ctx context.Context, call Call, tools []string, library string, limit int, m standin.Messy, errorf func(string, ...any)) []Score {
	planted := map[string]map[string]bool{}
	for _, p := range m.Planted {
		if planted[p.Tool] == nil {
			planted[p.Tool] = map[string]bool{}
		}
		planted[p.Tool][standin.MessyKey(p.Tool, p.Kind, p.Keys)] = true
	}
	planted[Sweep] = map[string]bool{}
	for _, p := range m.Planted {
		if !Alone[p.Tool] {
			planted[Sweep][standin.MessyKey(p.Tool, p.Kind, p.Keys)] = true
		}
	}
	var scores []Score
	for _, tool := range tools {
		want := planted[tool]
		if len(want) == 0 {
			errorf("%s: nothing planted for it in the messy library", tool)
		}
		keys, named, counts, reasons, err := walk(ctx, call, tool, library, limit)
		if err != nil {
			errorf("%v", err)
			continue
		}
		got := map[string]bool{}
		perKind := map[string]int{}
		for _, k := range keys {
			if got[k] {
				errorf("%s reported twice: %s", tool, k)
			}
			got[k] = true
			perKind[kindOf(tool, k)]++
		}
		tp := 0
		var extra []string
		for k := range got {
			if want[k] {
				tp++
			} else {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			errorf("%s reported what was not planted: %s", tool, k)
		}
		var missed []string
		for k := range want {
			if !got[k] {
				missed = append(missed, k)
			}
		}
		sort.Strings(missed)
		for _, k := range missed {
			errorf("%s missed a planted problem: %s", tool, k)
		}
		// A finding that gives its reasons gives every one planted, and
		// no other: a duplicate found for two reasons is one finding.
		for k, r := range reasons {
			if !want[k] {
				continue
			}
			w := m.Reasons[k]
			if w == nil {
				w = []string{strings.Fields(k)[1]}
			}
			if !slices.Equal(r, w) {
				errorf("%s gives the reasons %v for %s; planted: %v", tool, r, k, w)
			}
		}
		for _, c := range m.Clean {
			if named[c] {
				errorf("%s named %s, which is clean", tool, c)
			}
		}
		// audit_missing counts books per kind; the others findings.
		for kind, n := range perKind {
			if counts[kind] != n {
				errorf("%s: counts[%s] is %d; the findings of that kind are %d", tool, kind, counts[kind], n)
			}
		}
		for kind, n := range counts {
			if n != perKind[kind] {
				errorf("%s: counts[%s] is %d; the findings of that kind are %d", tool, kind, n, perKind[kind])
			}
		}
		s := Score{Tool: tool, Planted: len(want), Reported: len(got), Found: tp, Precision: 1, Recall: 1}
		if len(got) > 0 {
			s.Precision = float64(tp) / float64(len(got))
		}
		if len(want) > 0 {
			s.Recall = float64(tp) / float64(len(want))
		}
		scores = append(scores, s)
	}
	return scores
}

// kindOf is what a finding's key is counted under: its kind, and for the
// sweep its audit's tool too.
func kindOf(tool, key string) string {
	f := strings.Fields(key)
	if tool == Sweep {
		return f[0] + " " + f[1]
	}
	return f[1]
}

// Table is the figures as the Markdown table RESULTS.md shows.
func Table(scores []Score) string {
	lines := []string{"| audit | planted | reported | found (true positives) | precision | recall |", "|---|---|---|---|---|---|"}
	for _, s := range scores {
		lines = append(lines, fmt.Sprintf("| %s | %d | %d | %d | %.2f | %.2f |", s.Tool, s.Planted, s.Reported, s.Found, s.Precision, s.Recall))
	}
	return strings.Join(lines, "\n")
}

// Translate is m with the stand-in's ids replaced by those of another
// server (to maps each; the names of narrators, tags and genres, which
// to does not hold, stay as they are), for the messy library written
// onto that server.
func Translate(m standin.Messy, to map[string]string) standin.Messy {
	tr := func(s string) string {
		if r, ok := to[s]; ok {
			return r
		}
		return s
	}
	var out standin.Messy
	for _, p := range m.Planted {
		old := standin.MessyKey(p.Tool, p.Kind, p.Keys)
		keys := make([]string, len(p.Keys))
		for i, k := range p.Keys {
			keys[i] = tr(k)
		}
		sort.Strings(keys)
		out.Planted = append(out.Planted, standin.Planted{Tool: p.Tool, Kind: p.Kind, Keys: keys})
		if r, ok := m.Reasons[old]; ok {
			if out.Reasons == nil {
				out.Reasons = map[string][]string{}
			}
			out.Reasons[standin.MessyKey(p.Tool, p.Kind, keys)] = r
		}
	}
	for _, c := range m.Clean {
		out.Clean = append(out.Clean, tr(c))
	}
	return out
}
