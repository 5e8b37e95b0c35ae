package standin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultAPIKey is the bearer token used when Options.APIKey is empty.
const DefaultAPIKey = "standin-api-key"

// Options configures a stand-in server.
type Options struct {
	// APIKey is the bearer token that authenticates Data.Users[0];
	// "" means DefaultAPIKey.
	APIKey string
	// Data is the initial state; nil means SampleData(). The server takes
	// ownership of it. Without users, a root user is added.
	Data *Data
	// Now is the server's clock (new records, "last 60 days" shelves,
	// listening stats "today"); nil means time.Now. SampleNow fits the
	// sample library.
	Now func() time.Time
	// NewID makes ids for new records; nil means random UUID v4 (as 2.36 does).
	NewID func() string
	// ServerVersion is the release GET /status reports; "" means 2.36.0.
	// An older release plays its gaps, from the spec's x-abs-since gates
	// (gen/versions): a route that came later answers Express's 404
	// "Cannot GET ...", and before API keys (2.26.0) every bearer token is
	// refused with 401.
	ServerVersion string
}

// Request is one request the server received.
type Request struct {
	Method string
	// Path is the decoded URL path; RawPath is the path as sent, with its
	// percent-encoding intact (url.URL.EscapedPath).
	Path     string
	RawPath  string
	RawQuery string
	Query    url.Values
	Body     []byte
	// Authorized tells whether the request carried a valid bearer token.
	Authorized bool
	// Credential is the token the request presented (bearer header, else
	// ?token=), "" for none, so that a test can tell which key made each
	// request; UserID is the user it authenticated ("" when none).
	Credential string
	UserID     string
	// Header is the request header without Authorization.
	Header http.Header
}

// Server is an in-process Audiobookshelf 2.36.0.
type Server struct {
	mu      sync.Mutex // guards data, crashes
	data    *Data
	apiKey  string
	now     func() time.Time
	newID   func() string
	version string
	crashes int
	// Lookups by id (render.go), guarded by mu.
	itemIdx, authorIdx index
	pods               podState               // the episode download queue, guarded by mu
	upkeep             upkeepState            // scans, tasks, log, providers (h_upkeep.go)
	pending            *pendingRemovals       // set while POST /api/items/batch/update applies its entries (h_curation.go)
	cache              apiCache               // Audiobookshelf's API cache, when modelled (apicache.go)
	filters            map[string]*filterCopy // each library's filter data as 2.36 keeps it (filtercache.go), guarded by mu

	recMu    sync.Mutex // guards requests, fault
	requests []Request
	fault    func(w http.ResponseWriter, r *http.Request) bool

	lnMu    sync.Mutex
	url     string
	abrupt  bool // Close drops connections at once (Start)
	srv     *http.Server
	handler http.Handler
}

// New makes a server with its state and no listener.
func New(opts Options) *Server {
	s := &Server{apiKey: opts.APIKey, data: opts.Data, now: opts.Now, newID: opts.NewID, version: opts.ServerVersion}
	if s.version == "" {
		s.version = "2.36.0"
	}
	if s.apiKey == "" {
		s.apiKey = DefaultAPIKey
	}
	if s.data == nil {
		s.data = SampleData()
	}
	if len(s.data.Users) == 0 {
		// Every request is made as Data.Users[0]: seed a root user.
		s.data.Users = []User{{ID: sid("user:seeded-root"), Username: "root", Type: "root", IsActive: true,
			Permissions: Permissions{Download: true, Update: true, Delete: true, Upload: true, CreateEreader: true,
				AccessAllLibraries: true, AccessAllTags: true, AccessExplicitContent: true}}}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = randomUUID
	}
	s.handler = http.HandlerFunc(s.serveHTTP)
	return s
}

// Handler is the whole API (and /status, /ping).
func (s *Server) Handler() http.Handler { return s.handler }

// URL is the base URL once started with Start or Listen ("" before).
func (s *Server) URL() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return s.url
}

// Listen serves on a real listener, e.g. "127.0.0.1:0", until Close.
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("standin: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.lnMu.Lock()
	s.srv = srv
	s.url = "http://" + ln.Addr().String()
	u := s.url
	s.lnMu.Unlock()
	return u, nil
}

// Close stops the listener started by Start or Listen. After Listen it lets
// requests in flight finish for up to 2s; after Start it drops every
// connection at once, as a test's end should.
func (s *Server) Close() {
	s.lnMu.Lock()
	srv, abrupt := s.srv, s.abrupt
	s.srv = nil
	s.lnMu.Unlock()
	if srv == nil {
		return
	}
	if abrupt {
		_ = srv.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = copyRequest(r)
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.recMu.Lock()
	s.requests = nil
	s.recMu.Unlock()
}

// Mutations returns the recorded POST, PATCH and DELETE requests, but for
// POST /api/podcasts/feed, which only fetches and parses a feed, POST
// /api/items/batch/get, which only reads items, and the
// GETs that change data (a progress or a series taken off or put back on
// the home shelves).
func (s *Server) Mutations() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && (r.Path == "/api/podcasts/feed" || r.Path == "/api/items/batch/get") {
			continue
		}
		if r.Method == http.MethodGet && (strings.HasSuffix(r.Path, "/remove-from-continue-listening") || strings.HasSuffix(r.Path, "/readd-to-continue-listening")) {
			out = append(out, r)
			continue
		}
		switch r.Method {
		case http.MethodPost, http.MethodPatch, http.MethodDelete:
			out = append(out, r)
		}
	}
	return out
}

// SetFault installs f (nil removes it). f sees every request after it is
// recorded; when it returns true it has answered the request and the
// stand-in does nothing else.
func (s *Server) SetFault(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.recMu.Lock()
	s.fault = f
	s.recMu.Unlock()
}

// Crashes counts the requests that would have killed the real server's
// process (an unhandled exception in an async Express handler: Server.js
// exits on 'unhandledRejection'). Each was answered by closing the connection.
func (s *Server) Crashes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashes
}

func copyRequest(r Request) Request {
	c := r
	c.Body = bytes.Clone(r.Body)
	c.Query = url.Values{}
	for k, v := range r.Query {
		c.Query[k] = append([]string(nil), v...)
	}
	c.Header = r.Header.Clone()
	return c
}

// ---- state accessors (all return copies) ----

// Snapshot returns a deep copy of the whole state.
func (s *Server) Snapshot() *Data {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneJSON(s.data)
}

// SnapshotJSON is the state encoded as JSON under the server's lock: what
// Snapshot copies, for a test that compares states field by field without
// a typed copy in between (under the race detector each encoding costs
// seconds).
func (s *Server) SnapshotJSON() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(s.data)
	if err != nil {
		panic(fmt.Sprintf("standin: snapshot: %v", err))
	}
	return b
}

// Update runs f on the live state under the server's lock.
func (s *Server) Update(f func(d *Data)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dbWrite()
	f(s.data)
}

// User returns the user the API key authenticates (Data.Users[0]).
func (s *Server) User() User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *cloneJSON(&s.data.Users[0])
}

// UserByID returns any user.
func (s *Server) UserByID(id string) (User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.userIndex(id); u >= 0 {
		return *cloneJSON(&s.data.Users[u]), true
	}
	return User{}, false
}

// AddUser adds a user (authenticated by its APIKey) and returns it.
func (s *Server) AddUser(u User) User {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.ID == "" {
		u.ID = s.newID()
	}
	if u.SeriesHideFromContinueListening == nil {
		u.SeriesHideFromContinueListening = []string{}
	}
	s.data.Users = append(s.data.Users, u)
	return *cloneJSON(&u)
}

// SetPermissions changes Data.Users[0]'s permissions.
func (s *Server) SetPermissions(f func(p *Permissions)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data.Users[0].Permissions)
}

// SetUserPermissions changes one user's permissions; false when there is
// no such user.
func (s *Server) SetUserPermissions(userID string, f func(p *Permissions)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.userIndex(userID)
	if i < 0 {
		return false
	}
	f(&s.data.Users[i].Permissions)
	return true
}

// userIndex is the index of a user in Data.Users, -1 when absent. Callers
// hold s.mu.
func (s *Server) userIndex(id string) int {
	for i := range s.data.Users {
		if s.data.Users[i].ID == id {
			return i
		}
	}
	return -1
}

// SetCanDelete switches Data.Users[0]'s delete permission.
func (s *Server) SetCanDelete(v bool) { s.SetPermissions(func(p *Permissions) { p.Delete = v }) }

// SetCanUpdate switches Data.Users[0]'s update permission.
func (s *Server) SetCanUpdate(v bool) { s.SetPermissions(func(p *Permissions) { p.Update = v }) }

// Item returns a library item.
func (s *Server) Item(id string) (LibraryItem, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if li := s.item(id); li != nil {
		return *cloneJSON(li), true
	}
	return LibraryItem{}, false
}

// Collection returns a collection.
func (s *Server) Collection(id string) (Collection, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.collectionIndex(id); i >= 0 {
		return *cloneJSON(&s.data.Collections[i]), true
	}
	return Collection{}, false
}

// Collections returns all collections.
func (s *Server) Collections() []Collection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *cloneJSON(&s.data.Collections)
}

// Playlist returns a playlist.
func (s *Server) Playlist(id string) (Playlist, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.playlistIndex(id); i >= 0 {
		return *cloneJSON(&s.data.Playlists[i]), true
	}
	return Playlist{}, false
}

// Playlists returns all playlists of all users.
func (s *Server) Playlists() []Playlist {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *cloneJSON(&s.data.Playlists)
}

// Progress returns Data.Users[0]'s media progress for a book (episodeID "")
// or an episode, matched exactly on both ids.
func (s *Server) Progress(itemID, episodeID string) (MediaProgress, bool) {
	s.mu.Lock()
	id := s.data.Users[0].ID
	s.mu.Unlock()
	return s.UserProgress(id, itemID, episodeID)
}

// UserProgress is Progress of any user.
func (s *Server) UserProgress(userID, itemID, episodeID string) (MediaProgress, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.userIndex(userID)
	if i < 0 {
		return MediaProgress{}, false
	}
	for _, mp := range s.data.Users[i].MediaProgress {
		if mp.LibraryItemID == itemID && mp.EpisodeID == episodeID {
			return *cloneJSON(&mp), true
		}
	}
	return MediaProgress{}, false
}

// Bookmarks returns Data.Users[0]'s bookmarks on a library item ("" = all).
func (s *Server) Bookmarks(itemID string) []Bookmark {
	s.mu.Lock()
	id := s.data.Users[0].ID
	s.mu.Unlock()
	return s.UserBookmarks(id, itemID)
}

// UserBookmarks is Bookmarks of any user.
func (s *Server) UserBookmarks(userID, itemID string) []Bookmark {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.userIndex(userID)
	if i < 0 {
		return nil
	}
	var out []Bookmark
	for _, b := range s.data.Users[i].Bookmarks {
		if itemID == "" || b.LibraryItemID == itemID {
			out = append(out, *cloneJSON(&b))
		}
	}
	return out
}

// RequestsBy returns the recorded requests that presented credential
// (see Request.Credential).
func (s *Server) RequestsBy(credential string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Credential == credential {
			out = append(out, r)
		}
	}
	return out
}

// cloneJSON deep-copies v through JSON (every state type is plain data).
func cloneJSON[T any](v *T) *T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("standin: clone: %v", err))
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("standin: clone: %v", err))
	}
	return &out
}

// randomUUID makes a version 4 UUID, as Sequelize's UUIDV4 default does.
func randomUUID() string {
	var b [16]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		panic(err)
	}
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
