package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/absversion"
)

// ctx is one request being handled, with the Express-like pieces the
// controllers use: req.user, req.params, req.query, req.body.
type ctx struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	user   *User
	params map[string]string
	body   any
	q      url.Values
	// set by the middlewares (LibraryController.middleware, ...)
	lib  *Library
	li   *LibraryItem
	coll int                // index in Data.Collections, -1 for routes without :id
	pl   int                // index in Data.Playlists
	nums map[string]float64 // limit and page as coerced by LibraryController.middleware
}

type route struct {
	method string
	segs   []string
	h      func(*ctx)
}

// crashSignal unwinds a handler whose upstream counterpart would throw.
type crashSignal struct{}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 10<<20+1))
	_ = r.Body.Close()

	s.mu.Lock()
	user := s.authenticate(r)
	userID := ""
	if user != nil {
		userID = user.ID
	}
	s.mu.Unlock()

	hdr := r.Header.Clone()
	hdr.Del("Authorization")
	rec := Request{
		Method:     r.Method,
		Path:       r.URL.Path,
		RawPath:    r.URL.EscapedPath(),
		RawQuery:   r.URL.RawQuery,
		Query:      r.URL.Query(),
		Body:       body,
		Authorized: user != nil,
		Credential: credential(r),
		UserID:     userID,
		Header:     hdr,
	}
	s.recMu.Lock()
	s.requests = append(s.requests, rec)
	fault := s.fault
	s.recMu.Unlock()

	if fault != nil {
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		if fault(w, r2) {
			return
		}
	}

	c := &ctx{s: s, w: w, r: r, q: r.URL.Query()}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(crashSignal); !ok {
				panic(v)
			}
			c.closeWithoutAnswer()
		}
	}()

	ep := r.URL.EscapedPath()
	p := strings.ToLower(ep)
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	switch {
	// Server.js: router.get('/status'), '/ping', '/healthcheck' need no auth.
	case method == http.MethodGet && (p == "/status" || p == "/status/"):
		c.sendJSON(jobj{
			{"app", "audiobookshelf"},
			{"serverVersion", s.version},
			{"isInit", true},
			{"language", "en-us"},
			{"authMethods", []string{"local"}},
			// ServerSettings.authFormData: authLoginCustomMessage is
			// sanitize(null), which is "".
			{"authFormData", jobj{{"authLoginCustomMessage", ""}}},
		})
	case method == http.MethodGet && (p == "/ping" || p == "/ping/"):
		c.sendJSON(jobj{{"success", true}})
	case method == http.MethodGet && p == "/healthcheck":
		c.sendStatus(http.StatusOK)
	case p == "/api" || strings.HasPrefix(p, "/api/"):
		// Server.js: router.use('/api', auth.isAuthenticated, apiRouter).
		// passport answers a failed authentication with 401 "Unauthorized",
		// ending the response itself: no Content-Type (measured on 2.36.0).
		// A nil entry keeps net/http from sniffing one.
		if user == nil {
			c.w.Header()["Content-Type"] = nil
			c.w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(c.w, "Unauthorized")
			return
		}
		b, ok := parseJSONBody(r, body)
		if !ok {
			// express.json() rejects malformed JSON (and, being strict,
			// top-level primitives) with 400.
			c.expressError(http.StatusBadRequest, "Bad Request")
			return
		}
		c.body = b
		if g := absversion.GateFor(method, ep); g != nil && absversion.Older(s.version, g.Since) {
			c.expressNotFound() // the route came in a later release
			return
		}
		rest := ep[len("/api"):]
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stepDownloads()
		c.user = s.authenticate(r)
		if c.user == nil { // state changed between recording and handling
			c.w.Header()["Content-Type"] = nil
			c.w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(c.w, "Unauthorized")
			return
		}
		answered, store := s.cached(c, method, rest)
		if answered {
			return
		}
		defer store()
		for _, rt := range apiRoutes() {
			if rt.method != method {
				continue
			}
			params, ok, bad := matchRoute(rt.segs, rest)
			if bad {
				c.expressError(http.StatusBadRequest, "Bad Request")
				return
			}
			if ok {
				c.params = params
				rt.h(c)
				return
			}
		}
		c.expressNotFound()
	default:
		c.expressNotFound()
	}
}

// authenticate reproduces the outcome of TokenManager.jwtAuthCheck: a known,
// active credential from the Authorization bearer header or the ?token= query
// parameter (passport-jwt's two extractors) identifies the user. Callers hold
// s.mu.
func (s *Server) authenticate(r *http.Request) *User {
	token := credential(r)
	if token == "" || absversion.LacksAPIKeys(s.version) {
		return nil
	}
	for i := range s.data.Users {
		u := &s.data.Users[i]
		if (i == 0 && token == s.apiKey) || (u.APIKey != "" && token == u.APIKey) {
			if !u.IsActive {
				return nil
			}
			return u
		}
	}
	return nil
}

// credential is the token a request presents: the Authorization bearer
// header, else the ?token= query parameter (passport-jwt's two extractors).
func credential(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		f := strings.Fields(h)
		if len(f) == 2 && strings.EqualFold(f[0], "bearer") {
			return f[1]
		}
	}
	return r.URL.Query().Get("token")
}

// parseJSONBody reproduces express.json(): only application/json bodies are
// parsed, an empty body is {}, and only objects and arrays are accepted.
func parseJSONBody(r *http.Request, body []byte) (any, bool) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		return map[string]any{}, true
	}
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return map[string]any{}, true
	}
	if t[0] != '{' && t[0] != '[' {
		return nil, false
	}
	var v any
	if err := json.Unmarshal(t, &v); err != nil {
		return nil, false
	}
	return v, true
}

// matchRoute matches an Express path pattern: case-insensitive literals,
// ":name" parameters (one non-empty segment, decoded), a trailing ":name?"
// that may be absent, and an optional trailing slash. bad reports a
// parameter that does not decode (Express answers 400).
func matchRoute(pattern []string, escapedPath string) (map[string]string, bool, bool) {
	p := strings.TrimPrefix(escapedPath, "/")
	p = strings.TrimSuffix(p, "/")
	var segs []string
	if p != "" {
		segs = strings.Split(p, "/")
	}
	if len(segs) > len(pattern) {
		return nil, false, false
	}
	params := map[string]string{}
	for i, ps := range pattern {
		optional := strings.HasPrefix(ps, ":") && strings.HasSuffix(ps, "?")
		if i >= len(segs) {
			if optional && i == len(pattern)-1 {
				return params, true, false
			}
			return nil, false, false
		}
		seg := segs[i]
		if strings.HasPrefix(ps, ":") {
			if seg == "" {
				return nil, false, false
			}
			dec, err := url.PathUnescape(seg)
			if err != nil {
				return nil, false, true
			}
			params[strings.TrimSuffix(ps[1:], "?")] = dec
			continue
		}
		if !strings.EqualFold(ps, seg) {
			return nil, false, false
		}
	}
	return params, true, false
}

func api(method, pattern string, h func(*ctx)) route {
	return route{method: method, segs: strings.Split(strings.TrimPrefix(pattern, "/"), "/"), h: h}
}

// apiRoutes mirrors server/routers/ApiRouter.js init(), in the same order
// (the first matching route wins, as in Express).
// It is built on first use, like the stand-in's other tables.
var apiRoutes = sync.OnceValue(func() []route {
	const G, P, A, D = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	routes := []route{
		// Library routes
		api(G, "/libraries", hLibraries),
		api(G, "/libraries/:id", withLibrary(hLibrary)),
		api(G, "/libraries/:id/items", withLibrary(hLibraryItems)),
		api(G, "/libraries/:id/series", withLibrary(hLibrarySeries)),
		api(G, "/libraries/:id/series/:seriesId", withLibrary(hLibrarySeriesOne)),
		api(G, "/libraries/:id/collections", withLibrary(hLibraryCollections)),
		api(G, "/libraries/:id/playlists", withLibrary(hLibraryPlaylists)),
		api(G, "/libraries/:id/personalized", withLibrary(hPersonalized)),
		api(G, "/libraries/:id/filterdata", withLibrary(hFilterData)),
		api(G, "/libraries/:id/search", withLibrary(hSearch)),
		api(G, "/libraries/:id/stats", withLibrary(hLibraryStats)),
		api(G, "/libraries/:id/authors", withLibrary(hLibraryAuthors)),
		api(G, "/libraries/:id/narrators", withLibrary(hLibraryNarrators)),
		api(G, "/libraries/:id/recent-episodes", withLibrary(hRecentEpisodes)),
		// Item routes
		api(P, "/items/batch/get", hItemsBatchGet),
		api(G, "/items/:id", withItem(hItem)),
		// Collection routes
		api(P, "/collections", withCollection(hCollectionCreate)),
		api(G, "/collections", hCollections),
		api(G, "/collections/:id", withCollection(hCollection)),
		api(A, "/collections/:id", withCollection(hCollectionUpdate)),
		api(D, "/collections/:id", withCollection(hCollectionDelete)),
		api(P, "/collections/:id/book", withCollection(hCollectionAddBook)),
		api(D, "/collections/:id/book/:bookId", withCollection(hCollectionRemoveBook)),
		api(P, "/collections/:id/batch/add", withCollection(hCollectionBatchAdd)),
		api(P, "/collections/:id/batch/remove", withCollection(hCollectionBatchRemove)),
		// Playlist routes
		api(P, "/playlists", hPlaylistCreate),
		api(G, "/playlists", hPlaylists),
		api(G, "/playlists/:id", withPlaylist(hPlaylist)),
		api(A, "/playlists/:id", withPlaylist(hPlaylistUpdate)),
		api(D, "/playlists/:id", withPlaylist(hPlaylistDelete)),
		api(P, "/playlists/:id/item", withPlaylist(hPlaylistAddItem)),
		api(D, "/playlists/:id/item/:libraryItemId/:episodeId?", withPlaylist(hPlaylistRemoveItem)),
		api(P, "/playlists/:id/batch/add", withPlaylist(hPlaylistBatchAdd)),
		api(P, "/playlists/:id/batch/remove", withPlaylist(hPlaylistBatchRemove)),
		// Current user routes (Me)
		api(G, "/me", hMe),
		api(G, "/me/progress", hMeAllProgress),
		api(G, "/me/bookmarks", hMeBookmarks),
		api(G, "/me/bookmarks/:libraryItemId", hMeBookmarksForItem),
		api(G, "/me/listening-sessions", hMeListeningSessions),
		api(G, "/me/listening-stats", hMeListeningStats),
		api(G, "/me/progress/:id/remove-from-continue-listening", hMeRemoveFromContinueListening),
		api(G, "/me/progress/:id/:episodeId?", hMeProgress),
		api(A, "/me/progress/batch/update", hMeProgressBatchUpdate),
		api(A, "/me/progress/:libraryItemId/:episodeId?", hMeProgressUpdate),
		api(D, "/me/progress/:id", hMeProgressDelete),
		api(P, "/me/item/:id/bookmark", hBookmarkCreate),
		api(A, "/me/item/:id/bookmark", hBookmarkUpdate),
		api(D, "/me/item/:id/bookmark/:time", hBookmarkDelete),
		api(G, "/me/items-in-progress", hMeItemsInProgress),
		api(G, "/me/series/:id/remove-from-continue-listening", hMeHideSeries),
		api(G, "/me/series/:id/readd-to-continue-listening", hMeReaddSeries),
		api(G, "/me/stats/year/:year", hMeYearStats),
		// Author, series, podcast routes
		api(G, "/authors/:id", hAuthor),
		api(G, "/series/:id", hSeries),
		api(G, "/podcasts/:id/episode/:episodeId", withPodcast(hPodcastEpisode)),
		// Misc routes
		api(G, "/tags", hTags),
		api(G, "/genres", hGenres),
	}
	// The toolsets' own routes (none of them is matched by a route above).
	routes = append(routes, podcastRoutes()...)
	routes = append(routes, upkeepRoutes()...)
	routes = append(routes, providerRoutes()...)
	routes = append(routes, curationRoutes()...)
	return routes
})

// ---- responses, the way Express sends them ----

func (c *ctx) sendJSON(v any) { c.sendJSONStatus(http.StatusOK, v) }

// sendJSONStatus is res.status(code).json(v).
func (c *ctx) sendJSONStatus(code int, v any) {
	b, err := marshalJS(v)
	if err != nil {
		panic(fmt.Sprintf("standin: encode response: %v", err))
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(code)
	_, _ = c.w.Write(b)
}

// sendStatus is res.sendStatus(code): the status text as text/plain.
func (c *ctx) sendStatus(code int) {
	c.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	c.w.WriteHeader(code)
	_, _ = io.WriteString(c.w, http.StatusText(code))
}

// send is res.status(code).send(text): Express sends a string as text/html.
func (c *ctx) send(code int, text string) {
	c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	c.w.WriteHeader(code)
	_, _ = io.WriteString(c.w, text)
}

// expressError is the page Express's final handler sends for an error in
// production mode.
func (c *ctx) expressError(code int, msg string) {
	c.w.Header().Set("Content-Security-Policy", "default-src 'none'")
	c.w.Header().Set("X-Content-Type-Options", "nosniff")
	c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	c.w.WriteHeader(code)
	_, _ = fmt.Fprintf(c.w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>%s</pre>\n</body>\n</html>\n", html.EscapeString(msg))
}

// expressNotFound is Express's answer when no route matches: 404 "Cannot GET /path".
func (c *ctx) expressNotFound() {
	c.expressError(http.StatusNotFound, "Cannot "+c.r.Method+" "+c.r.URL.EscapedPath())
}

// crash stops the handler the way the real server stops: its process exits
// (Server.js: process.on('unhandledRejection', ... process.exit(1))), so the
// client gets no answer at all.
func (c *ctx) crash() {
	c.s.crashes++
	panic(crashSignal{})
}

func (c *ctx) closeWithoutAnswer() {
	if hj, ok := c.w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// query is req.query[k] for a single value; ok is false when absent.
func (c *ctx) query(k string) (string, bool) {
	v, ok := c.q[k]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// includes parses (req.query.include || ”).split(',') (trimmed and
// lower-cased where the upstream does so).
func (c *ctx) includes(lower bool) []string {
	v, _ := c.query("include")
	var out []string
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if lower {
			p = strings.ToLower(p)
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Serves reports whether the stand-in answers method on path as written in
// spec/audiobookshelf.yaml (/api/items/{id}, /status): the tests hold every
// operation a tool of tools.yaml calls to a route here.
func Serves(method, specPath string) bool {
	segs := strings.Split(strings.TrimPrefix(specPath, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "x" // any one segment
		}
	}
	path := "/" + strings.Join(segs, "/")
	if method == http.MethodGet && (path == "/status" || path == "/ping" || path == "/healthcheck") {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/api")
	if !ok {
		return false
	}
	for _, rt := range apiRoutes() {
		if rt.method != method {
			continue
		}
		if _, ok, _ := matchRoute(rt.segs, rest); ok {
			return true
		}
	}
	return false
}
