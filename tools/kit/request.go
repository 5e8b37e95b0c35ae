package kit

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

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Response is one Audiobookshelf answer, read whole within the limit.
type Response struct {
	Status      int
	Body        []byte
	ContentType string
	// Method and Path are the request's (Path: its URL path).
	Method, Path string
}

// Sender sends one request through the generated client.
type Sender func(ctx context.Context) (*http.Response, error)

// Send makes one request with the configured timeout and reads the answer.
// A transport failure becomes a tool error; every status is returned.
// mutating says whether the request changes something, so the error can say
// honestly whether the change may have happened.
func (d *Deps) Send(ctx context.Context, mutating bool, s Sender) (*Response, error) {
	if mutating {
		// One write at a time to a library item (itemlock.go).
		release, err := d.lockItem(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	resp, err := s(ctx)
	if err != nil {
		return nil, d.TransportError(ctx, mutating, err)
	}
	defer resp.Body.Close()
	limit := d.MaxBody
	if limit <= 0 {
		limit = MaxResponseBytes
	}
	body, err := ReadLimited(resp.Body, resp.ContentLength, limit)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, &Error{Text: fmt.Sprintf("Audiobookshelf sent more than %d MB for one answer; it was not read. Ask for a smaller page (limit) or use detail \"compact\".", limit>>20), Outcome: outcomeOf(mutating), cause: ErrTooLarge}
		}
		return nil, d.TransportError(ctx, mutating, err)
	}
	body = d.Redact(ctx, body)
	r := &Response{Status: resp.StatusCode, Body: body, ContentType: resp.Header.Get("Content-Type")}
	if resp.Request != nil && resp.Request.URL != nil {
		r.Method, r.Path = resp.Request.Method, resp.Request.URL.Path
	}
	if r.Status == http.StatusNotFound || r.Status == http.StatusUnauthorized {
		if err := d.versionGate(ctx, resp.Request, r.Status); err != nil {
			return nil, err
		}
	}
	if r.Status == http.StatusUnauthorized && keyFrom(ctx) != "" {
		// Per person: the key was accepted when it was checked, shortly
		// before; it has been deleted or deactivated since.
		return nil, Errorf(Unchanged, "Audiobookshelf at %s refused your API key (the one your client sends as Authorization: Bearer) for this call: it was accepted a moment ago, so it has been deleted, deactivated or has expired since. Ask an Audiobookshelf admin for a new one (Settings → API Keys; only an admin can make one, for the user it acts for) and put it in your client.", d.BaseURL)
	}
	if r.Status/100 == 2 {
		if what := notAPI(r); what != "" {
			// A web page, a proxy's page or a file answered in the API's
			// place: a write must not be reported as done.
			return nil, Errorf(outcomeOf(mutating), "Audiobookshelf at %s answered with %s, not the API's JSON. Is AUDIOBOOKSHELF_URL the Audiobookshelf server itself, not a web page, a proxy or a file in front of it?", d.BaseURL, what)
		}
	}
	return r, nil
}

// outcomeOf is the outcome of a request that failed on its way: a change
// may have been made when it was one.
func outcomeOf(mutating bool) Outcome {
	if mutating {
		return MaybeChanged
	}
	return Unchanged
}

// notAPI describes a successful answer that cannot be the API's (an HTML
// page, audio, video, an image or a binary file), or returns "". Plain text
// stays allowed: Audiobookshelf answers some writes with "OK".
func notAPI(r *Response) string {
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

func isHTML(r *Response) bool {
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

// Get sends a request and expects a 2xx answer; what names the thing asked
// for in a 404 message ("collection 1234").
func (d *Deps) Get(ctx context.Context, what string, s Sender) ([]byte, error) {
	r, err := d.Send(ctx, false, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, StatusError(r, what, false)
	}
	return r.Body, nil
}

// Mutate sends a changing request and expects a 2xx answer.
func (d *Deps) Mutate(ctx context.Context, what string, s Sender) ([]byte, error) {
	r, err := d.Send(ctx, true, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, StatusError(r, what, true)
	}
	// Believed only when the answer is Audiobookshelf's to this write.
	if err := d.CheckWrite(r, what); err != nil {
		return nil, err
	}
	return r.Body, nil
}

// Decode parses a JSON answer into v, or says that it was not JSON.
func Decode(body []byte, v any) error {
	if err := absdata.Unmarshal(body, v); err != nil {
		return Errorf(Stated, "Audiobookshelf's answer was not the JSON expected (%s). Is AUDIOBOOKSHELF_URL the Audiobookshelf server, and is it version 2.26 or newer?", Clip(err.Error(), 120))
	}
	return nil
}

func (d *Deps) TransportError(ctx context.Context, mutating bool, err error) error {
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
		reason = "could not be reached: " + Clip(err.Error(), 160)
	}
	return Errorf(outcomeOf(mutating), "Audiobookshelf at %s %s.", d.BaseURL, reason)
}

// StatusError turns a non-2xx answer into a tool error with the status, the
// server's own message (capped, plain text only) and what to do.
func StatusError(r *Response, what string, mutating bool) error {
	msg := serverMessage(r)
	status := fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
	outcome := Unchanged
	switch {
	case mutating && r.Status >= 500:
		outcome = MaybeChanged
	case !mutating && r.Status == http.StatusForbidden:
		// A read the user may not make: no change was ever in question,
		// so the answer says nothing about one.
		outcome = Stated
	}
	return &Error{Text: statusText(r, what, mutating, status, msg), Outcome: outcome, Status: r.Status}
}

// statusText is StatusError's text.
func statusText(r *Response, what string, mutating bool, status, msg string) string {
	switch {
	case r.Status == http.StatusUnauthorized:
		return fmt.Sprintf("Audiobookshelf refused the API key (%s%s). Check AUDIOBOOKSHELF_API_KEY: an admin creates a key in Audiobookshelf under Settings → API Keys, choosing the user it acts for; make sure it is active.", status, msg)
	case r.Status == http.StatusForbidden && !mutating:
		// A read: no permission to change anything is involved, and nothing
		// was going to change.
		return fmt.Sprintf("Audiobookshelf answered %s%s: the user of this API key may not read %s (a playlist can be read only by the user who made it; some other reads are for admins only).", status, msg, what)
	case r.Status == http.StatusForbidden:
		return fmt.Sprintf("Audiobookshelf answered %s%s: the user of this API key may not do this (deleting needs the delete permission, changing collections the update permission; playlists belong to their owner).", status, msg)
	case r.Status == http.StatusNotFound:
		return fmt.Sprintf("Audiobookshelf answered %s%s for %s: check the id (list and search tools give ids).", status, msg, what)
	case r.Status/100 == 3:
		return fmt.Sprintf("Audiobookshelf answered %s, a redirect, which is not followed so that the API key does not travel to another address. Set AUDIOBOOKSHELF_URL to the address the server is really served at.", status)
	case r.Status/100 == 4:
		return fmt.Sprintf("Audiobookshelf rejected the request for %s (%s%s).", what, status, msg)
	default:
		return fmt.Sprintf("Audiobookshelf failed on %s (%s%s). Try again later; if it persists, look at the Audiobookshelf server's log.", what, status, msg)
	}
}

// serverMessage is ": <text>" for a short plain-text or JSON body, or a note
// for a web page; never headers. Audiobookshelf answers its own errors with
// a short text (Express's res.send) that is labelled text/html: that is its
// words, passed on quoted and clipped, not a page.
func serverMessage(r *Response) string {
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
	if err := json.Unmarshal(body, &j); err != nil || (j.Error == "" && j.Message == "") {
		// Not Audiobookshelf's JSON error: its text as it is.
		return ": " + Quote(Clip(CleanText(string(body)), 200))
	}
	return ": " + Quote(Clip(CleanText(j.Error+j.Message), 200))
}

// ErrTooLarge is returned when a body passes the limit.
var ErrTooLarge = errors.New("response too large")

// ReadLimited reads at most limit bytes of r, failing beyond. size is the
// announced length (-1 when unknown): a body announced larger than the limit
// is not read at all, one announced smaller is read into a buffer of exactly
// that size, and one of unknown length is read in chunks that are joined
// once, so memory stays near the body's own size instead of a growing
// buffer's many copies.
func ReadLimited(r io.Reader, size, limit int64) ([]byte, error) {
	if size > limit {
		return nil, ErrTooLarge
	}
	if size >= 0 {
		b := make([]byte, size)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	var chunks [][]byte
	var total int64
	next := 4 << 10
	cur := make([]byte, 0, next)
	for {
		if len(cur) == cap(cur) {
			chunks = append(chunks, cur)
			next = min(2*next, 1<<20)
			cur = make([]byte, 0, next)
		}
		n, err := r.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		if total += int64(n); total > limit {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 0 {
		return cur, nil
	}
	return bytes.Join(append(chunks, cur), nil), nil
}
