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
	// and reports whether it was not spent before. An error means the store
	// could not tell: the guard then refuses the call.
	Use(ctx context.Context, kind, nonce string, exp, now time.Time) (bool, error)
}

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
func (g *Guard) use(ctx context.Context, kind, nonce string, exp, now int64) (ok, forgotten bool, err error) {
	if g.store != nil {
		ctx, cancel := context.WithTimeout(ctx, storeTimeout)
		defer cancel()
		ok, err := g.store.Use(ctx, kind, nonce, time.Unix(exp, 0), time.Unix(now, 0))
		return ok, false, err
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

// RedisStore is a Store in Redis or Valkey (the Redis protocol): one key
// per spent approval, set with SET NX and an expiry of the approval's
// remaining life, so that of any number of instances exactly one spends it.
type RedisStore struct {
	c     *redis.Client
	where string
}

// storeKeyPrefix namespaces the keys in a shared Redis.
const storeKeyPrefix = "audiobookshelf-mcp:spent:"

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

// Ping reports whether the store answers.
func (s *RedisStore) Ping(ctx context.Context) error { return s.c.Ping(ctx).Err() }

// Close closes the connections.
func (s *RedisStore) Close() error { return s.c.Close() }

// Use is SET key 1 NX PX remaining-life: true when the key was not there.
func (s *RedisStore) Use(ctx context.Context, kind, nonce string, exp, now time.Time) (bool, error) {
	ttl := exp.Sub(now)
	if ttl <= 0 {
		return false, nil
	}
	h := sha256.Sum256([]byte(kind + "\x00" + nonce))
	ok, err := s.c.SetNX(ctx, storeKeyPrefix+kind+":"+hex.EncodeToString(h[:16]), "1", ttl).Result()
	if err != nil {
		return false, errors.New(whyStoreDown)
	}
	return ok, nil
}
