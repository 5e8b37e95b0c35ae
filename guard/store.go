package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Store records approvals that were spent: the nonces of answered questions
// (an answer of any kind: a question declined at one instance cannot be
// accepted at another) and of used confirm_tokens, each until it expires.
// Several instances, or processes in a row, that share a state key share one
// Store so that an approval works once across all of them. Without one,
// each Guard keeps its own bounded sets in memory.
type Store interface {
	// Use records the approval kind/nonce as spent until exp, atomically,
	// and reports whether it was not spent before. issued is the latest
	// time the approval can have been given. An error means the store
	// could not tell: the guard then refuses the call. ErrStoreLost means
	// the store lost what it held after the approval was given (it was
	// restarted or emptied), so it cannot tell whether it was spent.
	Use(ctx context.Context, kind, nonce string, issued, exp, now time.Time) (bool, error)
}

// ErrStoreLost is Use's error for an approval given before the store lost
// its data.
var ErrStoreLost = errors.New(whyStoreLost)

// whyStoreLost is why an approval was refused when the store had lost its
// data since it was given.
const whyStoreLost = "approval store lost its data"

// Kinds of approvals in a Store.
const (
	kindState = "state"
	kindToken = "token"
)

// errStoreDown is why an approval was refused when the Store failed.
const whyStoreDown = "approval store unreachable"

// StoreVariable configures the shared store of spent approvals.
const StoreVariable = "AUDIOBOOKSHELF_APPROVAL_STORE"

// use spends kind/nonce, in the configured Store or in this Guard's own
// sets. forgotten: refused only because an in-memory set overflowed.
// issued is when the approval was given.
func (g *Guard) use(ctx context.Context, kind, nonce string, issued time.Time, exp, now int64) (ok, forgotten bool, err error) {
	if g.store != nil {
		ctx, cancel := context.WithTimeout(ctx, storeTimeout)
		defer cancel()
		ok, err := g.store.Use(ctx, kind, nonce, issued, time.Unix(exp, 0), time.Unix(now, 0))
		if errors.Is(err, ErrStoreLost) {
			g.log.Warn("the approval store (AUDIOBOOKSHELF_APPROVAL_STORE) lost its data: it was restarted or emptied without keeping what it held; approvals given before that are refused, because it can no longer tell whether they were spent. Make it persist (Redis or Valkey with appendonly yes, or snapshots kept across restarts)",
				"kind", kind, "store", storeWhere(g.store))
			return false, false, ErrStoreLost
		}
		if err != nil {
			return false, false, errors.New(whyStoreDown)
		}
		return ok, false, nil
	}
	set := g.answers
	if kind == kindToken {
		set = g.usedTokens
	}
	ok, forgotten = set.use(nonce, exp, now)
	return ok, forgotten, nil
}

// storeTimeout bounds one look-up in the Store: a store that does not
// answer refuses the call rather than holding it.
const storeTimeout = 3 * time.Second

// storeWhere names a store for a log line.
func storeWhere(s Store) string {
	if w, ok := s.(interface{ Where() string }); ok {
		return w.Where()
	}
	return "(a store)"
}

// RedisStore is a Store in Redis or Valkey (the Redis protocol): one key
// per spent approval, set with SET NX and an expiry of the approval's
// remaining life, so that of any number of instances exactly one spends it.
//
// A store that restarts empty (no persistence) forgets what was spent, and
// an approval already used would run once more. So the store also holds a
// marker, written when it is first used (at start, and by the first spend
// that finds it missing) with the time it was written, and never expiring:
// each spend reads it in the same script, and an approval given before it
// was written is refused with ErrStoreLost. A store that lost its data has
// lost the marker too; the first spend after that writes a new one, and
// every approval given before it is refused. Approvals carry when they were
// given to the millisecond; instances whose clocks differ by more than the
// time between a loss and the next approval given can refuse a fresh one
// or, the other way, take a stale one.
type RedisStore struct {
	c     *redis.Client
	where string
}

// storeKeyPrefix namespaces the keys in a shared Redis.
const storeKeyPrefix = "audiobookshelf-mcp:spent:"

// storeMarker is the key of the marker: Unix milliseconds of when the store
// began to record spent approvals.
const storeMarker = "audiobookshelf-mcp:recording-since"

// spendScript spends KEYS[2] (SET NX PX ARGV[3]) unless the approval was
// given (ARGV[2], ms) before the marker KEYS[1], writing the marker (ARGV[1],
// now in ms) when it is missing: 1 spent, 0 spent before, -1 given before
// the marker.
var spendScript = redis.NewScript(`
local since = redis.call('GET', KEYS[1])
if not since then
  redis.call('SET', KEYS[1], ARGV[1])
  since = ARGV[1]
end
if tonumber(ARGV[2]) < tonumber(since) then
  return -1
end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) then
  return 1
end
return 0
`)

// ParseStore checks a value of AUDIOBOOKSHELF_APPROVAL_STORE: "memory" (the
// default, "" returned) or a redis://, rediss:// or unix:// URL that
// go-redis accepts. The error never repeats the value: it may hold a
// password.
func ParseStore(v string) (string, error) {
	if v == "memory" {
		return "", nil
	}
	scheme, _, _ := strings.Cut(v, "://")
	switch scheme {
	case "redis", "rediss", "unix":
		if _, err := redis.ParseURL(v); err != nil {
			return "", fmt.Errorf("%s: not a URL of a Redis or Valkey server that can be used (%s); for example redis://127.0.0.1:6379/0, rediss://:PASSWORD@host:6380/0 or unix:///run/redis.sock", StoreVariable, redactErr(err, v))
		}
		return v, nil
	}
	return "", fmt.Errorf("%s: must be memory (one process) or a redis://, rediss:// or unix:// URL of a Redis or Valkey server shared by every instance, such as redis://127.0.0.1:6379/0", StoreVariable)
}

// redactErr is err's text with v's password, if any, taken out.
func redactErr(err error, v string) string {
	s := err.Error()
	if u, perr := url.Parse(v); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			s = strings.ReplaceAll(s, p, "xxxxx")
		}
		if n := u.User.Username(); n != "" {
			s = strings.ReplaceAll(s, n, "xxxxx")
		}
	}
	return s
}

// NewRedisStore returns a RedisStore for a URL that ParseStore accepted.
// It does not connect: the first Use does (see Ping).
func NewRedisStore(rawURL string) (*RedisStore, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", StoreVariable, redactErr(err, rawURL))
	}
	opt.DialTimeout = 2 * time.Second
	opt.ReadTimeout = 2 * time.Second
	opt.WriteTimeout = 2 * time.Second
	opt.MaxRetries = 1
	opt.PoolSize = 4
	opt.ClientName = "audiobookshelf-mcp"
	opt.DisableIdentity = true // CLIENT SETINFO is not in every server of the protocol
	return &RedisStore{c: redis.NewClient(opt), where: opt.Network + " " + opt.Addr}, nil
}

// Where names the store for a log line: network and address, no password.
func (s *RedisStore) Where() string { return s.where }

// Ping reports whether the store answers, and writes the marker (see
// RedisStore) when it is missing: from then on the store vouches for
// approvals given.
func (s *RedisStore) Ping(ctx context.Context) error {
	return s.c.SetNX(ctx, storeMarker, time.Now().UnixMilli(), 0).Err()
}

// Close closes the connections.
func (s *RedisStore) Close() error { return s.c.Close() }

// Use is SET key 1 NX PX remaining-life, after the marker's check (see
// RedisStore), in one script: true when the key was not there.
func (s *RedisStore) Use(ctx context.Context, kind, nonce string, issued, exp, now time.Time) (bool, error) {
	ttl := exp.Sub(now)
	if ttl <= 0 {
		return false, nil
	}
	h := sha256.Sum256([]byte(kind + "\x00" + nonce))
	keys := []string{storeMarker, storeKeyPrefix + kind + ":" + hex.EncodeToString(h[:16])}
	n, err := spendScript.Run(ctx, s.c, keys, time.Now().UnixMilli(), issued.UnixMilli(), ttl.Milliseconds()).Int()
	switch {
	case err != nil:
		return false, errors.New(whyStoreDown)
	case n < 0:
		return false, ErrStoreLost
	}
	return n == 1, nil
}
