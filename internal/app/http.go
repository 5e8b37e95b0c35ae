package app

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPath is where the streamable HTTP endpoint is served.
const MCPPath = "/mcp"

// DefaultMaxBodyBytes bounds one HTTP request body when HTTPOptions leaves
// MaxBodyBytes at zero.
const DefaultMaxBodyBytes int64 = 4 << 20

// The endpoint's limits when HTTPOptions leaves them at zero. They are what
// the README's --http entry documents.
const (
	// DefaultHeaderTimeout bounds the arrival of a request's headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds the arrival of a request's body, counted
	// from the end of its headers: a client that trickles it is cut off.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection with no request.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultSessionTimeout closes a session that has had no request for
	// this long (a call in flight keeps it open); its client starts a new
	// one.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxSessions is how many sessions are open at once at most; one
	// more is refused with 503 until one closes or expires.
	DefaultMaxSessions = 100
	// DefaultMaxSessionsPerPerson is, in per-person mode, how many of them
	// one person (one Audiobookshelf user id) may hold; one more of theirs
	// is refused with 429 until one of theirs closes or expires, and other
	// people still get theirs.
	DefaultMaxSessionsPerPerson = 10
)

// HTTPOptions configure the streamable HTTP endpoint.
type HTTPOptions struct {
	// BearerToken, when not empty, must arrive on every request as
	// "Authorization: Bearer <token>"; any other request gets 401.
	BearerToken string
	// MaxBodyBytes bounds one request body (413 beyond); 0 or less means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// HeaderTimeout, BodyTimeout, IdleTimeout, SessionTimeout and
	// MaxSessions are the limits above; zero means the default.
	HeaderTimeout, BodyTimeout, IdleTimeout, SessionTimeout time.Duration
	MaxSessions                                             int
	// MaxSessionsPerPerson bounds the sessions of one person in per-person
	// mode (DefaultMaxSessionsPerPerson when zero): without it one user,
	// whatever their permissions, could fill MaxSessions and lock everyone
	// else out for as long as they kept the sessions alive.
	MaxSessionsPerPerson int
	// AllowedHosts are the host names, besides localhost and IP addresses,
	// that a request's Host header may carry (a LAN name, a reverse
	// proxy's); any other gets 403, whatever interface it arrived on.
	AllowedHosts []string
	// PerPerson: no bearer token of the server's; every request carries
	// its person's own Audiobookshelf API key, checked with Audiobookshelf
	// (requirePerson). BearerToken must be empty then.
	PerPerson bool
	// IdentityTTL is how long a checked key is believed; zero means
	// DefaultIdentityTTL.
	IdentityTTL time.Duration
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HeaderTimeout, DefaultHeaderTimeout)
	def(&o.BodyTimeout, DefaultBodyTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.SessionTimeout, DefaultSessionTimeout)
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerPerson <= 0 {
		o.MaxSessionsPerPerson = DefaultMaxSessionsPerPerson
	}
	return o
}

// NewHTTPServer is the http.Server for handler h (HTTPHandler's, perhaps
// wrapped) with the connection limits of o: headers within HeaderTimeout, an
// idle kept-alive connection closed after IdleTimeout. The body's limit is
// HTTPHandler's (per request, so that a long call or a session's stream is
// not cut off by it).
func NewHTTPServer(h http.Handler, o HTTPOptions, errorLog *log.Logger) *http.Server {
	o = o.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.HeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		ErrorLog:          errorLog,
	}
}

// HTTPHandler serves MCP over streamable HTTP at MCPPath, with go-sdk's
// handlers. Unless the server was built with Options.Stateless, an
// initialize opens a session (idle ones expire after SessionTimeout, and at
// most MaxSessions are open) for the revisions up to 2025-11-25, and a
// request of 2026-07-28 without Mcp-Session-Id is served without one, as
// Options.Stateless serves every request: one endpoint for both.
// In front of it, in order: the body's deadline, the Host check (DNS
// rebinding: only localhost, IP addresses and AllowedHosts), the bearer
// token check or, per person, the check of the person's Audiobookshelf key, the body read whole within its limit, and cross-origin
// protection for browsers (a cross-site POST gets 403). Every other path is
// 404.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	o = o.withDefaults()
	var ids *identities
	if o.PerPerson {
		ids = newIdentities(s.Deps, o.IdentityTTL, s.logger)
	}
	if s.Stateless {
		return s.wrapHTTP(o, ids, s.statelessHandler(o))
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              sdkLogger(s.logger),
		// With sessions, what a stream carries is kept (bounded) so that a
		// client whose stream breaks resumes it with Last-Event-ID.
		EventStore:     eventStore(false),
		SessionTimeout: o.SessionTimeout,
		// checkHost below applies the same rule to every interface.
		DisableLocalhostProtection: true,
	})
	var h http.Handler = primeRetry(refuseModernDiscover(s.logger, sdk))
	h = capSessions(s.MCP, o, ids, h)
	// 2026-07-28 has no sessions: its requests (no Mcp-Session-Id) are
	// served as --stateless serves them, on the same endpoint.
	return s.wrapHTTP(o, ids, bothRevisions(s.statelessHandler(o), h))
}

// statelessHandler is go-sdk's handler without sessions: each request
// stands alone, and nothing is kept for resumption.
func (s *Server) statelessHandler(o HTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              sdkLogger(s.logger),
		// checkHost below applies the same rule to every interface.
		DisableLocalhostProtection: true,
	})
}

// wrapHTTP puts in front of the MCP handler h what every request passes:
// see HTTPHandler.
// ids checks the people in per-person mode (nil otherwise).
func (s *Server) wrapHTTP(o HTTPOptions, ids *identities, h http.Handler) http.Handler {
	h = http.NewCrossOriginProtection().Handler(h)
	h = readBody(o.MaxBodyBytes, o.BodyTimeout, h)
	mux := http.NewServeMux()
	switch {
	case o.PerPerson:
		h = s.requirePerson(ids, h)
		handleOAuthDiscovery(mux, perPersonHelp)
	case o.BearerToken != "":
		h = requireBearer(o.BearerToken, h)
		handleOAuthDiscovery(mux, sharedTokenHelp)
	}
	mux.Handle(MCPPath, unbufferedStreams(h))
	return bodyDeadline(o.BodyTimeout, checkHost(o.AllowedHosts, mux))
}

// unbufferedStreams sends X-Accel-Buffering: no with every answer that is
// an event stream. nginx on its defaults (proxy_buffering on, HTTP/1.0 to
// the upstream) holds a response back until its buffer fills or the
// response ends: a question pushed on a call's stream (elicitation/create)
// then never reached the client, which gave up after its timeout while the
// server waited out the question's life. This header turns nginx's
// buffering off for that response alone, with no change to its
// configuration; other proxies ignore it.
func unbufferedStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&streamHeader{ResponseWriter: w}, r)
	})
}

// streamHeader adds X-Accel-Buffering: no when the response turns out to be
// text/event-stream, just before its header is written.
type streamHeader struct {
	http.ResponseWriter
	written bool
}

func (s *streamHeader) mark() {
	if s.written {
		return
	}
	s.written = true
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Header().Get("Content-Type"))), "text/event-stream") {
		s.Header().Set("X-Accel-Buffering", "no")
	}
}

func (s *streamHeader) WriteHeader(code int) {
	s.mark()
	s.ResponseWriter.WriteHeader(code)
}

func (s *streamHeader) Write(b []byte) (int, error) {
	s.mark()
	return s.ResponseWriter.Write(b)
}

// Flush and Unwrap keep http.NewResponseController (go-sdk flushes each
// event through it) and http.Flusher working through the wrapper.
func (s *streamHeader) Flush() {
	s.mark()
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *streamHeader) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// bodyDeadline gives a request's body BodyTimeout to arrive: the
// connection's read deadline, so that also a body nobody reads (a 401, a
// 404), which the server drains before it answers, cannot hold the
// connection. readBody lifts it once the body is in; without a body, reading
// is not limited (a session's stream stays open, and the server notices a
// client that goes away).
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads a request's body whole, within limit bytes and the
// deadline bodyDeadline set, then lifts the deadline: a body declared over
// the limit gets 413 without being read, one that passes it while read gets
// 413, one that does not arrive in time gets 408 and the connection is
// closed.
func readBody(limit int64, timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("the request body did not arrive within %s", timeout), http.StatusRequestTimeout)
			return
		case err != nil:
			w.Header().Set("Connection", "close")
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
			return
		}
		// The body is in: what is read from the connection from now on is
		// the next request, or nothing (the server watches for a client
		// that goes away while a call runs).
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(b))
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses a request whose Host header names something other than
// localhost, an IP address or one of allowed (403): a browser page from a
// name that an attacker made resolve to this server (DNS rebinding) sends
// that name, on whatever interface the request arrives.
func checkHost(allowed []string, next http.Handler) http.Handler {
	names := map[string]bool{"localhost": true}
	for _, a := range allowed {
		names[strings.ToLower(strings.TrimSuffix(a, "."))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
		if host != "" && !names[host] && net.ParseIP(host) == nil {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("403 Forbidden: this server does not answer to the host name %q (a protection against DNS rebinding). If that is the name clients reach it by, add it to AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS", clipUTF8(host, 100)), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// capSessions refuses a new session (a POST without Mcp-Session-Id) with 503
// while o.MaxSessions are open, and in per-person mode (ids not nil) one of
// a person who holds o.MaxSessionsPerPerson of them with 429. Such requests
// are served one at a time, so that two cannot both take the last place;
// the new session is bound to its person before the next one is counted.
func capSessions(srv *mcp.Server, o HTTPOptions, ids *identities, next http.Handler) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		user := ""
		if ti := auth.TokenInfoFromContext(r.Context()); ids != nil && ti != nil {
			user = ti.UserID
		}
		n, mine := 0, 0
		for ss := range srv.Sessions() {
			if ss.ID() == "" { // a request served without a session
				continue
			}
			n++
			if user != "" && ids.boundTo(ss.ID()) == user {
				mine++
			}
		}
		if user != "" && mine >= o.MaxSessionsPerPerson {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("429 Too Many Requests: this Audiobookshelf user (id %s) has %d sessions open on this server, the most one person may hold; one closes when its client ends it or after %s without a request. Close a client you no longer use, or try again later", clipUTF8(user, 64), mine, o.SessionTimeout), http.StatusTooManyRequests)
			return
		}
		if n >= o.MaxSessions {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("503 Service Unavailable: this server has its maximum of %d sessions open; one closes when its client ends it or after %s without a request. Try again later", o.MaxSessions, o.SessionTimeout), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
		if user != "" {
			if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
				ids.bind(sid, user, func() map[string]bool {
					open := map[string]bool{}
					for ss := range srv.Sessions() {
						open[ss.ID()] = true
					}
					return open
				})
			}
		}
	})
}

// requireBearer lets a request through only with the right bearer token.
// Both sides are hashed first, so the comparison takes the same time whatever
// the token given, its length included.
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
			msg := "401 Unauthorized: this MCP endpoint needs the header Authorization: Bearer followed by the token set in AUDIOBOOKSHELF_MCP_TOKEN"
			if ok {
				msg = "401 Unauthorized: the bearer token sent is not the one set in AUDIOBOOKSHELF_MCP_TOKEN; send the header Authorization: Bearer followed by that token"
			}
			unauthorized(w, sharedTokenHelp, !ok, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer takes the token out of an Authorization header value; the scheme is
// case-insensitive (RFC 9110).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
