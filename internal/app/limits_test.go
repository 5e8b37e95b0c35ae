package app_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// These tests show the endpoint's limits against the clients that would
// hold it: each is served by the http.Server of app.NewHTTPServer, with the
// limits shortened.

// startLimited serves the assembled server over a stand-in with o's limits.
func startLimited(t *testing.T, stateless bool, o app.HTTPOptions) (*httptest.Server, *app.Server) {
	t.Helper()
	sd := standin.Start(t, standin.Options{})
	cfg := &config.Config{URL: sd.URL(), APIKey: standin.DefaultAPIKey, Elicitation: true, Timeout: 10 * time.Second, Toolsets: config.AllToolsets()}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Stateless: stateless,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = app.NewHTTPServer(srv.HTTPHandler(o), o, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, srv
}

// slowBody sends a POST to /mcp whose headers are complete and whose body of
// 200 bytes then comes one byte every 50ms (10s for all of it), and returns
// the status line the server answers with before the body is done ("" when
// the connection was closed without an answer), or fails when the server
// waits for the body to end.
func slowBody(t *testing.T, addr string, header string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n%s\r\n", header)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; i < 200; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(9 * time.Second)) // before the body could be complete
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("the server was still waiting for the trickled body: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestHTTPSlowBodyIsCutOff: a body that trickles in is cut off after
// BodyTimeout, with or without a token, and a request without the token is
// answered 401 at once, its body unread.
func TestHTTPSlowBodyIsCutOff(t *testing.T) {
	const token = "a-long-enough-test-token-0123"
	ts, _ := startLimited(t, true, app.HTTPOptions{BodyTimeout: 300 * time.Millisecond})
	addr := strings.TrimPrefix(ts.URL, "http://")
	if got := slowBody(t, addr, ""); !strings.Contains(got, " 408 ") {
		t.Errorf("a trickled body: %q, want 408", got)
	}
	ts, _ = startLimited(t, true, app.HTTPOptions{BearerToken: token, BodyTimeout: 300 * time.Millisecond})
	addr = strings.TrimPrefix(ts.URL, "http://")
	if got := slowBody(t, addr, ""); !strings.Contains(got, " 401 ") {
		t.Errorf("a trickled body without the token: %q, want 401", got)
	}
	if got := slowBody(t, addr, "Authorization: Bearer "+token+"\r\n"); !strings.Contains(got, " 408 ") {
		t.Errorf("a trickled body with the token: %q, want 408", got)
	}
	// A body nobody reads (a path other than /mcp) is cut off too.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\nAuthorization: Bearer %s\r\n\r\n", token)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Errorf("an unread body on another path held the connection: %v", err)
	}
	// A body that arrives in time is served, and a call that then takes
	// longer than BodyTimeout is not cut off by it.
	e := &httpEnv{url: ts.URL + app.MCPPath}
	cs, err := e.connect(t, "2025-11-25", nil, &http.Client{Transport: headerTransport{"Authorization", "Bearer " + token}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if res := apptest.CallOn(t, cs, "list_libraries", nil); res.IsError {
		t.Errorf("a call after the body deadline passed: %s", apptest.Text(res))
	}
}

// TestHTTPHeaderAndIdleTimeouts: a client that never finishes its headers,
// and a kept-alive connection with no next request, are closed.
func TestHTTPHeaderAndIdleTimeouts(t *testing.T) {
	ts, _ := startLimited(t, true, app.HTTPOptions{HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	addr := strings.TrimPrefix(ts.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n") // never ends
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Errorf("unfinished headers held the connection: %v", err)
	}
	// Idle: one request answered on a kept-alive connection, then silence.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(c2, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", len(ping), ping)
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c2)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("the ping: %d, close %v", resp.StatusCode, resp.Close)
	}
	if _, err := io.ReadAll(br); err != nil {
		t.Errorf("an idle kept-alive connection stayed open: %v", err)
	}
}

// TestHTTPSessionsExpireAndAreCapped: beyond MaxSessions a new session is
// refused with 503; a session with no request for SessionTimeout is closed
// (its id then gets 404), which makes room again; a session in use is kept
// past SessionTimeout. Each part has its own server, with a timeout far
// from the waits of the other parts, so that a slow machine cannot make
// one part's wait another part's expiry.
func TestHTTPSessionsExpireAndAreCapped(t *testing.T) {
	open := func(url string) (string, int, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id"), resp.StatusCode, string(b)
	}
	count := func(srv *app.Server) int {
		n := 0
		for range srv.MCP.Sessions() {
			n++
		}
		return n
	}

	t.Run("capped", func(t *testing.T) {
		ts, _ := startLimited(t, false, app.HTTPOptions{SessionTimeout: time.Minute, MaxSessions: 2})
		url := ts.URL + app.MCPPath
		for i := 1; i <= 2; i++ {
			if id, code, _ := open(url); code != 200 || id == "" {
				t.Fatalf("session %d: %d %q", i, code, id)
			}
		}
		if _, code, body := open(url); code != 503 || !strings.Contains(body, "maximum of 2 sessions") {
			t.Errorf("a third session beyond the cap: %d %s", code, body)
		}
	})

	t.Run("idle ones expire and make room", func(t *testing.T) {
		ts, srv := startLimited(t, false, app.HTTPOptions{SessionTimeout: 300 * time.Millisecond, MaxSessions: 1})
		url := ts.URL + app.MCPPath
		id1, code, _ := open(url)
		if code != 200 || id1 == "" {
			t.Fatalf("first session: %d %q", code, id1)
		}
		deadline := time.Now().Add(10 * time.Second)
		for count(srv) > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n := count(srv); n != 0 {
			t.Fatalf("%d idle sessions still open after 10 s", n)
		}
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id1)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("a request on an expired session: %d, want 404", resp.StatusCode)
		}
		if id, code, body := open(url); code != 200 || id == "" {
			t.Errorf("a session after the other expired, with a cap of 1: %d %s", code, body)
		}
	})

	t.Run("one in use is kept", func(t *testing.T) {
		ts, _ := startLimited(t, false, app.HTTPOptions{SessionTimeout: 2 * time.Second, MaxSessions: 2})
		e := &httpEnv{url: ts.URL + app.MCPPath}
		cs, err := e.connect(t, "2025-11-25", nil, nil)
		if err != nil {
			t.Fatalf("a session: %v", err)
		}
		// 7 pings 400 ms apart: 2.8 s in all, past the 2 s idle time, with
		// no gap near it.
		for range 7 {
			time.Sleep(400 * time.Millisecond)
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Fatalf("a session in use expired: %v", err)
			}
		}
	})
}

// TestHTTPHostCheckOnEveryInterface: the DNS-rebinding check applies to the
// Host header whatever address the request arrived on; names in
// AllowedHosts pass.
func TestHTTPHostCheckOnEveryInterface(t *testing.T) {
	e := startHTTP(t, true, app.HTTPOptions{AllowedHosts: []string{"mcp.example.org"}}, nil)
	for host, want := range map[string]int{
		"evil.example":        403,
		"evil.example:80":     403,
		"mcp.example.org":     200,
		"MCP.Example.org:443": 200,
		"localhost:1234":      200,
		"192.168.1.5:8080":    200, // an address names no one an attacker controls
		"[::1]:8080":          200,
	} {
		code, body := post(t, e.url, strings.NewReader(initialize), -1, map[string]string{"Host": host})
		if code != want {
			t.Errorf("Host %s: %d %s, want %d", host, code, body, want)
		}
		if want == 403 && !strings.Contains(body, "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS") {
			t.Errorf("the 403 does not say how to allow a name: %s", body)
		}
	}
}
