package app

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// StdioTransport is MCP over stdin and stdout that answers what it has read
// before it ends.
//
// go-sdk ends a connection as soon as its input ends, and cancels the
// requests still in flight: `printf '…' | audiobookshelf-mcp` would get no
// answer to anything but the fastest requests. Here the end of stdin is held
// back from go-sdk until every request read has been answered (or
// cancelled by the client), for at most drain; it is passed on at once while
// the server waits for an answer from the client (to a question, a ping),
// since after the end of stdin none can come.
func StdioTransport(stdin io.Reader, stdout io.Writer, drain time.Duration) mcp.Transport {
	p := newPending(drain)
	return &mcp.IOTransport{
		Reader: &drainingReader{r: stdin, p: p},
		Writer: &answerWriter{w: stdout, p: p},
	}
}

// pending tracks the requests read and not yet answered, and the server's
// own requests to the client not yet answered.
type pending struct {
	mu      sync.Mutex
	ids     map[string]bool // the client's requests
	asked   map[string]bool // the server's requests (a question, a ping)
	closed  bool
	line    []byte // an incomplete line read so far
	drain   time.Duration
	changed chan struct{}
}

func newPending(drain time.Duration) *pending {
	return &pending{ids: map[string]bool{}, asked: map[string]bool{}, drain: drain, changed: make(chan struct{}, 1)}
}

func (p *pending) signal() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// settled is true when the end of input may be passed on.
func (p *pending) settled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids) == 0 || len(p.asked) > 0 || p.closed
}

// wait blocks until settled or drain has passed.
func (p *pending) wait() {
	timer := time.NewTimer(p.drain)
	defer timer.Stop()
	for !p.settled() {
		select {
		case <-p.changed:
		case <-timer.C:
			return
		}
	}
}

// read records the requests in b, the bytes just read from the client.
func (p *pending) read(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			break
		}
		for _, m := range messages(p.line[:i]) {
			switch {
			case m.Method == "notifications/cancelled":
				var c struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &c) == nil {
					delete(p.ids, idKey(c.RequestID))
				}
			case m.Method != "" && m.hasID():
				p.ids[idKey(m.ID)] = true
			case m.hasID(): // the client's answer to the server
				delete(p.asked, idKey(m.ID))
			}
		}
		p.line = p.line[i+1:]
	}
	if len(p.line) == 0 || len(p.line) > mcp.DefaultMaxLineLength {
		// Nothing left, or a line longer than go-sdk reads, which it refuses
		// with no id to wait for: keep no large buffer alive.
		p.line = nil
	}
}

// wrote records the answers and requests in b, one message or batch as
// go-sdk writes it to the client.
func (p *pending) wrote(b []byte) {
	b = bytes.TrimSpace(b)
	var ms []message
	if m, ok := answerHead(b); ok {
		ms = []message{m}
	} else {
		ms = messages(b)
	}
	p.mu.Lock()
	for _, m := range ms {
		switch {
		case m.Method == "" && m.hasID():
			delete(p.ids, idKey(m.ID))
		case m.Method != "" && m.hasID():
			p.asked[idKey(m.ID)] = true
		}
	}
	p.mu.Unlock()
	p.signal()
}

// message is what pending reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// messages decodes one line: a message or a batch of them. A line that is
// not JSON-RPC yields none (go-sdk answers it, with no id to wait for). It
// runs on every message either way, so it uses the one-pass decoder, which
// skips a result of any size without building it.
func messages(line []byte) []message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []message
		if sjson.Unmarshal(line, &batch) != nil {
			return nil
		}
		return batch
	}
	var m message
	if sjson.Unmarshal(line, &m) != nil {
		return nil
	}
	return []message{m}
}

// answerHead reads the id of an answer go-sdk writes, up to its result or
// error and no further: an answer is as large as what a tool returns (a
// full item is tens of KB), and its id comes first. ok is false for
// anything else (a request of the server's, a notification, a batch, an id
// after the result), which messages reads whole.
func answerHead(line []byte) (message, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return message{}, false
	}
	var m message
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return message{}, false
		}
		switch t {
		case "jsonrpc":
			var v string
			if dec.Decode(&v) != nil {
				return message{}, false
			}
		case "id":
			if dec.Decode(&m.ID) != nil {
				return message{}, false
			}
		case "result", "error":
			return m, m.hasID()
		default: // "method", or anything unexpected
			return message{}, false
		}
	}
	return message{}, false
}

// idKey is an id as one comparable string: 7, 7.0 and 7e0 are one number;
// "7" is another id.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case string:
		return "s" + v
	case float64:
		return "n" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return string(raw)
}

// drainingReader is stdin with its end held back until pending settles.
type drainingReader struct {
	r io.Reader
	p *pending
}

func (d *drainingReader) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if n > 0 {
		d.p.read(b[:n])
	}
	if err == io.EOF {
		d.p.wait()
	}
	return n, err
}

// Close releases a Read held at the end of input (the session is ending).
func (d *drainingReader) Close() error {
	d.p.mu.Lock()
	d.p.closed = true
	d.p.mu.Unlock()
	d.p.signal()
	if c, ok := d.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// answerWriter is stdout, watched for answers.
type answerWriter struct {
	w io.Writer
	p *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	a.p.wrote(b[:n])
	return n, err
}

// Close leaves stdout open, as go-sdk's own stdio transport does.
func (a *answerWriter) Close() error { return nil }
