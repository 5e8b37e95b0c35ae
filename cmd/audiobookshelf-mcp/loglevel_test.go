package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestLogLevelVariable runs the binary over stateless HTTP at each level:
// the default (info) writes no line per request, debug writes go-sdk's, and
// the guard's decision is there at info and debug only. With sessions, a
// 2026-07-28 request refused inside a session says how it is served. A level outside the four
// stops the server.
func TestLogLevelVariable(t *testing.T) {
	run := func(level string) string {
		sd := standin.Start(t, standin.Options{})
		env := standinEnv(sd)
		if level != "" {
			env = append(env, "AUDIOBOOKSHELF_LOG_LEVEL="+level)
		}
		p := startHTTP(t, env, "--http", "127.0.0.1:0", "--stateless")
		cs, err := p.client("2026-07-28", nil, nil) // no dialog: the token path, logged by the guard
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		}
		apptest.CallOn(t, cs, "delete_collection", map[string]any{"collection_id": standin.CollectionSpaceOpera})
		cs.Close()
		if code := p.stop(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if n := len(sd.Mutations()); n != 0 {
			t.Fatalf("%d mutations without approval", n)
		}
		return p.stderr.String()
	}
	for level, want := range map[string]struct{ perRequest, guard bool }{
		"": {false, true}, "info": {false, true}, "debug": {true, true}, "warn": {false, false}, "error": {false, false},
	} {
		out := run(level)
		if got := strings.Contains(out, `"msg":"server session connected"`); got != want.perRequest {
			t.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=%q: go-sdk's per-request lines logged: %v, want %v:\n%s", level, got, want.perRequest, out)
		}
		if got := strings.Contains(out, `"msg":"guard"`); got != want.guard {
			t.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=%q: the guard's decision logged: %v, want %v:\n%s", level, got, want.guard, out)
		}
	}

	// With sessions, a 2026-07-28 request without a session id is served;
	// one inside a session is refused, and the line says how it is served,
	// not go-sdk's option.
	sd := standin.Start(t, standin.Options{})
	p := startHTTP(t, standinEnv(sd), "--http", "127.0.0.1:0")
	cs, err := p.client("2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, session := range []string{"", cs.ID()} {
		req, _ := http.NewRequest("POST", p.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 200, false: 400}[session == ""]; resp.StatusCode != want {
			t.Errorf("2026-07-28 tools/list with sessions, session id %q: %d, want %d", session, resp.StatusCode, want)
		}
	}
	cs.Close()
	p.stop()
	out := p.stderr.String()
	if strings.Contains(out, "StreamableHTTPOptions") || strings.Count(out, "requests are served on the same endpoint when they carry no Mcp-Session-Id") != 1 {
		t.Errorf("the refusal inside a session must say how 2026-07-28 is served, not go-sdk's option:\n%s", out)
	}

	code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_LOG_LEVEL=verbose"))
	if code != 1 || !strings.Contains(errOut, "AUDIOBOOKSHELF_LOG_LEVEL") || !strings.Contains(errOut, "debug, info, warn, error") {
		t.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=verbose: exit %d, %s", code, errOut)
	}
}
