// Package absversion answers, for the serverVersion an Audiobookshelf
// reports on GET /status, what of the API it lacks: the version gates of
// gen/versions (generated from the x-abs-since extensions of
// spec/audiobookshelf.yaml) compared with that version. The tools use it to
// explain a 404 from an older server; the stand-in uses it to play one.
package absversion

import (
	"strconv"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/versions"
)

// parse reads N.N.N, with an optional leading v and anything after a - or +
// (2.36.0-beta.1) left out.
func parse(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// Older reports whether release server is older than since; false when
// either is not a release (an unknown version is not assumed old).
func Older(server, since string) bool {
	a, ok1 := parse(server)
	b, ok2 := parse(since)
	if !ok1 || !ok2 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Lacking lists the gated operations a server of that version does not
// serve.
func Lacking(server string) []versions.Gate {
	var out []versions.Gate
	for _, g := range versions.Gates {
		if Older(server, g.Since) {
			out = append(out, g)
		}
	}
	return out
}

// LacksAPIKeys reports whether a server of that version predates API keys.
func LacksAPIKeys(server string) bool {
	return versions.APIKeys != "" && Older(server, versions.APIKeys)
}

// GateFor is the gated operation that method and path (the URL path with
// any base path already cut, /api/me/bookmarks/li_1) belong to, or nil.
func GateFor(method, path string) *versions.Gate {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := range versions.Gates {
		g := &versions.Gates[i]
		if g.Method != method {
			continue
		}
		tsegs := strings.Split(strings.Trim(g.Path, "/"), "/")
		if len(tsegs) != len(segs) {
			continue
		}
		ok := true
		for j, t := range tsegs {
			if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
				if segs[j] == "" {
					ok = false
				}
				continue
			}
			if !strings.EqualFold(t, segs[j]) {
				ok = false
			}
		}
		if ok {
			return g
		}
	}
	return nil
}
