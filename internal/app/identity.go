package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// Per-person mode (HTTPOptions.PerPerson): the server holds no Audiobookshelf
// key. Every request to /mcp carries its person's own Audiobookshelf API key
// as "Authorization: Bearer KEY"; requirePerson checks it against
// Audiobookshelf (GET /api/me with that key), remembers the answer for
// DefaultIdentityTTL under a SHA-256 hash of the key (never the key), and
// hands the person and the key to the call (go-sdk carries them to the tool
// handler in RequestExtra.TokenInfo). Every request to Audiobookshelf of
// that call is made with that key; approvals are bound to the person's
// Audiobookshelf user id; a session is bound to the person who opened it.

// DefaultIdentityTTL is how long a checked key is believed without asking
// Audiobookshelf again. A key deleted in Audiobookshelf, or a permission
// changed, takes effect here within this time.
const DefaultIdentityTTL = time.Minute

// maxIdentities bounds the cache of checked keys.
const maxIdentities = 1024

// person is who made a request in per-person mode, with the key that
// proved it. It travels in the request's context only, for the length of
// the request; it has no String method and is never logged.
type person struct {
	kit.Person
	key string
}

// String, GoString and LogValue keep the key out of anything that prints
// or logs a person (or the TokenInfo that carries one).
func (p *person) String() string   { return "person(user " + p.UserID + ")" }
func (p *person) GoString() string { return p.String() }
func (p *person) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user", p.UserID))
}

// personKey is where person rides in auth.TokenInfo.Extra.
const personKey = "audiobookshelf-person"

// identities checks keys and binds sessions.
type identities struct {
	deps *kit.Deps
	ttl  time.Duration
	now  func() time.Time
	log  interface {
		Info(msg string, args ...any)
	}

	mu    sync.Mutex
	cache map[[32]byte]identityEntry
	// sessions: Mcp-Session-Id → the Audiobookshelf user id that opened it.
	sessions map[string]string
}

type identityEntry struct {
	p   kit.Person
	exp time.Time
}

func newIdentities(deps *kit.Deps, ttl time.Duration, log interface{ Info(string, ...any) }) *identities {
	if ttl <= 0 {
		ttl = DefaultIdentityTTL
	}
	return &identities{deps: deps, ttl: ttl, now: time.Now, log: log,
		cache: map[[32]byte]identityEntry{}, sessions: map[string]string{}}
}

// who is the person key belongs to: from the cache, or from Audiobookshelf.
func (ids *identities) who(ctx context.Context, key string) (kit.Person, error) {
	h := sha256.Sum256([]byte("audiobookshelf-mcp identity\x00" + key))
	now := ids.now()
	ids.mu.Lock()
	e, ok := ids.cache[h]
	ids.mu.Unlock()
	if ok && now.Before(e.exp) {
		return e.p, nil
	}
	p, err := ids.deps.WhoIs(ctx, key)
	if err != nil {
		return kit.Person{}, err
	}
	ids.mu.Lock()
	if len(ids.cache) >= maxIdentities {
		for k, v := range ids.cache {
			if !now.Before(v.exp) || len(ids.cache) >= maxIdentities {
				delete(ids.cache, k)
			}
		}
	}
	ids.cache[h] = identityEntry{p: *p, exp: now.Add(ids.ttl)}
	ids.mu.Unlock()
	ids.log.Info("person checked with Audiobookshelf", "user", p.UserID)
	return *p, nil
}

// boundTo is the user id a session was opened by, "" when unknown.
func (ids *identities) boundTo(sessionID string) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return ids.sessions[sessionID]
}

// bind records that sessionID was opened by userID; live lists the open
// sessions, to forget closed ones when the table grows.
func (ids *identities) bind(sessionID, userID string, live func() map[string]bool) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if len(ids.sessions) >= 2*DefaultMaxSessions {
		open := live()
		for id := range ids.sessions {
			if !open[id] {
				delete(ids.sessions, id)
			}
		}
	}
	ids.sessions[sessionID] = userID
}

// requirePerson lets a request through only with an Audiobookshelf API key
// that Audiobookshelf accepts, and on a session only with the key of a
// person of the same user id as the one who opened it. A request without a
// key, or with one Audiobookshelf refuses, gets 401; one on another
// person's session gets 403; when Audiobookshelf cannot be asked, 502.
// Nothing else of the request is read before the key is checked.
func (s *Server) requirePerson(ids *identities, next http.Handler) http.Handler {
	// go-sdk's own bearer middleware puts what was checked here into the
	// request's context, where its streamable handler finds it: it hands it
	// to each call (RequestExtra.TokenInfo) and binds sessions to its
	// UserID as well.
	withInfo := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := ctx.Value(tokenInfoCtx{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	inner := withInfo(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			unauthorized(w, perPersonHelp, true, "401 Unauthorized: this MCP endpoint serves each person with their own Audiobookshelf account. Send your Audiobookshelf API key as the header Authorization: Bearer KEY (an Audiobookshelf admin makes one under Settings → API Keys, for the user it acts for: ask whoever runs Audiobookshelf)")
			return
		}
		p, err := ids.who(r.Context(), key)
		switch {
		case errors.Is(err, kit.ErrKeyRefused):
			unauthorized(w, perPersonHelp, false, fmt.Sprintf("401 Unauthorized: Audiobookshelf at %s does not accept the API key in the Authorization header (unknown, expired, or its user is disabled). Send your own Audiobookshelf API key (an admin makes one under Settings → API Keys) as Authorization: Bearer KEY", s.Deps.BaseURL))
			return
		case err != nil:
			s.logger.Warn("could not check a key with Audiobookshelf", "error", err.Error())
			refusePerson(w, http.StatusBadGateway, "502 Bad Gateway: "+err.Error()+"; the key could not be checked, so nothing was done. Try again later")
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			if owner := ids.boundTo(sid); owner != "" && owner != p.UserID {
				s.logger.Warn("refused a request on another person's session", "user", p.UserID, "session_user", owner)
				refusePerson(w, http.StatusForbidden, "403 Forbidden: this session was opened with another person's Audiobookshelf key, and a session stays with the person who opened it. Start a new session (initialize without Mcp-Session-Id) with your own key")
				return
			}
		}
		ti := &auth.TokenInfo{UserID: p.UserID, Extra: map[string]any{personKey: &person{Person: p, key: key}}}
		r = r.WithContext(context.WithValue(r.Context(), tokenInfoCtx{}, ti))
		inner.ServeHTTP(w, r)
		if r.Header.Get("Mcp-Session-Id") == "" {
			if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
				ids.bind(sid, p.UserID, s.liveSessions)
			}
		}
	})
}

type tokenInfoCtx struct{}

// refusePerson answers a request refused before it reached MCP (a 401 is
// unauthorized's).
func refusePerson(w http.ResponseWriter, code int, msg string) {
	// The body is not read: closing the connection spares draining it.
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

// liveSessions is the set of open session ids.
func (s *Server) liveSessions() map[string]bool {
	out := map[string]bool{}
	for ss := range s.MCP.Sessions() {
		out[ss.ID()] = true
	}
	return out
}

// personOf is the person a call is made for in per-person mode (nil
// otherwise).
func personOf(extra *mcp.RequestExtra) *person {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	p, _ := extra.TokenInfo.Extra[personKey].(*person)
	return p
}

// forPerson is ctx for a call made for p: every request to Audiobookshelf
// carries p's key, the permission a tool needs is checked against p's user
// (kit.Deps.Permit), and approvals are bound to p's user id.
func forPerson(ctx context.Context, p *person) context.Context {
	return guard.WithUser(kit.WithPerson(kit.WithKey(ctx, p.key), p.Person), p.UserID)
}

// toolsForPerson is a receiving middleware that, in per-person mode, leaves
// out of tools/list the tools the person's user may not run: the
// permission each needs, from the registry (tools.yaml).
func toolsForPerson(all []registry.Tool) mcp.Middleware {
	needs := make(map[string]permission.Name, len(all))
	for _, t := range all {
		needs[t.Name] = t.Permission
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/list" || err != nil {
				return res, err
			}
			p := personOf(req.GetExtra())
			lr, ok := res.(*mcp.ListToolsResult)
			if p == nil || !ok {
				return res, err
			}
			kept := make([]*mcp.Tool, 0, len(lr.Tools))
			for _, t := range lr.Tools {
				if p.Has(needs[t.Name]) {
					kept = append(kept, t)
				}
			}
			out := *lr
			out.Tools = kept
			return &out, nil
		}
	}
}
