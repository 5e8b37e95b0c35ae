package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// response is one Audiobookshelf answer, read whole within the limit.
type response struct {
	Status      int
	Body        []byte
	ContentType string
	// Method and Path are the request's (Path: its URL path).
	Method, Path string
}

// sender sends one request through the generated client.
type sender func(ctx context.Context) (*http.Response, error)

// send makes one request with the configured timeout and reads the answer.
// A transport failure becomes a tool error; every status is returned.
// mutating says whether the request changes something, so the error can say
// honestly whether the change may have happened.
func (d *Deps) send(ctx context.Context, mutating bool, s sender) (*response, *mcp.CallToolResult) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	resp, err := s(ctx)
	if err != nil {
		return nil, d.transportError(ctx, mutating, err)
	}
	defer resp.Body.Close()
	limit := d.MaxBody
	if limit <= 0 {
		limit = MaxResponseBytes
	}
	body, err := readLimited(resp.Body, resp.ContentLength, limit)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, errorResult("Audiobookshelf sent more than %d MB for one answer; it was not read. Ask for a smaller page (limit) or use detail \"compact\".%s", limit>>20, outcomeOf(mutating))
		}
		return nil, d.transportError(ctx, mutating, err)
	}
	if k := keyFrom(ctx); k != "" {
		body = newKeyFinder([]byte(k)).redact(body)
	} else if d.redact != nil {
		body = d.redact(body)
	}
	r := &response{Status: resp.StatusCode, Body: body, ContentType: resp.Header.Get("Content-Type")}
	if resp.Request != nil && resp.Request.URL != nil {
		r.Method, r.Path = resp.Request.Method, resp.Request.URL.Path
	}
	if r.Status == http.StatusNotFound || r.Status == http.StatusUnauthorized {
		if res := d.versionGate(ctx, resp.Request, r.Status); res != nil {
			return nil, res
		}
	}
	if r.Status == http.StatusUnauthorized && keyFrom(ctx) != "" {
		// Per person: the key was accepted when it was checked, shortly
		// before; it has been deleted or deactivated since.
		return nil, errorResult("Audiobookshelf at %s refused your API key (the one your client sends as Authorization: Bearer) for this call: it was accepted a moment ago, so it has been deleted, deactivated or has expired since. Ask an Audiobookshelf admin for a new one (Settings → API Keys; only an admin can make one, for the user it acts for) and put it in your client. Nothing was changed.", d.BaseURL)
	}
	if r.Status/100 == 2 {
		if what := notAPI(r); what != "" {
			// A web page, a proxy's page or a file answered in the API's
			// place: a write must not be reported as done.
			return nil, errorResult("Audiobookshelf at %s answered with %s, not the API's JSON. Is AUDIOBOOKSHELF_URL the Audiobookshelf server itself, not a web page, a proxy or a file in front of it?%s", d.BaseURL, what, outcomeOf(mutating))
		}
	}
	return r, nil
}

// outcomeOf is the sentence that says whether a failed call changed anything.
func outcomeOf(mutating bool) string {
	if mutating {
		return " It is not known whether the change was made; read it back before trying again."
	}
	return " Nothing was changed."
}

// notAPI describes a successful answer that cannot be the API's (an HTML
// page, audio, video, an image or a binary file), or returns "". Plain text
// stays allowed: Audiobookshelf answers some writes with "OK".
func notAPI(r *response) string {
	if isHTML(r) {
		return "an HTML page"
	}
	mt, _, _ := mime.ParseMediaType(r.ContentType)
	switch {
	case strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "image/"),
		mt == "application/octet-stream", mt == "application/pdf", mt == "application/zip":
		return "a file of type " + mt
	}
	return ""
}

func isHTML(r *response) bool {
	ct := strings.ToLower(r.ContentType)
	body := bytes.ToLower(bytes.TrimSpace(r.Body[:min(len(r.Body), 512)]))
	return strings.Contains(ct, "html") || bytes.HasPrefix(body, []byte("<!doctype")) || bytes.HasPrefix(body, []byte("<html"))
}

// isPage reports whether a body is markup (a web page, a proxy's error
// page) rather than a text: a tag near its start ('<' then a letter, '/' or
// '!'). Audiobookshelf's own refusals are plain sentences without one.
func isPage(body []byte) bool {
	head := body[:min(len(body), 1024)]
	for i := 0; i+1 < len(head); i++ {
		if head[i] != '<' {
			continue
		}
		switch c := head[i+1]; {
		case c == '/' || c == '!', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			return true
		}
	}
	return false
}

// get sends a request and expects a 2xx answer; what names the thing asked
// for in a 404 message ("collection 1234").
func (d *Deps) get(ctx context.Context, what string, s sender) ([]byte, *mcp.CallToolResult) {
	r, res := d.send(ctx, false, s)
	if res != nil {
		return nil, res
	}
	if r.Status/100 != 2 {
		return nil, statusError(r, what, false)
	}
	return r.Body, nil
}

// mutate sends a changing request and expects a 2xx answer.
func (d *Deps) mutate(ctx context.Context, what string, s sender) ([]byte, *mcp.CallToolResult) {
	r, res := d.send(ctx, true, s)
	if res != nil {
		return nil, res
	}
	if r.Status/100 != 2 {
		return nil, statusError(r, what, true)
	}
	// Believed only when the answer is Audiobookshelf's to this write.
	if res := d.checkWrite(r, what); res != nil {
		return nil, res
	}
	return r.Body, nil
}

// decode parses a JSON answer into v, or says that it was not JSON.
func decode(body []byte, v any) *mcp.CallToolResult {
	if err := unmarshal(body, v); err != nil {
		return errorResult("Audiobookshelf's answer was not the JSON expected (%s). Is AUDIOBOOKSHELF_URL the Audiobookshelf server, and is it version 2.26 or newer?", clip(err.Error(), 120))
	}
	return nil
}

// unmarshal decodes an Audiobookshelf answer into a projection's types with
// segmentio/encoding/json, the decoder go-sdk reads every protocol message
// with (so the binary gains nothing): encoding/json's behaviour, including
// the Unmarshaler types here, in one pass where encoding/json makes a
// validating pass and then a decoding one that rescans what it skips. On an
// expanded item, mostly fields the projection skips, that is about three
// times faster.
func unmarshal(b []byte, v any) error { return sjson.Unmarshal(b, v) }

func (d *Deps) transportError(ctx context.Context, mutating bool, err error) *mcp.CallToolResult {
	outcome := "Nothing was changed."
	if mutating {
		outcome = "It is not known whether Audiobookshelf made the change; read it back before trying again."
	}
	var reason string
	var dnsErr *net.DNSError
	var urlErr *url.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || os.IsTimeout(err):
		reason = fmt.Sprintf("did not answer within %s", d.Timeout)
	case errors.Is(err, context.Canceled):
		reason = "the call was cancelled"
	case errors.As(err, &dnsErr):
		reason = fmt.Sprintf("could not be reached: its host name %q could not be resolved. Check the host name in AUDIOBOOKSHELF_URL: a name this machine can look up, or an IP address (from inside a container, the name of the Audiobookshelf service on the container's network)", dnsErr.Name)
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") || strings.Contains(err.Error(), "first record does not look like a TLS handshake"):
		reason = fmt.Sprintf("answered in plain http, but AUDIOBOOKSHELF_URL says https. Set AUDIOBOOKSHELF_URL to %s (or serve Audiobookshelf with TLS at that address)", "http://"+strings.TrimPrefix(d.BaseURL, "https://"))
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "refused the connection (is it running, and is the port right?)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		reason = "closed the connection before its answer was complete"
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		reason = "closed the connection without answering (a proxy in front of it, or the server stopping, can do this)"
	case strings.Contains(err.Error(), "certificate"):
		reason = "presented a TLS certificate that could not be verified. For a self-signed certificate, trust that one certificate: set SSL_CERT_FILE to a PEM file holding it (Linux and the container; on macOS and Windows add it to the system's trust store). Only if that cannot be done, AUDIOBOOKSHELF_INSECURE_TLS=true skips the check altogether"
	default:
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		reason = "could not be reached: " + clip(err.Error(), 160)
	}
	return errorResult("Audiobookshelf at %s %s. %s", d.BaseURL, reason, outcome)
}

// statusError turns a non-2xx answer into a tool error with the status, the
// server's own message (capped, plain text only) and what to do.
func statusError(r *response, what string, mutating bool) *mcp.CallToolResult {
	msg := serverMessage(r)
	status := fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
	unchanged := " Nothing was changed."
	if mutating && r.Status >= 500 {
		unchanged = " It is not known whether the change was made; read it back before trying again."
	}
	switch {
	case r.Status == http.StatusUnauthorized:
		return errorResult("Audiobookshelf refused the API key (%s%s). Check AUDIOBOOKSHELF_API_KEY: an admin creates a key in Audiobookshelf under Settings → API Keys, choosing the user it acts for; make sure it is active.%s", status, msg, unchanged)
	case r.Status == http.StatusForbidden && !mutating:
		// A read: no permission to change anything is involved, and nothing
		// was going to change.
		return errorResult("Audiobookshelf answered %s%s: the user of this API key may not read %s (a playlist can be read only by the user who made it; some other reads are for admins only).", status, msg, what)
	case r.Status == http.StatusForbidden:
		return errorResult("Audiobookshelf answered %s%s: the user of this API key may not do this (deleting needs the delete permission, changing collections the update permission; playlists belong to their owner).%s", status, msg, unchanged)
	case r.Status == http.StatusNotFound:
		return errorResult("Audiobookshelf answered %s%s for %s: check the id (list and search tools give ids).%s", status, msg, what, unchanged)
	case r.Status/100 == 3:
		return errorResult("Audiobookshelf answered %s, a redirect, which is not followed so that the API key does not travel to another address. Set AUDIOBOOKSHELF_URL to the address the server is really served at.%s", status, unchanged)
	case r.Status/100 == 4:
		return errorResult("Audiobookshelf rejected the request for %s (%s%s).%s", what, status, msg, unchanged)
	default:
		return errorResult("Audiobookshelf failed on %s (%s%s). Try again later; if it persists, look at the Audiobookshelf server's log.%s", what, status, msg, unchanged)
	}
}

// serverMessage is ": <text>" for a short plain-text or JSON body, or a note
// for a web page; never headers. Audiobookshelf answers its own errors with
// a short text (Express's res.send) that is labelled text/html: that is its
// words, passed on quoted and clipped, not a page.
func serverMessage(r *response) string {
	body := bytes.TrimSpace(r.Body)
	if len(body) == 0 {
		return ""
	}
	if isPage(body) {
		return ": the answer was an HTML page, not the API (is AUDIOBOOKSHELF_URL the Audiobookshelf server?)"
	}
	var j struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &j) == nil && (j.Error != "" || j.Message != "") {
		body = []byte(j.Error + j.Message)
	}
	return ": " + strconvQuote(clip(cleanText(string(body)), 200))
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cleanText replaces control, zero-width and bidi-control characters with
// U+FFFD and folds white space, so text from Audiobookshelf cannot hide or
// reorder anything in what a model reads.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		switch {
		case c == '\n' || c == '\t':
			b.WriteRune(c)
		case unicode.IsControl(c) || isInvisible(c):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// isInvisible reports format characters that hide or reorder text:
// zero-width, bidi controls and the like (Unicode category Cf), and tag
// characters.
func isInvisible(c rune) bool {
	return unicode.Is(unicode.Cf, c) || (c >= 0xE0000 && c <= 0xE007F)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ---------------------------------------------------------------- results

// errorResult is a tool error a model can act on.
func errorResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// ArgumentError is the result for arguments that do not check out. Nothing
// was sent to Audiobookshelf.
func ArgumentError(err error) *mcp.CallToolResult {
	return errorResult("%s. Nothing was sent to Audiobookshelf.", strings.ReplaceAll(err.Error(), "\n", "; "))
}

// textResult is a plain successful answer.
func textResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// jsonResult marshals v as compact JSON text.
func jsonResult(v any) *mcp.CallToolResult {
	b, err := marshal(v)
	if err != nil {
		return errorResult("internal error: could not encode the result: %v", err)
	}
	return jsonText(b)
}

// jsonText is a result whose one content is the JSON text b. It carries no
// structured content: no tool declares an output schema, and a second copy
// of the same JSON would double what is sent, decoded and, by a client that
// shows a model both, read.
func jsonText(b []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// rawResult returns Audiobookshelf's JSON as it came (detail "full"),
// compacted, with invisible characters escaped so that they show.
func rawResult(body []byte) *mcp.CallToolResult {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return errorResult("Audiobookshelf's answer was not JSON (%s).", clip(err.Error(), 120))
	}
	return jsonText(escapeInvisible(buf.Bytes()))
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeInvisible(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// escapeInvisible rewrites zero-width, bidi-control and other invisible
// format characters inside JSON text as \uXXXX escapes, and the control
// characters a JSON encoder leaves raw (DEL and the C1 controls, such as
// U+009B, a terminal's CSI): the JSON means the same, but a reader sees the
// escape instead of reordered, hidden or terminal-controlling text.
func escapeInvisible(b []byte) []byte {
	clean := true
	for _, c := range string(b) {
		if mustEscape(c) {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for _, c := range string(b) {
		if mustEscape(c) {
			if c > 0xFFFF {
				r1, r2 := utf16Surrogates(c)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&out, `\u%04x`, c)
			}
			continue
		}
		out.WriteRune(c)
	}
	return out.Bytes()
}

// mustEscape reports what escapeInvisible rewrites. C0 controls need no
// entry: inside a JSON string they are always escaped already, and outside
// one they cannot occur in compact JSON.
func mustEscape(c rune) bool {
	return isInvisible(c) || c == '\u2028' || c == '\u2029' || c == 0x7f || (c >= 0x80 && c <= 0x9f)
}

func utf16Surrogates(c rune) (rune, rune) {
	c -= 0x10000
	return 0xD800 + (c>>10)&0x3FF, 0xDC00 + c&0x3FF
}

// Ready is the result for a call that cannot be made because the server is
// not set up, or nil. needsAuth is false for the status route.
func (d *Deps) Ready(needsAuth bool) *mcp.CallToolResult {
	if d.API == nil {
		return errorResult("This server is not connected to an Audiobookshelf server yet: AUDIOBOOKSHELF_URL is not set. Set AUDIOBOOKSHELF_URL (e.g. http://127.0.0.1:13378) and AUDIOBOOKSHELF_API_KEY (an admin makes one in Audiobookshelf under Settings → API Keys) in this MCP server's environment in the client's configuration, then restart it.")
	}
	if needsAuth && !d.HasKey {
		return errorResult("AUDIOBOOKSHELF_API_KEY is not set, so Audiobookshelf at %s would refuse this call. An admin creates a key in Audiobookshelf under Settings → API Keys (choosing the user it acts for); put it in this MCP server's environment in the client's configuration, and restart it.", d.BaseURL)
	}
	return nil
}
