package reliability

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
)

// approve answers every question with approval.
func approve(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}

// argumentRefusal is the sentence every argument error ends with.
const argumentRefusal = "Nothing was sent to Audiobookshelf."

// figure checks that SECURITY.md states n in its figures table on the row
// named label, so the document says what the tests count.
func figure(t *testing.T, label string, n int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "SECURITY.md"))
	if err != nil {
		t.Fatalf("SECURITY.md: %v", err)
	}
	re := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(label) + ` \| ([0-9 ]+) \|`)
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatalf("SECURITY.md has no figures row %q", label)
	}
	got, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), " ", ""))
	if got != n {
		t.Errorf("SECURITY.md says %s: %d; the test counted %d. Update the figure in SECURITY.md.", label, got, n)
	}
}

// callTimed calls a tool through an apptest.Env and says how long it took.
func callTimed(t *testing.T, e *apptest.Env, name string, args any) (*mcp.CallToolResult, time.Duration) {
	t.Helper()
	start := time.Now()
	res := e.Call(t, name, args)
	return res, time.Since(start)
}

// rawServer is a purpose-built TCP listener whose connections are handled by
// whatever handler is set at the time they are accepted; it counts them.
type rawServer struct {
	ln      net.Listener
	handle  atomic.Pointer[func(net.Conn)]
	accepts atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
	done    chan struct{}
	wg      sync.WaitGroup
}

// startRaw listens on a free loopback port; h makes the first handler (it
// gets the server, for handlers that wait for its end).
func startRaw(t *testing.T, h func(*rawServer) func(net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveRaw(t, ln, h)
}

func serveRaw(t *testing.T, ln net.Listener, h func(*rawServer) func(net.Conn)) *rawServer {
	s := &rawServer{ln: ln, done: make(chan struct{})}
	s.set(h(s))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			h := *s.handle.Load()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				h(c)
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *rawServer) set(h func(net.Conn)) { s.handle.Store(&h) }

func (s *rawServer) URL() string { return "http://" + s.ln.Addr().String() }

func (s *rawServer) close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// silent accepts and never answers (until the connection is closed).
func (s *rawServer) silent(c net.Conn) {
	go func() { _, _ = io.Copy(io.Discard, c) }()
	<-s.done
}

// readRequestHead reads up to the end of the request head.
func readRequestHead(c net.Conn) {
	var buf []byte
	one := make([]byte, 1)
	for !bytes.HasSuffix(buf, []byte("\r\n\r\n")) && len(buf) < 1<<16 {
		if _, err := c.Read(one); err != nil {
			return
		}
		buf = append(buf, one[0])
	}
}

// trickle writes head at once, then one byte of rest every step until the
// server closes.
func (s *rawServer) trickle(head, rest string, step time.Duration) func(net.Conn) {
	return func(c net.Conn) {
		readRequestHead(c)
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		for i := 0; ; i++ {
			select {
			case <-s.done:
				return
			case <-time.After(step):
			}
			if _, err := c.Write([]byte{rest[i%len(rest)]}); err != nil {
				return
			}
		}
	}
}

// proxyTo forwards the connection to addr: a healthy path to the stand-in.
func proxyTo(addr string) func(net.Conn) {
	return func(c net.Conn) {
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer up.Close()
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
		go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
		<-done
	}
}

func hostOf(url string) string {
	return strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
}

// settleGoroutines waits until the number of goroutines is at most want, or
// the deadline passes, and returns the last count.
func settleGoroutines(want int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func goroutineDump() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}
