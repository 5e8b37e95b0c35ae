package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessOnly is the first protocol revision that has no sessions: its
// requests each stand alone, carrying their revision, client and
// capabilities. The endpoint with sessions serves them without a session
// (bothRevisions); a session, opened with initialize, speaks the older ones.
const statelessOnly = "2026-07-28"

// sessionfulVersions are the revisions a session speaks, newest first.
func sessionfulVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= statelessOnly })
}

// refusalMessage is the log line for a request of 2026-07-28 or newer that
// came inside a session (it carried Mcp-Session-Id) and was refused.
func refusalMessage(what, version string) string {
	return fmt.Sprintf("refused %s for MCP protocol %s inside a session (it carried Mcp-Session-Id): a session is opened with initialize and speaks 2025-11-25 and older, and the client was told so; %s requests are served on the same endpoint when they carry no Mcp-Session-Id", what, version, version)
}

// bothRevisions serves one endpoint for every revision: a POST of 2026-07-28
// or newer (by its Mcp-Protocol-Version header or its _meta) that carries no
// Mcp-Session-Id goes to modern, go-sdk's stateless handler, as with
// --stateless; everything else goes to sessions, where initialize opens a
// session for the older revisions. A client of 2026-07-28 (server/discover
// first) so never needs a session, and one that initializes gets one. (An
// initialize sent as 2026-07-28, where it no longer exists, is answered as
// that revision answers it: method not found.)
func bothRevisions(modern, sessions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			sessions.ServeHTTP(w, r)
			return
		}
		body, err := peekBody(r)
		if err != nil {
			sessions.ServeHTTP(w, r)
			return
		}
		req, _ := parseRequest(body)
		version := r.Header.Get("Mcp-Protocol-Version")
		if req.version > version {
			version = req.version
		}
		if version >= statelessOnly {
			modern.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// peekBody reads r's body and puts it back for the next reader. A read
// error is handed on with what was read, for go-sdk to answer.
func peekBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// request is what the routing reads of a JSON-RPC message.
type request struct {
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	version string
}

// parseRequest reads one JSON-RPC message; version is its _meta's protocol
// revision, if any. A batch or anything else yields the zero request.
func parseRequest(body []byte) (request, bool) {
	var req struct {
		request
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		return request{}, false
	}
	out := req.request
	out.version, _ = req.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return out, true
}

// refuseModernDiscover answers server/discover of revision 2026-07-28 or newer
// that comes inside a session with the same -32022 error as go-sdk gives
// every other request of that revision there. go-sdk answers it 200 instead,
// listing the older revisions only; a client that takes 2026-07-28 anyway
// (mcp-go) then has every later request refused. (Without a session id,
// bothRevisions has sent such a request to the stateless handler already.)
func refuseModernDiscover(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := peekBody(r)
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		req, ok := parseRequest(body)
		if !ok || req.Method != "server/discover" || len(req.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		version := r.Header.Get("Mcp-Protocol-Version")
		if req.version > version {
			version = req.version
		}
		if version < statelessOnly || !slices.Contains(mcp.SupportedProtocolVersions(), version) {
			// Older, or unknown: go-sdk answers it.
			next.ServeHTTP(w, r)
			return
		}
		logger.Info(refusalMessage("a "+req.Method+" request", version))
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: sessionfulVersions(), Requested: version})
		resp, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      req.ID,
			"error": map[string]any{
				"code":    mcp.CodeUnsupportedProtocolVersion,
				"message": fmt.Sprintf("protocol version %q is not supported inside a session; send it without Mcp-Session-Id", version),
				"data":    json.RawMessage(data),
			},
		})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(resp)
	})
}

// errReader hands a read error on to the next reader of a body.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
