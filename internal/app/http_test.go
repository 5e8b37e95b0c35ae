package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// httpEnv is the assembled server behind its HTTP handler on a loopback
// listener, over a stand-in Audiobookshelf.
type httpEnv struct {
	sd  *standin.Server
	url string // the /mcp endpoint
}

func startHTTP(t *testing.T, stateless bool, o app.HTTPOptions, edit func(*config.Config)) *httpEnv {
	t.Helper()
	sd := standin.Start(t, standin.Options{})
	cfg := &config.Config{URL: sd.URL(), APIKey: standin.DefaultAPIKey, Elicitation: true, Timeout: 10 * time.Second, Toolsets: config.AllToolsets()}
	if edit != nil {
		edit(cfg)
	}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Stateless: stateless,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Stateless != stateless {
		t.Fatalf("Server.Stateless = %v, want %v", srv.Stateless, stateless)
	}
	ts := httptest.NewServer(srv.HTTPHandler(o))
	t.Cleanup(ts.Close)
	return &httpEnv{sd: sd, url: ts.URL + app.MCPPath}
}

// headerTransport adds a header to every request.
type headerTransport struct {
	key, value string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

func (e *httpEnv) connect(t *testing.T, version string, copts *mcp.ClientOptions, hc *http.Client) (*mcp.ClientSession, error) {
	t.Helper()
	return apptest.ConnectHTTP(t, e.url, version, hc, copts)
}

type asker struct {
	asked  atomic.Int32
	answer string // "approve" or "decline"
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.asked.Add(1)
	if a.answer == "approve" {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// TestHTTPGuardedCalls drives the guard over real streamable HTTP: the
// endpoint with sessions gives both revisions the dialog (2025-11-25 in a
// session, 2026-07-28 without one: sealed state in the result and a retry);
// stateless, 2026-07-28 still gets it and an older client gets the token,
// saying why.
func TestHTTPGuardedCalls(t *testing.T) {
	for _, c := range guardedHTTPCases {
		t.Run(c.name, func(t *testing.T) {
			e := startHTTP(t, c.stateless, app.HTTPOptions{}, nil)
			a := &asker{answer: c.answer}
			cs, err := e.connect(t, c.version, &mcp.ClientOptions{ElicitationHandler: a.handle}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != c.version {
				t.Errorf("negotiated %s, want %s", got, c.version)
			}
			if (cs.ID() == "") != (c.stateless || c.version == "2026-07-28") {
				t.Errorf("session id %q", cs.ID())
			}
			checkDeletePlaylist(t, e, a, c, func(args map[string]any) *mcp.CallToolResult {
				return apptest.CallOn(t, cs, "delete_playlist", args)
			},
				// What the client did not declare comes first, then the deployment.
				"the client did not declare elicitation (form) support with this request, and a stateless HTTP deployment cannot push a question to a client older than 2026-07-28")
		})
	}
}

// guardedHTTPCase is one way a client meets a guarded tool over HTTP: the
// deployment, the revision, the person's answer, and whether a dialog can
// be shown (otherwise the token path).
type guardedHTTPCase struct {
	name      string
	stateless bool
	version   string
	answer    string
	dialog    bool
}

// guardedHTTPCases are the ways TestHTTPGuardedCalls and
// TestCallToolMatrix drive delete_playlist.
var guardedHTTPCases = []guardedHTTPCase{
	{"sessions 2025-11-25 approve", false, "2025-11-25", "approve", true},
	{"sessions 2025-11-25 decline", false, "2025-11-25", "decline", true},
	{"sessions endpoint 2026-07-28 approve", false, "2026-07-28", "approve", true},
	{"sessions endpoint 2026-07-28 decline", false, "2026-07-28", "decline", true},
	{"stateless 2026-07-28 approve", true, "2026-07-28", "approve", true},
	{"stateless 2026-07-28 decline", true, "2026-07-28", "decline", true},
	{"stateless 2025-11-25 token", true, "2025-11-25", "approve", false},
}

// checkDeletePlaylist calls delete_playlist on the commute playlist with
// call (directly or through call_tool) and holds the outcome to case c:
// without a dialog, the token and nothing changed, the fallback saying
// why, and the second call with the token deletes it; approved, one
// question and it is gone; declined, one question and nothing changed.
// Only an approval lets a mutating request reach Audiobookshelf.
func checkDeletePlaylist(t *testing.T, e *httpEnv, a *asker, c guardedHTTPCase, call func(map[string]any) *mcp.CallToolResult, why string) {
	t.Helper()
	res := call(map[string]any{"playlist_id": standin.PlaylistCommute})
	_, exists := e.sd.Playlist(standin.PlaylistCommute)
	switch {
	case !c.dialog:
		sc, _ := res.StructuredContent.(map[string]any)
		if a.asked.Load() != 0 || !res.IsError || sc["confirm_token"] == nil || !exists {
			t.Fatalf("want the token path and nothing changed: asked %d, exists %v, %s", a.asked.Load(), exists, apptest.Text(res))
		}
		if !strings.Contains(apptest.Text(res), why) {
			t.Errorf("the fallback must say why: %s", apptest.Text(res))
		}
		res = call(map[string]any{"playlist_id": standin.PlaylistCommute, "confirm_token": sc["confirm_token"]})
		if _, exists := e.sd.Playlist(standin.PlaylistCommute); res.IsError || exists {
			t.Errorf("the second call with the token: exists %v, %s", exists, apptest.Text(res))
		}
	case c.answer == "approve":
		if a.asked.Load() != 1 || res.IsError || exists {
			t.Errorf("approved: asked %d, exists %v, %s", a.asked.Load(), exists, apptest.Text(res))
		}
	default:
		if a.asked.Load() != 1 || !res.IsError || !exists || !strings.Contains(apptest.Text(res), "Nothing was changed") {
			t.Errorf("declined: asked %d, exists %v, %s", a.asked.Load(), exists, apptest.Text(res))
		}
	}
	if n := len(e.sd.Mutations()); (c.answer == "approve") != (n > 0) {
		t.Errorf("%d mutating requests reached Audiobookshelf", n)
	}
}

func TestHTTPBearerToken(t *testing.T) {
	const token = "a-long-enough-test-token-0123"
	e := startHTTP(t, false, app.HTTPOptions{BearerToken: token}, nil)
	for name, hc := range map[string]*http.Client{
		"no header":   nil,
		"wrong token": {Transport: headerTransport{"Authorization", "Bearer a-long-enough-test-token-0124"}},
		"prefix":      {Transport: headerTransport{"Authorization", "Bearer a-long-enough"}},
		"basic":       {Transport: headerTransport{"Authorization", "Basic " + token}},
	} {
		if _, err := e.connect(t, "2025-11-25", nil, hc); err == nil {
			t.Errorf("%s: connected without the token", name)
		}
	}
	req, _ := http.NewRequest("POST", e.url, strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer realm="audiobookshelf-mcp", error="invalid_request", error_description="Send the header Authorization: Bearer TOKEN`) {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if strings.Contains(string(body), token) {
		t.Error("the 401 shows the token")
	}
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		for _, scheme := range []string{"Bearer ", "bearer "} {
			cs, err := e.connect(t, v, nil, &http.Client{Transport: headerTransport{"Authorization", scheme + token}})
			if err != nil {
				t.Fatalf("%s with %q: %v", v, scheme, err)
			}
			if res := apptest.CallOn(t, cs, "list_libraries", nil); res.IsError {
				t.Errorf("%s: %s", v, apptest.Text(res))
			}
		}
	}
}

func post(t *testing.T, url string, body io.Reader, length int64, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, body)
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestHTTPBodyLimit(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		e := startHTTP(t, stateless, app.HTTPOptions{MaxBodyBytes: 1024}, nil)
		if code, body := post(t, e.url, strings.NewReader(initialize), int64(len(initialize)), nil); code != 200 {
			t.Fatalf("stateless=%v: a small initialize: %d %s", stateless, code, body)
		}
		big := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 2000) + `"}}}`
		if code, _ := post(t, e.url, strings.NewReader(big), int64(len(big)), nil); code != 413 {
			t.Errorf("stateless=%v: a body over the limit with Content-Length: %d, want 413", stateless, code)
		}
		// Without a length (chunked) the cap applies while reading.
		if code, _ := post(t, e.url, io.MultiReader(strings.NewReader(big)), -1, nil); code != 413 {
			t.Errorf("stateless=%v: a chunked body over the limit: %d, want 413", stateless, code)
		}
	}
	// The default is 4 MiB.
	e := startHTTP(t, true, app.HTTPOptions{}, nil)
	pad := strings.Repeat("x", 4<<20)
	big := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + pad + `"}}}`
	if code, _ := post(t, e.url, strings.NewReader(big), int64(len(big)), nil); code != 413 {
		t.Errorf("a body over 4 MiB: %d, want 413", code)
	}
	small := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + pad[:3<<20] + `"}}}`
	if code, body := post(t, e.url, strings.NewReader(small), int64(len(small)), nil); code == 413 {
		t.Errorf("a body of 3 MiB: %d %s", code, body)
	}
}

func TestHTTPProtections(t *testing.T) {
	e := startHTTP(t, false, app.HTTPOptions{}, nil)
	// DNS rebinding: a loopback listener refuses a Host that is not loopback.
	if code, body := post(t, e.url, strings.NewReader(initialize), -1, map[string]string{"Host": "evil.example:80"}); code != 403 {
		t.Errorf("a foreign Host header on loopback: %d %s, want 403", code, body)
	}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if code, body := post(t, e.url, strings.NewReader(initialize), -1, map[string]string{"Host": host}); code != 200 {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
	// A browser's cross-site POST.
	if code, _ := post(t, e.url, strings.NewReader(initialize), -1, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}); code != 403 {
		t.Errorf("a cross-site browser request: %d, want 403", code)
	}
	// Only /mcp.
	for _, path := range []string{"/", "/mcp/", "/sse", "/mcpx"} {
		code, _ := post(t, strings.TrimSuffix(e.url, app.MCPPath)+path, strings.NewReader(initialize), -1, nil)
		if code != 404 {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}
}

// TestAudiobookshelfTLSAndRedirects checks the connection to Audiobookshelf:
// a self-signed certificate fails clearly unless AUDIOBOOKSHELF_INSECURE_TLS
// is set, and a redirect is not followed, so the key stays home.
func TestAudiobookshelfTLSAndRedirects(t *testing.T) {
	sd := standin.New(standin.Options{})
	tlsServer := httptest.NewTLSServer(sd.Handler())
	t.Cleanup(tlsServer.Close)
	for _, insecure := range []bool{false, true} {
		e := startHTTP(t, true, app.HTTPOptions{}, func(c *config.Config) { c.URL, c.InsecureTLS = tlsServer.URL, insecure })
		cs, err := e.connect(t, "2026-07-28", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := apptest.CallOn(t, cs, "list_libraries", nil)
		if insecure {
			if res.IsError || !strings.Contains(apptest.Text(res), "Books") {
				t.Errorf("INSECURE_TLS=true against a self-signed server: %s", apptest.Text(res))
			}
			continue
		}
		if !res.IsError || !strings.Contains(apptest.Text(res), "TLS certificate that could not be verified") || !strings.Contains(apptest.Text(res), "AUDIOBOOKSHELF_INSECURE_TLS=true") {
			t.Errorf("a self-signed server without INSECURE_TLS: %s", apptest.Text(res))
		}
	}

	var elsewhere atomic.Int32
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		leaked.Store(r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	e := startHTTP(t, true, app.HTTPOptions{}, func(c *config.Config) { c.URL = redirector.URL })
	cs, err := e.connect(t, "2026-07-28", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := apptest.CallOn(t, cs, "list_libraries", nil)
	if !res.IsError || !strings.Contains(apptest.Text(res), "a redirect, which is not followed") {
		t.Errorf("a redirect: %s", apptest.Text(res))
	}
	if elsewhere.Load() != 0 {
		t.Errorf("the redirect was followed (%d requests elsewhere, Authorization %q)", elsewhere.Load(), leaked.Load())
	}
}
