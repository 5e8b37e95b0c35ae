package kit

import (
	"context"
	"crypto/tls"
	"fmt"
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

// Ready is the error for a call that cannot be made because the server is
// not set up, or nil. needsAuth is false for the status route.
func (d *Deps) Ready(needsAuth bool) error {
	if d.API == nil {
		return Errorf(NotSent, "This server is not connected to an Audiobookshelf server yet: AUDIOBOOKSHELF_URL is not set. Set AUDIOBOOKSHELF_URL (e.g. http://127.0.0.1:13378) and AUDIOBOOKSHELF_API_KEY (an admin makes one in Audiobookshelf under Settings → API Keys) in this MCP server's environment in the client's configuration, then restart it.")
	}
	if needsAuth && !d.HasKey {
		return Errorf(NotSent, "AUDIOBOOKSHELF_API_KEY is not set, so Audiobookshelf at %s would refuse this call. An admin creates a key in Audiobookshelf under Settings → API Keys (choosing the user it acts for); put it in this MCP server's environment in the client's configuration, and restart it.", d.BaseURL)
	}
	return nil
}
