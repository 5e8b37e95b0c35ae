// Package scalecheck holds every read tool to the result budget on a big
// library: it calls each read tool of the manifest (gen/registry) with its
// widest arguments (limit at its maximum, detail compact and full), checks
// each answer's length, that a cut or refused answer says how to get the
// rest, and walks every paged list to its end, counting each entry once.
// The default test run uses it on the stand-in seeded at scale
// (internal/e2e), make test-live on a real Audiobookshelf (internal/live),
// make bench against library size (bench/).
//
// A read tool added to tools.yaml is called here with nothing more to do:
// its widest calls are tools.yaml's (widest:, or the default cmd/toolgen
// makes from its required parameters' names:), carried by the registry,
// with placeholders ("{book_library}") that Targets fills.
package scalecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// Targets are the ids the widest calls are made on.
type Targets struct {
	BookLibrary, PodcastLibrary string
	// Item is the book with the most authors and chapters; Progressed is
	// a book with a progress record.
	Item, Progressed string
	// Podcast is the podcast with the most episodes; Episode one of them.
	Podcast, Episode string
	Series, Author   string
	// Collection and Playlist are the longest.
	Collection, Playlist string
	// Cover is an item with a cover.
	Cover string
	// Query is a search_library text that matches much.
	Query string
	// Feed is the feed URL of Podcast (podcasts toolset).
	Feed string
	Year int
}

// StandinTargets are the stand-in's ids on a library of standin.ScaleData.
func StandinTargets() Targets {
	return Targets{
		BookLibrary: standin.LibraryBooksID, PodcastLibrary: standin.LibraryPodcastsID,
		Item: standin.ScaleAnthologyID, Progressed: standin.ItemColourOfMagic,
		Podcast: standin.ScalePodcastID, Episode: standin.ScaleEpisodeID,
		Series: standin.ScaleSeriesID, Author: standin.ScaleAuthorID,
		Collection: standin.ScaleBigCollectionID, Playlist: standin.ScaleBigPlaylistID,
		Query: "a", Year: 2024, Feed: "https://feeds.example.com/scale.xml",
		Cover: standin.ItemColourOfMagic,
	}
}

// Widest is, per read tool, the arguments of its widest calls on t: the
// registry's (tools.yaml's widest), each placeholder filled from t. A call
// that names something t has not got (an empty id) holds "" there, and Run
// skips it. Widen adds limit at its maximum and both forms of detail.
func Widest(t Targets) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, tool := range ReadTools() {
		for _, call := range tool.Widest {
			args := map[string]any{}
			for k, v := range call {
				args[k] = t.fill(v)
			}
			out[tool.Name] = append(out[tool.Name], args)
		}
	}
	return out
}

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

// value is what a placeholder stands for on t ("" or 0 when t has none),
// and whether it is one Targets knows.
func (t Targets) value(name string) (any, bool) {
	switch name {
	case "book_library":
		return t.BookLibrary, true
	case "podcast_library":
		return t.PodcastLibrary, true
	case "item":
		return t.Item, true
	case "progressed":
		return t.Progressed, true
	case "podcast":
		return t.Podcast, true
	case "episode":
		return t.Episode, true
	case "series":
		return t.Series, true
	case "author":
		return t.Author, true
	case "collection":
		return t.Collection, true
	case "playlist":
		return t.Playlist, true
	case "cover":
		return t.Cover, true
	case "query":
		return t.Query, true
	case "feed":
		return t.Feed, true
	case "year":
		return t.Year, true
	case "title_lines":
		if t.Query == "" {
			return "", true
		}
		return ownedLines(t.Query), true
	}
	return nil, false
}

// fill puts t's values in place of the placeholders of a widest call's
// value: a value that is one placeholder becomes its value (a year stays a
// number); one with placeholders in a text gets them written in. A
// placeholder t has no value for makes the value "" (the call is skipped);
// one Targets does not know is left as it is, and the tool refuses it.
func (t Targets) fill(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if m := placeholderRE.FindStringSubmatch(s); m != nil && m[0] == s {
		val, known := t.value(m[1])
		switch {
		case !known:
			return s
		case val == "" || val == 0:
			return ""
		}
		return val
	}
	empty := false
	s = placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		val, known := t.value(p[1 : len(p)-1])
		if !known {
			return p
		}
		if val == "" || val == 0 {
			empty = true
		}
		return fmt.Sprint(val)
	})
	if empty {
		return ""
	}
	return s
}

// ownedLines is the longest list of titles a tool takes (check_owned):
// 100 lines, each a title with a number and a "by Author" tail.
func ownedLines(q string) []string {
	out := make([]string, 100)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d by %s", q, i, q)
	}
	return out
}

// ReadTools are the manifest's read tools, in its order.
func ReadTools() []registry.Tool {
	var out []registry.Tool
	for _, t := range registry.All {
		if t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

type schema struct {
	Properties map[string]struct {
		Maximum *float64 `json:"maximum"`
	} `json:"properties"`
}

// Widen turns one widest call into the calls made: limit at its maximum
// (when the tool takes limit and the call does not set it), and, when the
// tool takes detail, once compact and once full.
func Widen(t registry.Tool, args map[string]any) []map[string]any {
	// The checked schema: tools/list's leaves out detail and limit's
	// default, which the instructions say.
	var s schema
	if err := json.Unmarshal(t.Arguments, &s); err != nil {
		panic(fmt.Sprintf("scalecheck: the generated arguments schema of %s is no JSON schema: %v", t.Name, err))
	}
	base := map[string]any{}
	for k, v := range args {
		base[k] = v
	}
	if p, ok := s.Properties["limit"]; ok && p.Maximum != nil {
		if _, set := base["limit"]; !set {
			base["limit"] = int(*p.Maximum)
		}
	}
	if _, ok := s.Properties["detail"]; !ok {
		return []map[string]any{base}
	}
	compact, full := map[string]any{}, map[string]any{}
	for k, v := range base {
		compact[k], full[k] = v, v
	}
	compact["detail"], full["detail"] = "compact", "full"
	return []map[string]any{compact, full}
}

// Call calls one tool.
type Call func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error)

// Report is what the check saw of one tool.
type Report struct {
	Tool string
	// Calls made (the walks' pages included), and how many were refused
	// for the budget.
	Calls, Refused int
	// MaxChars is the longest answer, made by MaxArgs.
	MaxChars int
	MaxArgs  string
	Walks    []Walk
	// Skipped counts the widest calls not made: they name an id the
	// server has nothing for (a server without a podcast library).
	Skipped int
	// Elapsed is the time of all its calls.
	Elapsed time.Duration
}

// Walk is one paged list walked to its end.
type Walk struct {
	Args         string
	Pages, Seen  int
	Total, Limit int
}

// Run makes every read tool's widest calls through call and reports each
// failure with errorf; budget is the server's result budget.
func Run(ctx context.Context, call Call, budget int, widest map[string][]map[string]any, errorf func(string, ...any)) []Report {
	var reports []Report
	for _, t := range ReadTools() {
		if r, ok := RunTool(ctx, call, budget, t, widest[t.Name], errorf); ok {
			reports = append(reports, r)
		}
	}
	return reports
}

// RunTool makes one read tool's widest calls (Widest's of the tool) and
// reports each failure with errorf; ok is false when it has none.
func RunTool(ctx context.Context, call Call, budget int, t registry.Tool, calls []map[string]any, errorf func(string, ...any)) (r Report, ok bool) {
	if len(calls) == 0 {
		errorf("read tool %s has no widest call: give it widest: in tools.yaml (what it is called on), so that its answers are held to the budget", t.Name)
		return r, false
	}
	r.Tool = t.Name
	start := time.Now()
	for _, c := range calls {
		if missing(c) {
			r.Skipped++ // nothing of that kind on this server
			continue
		}
		for _, args := range Widen(t, c) {
			v, ok := one(ctx, call, budget, t, args, &r, errorf)
			if !ok || v == nil || args["detail"] == "full" {
				continue
			}
			if _, paged := v["returned"]; paged {
				r.Walks = append(r.Walks, walk(ctx, call, budget, t, args, &r, errorf))
			}
		}
	}
	r.Elapsed = time.Since(start)
	return r, true
}

// missing tells whether a call names an id that is empty.
func missing(args map[string]any) bool {
	for _, v := range args {
		if v == "" {
			return true
		}
	}
	return false
}

func argString(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}

// one makes a call and checks its answer: within the budget; refused only
// for detail full, and then saying how to get less; every cut saying
// where the rest is; a page with more after it giving next.
func one(ctx context.Context, call Call, budget int, t registry.Tool, args map[string]any, r *Report, errorf func(string, ...any)) (map[string]any, bool) {
	res, err := call(ctx, t.Name, args)
	r.Calls++
	what := t.Name + " " + argString(args)
	if err != nil {
		errorf("%s: %v", what, err)
		return nil, false
	}
	n := result.ResultChars(res)
	if n > r.MaxChars {
		r.MaxChars, r.MaxArgs = n, argString(args)
	}
	if n > budget {
		errorf("%s: %d characters, over the budget of %d", what, n, budget)
	}
	text := textOf(res)
	if res.IsError {
		switch {
		case !strings.Contains(text, "Ask for less"):
			errorf("%s: an error that is not the budget's refusal: %s", what, clip(text))
		case args["detail"] != "full":
			errorf("%s: refused although it is the compact form (only a raw answer may be refused): %s", what, clip(text))
		default:
			r.Refused++
		}
		return nil, false
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		errorf("%s: the answer is not JSON: %v", what, err)
		return nil, false
	}
	checkCuts(what, v, errorf)
	m, _ := v.(map[string]any)
	if m != nil {
		checkPage(what, m, errorf)
	}
	return m, true
}

// checkCuts finds every "cut" of the answer: each must say where the rest is.
func checkCuts(what string, v any, errorf func(string, ...any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "cut" {
				cuts, _ := e.(map[string]any)
				for list, c := range cuts {
					cm, _ := c.(map[string]any)
					if rest, _ := cm["rest"].(string); rest == "" {
						errorf("%s: the cut of %s does not say where the rest is: %v", what, list, c)
					}
				}
				continue
			}
			if k == "more" {
				if s, _ := e.(string); s != "" && !strings.Contains(s, "limit") && !strings.Contains(s, "list_") {
					errorf("%s: %q does not say how to get the rest", what, s)
				}
			}
			checkCuts(what, e, errorf)
		}
	case []any:
		for _, e := range x {
			checkCuts(what, e, errorf)
		}
	}
}

func num(m map[string]any, k string) (int, bool) {
	f, ok := m[k].(float64)
	return int(f), ok
}

// checkPage holds a page to the paging contract: total, page, limit and
// returned, and next when there is more.
func checkPage(what string, m map[string]any, errorf func(string, ...any)) {
	returned, ok := num(m, "returned")
	if !ok {
		return
	}
	total, ok1 := num(m, "total")
	page, ok2 := num(m, "page")
	limit, ok3 := num(m, "limit")
	if !ok1 || !ok2 || !ok3 {
		errorf("%s: a page without total, page and limit: %v", what, keys(m))
		return
	}
	if returned > limit {
		errorf("%s: returned %d, more than limit %d", what, returned, limit)
	}
	if _, hasNext := m["next"]; (page+1)*limit < total && returned > 0 && !hasNext {
		errorf("%s: page %d of limit %d shows %d of %d and gives no next", what, page, limit, returned, total)
	}
	if list, _ := listOf(m); list == nil && returned > 0 {
		errorf("%s: no list of %d entries in the page: %v", what, returned, keys(m))
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listOf is the page's list: the array whose length is returned.
func listOf(m map[string]any) ([]any, string) {
	returned, _ := num(m, "returned")
	for _, k := range keys(m) {
		if a, ok := m[k].([]any); ok && len(a) == returned && k != "cut" {
			return a, k
		}
	}
	return nil, ""
}

// entryKey names one entry of a list: its id, or the entry itself.
func entryKey(e any) string {
	if m, ok := e.(map[string]any); ok {
		if id, ok := m["id"]; ok {
			return fmt.Sprint(id)
		}
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// walk pages a list from page 0 to its end, following next, and counts
// each entry once: none may come twice, and all together are the total.
func walk(ctx context.Context, call Call, budget int, t registry.Tool, args map[string]any, r *Report, errorf func(string, ...any)) Walk {
	a := map[string]any{}
	for k, v := range args {
		a[k] = v
	}
	a["page"] = 0
	w := Walk{Args: argString(args)}
	seen := map[string]bool{}
	total := -1
	for w.Pages < 100000 {
		m, ok := one(ctx, call, budget, t, a, r, errorf)
		if !ok || m == nil {
			return w
		}
		w.Pages++
		total, _ = num(m, "total")
		lim, _ := num(m, "limit")
		w.Limit = max(w.Limit, lim)
		list, _ := listOf(m)
		for _, e := range list {
			k := entryKey(e)
			if seen[k] {
				errorf("%s: %s comes twice (again on page %v)", t.Name+" "+w.Args, clip(k), a["page"])
			}
			seen[k] = true
		}
		next, ok := m["next"].(map[string]any)
		if !ok {
			break
		}
		a["page"], a["limit"] = next["page"], next["limit"]
	}
	w.Seen, w.Total = len(seen), total
	if len(seen) != total {
		errorf("%s: walked %d pages and saw %d distinct entries; the answers say total %d", t.Name+" "+w.Args, w.Pages, len(seen), total)
	}
	return w
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

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// Table writes the reports as a Markdown table.
func Table(reports []Report) string {
	var b strings.Builder
	b.WriteString("| tool | calls | refused (full) | skipped | largest answer | its arguments | lists walked (pages, entries seen / total) | time |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range reports {
		var walks []string
		for _, w := range r.Walks {
			walks = append(walks, fmt.Sprintf("%d pages, %d/%d", w.Pages, w.Seen, w.Total))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | `%s` | %s | %s |\n", r.Tool, r.Calls, r.Refused, r.Skipped, r.MaxChars, r.MaxArgs, strings.Join(walks, "; "), r.Elapsed.Round(time.Millisecond))
	}
	return b.String()
}
