package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// loggedServer serves the assembled server over HTTP with its JSON log at
// level into a buffer; rt, when not nil, carries its requests to the stand-in.
func loggedServer(t *testing.T, stateless bool, level slog.Level, rt http.RoundTripper) (string, *apptest.SyncBuffer) {
	t.Helper()
	sd := standin.Start(t, standin.Options{})
	cfg := &config.Config{URL: sd.URL(), APIKey: standin.DefaultAPIKey, Elicitation: true, Timeout: 10 * time.Second, Toolsets: config.AllToolsets(), LogLevel: level}
	var log apptest.SyncBuffer
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Stateless: stateless, Transport: rt,
		Logger: slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: level}))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return ts.URL + app.MCPPath, &log
}

const discover2026 = `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestDiscoverWithSessions: the endpoint with sessions serves 2026-07-28
// too. server/discover and the other requests of that revision without
// Mcp-Session-Id are served as --stateless serves them (no session opened),
// while initialize still opens a session for the older revisions. A
// 2026-07-28 request inside a session is refused with -32022, and the log
// line says that it is served without the session id.
func TestDiscoverWithSessions(t *testing.T) {
	url, log := loggedServer(t, false, slog.LevelInfo, nil)
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	code, body := post(t, url, strings.NewReader(discover2026), -1, hdr)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &resp); err != nil || code != 200 {
		t.Fatalf("server/discover at 2026-07-28 with sessions: %d %s", code, body)
	}
	if resp.ID != 7 || len(resp.Result.SupportedVersions) < 2 || resp.Result.SupportedVersions[0] != "2026-07-28" ||
		!slices.Contains(resp.Result.SupportedVersions, "2025-11-25") {
		t.Errorf("answer %s", body)
	}
	list := `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	hdr["Mcp-Method"] = "tools/list"
	code2, body2 := post(t, url, strings.NewReader(list), -1, hdr)
	if code2 != 200 || !strings.Contains(body2, `"name":"delete_playlist"`) {
		t.Errorf("tools/list at 2026-07-28 with sessions: %d %.300s", code2, body2)
	}
	// The _meta alone routes it too: go-sdk then asks for the header.
	code3, body3 := post(t, url, strings.NewReader(list), -1, map[string]string{"Mcp-Method": "tools/list"})
	if code3 != 400 || !strings.Contains(body3, "Mcp-Protocol-Version header is required") {
		t.Errorf("tools/list with 2026-07-28 in _meta only: %d %s", code3, body3)
	}

	// An older revision's discover is go-sdk's, and a client of 2025-11-25
	// gets a session as before.
	if code, body := post(t, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{}}`), -1,
		map[string]string{"Mcp-Protocol-Version": "2025-11-25"}); code != 200 || strings.Contains(body, "2026-07-28") {
		t.Errorf("server/discover at 2025-11-25: %d %s", code, body)
	}
	cs, err := apptest.ConnectHTTP(t, url, "2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" || cs.ID() == "" {
		t.Errorf("go-sdk's client of 2025-11-25 settled on %s, session %q", v, cs.ID())
	}
	// go-sdk's client asking for 2026-07-28 speaks it here, without a session.
	cs2, err := apptest.ConnectHTTP(t, url, "2026-07-28", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs2.InitializeResult().ProtocolVersion; v != "2026-07-28" || cs2.ID() != "" {
		t.Errorf("go-sdk's client of 2026-07-28 settled on %s, session %q", v, cs2.ID())
	}
	if _, err := cs2.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}

	// Inside a session, 2026-07-28 is refused (discover by this server,
	// the rest by go-sdk) and the log says how it is served instead.
	inSession := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Session-Id": cs.ID(), "Mcp-Method": "server/discover"}
	if code, body := post(t, url, strings.NewReader(discover2026), -1, inSession); code != 400 || !strings.Contains(body, `"code":-32022`) ||
		!strings.Contains(body, `"supported":["2025-11-25"`) {
		t.Errorf("server/discover at 2026-07-28 inside a session: %d %s", code, body)
	}
	inSession["Mcp-Method"] = "tools/list"
	if code, body := post(t, url, strings.NewReader(list), -1, inSession); code != 400 || !strings.Contains(body, `"code":-32022`) {
		t.Errorf("tools/list at 2026-07-28 inside a session: %d %s", code, body)
	}
	got := log.String()
	if strings.Contains(got, "StreamableHTTPOptions") || strings.Count(got, "are served on the same endpoint when they carry no Mcp-Session-Id") != 2 {
		t.Errorf("log must say how 2026-07-28 is served for both refusals and never name go-sdk's option:\n%s", got)
	}
	if !strings.Contains(got, `"level":"INFO","msg":"refused a server/discover request for MCP protocol 2026-07-28 inside a session`) {
		t.Errorf("log:\n%s", got)
	}

	surl, _ := loggedServer(t, true, slog.LevelInfo, nil)
	hdr["Mcp-Method"] = "server/discover"
	if code, body := post(t, surl, strings.NewReader(discover2026), -1, hdr); code != 200 || !strings.Contains(body, `"supportedVersions":["2026-07-28"`) {
		t.Errorf("stateless server/discover at 2026-07-28: %d %s", code, body)
	}
}

// sseData is the data of an answer that came as one SSE event, or the body
// as it is.
func sseData(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return d
		}
	}
	return body
}

// TestLogLevel: at info, stateless requests leave no go-sdk lines (a session
// opened and closed around each) while the guard's decision is logged; at
// debug they are there; at warn the guard's decision is not.
func TestLogLevel(t *testing.T) {
	run := func(level slog.Level) string {
		url, log := loggedServer(t, true, level, nil)
		var a asker
		a.answer = "decline"
		cs, err := apptest.ConnectHTTP(t, url, "2026-07-28", nil, &mcp.ClientOptions{ElicitationHandler: a.handle})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		}
		res := apptest.CallOn(t, cs, "delete_collection", map[string]any{"collection_id": standin.CollectionSpaceOpera})
		if a.asked.Load() != 1 || !res.IsError {
			t.Fatalf("delete_collection, declined: asked %d times: %s", a.asked.Load(), apptest.Text(res))
		}
		return log.String()
	}
	info := run(slog.LevelInfo)
	if strings.Contains(info, "session") || strings.Contains(info, "server connecting") {
		t.Errorf("at info, go-sdk's per-request lines are logged:\n%s", info)
	}
	if !strings.Contains(info, `"msg":"guard"`) || !strings.Contains(info, "delete_collection") {
		t.Errorf("at info, the guard's decision is not logged:\n%s", info)
	}
	debug := run(slog.LevelDebug)
	if n := strings.Count(debug, `"level":"DEBUG","msg":"server session connected"`); n < 4 {
		t.Errorf("at debug, %d session lines for at least 4 stateless requests:\n%s", n, debug)
	}
	if warn := run(slog.LevelWarn); warn != "" {
		t.Errorf("at warn, a run without warnings logs:\n%s", warn)
	}
}

// gate holds every request to Audiobookshelf until it is opened.
type gate struct{ open chan struct{} }

func (g gate) RoundTrip(r *http.Request) (*http.Response, error) {
	<-g.open
	return http.DefaultTransport.RoundTrip(r)
}

type sseEvent struct{ id, name, data, retry string }

// nextEvent reads one server-sent event.
func nextEvent(r *bufio.Reader) (sseEvent, error) {
	var e sseEvent
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				return e, nil
			}
			continue
		}
		seen = true
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "id":
			e.id = v
		case "event":
			e.name = v
		case "data":
			e.data += v
		case "retry":
			e.retry = v
		}
	}
}

// TestSSEResumption: with sessions, a POST's stream starts with an event id
// and the retry field;
// a client whose stream breaks before the answer comes sends that id as
// Last-Event-ID on a GET and gets the answer it missed.
func TestSSEResumption(t *testing.T) {
	g := gate{make(chan struct{})}
	url, _ := loggedServer(t, false, slog.LevelInfo, g)
	var opened sync.Once
	openGate := func() { opened.Do(func() { close(g.open) }) }
	t.Cleanup(openGate) // before the server closes: its handlers wait on the gate
	send := func(ctx context.Context, method, body string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, body, err)
		}
		return resp
	}
	resp := send(context.Background(), "POST", initialize, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no Mcp-Session-Id")
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	resp = send(context.Background(), "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	resp.Body.Close()

	// Without a priming event, go-sdk sends nothing (not even the headers)
	// before the answer, which the gate holds: the timeout ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp = send(ctx, "POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_libraries","arguments":{}}}`, hdr)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("tools/call answered %d %s", resp.StatusCode, ct)
	}
	prime, err := nextEvent(bufio.NewReader(resp.Body))
	if err != nil || prime.id == "" {
		t.Fatalf("the stream does not start with an event id: %+v %v", prime, err)
	}
	if want := strconv.FormatInt(app.ReconnectAfter.Milliseconds(), 10); prime.retry != want || prime.data != "" {
		t.Errorf("priming event %+v: want retry %s and no data", prime, want)
	}
	cancel() // the stream breaks before the answer
	resp.Body.Close()
	openGate()

	deadline := time.Now().Add(10 * time.Second)
	for {
		gctx, gcancel := context.WithTimeout(context.Background(), 10*time.Second)
		rhdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Last-Event-ID": prime.id}
		resp = send(gctx, "GET", "", rhdr)
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			gcancel()
			if time.Now().After(deadline) {
				t.Fatalf("GET with Last-Event-ID %s: %d %s", prime.id, resp.StatusCode, b)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		r := bufio.NewReader(resp.Body)
		for {
			e, err := nextEvent(r)
			if err != nil {
				t.Fatalf("resumed stream ended without the answer: %v", err)
			}
			if strings.Contains(e.data, `"id":2`) {
				if e.id == "" || e.id == prime.id || !strings.Contains(e.data, `"result"`) || !strings.Contains(e.data, standin.LibraryBooksID) {
					t.Errorf("resumed answer: %+v", e)
				}
				break
			}
		}
		resp.Body.Close()
		gcancel()
		return
	}
}
