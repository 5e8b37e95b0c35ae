package app

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// waitHeld waits until srv holds what n sessions turned on; the wait ends
// by itself in well under a second, hangGuard only keeps a hang from
// holding the run.
func waitHeld(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for srv.toolsets.held() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the server holds the toolsets of %d sessions, want %d", srv.toolsets.held(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func enable(t *testing.T, cs *mcp.ClientSession, toolset string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "enable_toolset", Arguments: map[string]any{"toolset": toolset}})
	if err != nil || res.IsError {
		t.Fatalf("enable_toolset: %v %+v", err, res)
	}
}

// TestEnabledToolsetsEndWithTheSession: what a session turned on is
// dropped when it ends, over a transport like stdio (one session) and
// over HTTP (each MCP session, ended by the client's DELETE); a request
// without a session holds nothing.
func TestEnabledToolsetsEndWithTheSession(t *testing.T) {
	srv, err := New(Options{Config: &config.Config{Elicitation: true}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	enable(t, cs, "collections")
	enable(t, cs, "playlists")
	waitHeld(t, srv, 1)
	cs.Close()
	ss.Wait()
	waitHeld(t, srv, 0)

	for _, stateless := range []bool{false, true} {
		srv, err := New(Options{Config: &config.Config{Elicitation: true}, Version: "test", Stateless: stateless, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
		connect := func(version string) *mcp.ClientSession {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: ts.URL + MCPPath, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			return cs
		}
		a, b, modern := connect("2025-11-25"), connect("2025-11-25"), connect("2026-07-28")
		enable(t, modern, "collections")
		if stateless {
			enable(t, a, "collections")
			waitHeld(t, srv, 0)
			a.Close()
			b.Close()
			modern.Close()
			ts.Close()
			continue
		}
		waitHeld(t, srv, 0)
		enable(t, a, "collections")
		enable(t, b, "me")
		waitHeld(t, srv, 2)
		a.Close()
		waitHeld(t, srv, 1)
		b.Close()
		waitHeld(t, srv, 0)
		modern.Close()
		ts.Close()
	}
}

// TestDiscoveryAnswersFitTheSmallestBudget: list_toolsets and
// enable_toolset of every toolset answer within the smallest result budget
// a server may be given (AUDIOBOOKSHELF_MAX_RESULT_CHARS), whole, so that
// no setting cuts a toolset's definitions.
func TestDiscoveryAnswersFitTheSmallestBudget(t *testing.T) {
	cs := connectInMemory(t, &config.Config{Elicitation: true, MaxResultChars: result.MinMaxResultChars}, nil)
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", name, args, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	most := len(call("list_toolsets", nil))
	t.Logf("list_toolsets: %d characters", most)
	for _, ts := range config.AllToolsets() {
		n := len(call("enable_toolset", map[string]any{"toolset": ts}))
		t.Logf("enable_toolset %s: %d characters", ts, n)
		most = max(most, n)
	}
	if most > result.MinMaxResultChars {
		t.Errorf("a discovery answer of %d characters passes the smallest budget, %d", most, result.MinMaxResultChars)
	}
}

// TestListChangedByRevision: over one lasting connection (as stdio) a
// session of 2025-11-25 is told its list changed, once per toolset turned
// on; one of 2026-07-28, whose revision delivers list changes only on a
// subscriptions/listen stream (go-sdk's client opens one when it has a
// handler for tool list changes), is told on that stream, once.
func TestListChangedByRevision(t *testing.T) {
	for _, c := range []struct {
		version string
		told    int32
	}{{"2025-11-25", 1}, {"2026-07-28", 1}} {
		srv, err := New(Options{Config: &config.Config{Elicitation: true}, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		var told atomic.Int32
		changed := make(chan struct{}, 4)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) {
				if _, ok := req.Params.GetMeta()[mcp.MetaKeySubscriptionID]; ok != (c.version >= statelessOnly) {
					t.Errorf("%s: the notification's subscription id: %v", c.version, req.Params.GetMeta())
				}
				told.Add(1)
				changed <- struct{}{}
			},
		}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: negotiated %s", c.version, cs.InitializeResult().ProtocolVersion)
		enable(t, cs, "collections")
		enable(t, cs, "collections") // already on: nobody is told again
		if c.told > 0 {
			select {
			case <-changed:
			case <-time.After(hangGuard):
				t.Fatalf("%s: not told", c.version)
			}
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, tl := range res.Tools {
			listed = listed || tl.Name == "delete_collection"
		}
		// A ping after the calls: a notification sent before their answers
		// has arrived by now.
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if !listed || told.Load() != c.told {
			t.Errorf("%s: delete_collection listed %v, told %d times, want %d", c.version, listed, told.Load(), c.told)
		}
		cs.Close()
		ss.Wait()
	}
}
