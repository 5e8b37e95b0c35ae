// Package tools holds the hand-written part of every tool: what to ask
// Audiobookshelf through the generated client (gen/abs), how to project the
// answer for a model, and for a guarded tool its plan — the reads that count
// what would be taken out, and the mutation the generated registry runs only
// after the guard approves.
package tools

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// MaxResponseBytes bounds what is read of one Audiobookshelf response.
const MaxResponseBytes = 32 << 20

// Deps is what every tool handler needs.
type Deps struct {
	// API is the generated Audiobookshelf client; nil when no URL is set.
	API *abs.Client
	// Guard decides guarded calls.
	Guard *guard.Guard
	// BaseURL is the configured server URL ("" when none).
	BaseURL string
	// HasKey is true when an API key is configured, or when each call
	// brings its person's own (PerPerson).
	HasKey bool
	// PerPerson is true when the server holds no key and every call brings
	// the key of the person who made it (WithKey).
	PerPerson bool
	// Log receives what Permit refuses (nil: nothing is logged).
	Log *slog.Logger
	// Timeout bounds one request to Audiobookshelf.
	Timeout time.Duration
	// MaxBody bounds one response body; 0 means MaxResponseBytes.
	MaxBody int64
	// MaxResultChars is the result budget: the most characters of text one
	// answer carries; 0 means DefaultMaxResultChars.
	MaxResultChars int
	// redact takes the API key out of an answer (nil without a key): a
	// proxy's error page or a misbehaving server may echo the request's
	// Authorization header, and nothing from an answer may carry the key
	// on into an error, a result or a log.
	redact func([]byte) []byte
	// ScanPoll is how often scan_library reads the task list while a scan
	// runs, ScanWait how long it waits at most; 0 means DefaultScanPoll and
	// DefaultScanWait.
	ScanPoll, ScanWait time.Duration
	// noProgressRoute is set once the server answered GET /api/me/progress
	// with 404 (Audiobookshelf before 2.36): progress is read from GET
	// /api/me from then on.
	noProgressRoute atomic.Bool
}

// Redacted is what replaces the API key in an answer from Audiobookshelf.
const Redacted = "[redacted]"

// Options configure NewDeps.
type Options struct {
	URL, APIKey string
	// PerPerson: no key of the server's own; each call brings one (WithKey).
	PerPerson   bool
	Timeout     time.Duration
	InsecureTLS bool
	// MaxResultChars is the result budget; 0 means DefaultMaxResultChars.
	MaxResultChars int
	Guard          *guard.Guard
	// Transport replaces the HTTP transport (tests); nil builds one.
	Transport http.RoundTripper
	// Backoff is the wait before each retry of a failed GET; nil means
	// DefaultBackoff, empty means no retries.
	Backoff []time.Duration
}

// NewDeps builds the Audiobookshelf client: one http.Client with connection
// reuse, no redirects followed (the bearer key must not travel to another
// host), bounded bodies, and the key added to each request by an editor
// that holds it — it is in no URL, log or environment.
func NewDeps(o Options) (*Deps, error) {
	d := &Deps{Guard: o.Guard, BaseURL: o.URL, HasKey: o.APIKey != "" || o.PerPerson, PerPerson: o.PerPerson, Timeout: o.Timeout, MaxResultChars: o.MaxResultChars}
	if d.Timeout == 0 {
		d.Timeout = 30 * time.Second
	}
	if o.URL == "" {
		return d, nil
	}
	rt := o.Transport
	if rt == nil {
		tr := &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          32,
			MaxIdleConnsPerHost:   32,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: d.Timeout,
			ExpectContinueTimeout: time.Second,
		}
		if o.InsecureTLS {
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // opted in by AUDIOBOOKSHELF_INSECURE_TLS=true
		}
		rt = tr
	}
	backoff := o.Backoff
	if backoff == nil {
		backoff = DefaultBackoff
	}
	hc := &http.Client{
		Transport: &retryTransport{next: rt, backoff: backoff},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	key := o.APIKey
	if key != "" {
		d.redact = newKeyFinder([]byte(key)).redact
	}
	c, err := abs.NewClient(o.URL,
		abs.WithHTTPClient(hc),
		abs.WithRequestEditorFn(func(ctx context.Context, req *http.Request) error {
			// A call made for a person (per-person mode) carries their key;
			// otherwise the configured one, if any.
			if k := keyFrom(ctx); k != "" {
				req.Header.Set("Authorization", "Bearer "+k)
			} else if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			req.Header.Set("Accept", "application/json")
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("AUDIOBOOKSHELF_URL: %w", err)
	}
	d.API = c
	return d, nil
}

// errTooLarge is returned when a body passes the limit.
var errTooLarge = errors.New("response too large")

// readLimited reads at most limit bytes of r, failing beyond. size is the
// announced length (-1 when unknown): a body announced larger than the limit
// is not read at all, one announced smaller is read into a buffer of exactly
// that size, and one of unknown length is read in chunks that are joined
// once, so memory stays near the body's own size instead of a growing
// buffer's many copies.
func readLimited(r io.Reader, size, limit int64) ([]byte, error) {
	if size > limit {
		return nil, errTooLarge
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
			return nil, errTooLarge
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
