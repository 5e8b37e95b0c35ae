package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// hangGuard bounds a wait for something that comes in well under a second:
// far from any time a busy machine takes, only so that a hang fails the
// test instead of the whole run.
const hangGuard = 2 * time.Minute

// stdioSession is the server over StdioTransport on pipes, as the binary
// runs it: lines are written to its stdin and its answers read back.
type stdioSession struct {
	t       testing.TB
	in      *io.PipeWriter
	answers chan map[string]json.RawMessage // every line the server wrote
	ended   chan error                      // the session's end
	cancel  context.CancelFunc
}

func startStdio(t testing.TB) *stdioSession {
	t.Helper()
	return startStdioWith(t, Options{Config: &config.Config{Elicitation: true}, Version: "test"})
}

func startStdioWith(t testing.TB, o Options) *stdioSession {
	t.Helper()
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &stdioSession{t: t, in: inW, answers: make(chan map[string]json.RawMessage, 64), ended: make(chan error, 1), cancel: cancel}
	go func() {
		s.ended <- srv.MCP.Run(ctx, StdioTransport(inR, outW, time.Second))
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				// A batch answer: keep its elements.
				var batch []map[string]json.RawMessage
				if json.Unmarshal(sc.Bytes(), &batch) != nil {
					t.Errorf("the server wrote a line that is not JSON-RPC: %q", sc.Text())
					continue
				}
				for _, e := range batch {
					s.answers <- e
				}
				continue
			}
			s.answers <- m
		}
		close(s.answers)
		io.Copy(io.Discard, outR) // after the scanner gives up, never block the server
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-s.ended:
		case <-time.After(hangGuard):
			t.Errorf("the session did not end within %s of its input", hangGuard)
		}
	})
	return s
}

func (s *stdioSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the next line the server wrote that is not a notification.
func (s *stdioSession) next(what string) map[string]json.RawMessage {
	s.t.Helper()
	timeout := time.After(hangGuard)
	for {
		select {
		case m, ok := <-s.answers:
			if !ok {
				s.t.Fatalf("%s: the server's output ended (session ended: %v)", what, s.endedErr())
			}
			if _, isNote := m["method"]; isNote && m["id"] == nil {
				continue
			}
			return m
		case <-timeout:
			s.t.Fatalf("%s: no answer within %s", what, hangGuard)
		}
	}
}

func (s *stdioSession) endedErr() error {
	select {
	case err := <-s.ended:
		s.ended <- err
		return err
	default:
		return errors.New("still running")
	}
}

// probe sends a ping with a fresh id and waits for its answer, skipping
// anything else the server writes meanwhile.
func (s *stdioSession) probe(n int) {
	s.t.Helper()
	id := fmt.Sprintf(`"probe-%d"`, n)
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	for {
		m := s.next("the ping after a bad line")
		if string(m["id"]) == id {
			// A result, or an error when the line under test cancelled
			// this very id: either way the server read and answered it.
			if m["result"] == nil && m["error"] == nil {
				s.t.Fatalf("ping: %v", m)
			}
			return
		}
	}
}

func (s *stdioSession) initialize(version string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.next("initialize"); string(m["id"]) != `"init"` || m["result"] == nil {
		s.t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errorOf(t *testing.T, m map[string]json.RawMessage) (int, string) {
	t.Helper()
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("not an error answer: %v", m)
	}
	return e.Code, e.Message
}

// TestStdioBadLinesAreAnswered: each line that is not a JSON-RPC 2.0
// message gets its error answer (id null where none can be read), and the
// server goes on to answer the next request. Before, each of these ended the
// process with no answer.
func TestStdioBadLinesAreAnswered(t *testing.T) {
	cases := []struct {
		name, line string
		code       int
		id         string
		says       string
	}{
		{"garbage", `garbage`, -32700, "null", "not one JSON value"},
		{"an empty batch", `[]`, -32600, "null", "empty batch"},
		{"an empty object", `{}`, -32600, "null", `"jsonrpc" must be "2.0"`},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, -32600, "null", `needs a "method"`},
		{"a number", `123`, -32600, "null", "JSON object"},
		{"a string", `"tools/list"`, -32600, "null", "JSON object"},
		{"Infinity", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}`, -32700, "null", "not one JSON value"},
		{"NaN", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}`, -32700, "null", "not one JSON value"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7", `"jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"a","method":"ping"}`, -32600, `"a"`, `"jsonrpc" must be "2.0"`},
		{"jsonrpc in capitals", `{"JSONRPC":"2.0","id":8,"method":"ping"}`, -32600, "8", `"jsonrpc" must be "2.0"`},
		{"jsonrpc a number", `{"jsonrpc":2,"id":9,"method":"ping"}`, -32600, "9", "wrong type"},
		{"an object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", "id must be"},
		{"1e400 as id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null", "id must be"},
		{"a fraction as id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", "id must be"},
		{"null as a request's id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", "not null"},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":10,"method":5}`, -32600, "10", "method must be a string"},
		{"an error that is not an object", `{"jsonrpc":"2.0","id":11,"error":"x"}`, -32600, "11", "wrong type"},
		{"nesting deeper than 1000", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`, -32600, "null", "deeper than 1000"},
		{"a million brackets", strings.Repeat("[", 1<<20), -32600, "null", "deeper than 1000"},
		{"two messages on one line", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, "null", "not one JSON value"},
		{"a batch on 2025-11-25", `[{"jsonrpc":"2.0","id":12,"method":"ping"}]`, -32600, "null", "batches are not part"},
	}
	s := startStdio(t)
	s.initialize("2025-11-25")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			s.send(c.line)
			m := s.next(c.name)
			code, msg := errorOf(t, m)
			if code != c.code || string(m["id"]) != c.id || !strings.Contains(msg, c.says) || string(m["jsonrpc"]) != `"2.0"` {
				t.Errorf("answer %v (code %d, message %q), want code %d, id %s, saying %q", m, code, msg, c.code, c.id, c.says)
			}
			s.probe(i)
		})
	}
	s.t = t
}

// TestStdioTruncatedLine: a line cut short is answered as a parse error on
// its own; the request on the next line is answered as usual, not swallowed.
func TestStdioTruncatedLine(t *testing.T) {
	s := startStdio(t)
	s.initialize("2025-11-25")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	first, second := s.next("the truncated line"), s.next("the next request")
	if code, _ := errorOf(t, first); code != -32700 || string(first["id"]) != "null" {
		t.Errorf("the truncated line: %v", first)
	}
	if string(second["id"]) != "2" || second["result"] == nil {
		t.Errorf("the next request: %v", second)
	}
}

// TestStdioBatches: before 2025-06-18 a batch is served (go-sdk answers it
// as one array); one bad element refuses the whole batch, each request in
// it answered, and the session goes on. A batch that reuses an id in flight
// is refused likewise.
func TestStdioBatches(t *testing.T) {
	s := startStdio(t)
	s.initialize("2025-03-26")
	// Notifications in it, which go-sdk alone would wait on forever.
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/y"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	got := map[string]bool{}
	for range 2 {
		m := s.next("a good batch")
		if m["result"] == nil {
			t.Errorf("a good batch: %v", m)
		}
		got[string(m["id"])] = true
	}
	if !got["1"] || !got["2"] {
		t.Errorf("a good batch: answered %v", got)
	}
	s.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":{},"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	for _, want := range []struct{ id, says string }{{"3", "element 2"}, {"null", "id must be"}, {"3", "already in use"}} {
		m := s.next("a bad batch")
		code, msg := errorOf(t, m)
		if code != -32600 || string(m["id"]) != want.id || !strings.Contains(msg, want.says) {
			t.Errorf("a bad batch: %v, want id %s saying %q", m, want.id, want.says)
		}
	}
	s.probe(0)
}

// TestStdioLongLine: a line longer than the bound is answered (not held in
// memory) and the next request is served.
func TestStdioLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17 MB")
	}
	s := startStdio(t)
	s.initialize("2025-11-25")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", maxLine) + `"}}`)
	m := s.next("the long line")
	if code, msg := errorOf(t, m); code != -32600 || !strings.Contains(msg, "longer than") {
		t.Errorf("the long line: %v", m)
	}
	s.probe(0)
}

// FuzzStdioLine: whatever a client writes on a line, the server answers
// what it can and stays up: a ping sent after it is answered. The seeds
// (here and in testdata/fuzz/FuzzStdioLine) replay in every test run;
// `go test -fuzz=FuzzStdioLine ./internal/app` searches further.
func FuzzStdioLine(f *testing.F) {
	for _, seed := range []string{
		`garbage`, `[]`, `{}`, `123`, `null`, `true`, `"x"`, `[1,2,3]`, `[{}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":NaN}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":"x"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"delete_playlist","arguments":{"playlist_id":"p"}}}`,
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":"c","method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"probe-0"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`{"jsonrpc":"2.0","id":1,"method":"ping"} trailing`,
		"\xff\xfe{}",
	} {
		for _, old := range []bool{false, true} {
			f.Add([]byte(seed), old)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, old bool) {
		s := startStdio(t)
		version := "2025-11-25"
		if old {
			version = "2025-03-26" // a revision with batches
		}
		s.initialize(version)
		if _, err := s.in.Write(append(line, '\n')); err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
		s.probe(0)
		s.probe(1)
	})
}
