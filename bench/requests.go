package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Encoding is the tokenizer the requests are counted with: OpenAI's
// o200k_base, its BPE ranks embedded (tiktoken-go-loader), so nothing is
// fetched.
const Encoding = "o200k_base"

// Tokenizer counts tokens with Encoding.
type Tokenizer struct{ enc *tiktoken.Tiktoken }

var loaderOnce sync.Once

// NewTokenizer loads Encoding from the embedded ranks.
func NewTokenizer() (*Tokenizer, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		return nil, err
	}
	return &Tokenizer{enc: enc}, nil
}

// Count is the number of tokens of s.
func (t *Tokenizer) Count(s string) int { return len(t.enc.Encode(s, nil, nil)) }

// Targets of the everyday requests with default settings (issue 30), for
// each kind of client (issue 41).
const (
	MaxCalls = 12
	// MaxTokens is what the eight together may cost with default
	// settings: tools/list once per request and every call's request and
	// answer, as sent.
	MaxTokens = 16000
	// MaxShareOfAll is what the default may cost at most, as a share of
	// the same eight with every toolset listed, measured in the same run.
	MaxShareOfAll = 0.25
)

// MaxAllToolsListTokens bounds tools/list with every toolset on
// (AUDIOBOOKSHELF_TOOLSETS=all), as sent, in Encoding's tokens (issue 41):
// what every request pays where the discovery tools cannot help.
const MaxAllToolsListTokens = 10000

// Sample names what the everyday requests speak of, as a person would:
// titles and names of the library they run against.
type Sample struct {
	Series       string // a series whose books go into a new collection (T2)
	FinishTitle  string // a book marked finished (T3)
	Author       string // an author whose books are asked for (T6)
	BookmarkItem string // a book given a bookmark (T8)
	BookmarkAt   float64
	Year         int // the year of T5
	// NextTitle is the book after the one in progress in its series (T4);
	// "": any book the answer names.
	NextTitle string
}

// StandinSample is Sample for the stand-in's sample library.
var StandinSample = Sample{Series: "Discworld", FinishTitle: "Equal Rites", Author: "Terry Pratchett",
	BookmarkItem: "The Colour of Magic", BookmarkAt: 720, Year: 2026, NextTitle: "The Light Fantastic"}

// Step is one call: its tool, and its arguments from what the earlier
// calls of the same request answered (decoded JSON).
type Step struct {
	Tool string
	Args func(prev []any) (map[string]any, error)
}

// Request is one everyday request, as the shortest call sequence a model
// that reads every answer could make with this server's tools.
type Request struct {
	ID, Text string
	Steps    []Step
	// Want checks that the answers hold what the request asked for (nil:
	// the steps' arguments did).
	Want func(answers []any) error
}

func fixed(args map[string]any) func([]any) (map[string]any, error) {
	return func([]any) (map[string]any, error) { return args, nil }
}

// Requests are the eight everyday requests of the benchmark (T1-T8), over
// the titles and names of s.
func Requests(s Sample) []Request {
	return []Request{
		{"T1", "what am I listening to, and how far am I", []Step{
			{"list_items_in_progress", fixed(map[string]any{})}}, nil},
		{"T2", "put the books of a series in order into a new collection", []Step{
			{"search_library", fixed(map[string]any{"q": s.Series})},
			{"create_collection", func(prev []any) (map[string]any, error) {
				ids, err := seriesBookIDs(prev[0], s.Series)
				if err != nil {
					return nil, err
				}
				return map[string]any{"name": s.Series + " in order", "library_item_ids": ids}, nil
			}}}, nil},
		{"T3", "mark a book (by its title) finished", []Step{
			{"set_media_progress", fixed(map[string]any{"library_item_id": s.FinishTitle, "is_finished": true})}}, nil},
		{"T4", "the next book in the series I'm in", []Step{
			{"list_items_in_progress", fixed(map[string]any{})}},
			func(answers []any) error {
				_, title, err := nextInSeries(answers[0])
				if err == nil && s.NextTitle != "" && title != s.NextTitle {
					err = fmt.Errorf("the next book in the series is %q, not %q", title, s.NextTitle)
				}
				return err
			}},
		{"T5", "how much did I listen this year", []Step{
			{"get_year_stats", fixed(map[string]any{"year": s.Year})}}, nil},
		{"T6", "books by an author (by name)", []Step{
			{"search_library", fixed(map[string]any{"q": s.Author})}}, nil},
		{"T7", "podcast episodes I haven't heard", []Step{
			{"list_recent_episodes", fixed(map[string]any{})}}, nil},
		{"T8", "a bookmark 12 minutes into a book (by title), with a note", []Step{
			{"create_bookmark", fixed(map[string]any{"library_item_id": s.BookmarkItem, "time": s.BookmarkAt, "title": "Where the wizard meets the tourist"})}}, nil},
	}
}

// seriesBookIDs are the book ids, in series order, of the series named
// name among search_library's series hits.
func seriesBookIDs(v any, name string) ([]string, error) {
	m, _ := v.(map[string]any)
	hits, _ := m["series"].([]any)
	for _, h := range hits {
		hm, _ := h.(map[string]any)
		if !strings.EqualFold(fmt.Sprint(hm["name"]), name) || hm["in_series_order"] != true {
			continue
		}
		raw, _ := hm["book_ids"].([]any)
		var ids []string
		for _, id := range raw {
			if s, ok := id.(string); ok {
				ids = append(ids, s)
			}
		}
		if len(ids) > 0 {
			return ids, nil
		}
	}
	return nil, fmt.Errorf("search_library answered no series %q with its books in order: %v", name, v)
}

// nextInSeries is the next book (its id and title) of the first entry in
// progress whose series gives one.
func nextInSeries(v any) (id, title string, err error) {
	m, _ := v.(map[string]any)
	items, _ := m["items"].([]any)
	for _, it := range items {
		im, _ := it.(map[string]any)
		series, _ := im["series"].([]any)
		for _, s := range series {
			sm, _ := s.(map[string]any)
			if next, ok := sm["next"].(map[string]any); ok {
				id, _ = next["id"].(string)
				title, _ = next["title"].(string)
				if id != "" && title != "" {
					return id, title, nil
				}
			}
		}
	}
	return "", "", fmt.Errorf("no entry in progress names the next book of its series: %v", v)
}

// toolsetOf is the toolset of a tool of the registry, or "".
func toolsetOf(name string) string {
	for _, tl := range registry.All {
		if tl.Name == name {
			return tl.Toolset
		}
	}
	return ""
}

// Client is how a client treats a tool list that changed in its
// conversation (issue 41): the bench counts both kinds.
type Client int

const (
	// Rereads reloads tools/list when it changes (the TypeScript SDKs'
	// listChanged option): after enable_toolset it reads the longer list,
	// counted in place of the short one, and calls the tool by name.
	Rereads Client = iota
	// NeverRereads keeps the list it read first (most clients, on their
	// defaults): it reads the tool's arguments in enable_toolset's answer
	// and runs the tool through call_tool.
	NeverRereads
)

// ClientKinds are both kinds, in the order the tables show them.
var ClientKinds = []Client{Rereads, NeverRereads}

func (c Client) String() string {
	if c == Rereads {
		return "re-reads tools/list"
	}
	return "never re-reads (call_tool)"
}

// Tally is what one request cost: its calls, and the tokens of tools/list
// (the answer as the server sent it, read once per request) and of every
// call (request and answer as sent).
type Tally struct {
	ID, Text   string
	Calls      int
	ListBytes  int
	ListTokens int
	CallTokens int
}

// Total is tools/list and the calls.
func (t Tally) Total() int { return t.ListTokens + t.CallTokens }

// lines records the JSON-RPC messages of a session as sent, one a line
// (go-sdk's LoggingTransport: "read: {…}" and "write: {…}").
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns the messages recorded since the last take; read only: the
// messages the client read (the server's).
func (l *lines) take(readOnly ...bool) []string {
	l.mu.Lock()
	s := l.b.String()
	l.b.Reset()
	l.mu.Unlock()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"read: ", "write: "} {
			if len(readOnly) > 0 && readOnly[0] && p == "write: " {
				continue
			}
			if strings.HasPrefix(line, p) {
				out = append(out, strings.TrimPrefix(line, p))
			}
		}
	}
	return out
}

// Setup prepares the Audiobookshelf a request runs against (before it,
// not counted) and returns what puts it back after (nil: nothing).
type Setup func(ctx context.Context, id string) (func(), error)

// MeasureRequests runs each request on a fresh server over cfg (a copy
// per request), counting its calls and tokens as a client of kind c would
// spend them. The server is the one app.New builds, in process; the client
// declares elicitation and approves (none of the eight asks).
func MeasureRequests(ctx context.Context, cfg config.Config, reqs []Request, tok *Tokenizer, setup Setup, c Client) ([]Tally, error) {
	var out []Tally
	for _, r := range reqs {
		t, err := measureOne(ctx, cfg, r, tok, setup, c)
		if err != nil {
			return out, fmt.Errorf("%s: %w", r.ID, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func measureOne(ctx context.Context, cfg config.Config, r Request, tok *Tokenizer, setup Setup, kind Client) (Tally, error) {
	if setup != nil {
		undo, err := setup(ctx, r.ID)
		if err != nil {
			return Tally{}, err
		}
		if undo != nil {
			defer undo()
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	srv, err := app.New(app.Options{Config: &cfg, Version: "bench", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return Tally{}, err
	}
	defer srv.Close()
	<-srv.Registered()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		return Tally{}, err
	}
	defer ss.Close()
	rec := &lines{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	}).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: rec}, nil)
	if err != nil {
		return Tally{}, err
	}
	defer cs.Close()
	rec.take() // the handshake: not part of what a model reads
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return Tally{}, err
	}
	t := Tally{ID: r.ID, Text: r.Text}
	// The answer alone, as the server sent it: what the model is given.
	for _, m := range rec.take(true) {
		t.ListBytes += len(m)
		t.ListTokens += tok.Count(m)
	}
	if t.ListBytes == 0 {
		return t, fmt.Errorf("no tools/list answer was recorded")
	}
	listed := map[string]bool{}
	for _, tl := range tools.Tools {
		listed[tl.Name] = true
	}
	var prev []any
	for _, s := range r.Steps {
		args, err := s.Args(prev)
		if err != nil {
			return t, err
		}
		// A tool the list does not hold is one enable_toolset away: the
		// call a model makes first, for the tool's arguments (its answer,
		// with the toolset's definitions, counted like any other). A client
		// that re-reads tools/list then reads the longer list (counted in
		// place of the short one) and calls the tool by name; one that
		// does not runs it through call_tool.
		through := false
		if !listed[s.Tool] {
			ts := toolsetOf(s.Tool)
			if ts == "" || !listed["enable_toolset"] {
				return t, fmt.Errorf("%s is not listed, and cannot be turned on", s.Tool)
			}
			if _, err := Call(ctx, cs, "enable_toolset", map[string]any{"toolset": ts}); err != nil {
				return t, err
			}
			t.Calls++
			for _, m := range rec.take() {
				t.CallTokens += tok.Count(m)
			}
			switch kind {
			case Rereads:
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					return t, err
				}
				t.ListBytes, t.ListTokens = 0, 0
				for _, m := range rec.take(true) {
					t.ListBytes += len(m)
					t.ListTokens += tok.Count(m)
				}
				rec.take() // the request for it: the client's, not the model's
				for _, tl := range tools.Tools {
					listed[tl.Name] = true
				}
				if !listed[s.Tool] {
					return t, fmt.Errorf("%s is not listed after enable_toolset %s", s.Tool, ts)
				}
			default:
				through = true
			}
		}
		name, callArgs := s.Tool, args
		if through {
			name, callArgs = "call_tool", map[string]any{"name": s.Tool, "arguments": args}
		}
		text, err := Call(ctx, cs, name, callArgs)
		if err != nil {
			return t, err
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return t, fmt.Errorf("%s: the answer is not JSON: %v", s.Tool, err)
		}
		prev = append(prev, v)
		t.Calls++
		for _, m := range rec.take() {
			t.CallTokens += tok.Count(m)
		}
	}
	if r.Want != nil {
		if err := r.Want(prev); err != nil {
			return t, err
		}
	}
	return t, nil
}

// RequestsTable is the markdown table of tallies, with the total.
func RequestsTable(ts []Tally) string {
	var b strings.Builder
	b.WriteString("| request | calls | tokens: tools/list + calls = total |\n|---|---|---|\n")
	var calls, list, call int
	for _, t := range ts {
		fmt.Fprintf(&b, "| %s %s | %d | %s + %s = %s |\n", t.ID, t.Text, t.Calls, thousands(t.ListTokens), thousands(t.CallTokens), thousands(t.Total()))
		calls += t.Calls
		list += t.ListTokens
		call += t.CallTokens
	}
	fmt.Fprintf(&b, "| **all %d** | **%d** | **%s + %s = %s** |\n", len(ts), calls, thousands(list), thousands(call), thousands(list+call))
	return b.String()
}

// Sums are the calls and tokens of all the tallies.
func Sums(ts []Tally) (calls, listTokens, callTokens int) {
	for _, t := range ts {
		calls += t.Calls
		listTokens += t.ListTokens
		callTokens += t.CallTokens
	}
	return
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// MeasureOnStandin runs the requests of StandinSample, each on a fresh
// sample library (the stand-in, in process) and a fresh server with the
// toolsets given (nil: the default ones), as a client of kind c.
func MeasureOnStandin(ctx context.Context, tok *Tokenizer, toolsets []string, c Client) ([]Tally, error) {
	var ts []Tally
	for _, r := range Requests(StandinSample) {
		sd := standin.New(standin.Options{Now: standin.SampleNow})
		url, err := sd.Listen("127.0.0.1:0")
		if err != nil {
			return ts, err
		}
		cfg := config.Config{URL: url, APIKey: standin.DefaultAPIKey, Elicitation: true, Toolsets: toolsets}
		got, err := MeasureRequests(ctx, cfg, []Request{r}, tok, nil, c)
		sd.Close()
		ts = append(ts, got...)
		if err != nil {
			return ts, err
		}
	}
	return ts, nil
}

// ToolsList is the tools/list answer of a fresh server over the stand-in
// with the toolsets given (nil: the default ones): its tokens as the
// server sent it, and each tool definition's tokens (its JSON alone).
func ToolsList(ctx context.Context, tok *Tokenizer, toolsets []string) (total int, perTool map[string]int, err error) {
	return ToolsListAs(ctx, tok, toolsets, nil)
}

// ToolsListAs is ToolsList for a client with the capabilities caps (nil:
// go-sdk's defaults), one that declares MCP Apps say.
func ToolsListAs(ctx context.Context, tok *Tokenizer, toolsets []string, caps *mcp.ClientCapabilities) (total int, perTool map[string]int, err error) {
	sd := standin.New(standin.Options{Now: standin.SampleNow})
	url, err := sd.Listen("127.0.0.1:0")
	if err != nil {
		return 0, nil, err
	}
	defer sd.Close()
	cfg := config.Config{URL: url, APIKey: standin.DefaultAPIKey, Elicitation: true, Toolsets: toolsets, Timeout: 30 * time.Second}
	srv, err := app.New(app.Options{Config: &cfg, Version: "bench", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return 0, nil, err
	}
	defer srv.Close()
	<-srv.Registered()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		return 0, nil, err
	}
	defer ss.Close()
	rec := &lines{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: rec}, nil)
	if err != nil {
		return 0, nil, err
	}
	defer cs.Close()
	rec.take()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return 0, nil, err
	}
	for _, m := range rec.take(true) {
		total += tok.Count(m)
	}
	perTool = map[string]int{}
	for _, tl := range res.Tools {
		b, err := json.Marshal(tl)
		if err != nil {
			return 0, nil, err
		}
		perTool[tl.Name] = tok.Count(string(b))
	}
	return total, perTool, nil
}
