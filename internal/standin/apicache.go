package standin

import (
	"bytes"
	"net/http"
	"strings"
)

// apiCache models Audiobookshelf's ApiCacheManager (server/managers/
// ApiCacheManager.js, mounted in ApiRouter.js on /^\/libraries/): a GET
// under /api/libraries is answered from a cache keyed by the user's name
// and the URL (path and query as sent) once it has been answered, until
// the next database write clears the whole cache; `sort=random` is never
// cached. Reads that are not kept in the database, such as the episode
// download queue, can so show what they were at the first read. Off
// unless a test turns it on (ModelAPICache): the other tests read what is
// true now. Guarded by Server.mu.
type apiCache struct {
	on      bool
	entries map[string]cachedAnswer
}

type cachedAnswer struct {
	status int
	header http.Header
	body   []byte
}

// ModelAPICache turns the model of Audiobookshelf's API cache on or off.
// Which requests count as a database write: Update, every request but a
// GET, except the download request (POST /api/podcasts/:id/download-
// episodes only queues: PodcastManager keeps its queue in memory), and a
// download that finishes (its episode is created).
func (s *Server) ModelAPICache(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache = apiCache{on: on}
}

// dbWrite clears the cache, as a database write's hooks do
// (ApiCacheManager.init). Callers hold s.mu.
func (s *Server) dbWrite() {
	s.cache.entries = nil
}

// teeWriter keeps a copy of an answer for the cache.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	if t.status == 0 {
		t.status = code
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.status = http.StatusOK
	}
	t.body.Write(b)
	return t.ResponseWriter.Write(b)
}

// cached answers c from the cache when it can and returns true; otherwise
// it arranges for c's answer to be kept (store, to be called once the
// handler has answered) or, for a write, clears the cache. Callers hold
// s.mu.
func (s *Server) cached(c *ctx, method, rest string) (answered bool, store func()) {
	if !s.cache.on {
		return false, func() {}
	}
	lower := strings.ToLower(rest)
	if method != http.MethodGet {
		if !(method == http.MethodPost && strings.HasPrefix(lower, "/podcasts/") && strings.HasSuffix(lower, "/download-episodes")) {
			s.dbWrite()
		}
		return false, func() {}
	}
	if !strings.HasPrefix(lower, "/libraries") || c.r.URL.Query().Get("sort") == "random" {
		return false, func() {}
	}
	key := c.user.Username + "\x00" + rest + "?" + c.r.URL.RawQuery
	if a, ok := s.cache.entries[key]; ok {
		for k, v := range a.header {
			c.w.Header()[k] = v
		}
		c.w.WriteHeader(a.status)
		_, _ = c.w.Write(a.body)
		return true, nil
	}
	tee := &teeWriter{ResponseWriter: c.w}
	c.w = tee
	return false, func() {
		if s.cache.entries == nil {
			s.cache.entries = map[string]cachedAnswer{}
		}
		s.cache.entries[key] = cachedAnswer{status: tee.status, header: tee.Header().Clone(), body: tee.body.Bytes()}
	}
}
