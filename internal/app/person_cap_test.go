package app_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestSessionsCappedPerPerson: in per-person mode one person can hold only
// MaxSessionsPerPerson sessions (429 beyond, saying so), so that one user,
// even one with no permission at all, cannot take every session and lock
// the others out (before, the shared cap of MaxSessions answered 503 to
// everyone). The shared cap still bounds the whole.
func TestSessionsCappedPerPerson(t *testing.T) {
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	cfg := &config.Config{URL: sd.URL(), Elicitation: true, Timeout: 10 * time.Second, Auth: config.AuthAuto, Toolsets: config.AllToolsets()}
	if err := cfg.ResolveAuth(true); err != nil || !cfg.PerPerson {
		t.Fatalf("not per-person: %v", err)
	}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{PerPerson: true, SessionTimeout: time.Hour, MaxSessions: 5, MaxSessionsPerPerson: 3}))
	t.Cleanup(ts.Close)
	open := func(key string) (int, string) {
		req, _ := http.NewRequest("POST", ts.URL+app.MCPPath, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("200 without a session: %s", b)
		}
		return resp.StatusCode, string(b)
	}
	// The listener (no update, no delete) opens sessions until refused.
	for i := 1; i <= 3; i++ {
		if code, body := open(standin.ListenerAPIKey); code != 200 {
			t.Fatalf("listener's session %d: %d %s", i, code, body)
		}
	}
	for range 3 {
		code, body := open(standin.ListenerAPIKey)
		if code != http.StatusTooManyRequests || !strings.Contains(body, "3 sessions open") || !strings.Contains(body, standin.UserListenerID) {
			t.Fatalf("listener beyond their cap: %d %s", code, body)
		}
	}
	// The others still get theirs.
	for _, key := range []string{standin.DefaultAPIKey, standin.PartnerAPIKey} {
		if code, body := open(key); code != 200 {
			t.Fatalf("another person after the listener hit their cap: %d %s", code, body)
		}
	}
	// The shared cap (5) still holds.
	if code, body := open(standin.DefaultAPIKey); code != http.StatusServiceUnavailable || !strings.Contains(body, "maximum of 5 sessions") {
		t.Errorf("beyond the shared cap: %d %s", code, body)
	}
}
