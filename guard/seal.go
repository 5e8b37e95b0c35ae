package guard

import (
	"container/heap"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// KeySize is the length of a state key in bytes.
const KeySize = 32

// KeyVariable is the environment variable that carries a shared state key.
const KeyVariable = "AUDIOBOOKSHELF_STATE_KEY"

// ParseKey decodes the AUDIOBOOKSHELF_STATE_KEY value: standard base64 that
// decodes to exactly 32 bytes. The error never repeats the value (a secret).
func ParseKey(b64 string) ([]byte, error) {
	s := strings.TrimSpace(b64)
	if s == "" {
		return nil, fmt.Errorf("%s is set but empty: set it to standard base64 of exactly %d bytes (for example the output of `openssl rand -base64 %d`), or unset it for a random key per process", KeyVariable, KeySize, KeySize)
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(s, "=") {
		enc = base64.RawStdEncoding
	}
	key, err := enc.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not standard base64: set it to standard base64 of exactly %d bytes (for example the output of `openssl rand -base64 %d`), or unset it for a random key per process", KeyVariable, KeySize, KeySize)
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("%s decodes to %d bytes: it must be standard base64 of exactly %d bytes (for example the output of `openssl rand -base64 %d`), or unset for a random key per process", KeyVariable, len(key), KeySize, KeySize)
	}
	return key, nil
}

// fingerprint binds an approval to a tool and its exact arguments: SHA-256
// over the tool name and the encoding/json form of args (struct fields in
// declaration order, map keys sorted, lists in their order). A top-level
// confirm_token key is left out, so that the call that carries the token has
// the fingerprint of the call that got it.
func fingerprint(tool string, args any) ([32]byte, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return [32]byte{}, err
	}
	if len(b) > 0 && b[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return [32]byte{}, err
		}
		if _, ok := m["confirm_token"]; ok {
			delete(m, "confirm_token")
			if b, err = json.Marshal(m); err != nil {
				return [32]byte{}, err
			}
		}
	}
	h := sha256.New()
	h.Write([]byte("audiobookshelf-mcp guard fingerprint v1\x00"))
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(tool)))])
	h.Write([]byte(tool))
	h.Write(b)
	var fp [32]byte
	h.Sum(fp[:0])
	return fp, nil
}

// readDigest binds an approval to what the plan read before asking (the
// entries and their order, a bookmark's title and creation time, a progress
// record's last update): SHA-256 over the encoding/json form of read. When
// the call comes back, the plan reads again; a different digest means that
// what the person approved is no longer what the call would take out.
func readDigest(read any) ([32]byte, error) {
	b, err := json.Marshal(read)
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	h.Write([]byte("audiobookshelf-mcp guard read digest v1\x00"))
	h.Write(b)
	var d [32]byte
	h.Sum(d[:0])
	return d, nil
}

// stateVersion 2 added the read digest; a version 1 state (from a server
// before that) does not open, and the person is asked afresh.
const stateVersion = 2

// maxStateLen bounds what open will look at; a real state is under 400 bytes.
const maxStateLen = 1024

type statePayload struct {
	V int    `json:"v"` // stateVersion
	T string `json:"t"` // tool
	F string `json:"f"` // base64url fingerprint of the arguments
	D string `json:"d"` // base64url digest of what the plan read
	E int64  `json:"e"` // expiry, unix seconds
	// I is when it was sealed, unix milliseconds: a shared store tells by
	// it whether it was asked before the store lost its data (RedisStore).
	I int64  `json:"i,omitempty"`
	N string `json:"n"` // base64url 128-bit nonce
	// U is the Audiobookshelf user id the question was asked of, in a
	// per-person deployment (absent otherwise).
	U string `json:"u,omitempty"`
	// K is the fingerprint of the key that sealed it (KeyFingerprint):
	// not secret and not trusted, it only tells "sealed under another
	// key" from "altered" when the seal does not open.
	K string `json:"k,omitempty"`
	// R is set on a question asked afresh because the answer before it
	// came under another key: one more such answer means the instances
	// behind one address do not share a key, and asking again would loop.
	R bool `json:"r,omitempty"`
}

var b64 = base64.RawURLEncoding

func (g *Guard) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte("audiobookshelf-mcp guard state\x00"))
	m.Write(payload)
	return m.Sum(nil)
}

// seal returns base64url(payload).base64url(mac) for a question about tool,
// asked of user ("" with one key for everyone), with fingerprint fp over what the plan read (digest read), good until
// now+StateTTL.
func (g *Guard) seal(tool, user string, fp, read [32]byte, now time.Time) string {
	return g.sealR(tool, user, fp, read, now, false)
}

// sealR is seal, marking a question asked afresh after an answer under
// another key (statePayload.R).
func (g *Guard) sealR(tool, user string, fp, read [32]byte, now time.Time, afterOtherKey bool) string {
	nonce := make([]byte, 16)
	rand.Read(nonce)
	payload, _ := json.Marshal(statePayload{ // cannot fail: strings and ints
		V: stateVersion,
		T: tool,
		F: b64.EncodeToString(fp[:]),
		D: b64.EncodeToString(read[:]),
		E: now.Add(g.cfg.StateTTL).Unix(),
		I: now.UnixMilli(),
		N: b64.EncodeToString(nonce),
		U: user,
		K: g.KeyFingerprint(),
		R: afterOtherKey,
	})
	return b64.EncodeToString(payload) + "." + b64.EncodeToString(g.mac(payload))
}

// Why a state did not open, as logged. stateChanged is the one the person
// is told about: the question was answered, but what it asked about changed.
const (
	stateChanged = "what it read changed"
)

// open reports whether s is a state sealed under this Guard's key for tool,
// user, fp and the read digest read, that has not expired, and if so uses it up on
// this instance. Anything else — unparsable, another key, another tool,
// other arguments, another person (otherPerson), expired, a different read
// (stateChanged), already used
// here — is false, with the reason.
func (g *Guard) open(ctx context.Context, s, tool, user string, fp, read [32]byte, now time.Time) (bool, string) {
	p, why := g.unseal(s)
	if p == nil {
		return false, why
	}
	if p.U != user {
		return false, otherPerson
	}
	if p.T != tool {
		return false, "other tool"
	}
	if p.F != b64.EncodeToString(fp[:]) {
		return false, "other arguments"
	}
	if now.Unix() >= p.E {
		return false, "expired"
	}
	if p.D != b64.EncodeToString(read[:]) {
		return false, stateChanged
	}
	issued := time.UnixMilli(p.I)
	if p.I == 0 { // sealed before states carried it: the latest it can have been
		issued = time.Unix(p.E, 0).Add(time.Second - g.cfg.StateTTL)
	}
	ok, _, err := g.use(ctx, kindState, ApprovalID(p.U, p.N), issued, p.E, now.Unix())
	if errors.Is(err, ErrStoreLost) {
		return false, whyStoreLost
	}
	if err != nil {
		return false, whyStoreDown
	}
	if !ok {
		return false, "already used"
	}
	return true, ""
}

// unseal checks the seal and decodes the payload; it does not look at the
// tool, the fingerprint, the clock or the nonce set.
func (g *Guard) unseal(s string) (*statePayload, string) {
	if s == "" {
		return nil, "missing"
	}
	if len(s) > maxStateLen {
		return nil, "too long"
	}
	enc, sig, ok := strings.Cut(s, ".")
	if !ok || strings.Contains(sig, ".") {
		return nil, "malformed"
	}
	payload, err := b64.Strict().DecodeString(enc)
	if err != nil {
		return nil, "malformed"
	}
	mac, err := b64.Strict().DecodeString(sig)
	if err != nil || len(mac) != sha256.Size {
		return nil, "malformed"
	}
	if !hmac.Equal(mac, g.mac(payload)) {
		var p statePayload
		if json.Unmarshal(payload, &p) == nil && p.K != "" && p.K != g.KeyFingerprint() {
			if p.R {
				return nil, otherKeyAgain
			}
			return nil, otherKey
		}
		return nil, "bad seal"
	}
	var p statePayload
	if err := json.Unmarshal(payload, &p); err != nil || p.V != stateVersion {
		return nil, "bad payload"
	}
	if n, err := b64.Strict().DecodeString(p.N); err != nil || len(n) != 16 {
		return nil, "bad payload"
	}
	return &p, ""
}

// nonceSet holds the nonces of answered questions until they expire, bounded.
type nonceSet struct {
	mu    sync.Mutex
	max   int
	seen  map[string]int64 // nonce -> expiry
	byExp expiryHeap
	floor int64 // states expiring at or before floor are refused
}

func newNonceSet(max int) *nonceSet {
	return &nonceSet{max: max, seen: make(map[string]int64)}
}

// use records nonce as used and reports whether it was new. forgotten is
// true when it is refused only because the set overflowed: nonces expiring
// no later than the last one dropped can no longer be told apart.
func (s *nonceSet) use(nonce string, exp, now int64) (ok, forgotten bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.byExp) > 0 && s.byExp[0].exp <= now {
		delete(s.seen, heap.Pop(&s.byExp).(nonceExp).nonce)
	}
	if _, ok := s.seen[nonce]; ok {
		return false, false
	}
	if exp <= s.floor {
		return false, true
	}
	for len(s.seen) >= s.max {
		old := heap.Pop(&s.byExp).(nonceExp)
		delete(s.seen, old.nonce)
		s.floor = max(s.floor, old.exp)
	}
	if exp <= s.floor {
		return false, true
	}
	s.seen[nonce] = exp
	heap.Push(&s.byExp, nonceExp{nonce, exp})
	return true, false
}

type nonceExp struct {
	nonce string
	exp   int64
}

type expiryHeap []nonceExp

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].exp < h[j].exp }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(nonceExp)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// otherKey is why a state sealed under another key is refused: the
// instances that serve one address do not share AUDIOBOOKSHELF_STATE_KEY.
const otherKey = "sealed under another key"

// otherKeyAgain is why a state sealed under another key is refused when it
// was itself asked afresh after an answer under another key: the second
// such hop. The first is most likely a restart that drew a new key; the
// second means instances that do not share one.
const otherKeyAgain = "sealed under another key again"

// KeyFingerprint is a short public fingerprint of the state key (the first
// 4 bytes of an HMAC of a fixed text under it, in hex): the same on every
// instance with the same key, and telling nothing about the key.
func (g *Guard) KeyFingerprint() string { return hex.EncodeToString(g.keyFP[:]) }

// keyFingerprint computes KeyFingerprint's bytes for key.
func keyFingerprint(key []byte) (fp [4]byte) {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("audiobookshelf-mcp key fingerprint"))
	copy(fp[:], m.Sum(nil))
	return fp
}
