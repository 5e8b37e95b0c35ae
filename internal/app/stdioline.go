package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	sjson "github.com/segmentio/encoding/json"
)

// The stdio transport reads one JSON-RPC message (or batch) per line, as the
// MCP stdio transport says. go-sdk's reader ends the whole connection on the
// first message it cannot decode — the process exits and the client loses
// every tool — so each line is checked here first, with the same decoder and
// the same rules go-sdk applies. A line that fails is answered here as
// JSON-RPC 2.0 says (-32700 parse error, -32600 invalid request; id null
// where none can be read) and never reaches go-sdk; the lines after it are
// read as usual.

// JSON-RPC 2.0 error codes the transport answers itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxDepth is go-sdk's bound on nesting (internal/json.defaultMaxDepth):
// a deeper message fails its decoder.
const maxDepth = 1000

// maxSafeID is the largest integer id go-sdk keeps exactly: it reads a
// number id as a float64 and then as an int64, so 1.5 would be answered as 1
// and 2^53+1 as 2^53, and the client would never see its answer.
const maxSafeID = 1 << 53

// batchVersions are the protocol revisions that have JSON-RPC batches; go-sdk
// ends the connection on a batch under any later one.
var batchVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true}

// refusal is a line the transport answers itself.
type refusal struct {
	code int
	msg  string
	id   json.RawMessage // nil: null
}

// reply is the JSON-RPC error response for r, one line.
func (r refusal) reply() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{r.code, r.msg}})
	return b
}

func parseError(why string) *refusal {
	return &refusal{code: codeParseError, msg: "Parse error: " + why}
}

func invalidRequest(id json.RawMessage, why string) *refusal {
	return &refusal{code: codeInvalidRequest, msg: "Invalid Request: " + why, id: id}
}

// wire is a message as go-sdk decodes it (jsonrpc2.wireDecode): any field
// that does not decode into it ends go-sdk's connection.
type wire struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// decodeExact decodes as go-sdk does: segmentio's decoder, with field names
// matched exactly ("JSONRPC" is not "jsonrpc").
func decodeExact(b []byte, v any) error {
	dec := sjson.NewDecoder(bytes.NewReader(b))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// tooDeep reports whether b nests objects and arrays deeper than maxDepth,
// counting as go-sdk does (brackets outside strings). It runs before any
// decoder, so that a line of a million '[' costs one pass and no recursion.
func tooDeep(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// trimJSONSpace trims what JSON counts as whitespace, and nothing else.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// checkLine decides one line of input (without its newline). pass are the
// lines to hand to go-sdk, and ms their messages. When pass is empty, reply
// is what to write back (nil: nothing, for a line go-sdk could not answer
// either, such as a response to the server without an id). batchesAllowed
// says whether the protocol agreed so far has batches; pending whether a
// request id is unanswered (go-sdk ends the connection on a batch that
// reuses one).
//
// The notifications of a batch are passed on as lines of their own, before
// the rest of it: go-sdk waits for an answer to each element of a batch
// that is not an answer itself, a notification included, so one
// notification would hold back every answer to the batch (and two end the
// connection).
func checkLine(line []byte, batchesAllowed bool, pending func(key string) bool) (pass [][]byte, ms []message, reply []byte) {
	ok, ms, reply, elems := checkLine0(line, batchesAllowed, pending)
	if !ok {
		return nil, nil, reply
	}
	line = trimJSONSpace(line)
	if elems == nil {
		return [][]byte{line}, ms, nil
	}
	var rest [][]byte
	for i, m := range ms {
		if m.Method != "" && !m.hasID() {
			pass = append(pass, trimJSONSpace(elems[i]))
		} else {
			rest = append(rest, trimJSONSpace(elems[i]))
		}
	}
	if len(rest) > 0 {
		b := []byte{'['}
		b = append(b, bytes.Join(rest, []byte{','})...)
		pass = append(pass, append(b, ']'))
	}
	return pass, ms, nil
}

// checkLine0 checks a line; for a good batch it also returns its elements,
// one per message.
func checkLine0(line []byte, batchesAllowed bool, pending func(key string) bool) (ok bool, ms []message, reply []byte, batch []json.RawMessage) {
	line = trimJSONSpace(line)
	if len(line) == 0 {
		return false, nil, nil, nil
	}
	if tooDeep(line) {
		return false, nil, invalidRequest(nil, fmt.Sprintf("the message nests deeper than %d levels", maxDepth)).reply(), nil
	}
	// Exactly one JSON value on the line, read as go-sdk's stream decoder
	// reads it (then as encoding/json would: both must accept it).
	var raw json.RawMessage
	if !json.Valid(line) || decodeExact(line, &raw) != nil || len(trimJSONSpace(raw)) != len(line) {
		return false, nil, parseError("the line is not one JSON value (each line must be one JSON-RPC 2.0 message, with no line breaks inside it)").reply(), nil
	}
	if line[0] != '[' {
		m, r := checkMessage(line)
		if r != nil {
			if r.code == 0 {
				return false, nil, nil, nil
			}
			return false, nil, r.reply(), nil
		}
		return true, []message{m}, nil, nil
	}
	var elems []json.RawMessage
	if decodeExact(line, &elems) != nil {
		return false, nil, parseError("the batch could not be read").reply(), nil
	}
	if len(elems) == 0 {
		return false, nil, invalidRequest(nil, "an empty batch").reply(), nil
	}
	if !batchesAllowed {
		return false, nil, invalidRequest(nil, "batches are not part of this protocol revision (only 2024-11-05 and 2025-03-26 have them): send one message per line").reply(), nil
	}
	// A batch goes to go-sdk whole or not at all: one bad element, or an id
	// used twice, and every request in it is answered here.
	refusals := make([]*refusal, len(elems))
	seen := map[string]bool{}
	bad := -1
	for i, e := range elems {
		m, r := checkMessage(e)
		if r != nil {
			refusals[i] = r
			if bad < 0 {
				bad = i
			}
			continue
		}
		ms = append(ms, m)
		if m.Method != "" && m.hasID() {
			k := idKey(m.ID)
			if seen[k] || pending(k) {
				refusals[i] = invalidRequest(m.ID, "this id is already in use by another request")
				if bad < 0 {
					bad = i
				}
			}
			seen[k] = true
		}
	}
	if bad < 0 {
		return true, ms, nil, elems
	}
	var out []json.RawMessage
	for i, e := range elems {
		r := refusals[i]
		if r == nil {
			m, _ := checkMessage(e)
			if m.Method == "" || !m.hasID() {
				continue // a notification or an answer: nothing to say
			}
			r = invalidRequest(m.ID, fmt.Sprintf("not run: element %d of its batch is not a valid request, so none of the batch was run", bad+1))
		}
		if r.code == 0 {
			continue
		}
		out = append(out, r.reply())
	}
	if len(out) == 0 {
		return false, nil, nil, nil
	}
	b, _ := json.Marshal(out)
	return false, nil, b, nil
}

// checkMessage checks one message as go-sdk's jsonrpc2.DecodeMessage will,
// plus what MCP asks of an id. A refusal with code 0 means: drop it without
// an answer (an answer to the server that carries no id).
func checkMessage(b []byte) (message, *refusal) {
	b = trimJSONSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return message{}, invalidRequest(nil, "a message must be a JSON object")
	}
	// The id first, on its own: worth echoing in any refusal it can be.
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if decodeExact(b, &head) != nil {
		return message{}, invalidRequest(nil, "a message must be a JSON object")
	}
	rawID := trimJSONSpace(head.ID)
	nullID := len(rawID) == 0 || string(rawID) == "null"
	var id json.RawMessage
	switch {
	case validID(rawID):
		id = rawID
	case !nullID:
		return message{}, invalidRequest(nil, "id must be a string or an integer between -2^53 and 2^53")
	}
	var w wire
	if err := decodeExact(b, &w); err != nil {
		return message{}, invalidRequest(id, "a field has the wrong type (jsonrpc and method must be strings, error an object with an integer code and a string message)")
	}
	if w.VersionTag != "2.0" {
		return message{}, invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	var method string
	hasMethod := len(w.Method) > 0
	if hasMethod && json.Unmarshal(w.Method, &method) != nil {
		return message{}, invalidRequest(id, "method must be a string")
	}
	switch {
	case hasMethod && len(rawID) > 0 && id == nil:
		// "id": null. go-sdk would take it for a notification and never
		// answer; MCP says a request's id is a string or an integer.
		return message{}, invalidRequest(nil, "id must be a string or an integer, not null")
	case !hasMethod && id == nil:
		if len(w.Result) > 0 || w.Error != nil {
			// An answer without an id (a client reporting that it could not
			// read something): it answers nothing, and nothing answers it.
			return message{}, &refusal{}
		}
		return message{}, invalidRequest(nil, `a message needs a "method" (a request or notification) or an "id" with a "result" or "error" (an answer)`)
	}
	return message{ID: id, Method: method, Params: w.Params}, nil
}

// validID reports whether raw is an id go-sdk answers with the same id: a
// string, or an integer it holds exactly.
func validID(raw json.RawMessage) bool {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f <= maxSafeID && f >= -maxSafeID && f == float64(int64(f))
	}
	return false
}
