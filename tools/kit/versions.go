package kit

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/absversion"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/versions"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Version gates: a 404 on a route that appeared in a later release, or a 401
// from a server that predates API keys, is explained with the server's
// version and what it lacks instead of a bare status. The releases come from
// the x-abs-since extensions of the spec (gen/versions).

// serverVersion asks GET /status (no key needed) for the server's release;
// "" when it cannot be read. It is asked each time a gate needs it, not kept:
// a server updated while this one runs must not be judged by its old
// version, and a gated failure is rare.
func (d *Deps) serverVersion(ctx context.Context) string {
	r, err := d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if err != nil || r.Status != http.StatusOK {
		return ""
	}
	var s absdata.ServerStatus
	if absdata.Unmarshal(r.Body, &s) != nil {
		return ""
	}
	return s.ServerVersion
}

// versionGate explains a 404 or 401 answer to req by the server's version,
// or returns nil when the version does not explain it. Either status means
// the request changed nothing.
func (d *Deps) versionGate(ctx context.Context, req *http.Request, status int) error {
	// GET /status is what the gate asks: its own failures are not gated
	// (which also keeps a 401 on /status from asking again).
	if req == nil || req.URL == nil || d.apiPath(req.URL) == "/status" {
		return nil
	}
	switch status {
	case http.StatusNotFound:
		g := absversion.GateFor(req.Method, d.apiPath(req.URL))
		if g == nil {
			return nil
		}
		v := d.serverVersion(ctx)
		if !absversion.Older(v, g.Since) {
			return nil
		}
		return Errorf(Unchanged, "Audiobookshelf %s does not have %s %s, which came in Audiobookshelf %s; %s need%s %s or newer. Update the Audiobookshelf server.",
			v, g.Method, g.Path, g.Since, joinTools(g.Tools), plural(len(g.Tools)), g.Since)
	case http.StatusUnauthorized:
		v := d.serverVersion(ctx)
		if !absversion.LacksAPIKeys(v) {
			return nil
		}
		return Errorf(Unchanged, "Audiobookshelf %s refused the key: it has no API keys, which came in Audiobookshelf %s. Update the Audiobookshelf server to %s or newer and have an admin create a key under Settings → API Keys.",
			v, versions.APIKeys, versions.APIKeys)
	}
	return nil
}

// apiPath is the request path with the base path of AUDIOBOOKSHELF_URL cut.
func (d *Deps) apiPath(u *url.URL) string {
	base := ""
	if b, err := url.Parse(d.BaseURL); err == nil {
		base = strings.TrimRight(b.Path, "/")
	}
	return strings.TrimPrefix(u.Path, base)
}

func joinTools(names []string) string {
	if len(names) == 0 {
		return "this call"
	}
	return strings.Join(names, ", ")
}

func plural(n int) string {
	if n == 1 || n == 0 {
		return "s"
	}
	return ""
}

// Lacks describes what a server of version v lacks, for get_server_status;
// nil when it lacks nothing the spec knows of.
func Lacks(v string) []map[string]any {
	var out []map[string]any
	if absversion.LacksAPIKeys(v) {
		out = append(out, map[string]any{"what": "API keys (Settings → API Keys), which every call needs", "since": versions.APIKeys})
	}
	for _, g := range absversion.Lacking(v) {
		out = append(out, map[string]any{"what": g.Method + " " + g.Path, "since": g.Since, "tools": g.Tools})
	}
	return out
}
