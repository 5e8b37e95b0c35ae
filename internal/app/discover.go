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

// statelessOnly is the first protocol revision that streamable HTTP serves
// only without sessions (--stateless): go-sdk's handler with sessions refuses
// it with -32022, naming the older revisions.
const statelessOnly = "2026-07-28"

// sessionfulVersions are the revisions the endpoint with sessions speaks,
// newest first.
func sessionfulVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= statelessOnly })
}

// refusalMessage is the log line for a request refused because its revision
// needs --stateless; it names what the person running the server can change.
func refusalMessage(what, version string) string {
	return fmt.Sprintf("refused %s for MCP protocol %s: served with --http without --stateless, this server speaks 2025-11-25 and older (the client was told so and can fall back); start it with --http ADDR --stateless to serve %s", what, version, version)
}

// refuseModernDiscover answers server/discover of revision 2026-07-28 or newer
// with the same -32022 error as go-sdk gives every other request of that
// revision on the endpoint with sessions. go-sdk answers it 200 instead,
// listing the older revisions only; a client that takes 2026-07-28 anyway
// (mcp-go) then has every later request refused. With the error, such a
// client falls back to initialize.
func refuseModernDiscover(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			// Too large or cut off: go-sdk reads the same error and answers it.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.Method != "server/discover" || len(req.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		version := r.Header.Get("Mcp-Protocol-Version")
		if v, ok := req.Params.Meta[mcp.MetaKeyProtocolVersion].(string); ok && v > version {
			version = v
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
				"message": fmt.Sprintf("protocol version %q is not supported by this server", version),
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
