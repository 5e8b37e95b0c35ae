package app

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPath is where the streamable HTTP endpoint is served.
const MCPPath = "/mcp"

// DefaultMaxBodyBytes bounds one HTTP request body when HTTPOptions leaves
// MaxBodyBytes at zero.
const DefaultMaxBodyBytes int64 = 4 << 20

// HTTPOptions configure the streamable HTTP endpoint.
type HTTPOptions struct {
	// BearerToken, when not empty, must arrive on every request as
	// "Authorization: Bearer <token>"; any other request gets 401.
	BearerToken string
	// MaxBodyBytes bounds one request body (413 beyond); 0 or less means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// HTTPHandler serves MCP over streamable HTTP at MCPPath, with go-sdk's
// handler: sessions unless the server was built with Options.Stateless, and
// its DNS-rebinding protection on (a request that reaches a loopback address
// with a Host header that is not loopback gets 403). In front of it: the
// bearer token check, the body limit, and cross-origin protection for
// browsers (a cross-site POST gets 403). Every other path is 404.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	limit := o.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{
		Stateless:           s.Stateless,
		MaxRequestBodyBytes: limit,
		Logger:              sdkLogger(s.logger),
		// With sessions, what a stream carries is kept (bounded) so that a
		// client whose stream breaks resumes it with Last-Event-ID.
		EventStore: eventStore(s.Stateless),
	})
	var h http.Handler = sdk
	if !s.Stateless {
		h = primeRetry(refuseModernDiscover(s.logger, h))
	}
	h = http.NewCrossOriginProtection().Handler(h)
	h = limitBody(limit, h)
	if o.BearerToken != "" {
		h = requireBearer(o.BearerToken, h)
	}
	mux := http.NewServeMux()
	mux.Handle(MCPPath, h)
	return mux
}

// limitBody answers 413 for a body whose declared length is over limit,
// without reading it, and caps what is read of any other body (go-sdk answers
// 413 when a body without a length passes the cap).
func limitBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
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
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "401 Unauthorized: this MCP endpoint needs the header Authorization: Bearer followed by the token set in AUDIOBOOKSHELF_MCP_TOKEN", http.StatusUnauthorized)
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
