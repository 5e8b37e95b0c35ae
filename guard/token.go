package guard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"
)

// The two-call token is sealed like the request state, so that any instance
// holding the same key can check it and none has to remember it: HMAC-SHA256
// under the state key over the tool, the fingerprint of the arguments, the
// digest of what the plan read, the expiry and a nonce. It is short enough
// to be copied by hand (59 characters of base64url), because a model or a
// person carries it from one call to the next.
//
// Layout, 44 bytes before base64url:
//
//	[0]      tokenVersion
//	[1:7]    expiry, unix milliseconds, big-endian 48 bits (to the
//	         millisecond, so that a shared store can tell whether it was
//	         given before the store lost its data: RedisStore)
//	[7:15]   nonce, 64 random bits
//	[15:19]  first 4 bytes of the arguments' fingerprint (a hint)
//	[19:23]  first 4 bytes of the read digest (a hint)
//	[23:27]  the fingerprint of the key that sealed it (KeyFingerprint)
//	[27]     how many times in a row it was handed out in place of a token
//	         sealed under another key (0 or 1)
//	[28:44]  HMAC-SHA256 truncated to 128 bits
//
// The last two are what end a loop. Without a fixed AUDIOBOOKSHELF_STATE_KEY
// every process draws its own key; behind a gateway that starts a process
// per request (supergateway in stateless mode) or instances without a
// shared key, each token is checked by a process that did not seal it, and
// each refusal handed out a new token that failed the same way, for as long
// as a model kept following the instructions. Now a token refused because
// another key sealed it is replaced once, marked; when the replacement is
// refused for the same reason, no token is given again and the result says
// what the operator must set. A single restart still recovers: the
// replacement is checked by the process that sealed it.
//
// Why these sizes:
//   - The MAC is computed over the full 32-byte fingerprint and digest, which
//     the instance checking the token recomputes from the call and a fresh
//     read; so the binding is as strong as the MAC. 128 bits leaves forging
//     a token at 2^-128 per guess, and guesses are online (one tool call
//     each); truncating HMAC-SHA256 to 128 bits is what NIST SP 800-107
//     allows for this use.
//   - The nonce only has to tell apart the tokens one instance sees used
//     within a TTL (its per-process set); the MAC, not the nonce, makes a
//     token unforgeable. 64 bits make two tokens of one TTL collide with
//     odds far below 2^-40 at thousands of tokens, and a collision costs a
//     fresh token, never an approval.
//   - The two 4-byte hints choose the sentence of a refusal only (other
//     arguments, or a changed state, rather than an unknown token); they
//     carry no authority, as the MAC covers the full values. A wrong hint
//     (odds 2^-32) gives a less precise sentence.
//   - The key fingerprint and the count are covered by the MAC too, but
//     they are read when the MAC cannot be checked (another key): there
//     they choose only between a new token and the operator's message,
//     never an approval. A forged count costs its sender a token.
const (
	tokenVersion  = 2
	tokenHint     = 4
	tokenKeyFP    = 4
	tokenMACSize  = 16
	tokenNonceLen = 8
	tokenExpLen   = 6
	tokenRawLen   = 1 + tokenExpLen + tokenNonceLen + 2*tokenHint + tokenKeyFP + 1 + tokenMACSize
	// Offsets in the layout above.
	tokenNonceAt  = 1 + tokenExpLen
	tokenFPAt     = tokenNonceAt + tokenNonceLen
	tokenReadAt   = tokenFPAt + tokenHint
	tokenKeyAt    = tokenReadAt + tokenHint
	tokenRenewsAt = tokenKeyAt + tokenKeyFP
)

// maxTokenRenewals is how many tokens in a row are handed out in place of
// one sealed under another key: one (a restart between the two calls).
const maxTokenRenewals = 1

// tokenLen is the length of a token as handed out.
var tokenLen = b64.EncodedLen(tokenRawLen)

// Why a token was not accepted, as logged.
const (
	tokenUnknown   = "unknown"
	tokenUsed      = "already used"
	tokenForgotten = "used set full"
	tokenExpired   = "expired"
	tokenMismatch  = "bound to another tool or other arguments"
	tokenChanged   = "what it read changed"
	// tokenOtherPerson: in a per-person deployment, a token whose seal
	// does not match although its hints do (another person's, or another
	// server key's).
	tokenOtherPerson = "not issued to this person"
	tokenStoreDown   = whyStoreDown
	tokenStoreLost   = whyStoreLost
	// tokenOtherKey: sealed under another key (its key fingerprint is not
	// this Guard's), most likely before a restart without a fixed key.
	tokenOtherKey = "sealed under another key"
	// tokenOtherKeyAgain: sealed under another key, and itself handed out
	// in place of a token sealed under another key: the processes that
	// check tokens do not share one, and a new token cannot work.
	tokenOtherKeyAgain = "sealed under another key again"
)

func (g *Guard) tokenMAC(tool, user string, fp, read [32]byte, body []byte) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte("audiobookshelf-mcp guard token\x00"))
	var n [binary.MaxVarintLen64]byte
	m.Write(n[:binary.PutUvarint(n[:], uint64(len(tool)))])
	m.Write([]byte(tool))
	m.Write(fp[:])
	m.Write(read[:])
	m.Write(body) // fixed length: what follows cannot be confused with it
	if user != "" {
		// Per-person deployments: the token is good for this person only.
		m.Write([]byte("\x00user\x00"))
		m.Write(n[:binary.PutUvarint(n[:], uint64(len(user)))])
		m.Write([]byte(user))
	}
	return m.Sum(nil)[:tokenMACSize]
}

// issueToken returns a fresh token for tool, fp and the read digest read,
// good until now+TokenTTL.
func (g *Guard) issueToken(tool, user string, fp, read [32]byte, now time.Time) string {
	return g.issueTokenR(tool, user, fp, read, now, 0)
}

// issueTokenR is issueToken for a token handed out in place of one sealed
// under another key, renewals times in a row.
func (g *Guard) issueTokenR(tool, user string, fp, read [32]byte, now time.Time, renewals byte) string {
	raw := make([]byte, tokenRawLen)
	raw[0] = tokenVersion
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.Add(g.cfg.TokenTTL).UnixMilli()))
	copy(raw[1:tokenNonceAt], ms[8-tokenExpLen:])
	rand.Read(raw[tokenNonceAt : tokenNonceAt+tokenNonceLen])
	body := raw[:tokenRawLen-tokenMACSize]
	copy(body[tokenFPAt:], fp[:tokenHint])
	copy(body[tokenReadAt:], read[:tokenHint])
	copy(body[tokenKeyAt:], g.keyFP[:])
	body[tokenRenewsAt] = renewals
	copy(raw[len(body):], g.tokenMAC(tool, user, fp, read, body))
	return b64.EncodeToString(raw)
}

// tokenRenewals is how many times in a row tok was handed out in place of
// a token sealed under another key, as it says (0 for anything unreadable).
func tokenRenewals(tok string) byte {
	raw, err := b64.Strict().DecodeString(tok)
	if err != nil || len(raw) != tokenRawLen || raw[0] != tokenVersion {
		return 0
	}
	return raw[tokenRenewsAt]
}

// tokenKeyFingerprint is the fingerprint of the key tok says it was sealed
// under, in KeyFingerprint's form ("" for anything unreadable).
func tokenKeyFingerprint(tok string) string {
	raw, err := b64.Strict().DecodeString(tok)
	if err != nil || len(raw) != tokenRawLen || raw[0] != tokenVersion {
		return ""
	}
	return hex.EncodeToString(raw[tokenKeyAt : tokenKeyAt+tokenKeyFP])
}

// redeemToken uses tok up for tool, fp and read on this instance: "" when
// it is accepted, otherwise why not. A token presented for other arguments,
// or after what it read changed, is used up on this instance too.
func (g *Guard) redeemToken(ctx context.Context, tok, tool, user string, fp, read [32]byte, now time.Time) string {
	if len(tok) != tokenLen {
		return tokenUnknown
	}
	raw, err := b64.Strict().DecodeString(tok)
	if err != nil || len(raw) != tokenRawLen || raw[0] != tokenVersion {
		return tokenUnknown
	}
	body, mac := raw[:tokenRawLen-tokenMACSize], raw[tokenRawLen-tokenMACSize:]
	var ms [8]byte
	copy(ms[8-tokenExpLen:], body[1:tokenNonceAt])
	expMs := int64(binary.BigEndian.Uint64(ms[:]))
	exp := (expMs + 999) / 1000 // whole seconds, for the sets of spent ones
	issued := time.UnixMilli(expMs).Add(-g.cfg.TokenTTL)
	nonce := ApprovalID(user, string(body[tokenNonceAt:tokenNonceAt+tokenNonceLen]))
	if !hmac.Equal(mac, g.tokenMAC(tool, user, fp, read, body)) {
		why := tokenUnknown
		switch {
		case !hmac.Equal(body[tokenFPAt:tokenFPAt+tokenHint], fp[:tokenHint]):
			why = tokenMismatch
		case !hmac.Equal(body[tokenKeyAt:tokenKeyAt+tokenKeyFP], g.keyFP[:]):
			// Another key sealed it: what it read cannot be told here,
			// and neither can a person.
			if body[tokenRenewsAt] >= maxTokenRenewals {
				return tokenOtherKeyAgain
			}
			return tokenOtherKey
		case !hmac.Equal(body[tokenReadAt:tokenReadAt+tokenHint], read[:tokenHint]):
			why = tokenChanged
		}
		if why == tokenUnknown && user != "" {
			// Tool, arguments and read match, the seal does not: most
			// likely a token issued to another person for the same call.
			why = tokenOtherPerson
		}
		if why != tokenUnknown && why != tokenOtherPerson && now.Unix() < exp {
			// The hints are not authenticated, so this may record a nonce
			// nobody issued; it can only refuse that same token later.
			g.use(ctx, kindToken, nonce, issued, min(exp, now.Add(g.cfg.TokenTTL).Unix()), now.Unix()) // refused either way
		}
		return why
	}
	if now.UnixMilli() >= expMs {
		return tokenExpired
	}
	ok, forgotten, err := g.use(ctx, kindToken, nonce, issued, exp, now.Unix())
	if errors.Is(err, ErrStoreLost) {
		return tokenStoreLost
	}
	if err != nil {
		return tokenStoreDown
	}
	if !ok {
		if forgotten {
			return tokenForgotten
		}
		return tokenUsed
	}
	return ""
}
