package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// These tests run the binary with --http, as a hub or a person would.

var listeningLine = regexp.MustCompile(`(?m)^audiobookshelf-mcp: listening on (http://([^/\s]+)/mcp)$`)

// httpProc is the binary serving streamable HTTP.
type httpProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *apptest.SyncBuffer
	url    string // the /mcp endpoint as printed
	addr   string // host:port as printed
	exited chan struct{}
	code   int
}

// startHTTP runs the binary with args (which must include --http) and waits
// for its listening line. The process is killed when the test ends, if it
// is still running.
func startHTTP(t *testing.T, env []string, args ...string) *httpProc {
	t.Helper()
	p := startHTTPNoWait(t, env, args...)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := listeningLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url, p.addr = m[1], m[2]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("exited %d before listening: %s", p.code, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line within 15s: %s", p.stderr)
		}
	}
}

func startHTTPNoWait(t *testing.T, env []string, args ...string) *httpProc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	p := &httpProc{t: t, cmd: cmd, stderr: &apptest.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		}
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// stop sends SIGTERM and returns the exit code.
func (p *httpProc) stop() int {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	return p.wait(15 * time.Second)
}

func (p *httpProc) wait(d time.Duration) int {
	p.t.Helper()
	select {
	case <-p.exited:
		return p.code
	case <-time.After(d):
		p.t.Fatalf("still running %s later: %s", d, p.stderr)
		return -1
	}
}

// bearerClient adds an Authorization header to every request.
type bearerClient struct{ token string }

func (b bearerClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// client connects a go-sdk client to the endpoint.
func (p *httpProc) client(version string, hc *http.Client, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	return apptest.ConnectHTTP(p.t, p.url, version, hc, opts)
}

func TestHTTPListensAndStops(t *testing.T) {
	for _, c := range []struct {
		args    []string
		version string
		host    string
	}{
		{[]string{"--http", "127.0.0.1:0", "--demo"}, "2025-11-25", "127.0.0.1"},
		{[]string{"--http", ":0", "--demo"}, "2025-11-25", "127.0.0.1"}, // an empty host is loopback
		{[]string{"--http", "127.0.0.1:0", "--stateless", "--demo"}, "2026-07-28", "127.0.0.1"},
		{[]string{"--http", "localhost:0", "--stateless", "--demo"}, "2025-11-25", ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			p := startHTTP(t, baseEnv(), c.args...)
			if n := len(listeningLine.FindAllString(p.stderr.String(), -1)); n != 1 {
				t.Errorf("%d listening lines, want exactly 1: %s", n, p.stderr)
			}
			host, port, err := net.SplitHostPort(p.addr)
			if err != nil || port == "0" || (c.host != "" && host != c.host) {
				t.Errorf("printed address %q: want %s and the real port", p.addr, c.host)
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				t.Errorf("bound to %q, want loopback", host)
			}
			if strings.Contains(p.stderr.String(), "warning") {
				t.Errorf("a loopback bind warns: %s", p.stderr)
			}
			cs, err := p.client(c.version, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != c.version {
				t.Errorf("negotiated %s, want %s", got, c.version)
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(res.Tools) != defaultTools() {
				t.Fatalf("tools/list over HTTP: %v", err)
			}
			if r := apptest.CallOn(t, cs, "list_libraries", nil); r.IsError || !strings.Contains(apptest.Text(r), `"name":"Books"`) {
				t.Errorf("a read over HTTP: %s", apptest.Text(r))
			}
			if code := p.stop(); code != 0 {
				t.Errorf("SIGTERM: exit %d, want 0: %s", code, p.stderr)
			}
			if !strings.Contains(p.stderr.String(), "audiobookshelf-mcp: stopped") {
				t.Errorf("no stop line: %s", p.stderr)
			}
		})
	}
}

func TestHTTPFlagsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--stateless"},
		{"--stateless", "--demo"},
		{"--http", "8080"},
		{"--http", "127.0.0.1"},
		{"--http", ""},
		{"--http", "127.0.0.1:"},
	} {
		code, out, errOut := runQuick(t, baseEnv(), args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "--") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q (want 2 and a message)", args, code, out, errOut)
		}
	}
	// An address that cannot be bound: exit 1, naming it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := runQuick(t, baseEnv(), "--http", ln.Addr().String(), "--demo")
	if code != 1 || !strings.Contains(errOut, ln.Addr().String()) {
		t.Errorf("a port in use: exit %d: %s", code, errOut)
	}
}

// TestHTTPRefusesToStartOpen: on an address other than loopback, a server
// with nothing that asks who is calling does not start, and says how to add
// authentication; with a token, or told that the gateway in front
// authenticates, it starts and warns.
func TestHTTPRefusesToStartOpen(t *testing.T) {
	for _, env := range [][]string{baseEnv(), baseEnv("AUDIOBOOKSHELF_URL=http://127.0.0.1:1", "AUDIOBOOKSHELF_API_KEY=some-key")} {
		args := []string{"--http", "0.0.0.0:0", "--stateless"}
		if len(env) == len(baseEnv()) {
			args = append(args, "--demo")
		}
		code, _, errOut := runQuick(t, env, args...)
		if code != 1 || !strings.Contains(errOut, "Not starting") || !strings.Contains(errOut, "AUDIOBOOKSHELF_MCP_TOKEN") || !strings.Contains(errOut, "--gateway-authenticates") {
			t.Errorf("%q open on every interface: exit %d: %s", args, code, errOut)
		}
		if listeningLine.MatchString(errOut) {
			t.Errorf("it listened: %s", errOut)
		}
	}
	// --gateway-authenticates without --http is a mistake.
	if code, _, errOut := runQuick(t, baseEnv(), "--gateway-authenticates", "--demo"); code != 2 || !strings.Contains(errOut, "--gateway-authenticates needs --http") {
		t.Errorf("--gateway-authenticates over stdio: exit %d: %s", code, errOut)
	}
	// With a token it starts, warns, and prints the address as given, not
	// Go's [::] for it.
	p := startHTTP(t, baseEnv("AUDIOBOOKSHELF_MCP_TOKEN=0123456789abcdef0123"), "--http", "0.0.0.0:0", "--demo")
	if errOut := p.stderr.String(); !strings.Contains(errOut, "warning: --http 0.0.0.0:0 listens on an address other than loopback") || strings.Contains(errOut, "Not starting") {
		t.Errorf("with a token: %s", errOut)
	}
	if !strings.HasPrefix(p.url, "http://0.0.0.0:") || strings.HasSuffix(p.addr, ":0") {
		t.Errorf("listening line: %s", p.url)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	// Told that the network in front authenticates: it starts, and the
	// warning says the gateway must.
	p = startHTTP(t, baseEnv(), "--http", "0.0.0.0:0", "--demo", "--gateway-authenticates")
	if errOut := p.stderr.String(); !strings.Contains(errOut, "the gateway in front must authenticate every request") || !strings.Contains(errOut, "no token asked (--gateway-authenticates)") {
		t.Errorf("with --gateway-authenticates: %s", errOut)
	}
	p.stop()
}

// TestAllowedHostsVariable: a Host header naming something other than
// localhost or an IP address is refused (DNS rebinding) unless it is in
// AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS; a value that is not host names stops
// the server.
func TestAllowedHostsVariable(t *testing.T) {
	hostCode := func(url, host string) int {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	p := startHTTP(t, baseEnv("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS=mcp.example.org, NAS.lan"), "--http", "127.0.0.1:0", "--stateless", "--demo")
	for host, want := range map[string]int{"mcp.example.org": 200, "nas.lan:8080": 200, "evil.example": 403, "localhost": 200, "192.0.2.7": 200} {
		if got := hostCode(p.url, host); got != want {
			t.Errorf("Host %s: %d, want %d", host, got, want)
		}
	}
	p.stop()
	// A proxy whose upstream is named audiobookshelf_mcp (nginx), or a
	// compose service mcp_ful, sends that name: the 403 says to add it, and
	// added it is taken.
	p = startHTTP(t, baseEnv(), "--http", "127.0.0.1:0", "--stateless", "--demo")
	for _, name := range []string{"audiobookshelf_mcp", "mcp_ful"} {
		if got := hostCode(p.url, name+":8080"); got != 403 {
			t.Errorf("Host %s without it allowed: %d, want 403", name, got)
		}
	}
	p.stop()
	p = startHTTP(t, baseEnv("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS=audiobookshelf_mcp,mcp_ful"), "--http", "127.0.0.1:0", "--stateless", "--demo")
	for host, want := range map[string]int{"audiobookshelf_mcp:8080": 200, "mcp_ful": 200, "mcp-ful": 403} {
		if got := hostCode(p.url, host); got != want {
			t.Errorf("Host %s with audiobookshelf_mcp,mcp_ful allowed: %d, want %d", host, got, want)
		}
	}
	p.stop()
	for _, bad := range []string{"https://mcp.example.org", "mcp.example.org:443", "a b", ",", "mcp/ful", "[::1]"} {
		code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS="+bad), "--http", "127.0.0.1:0", "--demo")
		if code != 1 || !strings.Contains(errOut, "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS") {
			t.Errorf("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS=%q: exit %d: %s", bad, code, errOut)
		}
	}
}

func TestHTTPBearerTokenVariable(t *testing.T) {
	const token = "0123456789abcdef-secret-token"
	for _, stateless := range []bool{false, true} {
		args := []string{"--http", "127.0.0.1:0", "--demo"}
		version := "2025-11-25"
		if stateless {
			args, version = append(args, "--stateless"), "2026-07-28"
		}
		p := startHTTP(t, baseEnv("AUDIOBOOKSHELF_MCP_TOKEN="+token), args...)
		req, _ := http.NewRequest("POST", p.url, strings.NewReader(`{}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_request", error_description="Send the header Authorization: Bearer TOKEN, where TOKEN is the value of AUDIOBOOKSHELF_MCP_TOKEN`) {
			t.Errorf("stateless=%v: no token: %d %q", stateless, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if _, err := p.client(version, &http.Client{Transport: bearerClient{"wrong-" + token}}, nil); err == nil {
			t.Errorf("stateless=%v: a wrong token connected", stateless)
		}
		cs, err := p.client(version, &http.Client{Transport: bearerClient{token}}, nil)
		if err != nil {
			t.Fatalf("stateless=%v: with the token: %v", stateless, err)
		}
		if r := apptest.CallOn(t, cs, "list_libraries", nil); r.IsError {
			t.Errorf("stateless=%v: %s", stateless, apptest.Text(r))
		}
		if !strings.Contains(p.stderr.String(), "bearer token from AUDIOBOOKSHELF_MCP_TOKEN required") {
			t.Errorf("the start must say a token is required: %s", p.stderr)
		}
		if code := p.stop(); code != 0 {
			t.Errorf("exit %d", code)
		}
		if strings.Contains(p.stderr.String(), token) {
			t.Error("the token appears on stderr")
		}
	}
	// Too short, or with a space: the server does not start.
	for _, bad := range []string{"short", "0123456789abcdef 0123"} {
		code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_MCP_TOKEN="+bad), "--http", "127.0.0.1:0", "--demo")
		if code != 1 || !strings.Contains(errOut, "AUDIOBOOKSHELF_MCP_TOKEN") || strings.Contains(errOut, bad) {
			t.Errorf("token %q: exit %d: %s", bad, code, errOut)
		}
	}
	// Over stdio it is not used, and the server says so.
	code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_MCP_TOKEN="+token))
	if code != 0 || !strings.Contains(errOut, "AUDIOBOOKSHELF_MCP_TOKEN is set but only --http uses it") || strings.Contains(errOut, token) {
		t.Errorf("a token over stdio: exit %d: %s", code, errOut)
	}
}

// slowStandin is a stand-in Audiobookshelf whose GET /api/libraries waits
// until released, announcing each arrival.
func slowStandin(t *testing.T) (sd *standin.Server, arrived chan struct{}, release func()) {
	sd = standin.Start(t, standin.Options{})
	arrived = make(chan struct{}, 8)
	gate := make(chan struct{})
	var once sync.Once
	sd.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/libraries" {
			arrived <- struct{}{}
			<-gate
		}
		return false
	})
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return sd, arrived, release
}

var inFlightLine = regexp.MustCompile(`waiting up to 10s for [1-9][0-9]* call\(s\) in flight`)

// TestGracefulShutdown: on SIGTERM the server stops accepting, the call in
// flight finishes and its answer arrives, and the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
			sd, arrived, release := slowStandin(t)
			args := []string{"--http", "127.0.0.1:0"}
			if stateless {
				args = append(args, "--stateless")
			}
			p := startHTTP(t, standinEnv(sd), args...)
			cs, err := p.client("2025-11-25", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				res *mcp.CallToolResult
				err error
			}
			got := make(chan answer, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_libraries", Arguments: map[string]any{}})
				got <- answer{res, err}
			}()
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("the call never reached Audiobookshelf")
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			// It stops accepting: a new connection is refused.
			deadline := time.Now().Add(5 * time.Second)
			for {
				c, err := net.DialTimeout("tcp", p.addr, time.Second)
				if err != nil {
					break
				}
				c.Close()
				if time.Now().After(deadline) {
					t.Fatal("still accepting connections 5s after SIGTERM")
				}
				time.Sleep(20 * time.Millisecond)
			}
			select {
			case <-p.exited:
				t.Fatalf("exited (%d) with a call in flight: %s", p.code, p.stderr)
			case <-time.After(300 * time.Millisecond):
			}
			release()
			select {
			case a := <-got:
				if a.err != nil || a.res.IsError || !strings.Contains(apptest.Text(a.res), "Books") {
					t.Errorf("the call in flight: %v %v", a.err, a.res)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the call in flight never answered")
			}
			if code := p.wait(12 * time.Second); code != 0 {
				t.Errorf("exit %d after SIGTERM, want 0: %s", code, p.stderr)
			}
			errOut := p.stderr.String()
			// At least the call held at Audiobookshelf is in flight; on a busy
			// machine another request of the client (a notification's POST)
			// may still be in the handler, so the count is not pinned to 1.
			if !inFlightLine.MatchString(errOut) || strings.Contains(errOut, "cut off") {
				t.Errorf("the shutdown lines: %s", errOut)
			}
		})
	}
}

// roundRobin sends each request to the next of several servers, as a load
// balancer without affinity does.
type roundRobin struct {
	targets []string // host:port
	n       atomic.Int64
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = rr.targets[int(rr.n.Add(1))%len(rr.targets)]
	r.Host = r.URL.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestStateKeyAcrossInstances: two stateless instances over one
// Audiobookshelf, every request to the other one. With the same
// AUDIOBOOKSHELF_STATE_KEY a question one asked is answered on the other and
// the change happens; with a key each, no answer is ever accepted and
// nothing changes.
func TestStateKeyAcrossInstances(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	for _, shared := range []bool{true, false} {
		sd := standin.Start(t, standin.Options{})
		env := standinEnv(sd)
		if shared {
			env = append(env, "AUDIOBOOKSHELF_STATE_KEY="+key)
		}
		a := startHTTP(t, env, "--http", "127.0.0.1:0", "--stateless")
		b := startHTTP(t, env, "--http", "127.0.0.1:0", "--stateless")
		rr := &roundRobin{targets: []string{a.addr, b.addr}}
		var asked atomic.Int32
		cs, err := a.client("2026-07-28", &http.Client{Transport: rr}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_playlist", Arguments: map[string]any{"playlist_id": standin.PlaylistCommute}})
		cancel()
		_, exists := sd.Playlist(standin.PlaylistCommute)
		if shared {
			if err != nil || res.IsError || exists || asked.Load() != 1 {
				t.Errorf("a shared key: err %v, exists %v, asked %d, %v", err, exists, asked.Load(), res)
			}
		} else {
			if (err == nil && !res.IsError) || !exists || len(sd.Mutations()) != 0 {
				t.Errorf("a key each: err %v, exists %v, %d mutations", err, exists, len(sd.Mutations()))
			}
		}
		if rr.n.Load() < 3 {
			t.Errorf("only %d requests went through the balancer", rr.n.Load())
		}
		a.stop()
		b.stop()
	}
}

// TestShutdownWithAQuestionPending: SIGTERM while a guarded call waits for
// the person's answer. The question cannot be answered in time: its call
// ends at once saying so, nothing is deleted, and the process exits 0
// within the grace period. (Before, a handler blocked in the question kept
// the process up until SIGKILL.)
func TestShutdownWithAQuestionPending(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	p := startHTTP(t, standinEnv(sd), "--http", "127.0.0.1:0")
	asked := make(chan struct{}, 1)
	// The person never answers: the dialog stays open until the test ends,
	// so the client sends nothing back while the server stops (a reply
	// refused by a server already stopping ends the whole client
	// connection in go-sdk, the call's answer with it; that is the
	// client's affair, not what is tested here).
	open := make(chan struct{})
	cs, err := p.client("2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-open
		return nil, errors.New("the dialog was closed")
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(open) }) // before the client's own clean-up
	got := make(chan *mcp.CallToolResult, 1)
	var callErr error
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_playlist", Arguments: map[string]any{"playlist_id": standin.PlaylistCommute}})
		callErr = err
		got <- res
	}()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the question was never asked")
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(ShutdownGrace + 2*time.Second); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0: %s", code, p.stderr)
	}
	select {
	case res := <-got:
		if res == nil || !res.IsError || !strings.Contains(apptest.Text(res), "Nothing was changed") || !strings.Contains(apptest.Text(res), "shutting down") {
			t.Errorf("the pending call: %v (error %v)", res, callErr)
		}
	case <-time.After(5 * time.Second):
		t.Error("the pending call never ended")
	}
	if _, ok := sd.Playlist(standin.PlaylistCommute); !ok || len(sd.Mutations()) != 0 {
		t.Errorf("something was changed: %v", sd.Mutations())
	}
	if strings.Contains(p.stderr.String(), "cut off") {
		t.Errorf("the question's call was cut off instead of ending: %s", p.stderr)
	}
}

// TestShutdownWithACallStuck: SIGTERM while a call waits on an
// Audiobookshelf that does not answer (and whose timeout is longer than the
// grace period). The process still exits 0 within the grace period, saying
// that the call was cut off.
func TestShutdownWithACallStuck(t *testing.T) {
	t.Parallel() // it waits out the 10 s grace period
	sd, arrived, _ := slowStandin(t)
	p := startHTTP(t, standinEnv(sd, "AUDIOBOOKSHELF_TIMEOUT=2m"), "--http", "127.0.0.1:0")
	cs, err := p.client("2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_libraries", Arguments: map[string]any{}})
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached Audiobookshelf")
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(ShutdownGrace + 3*time.Second); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0: %s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "1 call(s) still running after 10s were cut off") {
		t.Errorf("the shutdown lines: %s", p.stderr)
	}
}
