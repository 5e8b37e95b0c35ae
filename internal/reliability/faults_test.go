package reliability

import (
	"bytes"
	"compress/gzip"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// The two calls every fault is tried with: a read (one GET) and a write
// (one POST, no reads before it).
var (
	readArgs  = map[string]any{"library_id": sd.LibraryBooksID}
	writeArgs = map[string]any{"library_id": sd.LibraryBooksID, "name": "Fault test"}
)

const (
	readTool  = "get_library"
	writeTool = "create_playlist"
	// What a read error and a write error say about the outcome.
	readOutcome  = "Nothing was changed."
	writeUnknown = "not known whether"
)

// faultCase is one way Audiobookshelf (or what answers in its place) can
// misbehave.
type faultCase struct {
	name string
	// timeout is AUDIOBOOKSHELF_TIMEOUT for the case (0: 5s).
	timeout time.Duration
	// fault is installed on the stand-in, or
	fault func(w http.ResponseWriter, r *http.Request) bool
	// setup puts something else at AUDIOBOOKSHELF_URL: it gets the
	// stand-in's URL and returns the URL to use and, when the fault can be
	// taken away, a heal function that makes the next call succeed.
	setup func(t *testing.T, standinURL string) (string, func())
	// want is in both errors; wantRead and wantWrite in one each.
	want, wantRead, wantWrite []string
	// slow: the call must take the whole timeout (and not much more).
	slow bool
	// readOutcome and writeOutcome replace what the errors must say about
	// the outcome ("-": nothing asked).
	readOutcome, writeOutcome string
	// readOnly: the write is not tried (its answer would be a success).
	readOnly bool
	// prepare runs once the server is built.
	prepare func(e *apptest.Env)
	// memory: the case measures the heap, so it runs alone; the others run
	// in parallel.
	memory bool
	// after inspects the case once both calls are done.
	after func(t *testing.T)
}

func faultCases() []faultCase {
	var endlessSent atomic.Int64
	bomb()
	endlessDone := make(chan struct{}, 4)
	otherHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHostHits.Add(1)
		w.Write([]byte(`{"id":"x"}`))
	}))
	otherHostURL = otherHost.URL
	return []faultCase{
		{name: "connection refused",
			setup: func(t *testing.T, standinURL string) (string, func()) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr := ln.Addr().String()
				ln.Close()
				return "http://" + addr, func() {
					ln, err := net.Listen("tcp", addr)
					if err != nil {
						t.Fatalf("listen again on %s: %v", addr, err)
					}
					serveRaw(t, ln, func(*rawServer) func(net.Conn) { return proxyTo(hostOf(standinURL)) })
				}
			},
			want: []string{"refused the connection", "is it running"}},
		{name: "DNS failure",
			setup: func(t *testing.T, _ string) (string, func()) {
				// .invalid never resolves (RFC 6761).
				return "http://abs.invalid:13378", nil
			},
			want: []string{`host name "abs.invalid" could not be resolved`}},
		{name: "accepts and never answers", timeout: time.Second, slow: true,
			setup: func(t *testing.T, standinURL string) (string, func()) {
				rs := startRaw(t, func(rs *rawServer) func(net.Conn) { return rs.silent })
				return rs.URL(), func() { rs.set(proxyTo(hostOf(standinURL))) }
			},
			want: []string{"did not answer within 1s"}},
		{name: "slow headers", timeout: time.Second, slow: true,
			setup: func(t *testing.T, standinURL string) (string, func()) {
				rs := startRaw(t, func(rs *rawServer) func(net.Conn) {
					return rs.trickle("HTTP/1.1 200 OK\r\n", "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 50*time.Millisecond)
				})
				return rs.URL(), func() { rs.set(proxyTo(hostOf(standinURL))) }
			},
			want: []string{"did not answer within 1s"}},
		{name: "slow body", timeout: time.Second, slow: true,
			setup: func(t *testing.T, standinURL string) (string, func()) {
				rs := startRaw(t, func(rs *rawServer) func(net.Conn) {
					return rs.trickle("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"id\":\"", "a", 50*time.Millisecond)
				})
				return rs.URL(), func() { rs.set(proxyTo(hostOf(standinURL))) }
			},
			want: []string{"did not answer within 1s"}},
		{name: "connection closed without an answer",
			setup: func(t *testing.T, standinURL string) (string, func()) {
				rs := startRaw(t, func(*rawServer) func(net.Conn) { return readRequestHead })
				return rs.URL(), func() { rs.set(proxyTo(hostOf(standinURL))) }
			},
			want: []string{"closed the connection"}},
		{name: "500", fault: status(500, "text/plain", "Internal Server Error"),
			want: []string{"500 Internal Server Error", "look at the Audiobookshelf server's log"}},
		{name: "502", fault: status(502, "text/plain", "Bad Gateway"),
			want: []string{"502 Bad Gateway", "Try again later"}},
		{name: "503", fault: status(503, "text/plain", "Service Unavailable"),
			want: []string{"503 Service Unavailable", "Try again later"}},
		{name: "HTML page instead of JSON", fault: status(200, "text/html; charset=utf-8", "<!DOCTYPE html><html><head><title>Audiobookshelf</title></head><body><div id=app></div></body></html>"),
			want: []string{"HTML page", "AUDIOBOOKSHELF_URL"}},
		{name: "HTML error page from a proxy", fault: status(502, "text/html", "<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"),
			want: []string{"502 Bad Gateway", "HTML page"}},
		{name: "truncated body",
			fault: hijack(func(c net.Conn) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"id\":\"d7e30ecb-fe00-44a6-91d2-23bc989c0628\",\"name\":\"Bo")
			}),
			want: []string{"closed the connection before its answer was complete"}},
		// A write answered 2xx with JSON that does not parse was most likely
		// made; the write tools say so, so only the read is a fault here.
		{name: "truncated JSON", fault: status(200, "application/json", `{"id":"d7e30ecb-fe00-44a6-91d2-23bc989c0628","name":"Bo`),
			want: []string{"not the JSON expected", "AUDIOBOOKSHELF_URL"}, readOutcome: "-", readOnly: true},
		{name: "10 MB body", memory: true, fault: status(200, "audio/mpeg", strings.Repeat("\xff\xfb\x90\x64", 10<<20/4)),
			want: []string{"audio/mpeg", "not the API's JSON"}},
		{name: "endless body", memory: true,
			fault: func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				io.WriteString(w, `{"id":"x","name":"`)
				chunk := bytes.Repeat([]byte("a"), 64<<10)
				for {
					n, err := w.Write(chunk)
					endlessSent.Add(int64(n))
					if err != nil {
						break
					}
				}
				endlessDone <- struct{}{}
				return true
			},
			want: []string{"more than 32 MB", "was not read"},
			after: func(t *testing.T) {
				for range 2 {
					select {
					case <-endlessDone:
					case <-time.After(5 * time.Second):
						t.Fatal("the endless body is still being read after the calls returned")
					}
				}
				// Both calls together stopped reading after the limit
				// (plus what socket buffers hold).
				if n := endlessSent.Load(); n > 2*(kit.MaxResponseBytes+16<<20) {
					t.Errorf("%d bytes were sent before the calls stopped reading", n)
				}
			}},
		// The limit applies to the decompressed body.
		{name: "gzip bomb", memory: true,
			fault: func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(bomb())
				return true
			},
			want: []string{"more than 32 MB", "was not read"}},
		{name: "redirect to another host",
			fault: func(w http.ResponseWriter, r *http.Request) bool {
				code := http.StatusFound
				if r.Method != http.MethodGet {
					code = http.StatusTemporaryRedirect
				}
				http.Redirect(w, r, otherHostURL+r.URL.Path, code)
				return true
			},
			want: []string{"a redirect, which is not followed", "does not travel to another address"},
			// Redirected is not made: the write was not carried out there.
			writeOutcome: readOutcome,
			after: func(t *testing.T) {
				if n := otherHostHits.Load(); n != 0 {
					t.Errorf("the other host received %d requests", n)
				}
				otherHost.Close()
			}},
		{name: "TLS with a self-signed certificate",
			setup: func(t *testing.T, standinURL string) (string, func()) {
				u, _ := url.Parse(standinURL)
				ts := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(u))
				ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
				ts.StartTLS()
				t.Cleanup(ts.Close)
				tlsURL = ts.URL
				return ts.URL, nil
			},
			want: []string{"TLS certificate that could not be verified", "AUDIOBOOKSHELF_INSECURE_TLS=true"},
			after: func(t *testing.T) {
				// The documented remedy works against the same server.
				e := apptest.Start(t, apptest.Options{Config: func(c *config.Config) { c.URL, c.InsecureTLS = tlsURL, true }})
				if res := e.Call(t, readTool, readArgs); res.IsError {
					t.Errorf("with AUDIOBOOKSHELF_INSECURE_TLS=true: %s", apptest.Text(res))
				}
			}},
	}
}

var (
	otherHostURL  string
	otherHostHits atomic.Int64
	tlsURL        string
	bombBytes     []byte
)

// bomb is a gzip stream of about 50 KB that expands to 48 MB: one member
// of 1 MB of zeros, repeated (a gzip stream may hold many members).
func bomb() []byte {
	if bombBytes == nil {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(bytes.Repeat([]byte("0"), 1<<20))
		zw.Close()
		bombBytes = bytes.Repeat(b.Bytes(), 48)
	}
	return bombBytes
}

func status(code int, ctype, body string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(code)
		io.WriteString(w, body)
		return true
	}
}

// hijack takes the connection over from the stand-in: f writes what it
// wants, then the connection is closed.
func hijack(f func(net.Conn)) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		defer c.Close()
		f(c)
		return true
	}
}

// TestFaults: each way Audiobookshelf can fail gives a clear tool error for a
// read and for a write, within the configured timeout (plus retries), and
// the same server answers the next call — successfully once the fault is
// gone. Bodies are read through a limit, so memory stays bounded.
func TestFaults(t *testing.T) {
	cases := faultCases()
	var survived atomic.Int64
	t.Run("all", func(t *testing.T) {
		for _, fc := range cases {
			t.Run(fc.name, func(t *testing.T) {
				if !fc.memory {
					t.Parallel()
				}
				runFault(t, fc)
				if !t.Failed() {
					survived.Add(1)
				}
			})
		}
	})
	if n := int(survived.Load()); n == len(cases) {
		figure(t, "faults survived", n)
	}
}

func runFault(t *testing.T, fc faultCase) {
	timeout := fc.timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	var heal func()
	e := apptest.Start(t, apptest.Options{Config: func(c *config.Config) {
		c.Timeout = timeout
		if fc.setup != nil {
			c.URL, heal = fc.setup(t, c.URL)
		}
	}})
	if fc.prepare != nil {
		fc.prepare(e)
	}
	if fc.fault != nil {
		e.Standin.SetFault(fc.fault)
		heal = func() { e.Standin.SetFault(nil) }
	}
	// Retries of a GET add at most their backoff.
	bound := timeout + 2*time.Second
	var peak func() (int64, int64)
	if fc.memory {
		peak = sampleHeap()
	}
	outcome := func(o, def string) []string {
		switch o {
		case "-":
			return nil
		case "":
			return []string{def}
		}
		return []string{o}
	}
	type call struct {
		tool string
		args map[string]any
		want []string
	}
	calls := []call{{readTool, readArgs, append(append(outcome(fc.readOutcome, readOutcome), fc.want...), fc.wantRead...)}}
	if !fc.readOnly {
		calls = append(calls, call{writeTool, writeArgs, append(append(outcome(fc.writeOutcome, writeUnknown), fc.want...), fc.wantWrite...)})
	}
	for _, c := range calls {
		res, took := callTimed(t, e, c.tool, c.args)
		text := apptest.Text(res)
		if !res.IsError {
			t.Errorf("%s succeeded: %s", c.tool, text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: error lacks %q:\n%s", c.tool, w, text)
			}
		}
		// A slow fault never ends by itself (silent, or a byte every 50 ms
		// forever): its answer is the timeout's doing whenever it comes,
		// so only the others are held to a bound.
		if !fc.slow && took > bound {
			t.Errorf("%s took %v (timeout %v)", c.tool, took, timeout)
		}
		if fc.slow && took < timeout {
			t.Errorf("%s took %v, less than the timeout %v", c.tool, took, timeout)
		}
		t.Logf("%s (%v): %s", c.tool, took.Round(time.Millisecond), text)
	}
	// Memory is bounded: at most a few bodies of the limit's size
	// were live at once, and nothing is kept after the calls.
	if peak != nil {
		p, kept := peak()
		if p > 4*kit.MaxResponseBytes || kept > 16<<20 {
			t.Errorf("live heap grew by %d MB at its peak and kept %d MB", p>>20, kept>>20)
		}
		t.Logf("heap: peak +%d MB, kept %d MB", p>>20, kept>>20)
	}
	if fc.after != nil {
		fc.after(t)
	}

	// The same server answers the next calls.
	if _, err := e.Session.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("tools/list after the fault: %v", err)
	}
	if heal != nil {
		heal()
		res := e.Call(t, readTool, readArgs)
		if res.IsError {
			t.Fatalf("the call after the fault failed: %s", apptest.Text(res))
		}
	} else {
		res, took := callTimed(t, e, "get_server_status", nil)
		if took > bound || !strings.Contains(apptest.Text(res), "Audiobookshelf") {
			t.Errorf("next call (%v): %s", took, apptest.Text(res))
		}
	}
}

// sampleHeap samples the live heap every millisecond until the returned
// function is called, which says by how much it grew at its peak and how
// much of that is still live after a collection.
func sampleHeap() func() (peak, kept int64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := read()
	var max atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if n := read() - base; n > max.Load() {
				max.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() (int64, int64) {
		close(stop)
		<-done
		runtime.GC()
		return max.Load(), read() - base
	}
}

// TestTimeoutIsConfigurable: AUDIOBOOKSHELF_TIMEOUT is documented and
// parsed, and a request that outlives it fails after that long, naming it.
func TestTimeoutIsConfigurable(t *testing.T) {
	t.Parallel()
	var doc string
	for _, v := range config.Vars {
		if v.Name == "AUDIOBOOKSHELF_TIMEOUT" {
			doc = v.Default + " " + v.Allowed + " " + v.Meaning
		}
	}
	if !strings.Contains(doc, "30s") || !strings.Contains(doc, "1s to 10m") {
		t.Errorf("AUDIOBOOKSHELF_TIMEOUT documented as %q", doc)
	}
	env := map[string]string{"AUDIOBOOKSHELF_TIMEOUT": "2s"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := config.FromEnv(func(k string) string { return env[k] }, lookup, nil)
	if err != nil || cfg.Timeout != 2*time.Second {
		t.Fatalf("AUDIOBOOKSHELF_TIMEOUT=2s: %v %v", cfg.Timeout, err)
	}
	rs := startRaw(t, func(rs *rawServer) func(net.Conn) { return rs.silent })
	e := apptest.Start(t, apptest.Options{Config: func(c *config.Config) { c.URL, c.Timeout = rs.URL(), cfg.Timeout }})
	res, took := callTimed(t, e, readTool, readArgs)
	// The raw server never answers, so an answer at all is the timeout's
	// doing; it must not come before the 2 seconds.
	if !strings.Contains(apptest.Text(res), "did not answer within 2s") || took < 2*time.Second {
		t.Errorf("after %v: %s", took, apptest.Text(res))
	}
}

// TestRetriesOnlySafe counts at the stand-in what one call sends when
// Audiobookshelf fails: a GET is retried on 502, 503 and a dropped
// connection (three attempts in all, with backoff), never on 500 or 404; a
// write is sent exactly once whatever happens, also after the guard
// approved it.
func TestRetriesOnlySafe(t *testing.T) {
	t.Parallel()
	drop := func(w http.ResponseWriter, r *http.Request) bool {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close()
		return true
	}
	cases := []struct {
		name      string
		fault     func(http.ResponseWriter, *http.Request) bool
		wantGets  int
		minTime   time.Duration
		wantWrite int
	}{
		{"503", status(503, "text/plain", "Service Unavailable"), 3, 600 * time.Millisecond, 1},
		{"502", status(502, "text/plain", "Bad Gateway"), 3, 600 * time.Millisecond, 1},
		{"dropped connection", drop, 3, 600 * time.Millisecond, 1},
		{"500", status(500, "text/plain", "boom"), 1, 0, 1},
		{"404", status(404, "text/plain", "Not Found"), 1, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.Start(t, apptest.Options{Elicit: approve})
			e.Standin.SetFault(c.fault)
			res, took := callTimed(t, e, readTool, readArgs)
			gets := 0
			for _, r := range e.Standin.Requests() {
				if r.Method == http.MethodGet && r.Path == "/api/libraries/"+sd.LibraryBooksID {
					gets++
				}
			}
			if !res.IsError || gets != c.wantGets || took < c.minTime {
				t.Errorf("GET tool: %d requests in %v (want %d): %s", gets, took, c.wantGets, apptest.Text(res))
			}

			e.Standin.ResetRequests()
			res = e.Call(t, writeTool, writeArgs)
			if n := len(e.Standin.Mutations()); !res.IsError || n != c.wantWrite || len(e.Standin.Requests()) != n {
				t.Errorf("write tool: %d writes, %d requests (want %d): %s", n, len(e.Standin.Requests()), c.wantWrite, apptest.Text(res))
			}

			// A guarded write: its reads may be retried, its DELETE never.
			e.Standin.SetFault(nil)
			e.Standin.ResetRequests()
			e.Standin.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method == http.MethodGet {
					return false
				}
				return c.fault(w, r)
			})
			res = e.Call(t, "delete_collection", map[string]any{"collection_id": sd.CollectionDiscworldInOrder})
			if n := len(e.Standin.Mutations()); !res.IsError || n != 1 {
				t.Errorf("guarded write: %d DELETEs: %s", n, apptest.Text(res))
			}
		})
	}
	// Not retried: a request that times out (its time is spent).
	rs := startRaw(t, func(rs *rawServer) func(net.Conn) { return rs.silent })
	e := apptest.Start(t, apptest.Options{Config: func(c *config.Config) { c.URL, c.Timeout = rs.URL(), time.Second }})
	e.Call(t, readTool, readArgs)
	if n := rs.accepts.Load(); n != 1 {
		t.Errorf("a GET that timed out was sent on %d connections", n)
	}
}
