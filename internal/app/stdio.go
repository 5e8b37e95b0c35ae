package app

import (
	"bytes"
	"encoding/json"
	"fmt"
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
//
// Each line is checked before go-sdk reads it (see checkLine): a line that is
// not a JSON-RPC 2.0 message is answered here with a parse error or an
// invalid request, and the server goes on reading.
func StdioTransport(stdin io.Reader, stdout io.Writer, drain time.Duration) mcp.Transport {
	p := newPending(drain)
	w := &answerWriter{w: stdout, p: p}
	return &mcp.IOTransport{
		Reader: &drainingReader{r: stdin, p: p, w: w},
		Writer: w,
		// The reader bounds a line itself (maxLine) and answers one that is
		// too long; go-sdk's own bound would end the connection instead.
		MaxLineLength: -1,
	}
}

// maxLine bounds one line of input, as go-sdk's default does.
const maxLine = mcp.DefaultMaxLineLength

// pending tracks the requests read and not yet answered, and the server's
// own requests to the client not yet answered.
type pending struct {
	mu     sync.Mutex
	ids    map[string]bool // the client's requests
	asked  map[string]bool // the server's requests (a question, a ping)
	closed bool
	drain  time.Duration
	// The protocol revision, as far as it is known: what initialize asked
	// for until its answer says what was agreed. Batches depend on it.
	initID    string
	requested string
	agreed    string
	changed   chan struct{}
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

// record notes the messages of one line passed on to go-sdk.
func (p *pending) record(ms []message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range ms {
		switch {
		case m.Method == "notifications/cancelled":
			var c struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if err := json.Unmarshal(m.Params, &c); err != nil {
				break // params go-sdk cannot read either: no request is cancelled
			}
			delete(p.ids, idKey(c.RequestID))
		case m.Method != "" && m.hasID():
			p.ids[idKey(m.ID)] = true
			if m.Method == "initialize" && p.initID == "" {
				var ip struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if err := json.Unmarshal(m.Params, &ip); err != nil {
					// go-sdk refuses params it cannot read: no revision is asked for.
					ip.ProtocolVersion = ""
				}
				p.initID, p.requested = idKey(m.ID), ip.ProtocolVersion
			}
		case m.hasID(): // the client's answer to the server
			delete(p.asked, idKey(m.ID))
		}
	}
}

// isPending reports whether a request with this id key is unanswered.
func (p *pending) isPending(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[key]
}

// batchesAllowed mirrors go-sdk: batches before initialize, and under the
// revisions that have them. While initialize is unanswered, the revision it
// asked for is what go-sdk will agree to if it has batches.
func (p *pending) batchesAllowed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.agreed != "":
		return batchVersions[p.agreed]
	case p.initID != "":
		return batchVersions[p.requested]
	}
	return true
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
			k := idKey(m.ID)
			if k == p.initID && p.agreed == "" && p.ids[k] {
				var r struct {
					Result struct {
						ProtocolVersion string `json:"protocolVersion"`
					} `json:"result"`
				}
				if err := json.Unmarshal(b, &r); err != nil {
					r.Result.ProtocolVersion = "" // an answer not read is taken as a refusal
				}
				p.agreed = r.Result.ProtocolVersion
				if p.agreed == "" { // refused: no revision agreed yet
					p.initID, p.requested = "", ""
				}
			}
			delete(p.ids, k)
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

// drainingReader is stdin cut into lines: each line is checked (checkLine),
// a bad one answered at once and dropped, a good one passed on to go-sdk;
// the end of input is held back until pending settles.
type drainingReader struct {
	r    io.Reader
	p    *pending
	w    *answerWriter
	buf  []byte // read from stdin, not yet cut into lines
	line []byte // the line being read
	long bool   // the line being read is longer than maxLine: skip to its end
	out  []byte // checked lines, ready for go-sdk
	err  error  // stdin's error, once it came
}

const readChunk = 64 << 10

func (d *drainingReader) Read(b []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			if d.err == io.EOF {
				d.p.wait()
			}
			return 0, d.err
		}
		if cap(d.buf) < readChunk {
			d.buf = make([]byte, readChunk)
		}
		n, err := d.r.Read(d.buf[:readChunk])
		d.take(d.buf[:n])
		if err != nil {
			if len(d.line) > 0 || d.long {
				d.endLine() // a last line without its newline
			}
			d.err = err
		}
	}
	n := copy(b, d.out)
	d.out = d.out[n:]
	if len(d.out) == 0 {
		d.out = d.out[:0:0]
	}
	return n, nil
}

// take cuts chunk into lines.
func (d *drainingReader) take(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if !d.long {
			if len(d.line)+len(part) > maxLine {
				d.long, d.line = true, nil
			} else {
				d.line = append(d.line, part...)
			}
		}
		if i < 0 {
			return
		}
		d.endLine()
		chunk = chunk[i+1:]
	}
}

// endLine decides the line read so far.
func (d *drainingReader) endLine() {
	line, long := d.line, d.long
	d.line, d.long = d.line[:0], false
	if cap(d.line) > readChunk {
		d.line = nil // keep no large buffer alive
	}
	if long {
		d.w.reply(invalidRequest(nil, fmt.Sprintf("the line is longer than %d bytes", maxLine)).reply())
		return
	}
	pass, ms, reply := checkLine(line, d.p.batchesAllowed(), d.p.isPending)
	if len(pass) == 0 {
		if reply != nil {
			d.w.reply(reply)
		}
		return
	}
	d.p.record(ms)
	for _, l := range pass {
		d.out = append(d.out, l...)
		d.out = append(d.out, '\n')
	}
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
	mu sync.Mutex // go-sdk's writes and the reader's replies, one at a time
	w  io.Writer
	p  *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.mu.Lock()
	n, err := a.w.Write(b)
	a.mu.Unlock()
	a.p.wrote(b[:n])
	return n, err
}

// reply writes the transport's own answer to a line it did not pass on. It
// is not recorded: its id, if any, belongs to no request go-sdk holds.
func (a *answerWriter) reply(b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(append(b, '\n'))
}

// Close leaves stdout open, as go-sdk's own stdio transport does.
func (a *answerWriter) Close() error { return nil }
