package guard

import (
	"crypto/rand"
	"sync"
	"time"
)

// tokenStore holds the two-call tokens: random, single use, bound to a tool
// and a fingerprint, expiring, bounded (oldest evicted). A used or expired
// token is kept (counted against the bound) until one more TTL has passed,
// so that a late caller is told why it was not accepted.
type tokenStore struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	m     map[string]*tokenEntry
	order []string // issue order; may hold tokens already dropped from m
}

type tokenEntry struct {
	tool string
	fp   [32]byte
	exp  time.Time
	used bool
}

// Why a token was not accepted, as logged.
const (
	tokenUnknown  = "unknown"
	tokenUsed     = "already used"
	tokenExpired  = "expired"
	tokenMismatch = "bound to another tool or other arguments"
)

// maxTokenLen bounds what redeem looks up; a real token is 22 characters.
const maxTokenLen = 64

func newTokenStore(max int, ttl time.Duration) *tokenStore {
	return &tokenStore{max: max, ttl: ttl, m: make(map[string]*tokenEntry)}
}

// issue returns a fresh token for tool and fp.
func (s *tokenStore) issue(tool string, fp [32]byte, now time.Time) string {
	b := make([]byte, 16)
	rand.Read(b)
	tok := b64.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	for len(s.m) >= s.max {
		s.evictOldest()
	}
	s.m[tok] = &tokenEntry{tool: tool, fp: fp, exp: now.Add(s.ttl)}
	s.order = append(s.order, tok)
	if len(s.order) > 2*s.max+16 {
		s.compact()
	}
	return tok
}

// redeem uses up tok for tool and fp: "" when it is accepted, otherwise why
// not. A token presented for another call is used up too.
func (s *tokenStore) redeem(tok, tool string, fp [32]byte, now time.Time) string {
	if len(tok) > maxTokenLen {
		return tokenUnknown
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	e := s.m[tok]
	switch {
	case e == nil:
		return tokenUnknown
	case e.used:
		return tokenUsed
	case !now.Before(e.exp):
		return tokenExpired
	}
	e.used = true
	if e.tool != tool || e.fp != fp {
		return tokenMismatch
	}
	return ""
}

// prune drops, from the oldest end, entries one TTL past their expiry.
func (s *tokenStore) prune(now time.Time) {
	i := 0
	for ; i < len(s.order); i++ {
		e := s.m[s.order[i]]
		if e != nil && now.Before(e.exp.Add(s.ttl)) {
			break
		}
		delete(s.m, s.order[i])
	}
	s.order = s.order[i:]
}

func (s *tokenStore) evictOldest() {
	for len(s.order) > 0 {
		tok := s.order[0]
		s.order = s.order[1:]
		if _, ok := s.m[tok]; ok {
			delete(s.m, tok)
			return
		}
	}
}

func (s *tokenStore) compact() {
	kept := make([]string, 0, len(s.m))
	for _, tok := range s.order {
		if _, ok := s.m[tok]; ok {
			kept = append(kept, tok)
		}
	}
	s.order = kept
}
