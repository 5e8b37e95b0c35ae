// Package apptest runs the whole server in process for tests: an
// Audiobookshelf stand-in over real HTTP, the assembled server, and a real
// go-sdk client connected over an in-memory transport.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Protocol revisions the tests speak.
const (
	Proto20260728 = "2026-07-28"
	Proto20251125 = "2025-11-25"
)

// Options configure an Env.
type Options struct {
	// Config changes the default configuration (URL and key point at the
	// stand-in, every toolset is on) before the server is built.
	Config func(*config.Config)
	// Standin options; Data nil means the sample library.
	Standin standin.Options
	// ProtocolVersion the client asks for; "" means the newest.
	ProtocolVersion string
	// Elicit answers the server's questions; nil means the client declares
	// no elicitation support.
	Elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// Progress receives the server's progress notifications.
	Progress func(context.Context, *mcp.ProgressNotificationClientRequest)
	// ManualRetry turns off the client's automatic multi round-trip retry.
	ManualRetry bool
	// Stateless builds the server as for stateless HTTP.
	Stateless bool
	// Now is the guard's clock; nil means time.Now.
	Now func() time.Time
	// Transport replaces the server's HTTP transport to Audiobookshelf.
	Transport http.RoundTripper
}

// Env is one running server with its stand-in and client.
type Env struct {
	Standin *standin.Server
	Server  *app.Server
	Session *mcp.ClientSession
	Config  *config.Config
	log     *SyncBuffer
}

// HangGuard bounds every wait of these helpers that ends by itself in well
// under a second (a call, a connection, a request to the stand-in): far
// from any time a busy machine takes, only so that a hang fails the test
// instead of the whole run. It is never what a test asserts.
const HangGuard = 2 * time.Minute

// Start builds an Env and closes it when the test ends.
func Start(t testing.TB, o Options) *Env {
	t.Helper()
	sd := standin.Start(t, o.Standin)
	key := o.Standin.APIKey
	if key == "" {
		key = standin.DefaultAPIKey
	}
	// Every toolset, those off by default too, so that every tool can be
	// called; Config can narrow it (nil: the default ones).
	cfg := &config.Config{URL: sd.URL(), APIKey: key, Elicitation: true, Timeout: HangGuard, Toolsets: config.AllToolsets()}
	if o.Config != nil {
		o.Config(cfg)
	}
	log := &SyncBuffer{}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Logger: slog.New(slog.NewJSONHandler(log, nil)), Stateless: o.Stateless, Now: o.Now, Transport: o.Transport})
	if err != nil {
		t.Fatalf("app.New: %v", err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	copts := &mcp.ClientOptions{}
	if o.Elicit != nil {
		copts.ElicitationHandler = o.Elicit
	}
	if o.Progress != nil {
		copts.ProgressNotificationHandler = o.Progress
	}
	if o.ManualRetry {
		copts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "apptest", Version: "1"}, copts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: o.ProtocolVersion})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return &Env{Standin: sd, Server: srv, Session: cs, Config: cfg, log: log}
}

// Call calls a tool and fails the test on a protocol error.
func (e *Env) Call(t testing.TB, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := e.CallErr(name, args)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// CallErr calls a tool and returns any protocol error.
func (e *Env) CallErr(name string, args any) (*mcp.CallToolResult, error) {
	return callErr(e.Session, name, args)
}

func callErr(cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// CallOn calls a tool on any client session (one over HTTP, say), failing
// the test on a protocol error.
func CallOn(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := callErr(cs, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// ConnectHTTP connects a go-sdk client over streamable HTTP to endpoint,
// asking for protocol version ("" for the SDK's choice), through hc (nil
// for the default client) and with opts; the session closes when the test
// ends. The error is returned: tests connect where they expect a refusal.
func ConnectHTTP(t testing.TB, endpoint, version string, hc *http.Client, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// Text is the concatenated text content of a result.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// JSON decodes a successful result's text as JSON into v, failing the test
// when the result is an error or not JSON.
func JSON(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", Text(res))
	}
	if err := json.Unmarshal([]byte(Text(res)), v); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, Text(res))
	}
}

// Log is what the server logged so far.
func (e *Env) Log() string { return e.log.String() }

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers
// (a logger or a child process writing while a test reads).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
