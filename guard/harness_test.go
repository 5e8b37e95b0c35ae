package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol revisions under test. A go-sdk v1.8.0 client asks for the
// revision in ClientSessionOptions.ProtocolVersion: 2026-07-28 negotiates
// through server/discover (multi round-trip: input_required on the wire),
// anything older through initialize (the server's middleware pushes
// elicitation/create). connect checks what was negotiated.
const (
	v20260728 = "2026-07-28"
	v20251125 = "2025-11-25"
	v20250618 = "2025-06-18"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines returns the guard's log lines, decoded.
func (s *syncBuf) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", l, err)
		}
		if m["msg"] == "guard" {
			out = append(out, m)
		}
	}
	return out
}

func (s *syncBuf) outcomes(t *testing.T) []string {
	var out []string
	for _, m := range s.lines(t) {
		o, _ := m["outcome"].(string)
		out = append(out, o)
	}
	return out
}

// harness is a real mcp.Server with fake guarded tools. Their handlers call
// Check and count an execution only when it approves.
type harness struct {
	g        *Guard
	srv      *mcp.Server
	clock    *clock
	logs     *syncBuf
	executed atomic.Int64
	mutate   func(*Question) // set before the first call
	world    atomic.Value    // string: what a plan reads, part of Question.Read
}

// change changes what the fake tools read before they ask, as another
// client editing the list between the question and the answer would.
func (h *harness) change(v string) { h.world.Store(v) }

type thingArgs struct {
	ID           string   `json:"id"`
	IDs          []string `json:"ids,omitempty"`
	ConfirmToken string   `json:"confirm_token,omitempty"`
}

// boundArgs is thingArgs without confirm_token, as the generated structs are.
type boundArgs struct {
	ID  string   `json:"id"`
	IDs []string `json:"ids"`
}

var thingSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"id":            {Type: "string"},
		"ids":           {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
		"confirm_token": {Type: "string"},
	},
}

var t0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

func newHarness(t *testing.T, cfg Config, middleware bool) *harness {
	t.Helper()
	h := &harness{clock: &clock{t: t0}, logs: &syncBuf{}}
	if cfg.Now == nil {
		cfg.Now = h.clock.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(h.logs, nil))
	}
	if cfg.ServerName == "" {
		cfg.ServerName = "audiobookshelf-mcp"
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.g = g
	h.srv = mcp.NewServer(&mcp.Implementation{Name: "guard-test", Version: "v0"}, nil)
	for _, name := range []string{"delete_thing", "other_thing", "fragile_thing"} {
		h.srv.AddTool(&mcp.Tool{Name: name, InputSchema: thingSchema}, h.handler(name))
	}
	h.srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: thingSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("broken on purpose")
	})
	if middleware {
		h.srv.AddReceivingMiddleware(g.Middleware())
		h.srv.AddSendingMiddleware(g.SendingMiddleware())
	}
	return h
}

func (h *harness) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a thingArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		q := Question{
			Tool:         name,
			Args:         boundArgs{ID: a.ID, IDs: a.IDs},
			ConfirmToken: a.ConfirmToken,
			Targets:      append([]string{a.ID}, a.IDs...),
			Action:       fmt.Sprintf("This will delete thing %s and %d part(s) of it.", a.ID, len(a.IDs)),
			Consequences: []string{"Its parts are deleted with it."},
			TakesOut:     "The thing and the order of its parts.",
			Stays:        "The files stay.",
		}
		w, _ := h.world.Load().(string)
		q.Read = struct{ ID, World string }{a.ID, w}
		if h.mutate != nil {
			h.mutate(&q)
		}
		ok, res := h.g.Check(ctx, req, q)
		if !ok {
			return res, nil
		}
		h.executed.Add(1)
		if name == "fragile_thing" {
			return nil, errors.New("failed after approval")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + a.ID}}}, nil
	}
}

// connect makes a real go-sdk client session over in-memory transports and
// checks that version was negotiated. pushes counts elicitation/create
// requests the client received (the pre-2026-07-28 path); it may be nil.
func (h *harness) connect(t *testing.T, version string, opts *mcp.ClientOptions, pushes *atomic.Int64) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "guard-test-client", Version: "v0"}, opts)
	if pushes != nil {
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "elicitation/create" {
					pushes.Add(1)
				}
				return next(ctx, method, req)
			}
		})
	}
	cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol %s, want %s", got, version)
	}
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args thingArgs) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("structured content is %T, want an object", res.StructuredContent)
	}
	return m
}

// elicitRecorder is a client ElicitationHandler that records what it was
// asked and answers with answer.
type elicitRecorder struct {
	mu       sync.Mutex
	calls    int
	messages []string
	schemas  []any
	answer   func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

func (r *elicitRecorder) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	r.mu.Lock()
	r.calls++
	r.messages = append(r.messages, req.Params.Message)
	r.schemas = append(r.schemas, req.Params.RequestedSchema)
	r.mu.Unlock()
	return r.answer(req)
}

func (r *elicitRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

func acceptTrue(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: true}}, nil
}

// acceptDefault is a client that accepts the form as it was rendered: every
// property at its schema default.
func acceptDefault(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	schema, _ := req.Params.RequestedSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	content := map[string]any{}
	for name, p := range props {
		if d, ok := p.(map[string]any)["default"]; ok {
			content[name] = d
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func decline(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "decline"}, nil
}

func cancel(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "cancel"}, nil
}
