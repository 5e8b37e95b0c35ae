package main

import (
	"encoding/json"
	"encoding/pem"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// These tests show, by running the binary, that every variable of the
// configuration reference (config.Vars, the table of
// docs/configuration.md) does what the reference says.

// variableTests names, for each variable, the tests in this package that
// run the binary with it. A new variable fails TestEveryVariableIsTested
// until it has one.
var variableTests = map[string][]string{
	"AUDIOBOOKSHELF_URL":               {"TestURLVariable", "TestBadConfigurationStops", "TestStdioToolsListWithoutConfiguration"},
	"AUDIOBOOKSHELF_API_KEY":           {"TestAPIKeyVariable"},
	"AUDIOBOOKSHELF_READ_ONLY":         {"TestReadOnlyModeOverStdio", "TestToolsetsVariable", "TestBadConfigurationStops"},
	"AUDIOBOOKSHELF_TOOLSETS":          {"TestToolsetsVariable", "TestBadConfigurationStops"},
	"ELICITATION":                      {"TestElicitationVariable", "TestElicitationFalseTakesTheTokenPath"},
	"AUDIOBOOKSHELF_STATE_KEY":         {"TestStateKeyAcrossInstances", "TestBadConfigurationStops"},
	"AUDIOBOOKSHELF_APPROVAL_STORE":    {"TestApprovalStoreProcessesInARow", "TestBadConfigurationStops"},
	"AUDIOBOOKSHELF_TIMEOUT":           {"TestTimeoutVariable", "TestBadConfigurationStops"},
	"AUDIOBOOKSHELF_INSECURE_TLS":      {"TestInsecureTLSVariable", "TestBadConfigurationStops"},
	"AUDIOBOOKSHELF_MCP_TOKEN":         {"TestHTTPBearerTokenVariable", "TestHTTPRefusesToStartOpen"},
	"AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS": {"TestAllowedHostsVariable"},
	"AUDIOBOOKSHELF_MCP_AUTH":          {"TestMCPAuthVariable"},
	"AUDIOBOOKSHELF_LOG_LEVEL":         {"TestLogLevelVariable"},
	"AUDIOBOOKSHELF_MAX_RESULT_CHARS":  {"TestMaxResultCharsVariable", "TestBadConfigurationStops"},
}

func TestEveryVariableIsTested(t *testing.T) {
	var names []string
	for _, v := range config.Vars {
		names = append(names, v.Name)
		if len(variableTests[v.Name]) == 0 {
			t.Errorf("%s is in the configuration reference but no test here runs the binary with it", v.Name)
		}
	}
	for name := range variableTests {
		if !slices.Contains(names, name) {
			t.Errorf("variableTests names %s, which config.Vars does not have", name)
		}
	}
	// Each test named exists in this package.
	defined := map[string]bool{}
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				defined[fd.Name.Name] = true
			}
		}
	}
	for v, tests := range variableTests {
		for _, name := range tests {
			if !defined[name] {
				t.Errorf("%s: no test %s in this package", v, name)
			}
		}
	}
}

// standinEnv is the environment that points the binary at sd.
// Every toolset is on (AUDIOBOOKSHELF_TOOLSETS=all), so that every tool can
// be called directly; extra can set it otherwise (the last value counts).
func standinEnv(sd *standin.Server, extra ...string) []string {
	return baseEnv(append([]string{"AUDIOBOOKSHELF_URL=" + sd.URL(), "AUDIOBOOKSHELF_API_KEY=" + standin.DefaultAPIKey, "AUDIOBOOKSHELF_TOOLSETS=all"}, extra...)...)
}

// callOverStdio starts the binary, calls one tool and returns the result's
// JSON and the session (for its stderr).
func callOverStdio(t *testing.T, env []string, tool string, args map[string]any) (string, *session) {
	t.Helper()
	s := start(t, env)
	s.initialize()
	if args == nil {
		args = map[string]any{}
	}
	s.send("tools/call", map[string]any{"name": tool, "arguments": args})
	r := s.recv()
	if r["error"] != nil {
		t.Fatalf("%s: protocol error %s", tool, r["error"])
	}
	return string(r["result"]), s
}

func TestURLVariable(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	// Trailing slashes are dropped.
	env := baseEnv("AUDIOBOOKSHELF_URL="+sd.URL()+"//", "AUDIOBOOKSHELF_API_KEY="+standin.DefaultAPIKey)
	res, s := callOverStdio(t, env, "list_libraries", nil)
	if !strings.Contains(res, `\"name\":\"Books\"`) {
		t.Errorf("a call: %s", res)
	}
	if !strings.Contains(s.stderr.String(), "Audiobookshelf: "+sd.URL()+"\n") {
		t.Errorf("the startup line must show the URL without trailing slashes: %s", s.stderr)
	}
	for _, r := range sd.Requests() {
		if strings.HasPrefix(r.RawPath, "//") {
			t.Errorf("a request went to %s", r.RawPath)
		}
	}
}

func TestAPIKeyVariable(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	res, s := callOverStdio(t, standinEnv(sd), "list_libraries", nil)
	if !strings.Contains(res, "Books") {
		t.Errorf("with the key: %s", res)
	}
	reqs := sd.Requests()
	if len(reqs) == 0 || !reqs[len(reqs)-1].Authorized {
		t.Errorf("the key was not sent as a bearer token: %+v", reqs)
	}
	if strings.Contains(s.stderr.String(), standin.DefaultAPIKey) {
		t.Error("the key appears on stderr")
	}
	// A key Audiobookshelf refuses: over stdio the server does not start,
	// and says so and how to make one (TestRefusedKeyStopsTheStart).
	// A URL without a key: the server starts and says what is missing.
	res, s = callOverStdio(t, baseEnv("AUDIOBOOKSHELF_URL="+sd.URL()), "list_libraries", nil)
	if !strings.Contains(s.stderr.String(), "no AUDIOBOOKSHELF_API_KEY") || !strings.Contains(res, "AUDIOBOOKSHELF_API_KEY") {
		t.Errorf("no key: %s\n%s", res, s.stderr)
	}
}

// toolNames lists the tools the binary registers in env.
func toolNames(t *testing.T, env []string) []string {
	t.Helper()
	s := start(t, env, "--demo")
	s.initialize()
	s.send("tools/list", map[string]any{})
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(s.recv()["result"], &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestToolsetsVariable(t *testing.T) {
	code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_TOOLSETS=collections,colections"))
	if code != 1 || !strings.Contains(errOut, "unknown toolset colections") ||
		!strings.Contains(errOut, "valid toolsets: libraries, items, me, progress, bookmarks, collections, playlists") {
		t.Errorf("an unknown toolset: exit %d: %s", code, errOut)
	}
	want := func(readOnly bool, sets ...string) []string {
		out := app.Listed(readOnly, sets)
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		env      []string
		readOnly bool
		sets     []string
	}{
		{[]string{"AUDIOBOOKSHELF_TOOLSETS=collections,playlists"}, false, []string{"collections", "playlists"}},
		{[]string{"AUDIOBOOKSHELF_TOOLSETS= bookmarks "}, false, []string{"bookmarks"}},
		{[]string{"AUDIOBOOKSHELF_TOOLSETS=collections,playlists", "AUDIOBOOKSHELF_READ_ONLY=true"}, true, []string{"collections", "playlists"}},
		{[]string{"AUDIOBOOKSHELF_TOOLSETS=libraries,items,me,progress,bookmarks,collections,playlists"}, false,
			[]string{"libraries", "items", "me", "progress", "bookmarks", "collections", "playlists"}},
		{[]string{"AUDIOBOOKSHELF_TOOLSETS=default,collections"}, false, []string{config.Default, "collections"}},
		{nil, false, nil},
		{[]string{"AUDIOBOOKSHELF_TOOLSETS=all"}, false, config.AllToolsets()},
	} {
		got, exp := toolNames(t, baseEnv(c.env...)), want(c.readOnly, c.sets...)
		if !slices.Equal(got, exp) || len(got) == 0 {
			t.Errorf("%v lists\n  %v\nwant\n  %v", c.env, got, exp)
		}
	}
}

func TestElicitationFalseTakesTheTokenPath(t *testing.T) {
	s := start(t, baseEnv("ELICITATION=false", "AUDIOBOOKSHELF_TOOLSETS=all"), "--demo")
	s.send("initialize", map[string]any{"protocolVersion": "2025-11-25",
		"capabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		"clientInfo":   map[string]any{"name": "raw", "version": "1"}})
	s.recv()
	s.notify("notifications/initialized")
	s.send("tools/call", map[string]any{"name": "delete_playlist", "arguments": map[string]any{"playlist_id": standin.PlaylistCommute}})
	res := string(s.recv()["result"])
	if !strings.Contains(res, "confirm_token") || !strings.Contains(res, "started with ELICITATION=false") {
		t.Errorf("ELICITATION=false with a client that can show a dialog: %s", res)
	}
}

// TestTimeoutVariable: the stand-in holds GET /api/libraries until the test
// ends (or the client goes), so the call can only end by the timeout, and
// the answer says so; how long the machine takes to start the binary does
// not matter.
func TestTimeoutVariable(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the stand-in stops (cleanups run last first)
	sd.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/libraries" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		return false
	})
	res, _ := callOverStdio(t, standinEnv(sd, "AUDIOBOOKSHELF_TIMEOUT=1s"), "list_libraries", nil)
	if !strings.Contains(res, "did not answer within 1s") || !strings.Contains(res, "Nothing was changed") {
		t.Errorf("AUDIOBOOKSHELF_TIMEOUT=1s against a server that does not answer: %s", res)
	}
}

func TestMaxResultCharsVariable(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	args := map[string]any{"library_item_id": standin.ItemMort, "detail": "full"}
	// The raw item is some 48,000 characters: over the default budget and
	// over 10000, within 100000.
	for _, c := range []struct {
		env    []string
		refuse string
	}{
		{nil, "budget of 40,000"},
		{[]string{"AUDIOBOOKSHELF_MAX_RESULT_CHARS=10000"}, "budget of 10,000"},
		{[]string{"AUDIOBOOKSHELF_MAX_RESULT_CHARS=100000"}, ""},
	} {
		res, _ := callOverStdio(t, standinEnv(sd, c.env...), "get_library_item", args)
		refused := strings.Contains(res, `"isError":true`)
		if c.refuse == "" && refused || c.refuse != "" && (!refused || !strings.Contains(res, c.refuse)) {
			t.Errorf("%v: want refused=%v (%q): %.300s", c.env, c.refuse != "", c.refuse, res)
		}
	}
}

func TestInsecureTLSVariable(t *testing.T) {
	sd := standin.New(standin.Options{})
	ts := httptest.NewTLSServer(sd.Handler())
	t.Cleanup(ts.Close)
	env := baseEnv("AUDIOBOOKSHELF_URL="+ts.URL, "AUDIOBOOKSHELF_API_KEY="+standin.DefaultAPIKey)
	res, s := callOverStdio(t, env, "list_libraries", nil)
	if !strings.Contains(res, "TLS certificate that could not be verified") || !strings.Contains(res, "AUDIOBOOKSHELF_INSECURE_TLS=true") {
		t.Errorf("a self-signed server without the variable: %s", res)
	}
	// The safer way comes first: trusting that one certificate.
	if i, j := strings.Index(res, "SSL_CERT_FILE"), strings.Index(res, "AUDIOBOOKSHELF_INSECURE_TLS"); i < 0 || i > j {
		t.Errorf("the message does not name SSL_CERT_FILE before AUDIOBOOKSHELF_INSECURE_TLS: %s", res)
	}
	// And it works: with SSL_CERT_FILE holding the server's certificate, the
	// call succeeds without skipping verification.
	certFile := filepath.Join(t.TempDir(), "abs.pem")
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(certFile, pemCert, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, _ := callOverStdio(t, append(env, "SSL_CERT_FILE="+certFile), "list_libraries", nil); !strings.Contains(res, `\"name\":\"Books\"`) {
		t.Errorf("a self-signed server with SSL_CERT_FILE naming its certificate: %s", res)
	}
	if strings.Contains(s.stderr.String(), "INSECURE_TLS") {
		t.Errorf("a warning without the variable: %s", s.stderr)
	}
	res, s = callOverStdio(t, append(env, "AUDIOBOOKSHELF_INSECURE_TLS=true"), "list_libraries", nil)
	if !strings.Contains(res, `\"name\":\"Books\"`) {
		t.Errorf("a self-signed server with AUDIOBOOKSHELF_INSECURE_TLS=true: %s", res)
	}
	if !strings.Contains(s.stderr.String(), "warning: AUDIOBOOKSHELF_INSECURE_TLS=true: the certificate of the Audiobookshelf server is not verified") {
		t.Errorf("no warning: %s", s.stderr)
	}
	// A plain-http Audiobookshelf works with the variable set too.
	plain := standin.Start(t, standin.Options{})
	if res, _ := callOverStdio(t, standinEnv(plain, "AUDIOBOOKSHELF_INSECURE_TLS=true"), "list_libraries", nil); !strings.Contains(res, "Books") {
		t.Errorf("plain http with the variable: %s", res)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	var auth atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		auth.Store(r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	env := baseEnv("AUDIOBOOKSHELF_URL="+redirector.URL, "AUDIOBOOKSHELF_API_KEY=key-that-must-stay-home")
	res, _ := callOverStdio(t, env, "list_libraries", nil)
	if !strings.Contains(res, "a redirect, which is not followed") {
		t.Errorf("a redirect: %s", res)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d request(s) to the other host, Authorization %q", n, auth.Load())
	}
}
