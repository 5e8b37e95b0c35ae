package guard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// The two-call token is sealed like the request state, so that any instance
// holding the same key can check it and none has to remember it: HMAC-SHA256
// under the state key over the tool, the fingerprint of the arguments, the
// digest of what the plan read, the expiry and a nonce. It is short enough
// to be copied by hand (50 characters of base64url), because a model or a
// person carries it from one call to the next.
//
// Layout, 37 bytes before base64url:
//
//	[0]      tokenVersion
//	[1:5]    expiry, unix seconds, big-endian uint32 (good until 2106)
//	[5:13]   nonce, 64 random bits
//	[13:17]  first 4 bytes of the arguments' fingerprint (a hint)
//	[17:21]  first 4 bytes of the read digest (a hint)
//	[21:37]  HMAC-SHA256 truncated to 128 bits
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
const (
	tokenVersion  = 1
	tokenHint     = 4
	tokenMACSize  = 16
	tokenNonceLen = 8
	tokenRawLen   = 1 + 4 + tokenNonceLen + 2*tokenHint + tokenMACSize
)

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
	raw := make([]byte, tokenRawLen)
	raw[0] = tokenVersion
	binary.BigEndian.PutUint32(raw[1:5], uint32(now.Add(g.cfg.TokenTTL).Unix()))
	rand.Read(raw[5 : 5+tokenNonceLen])
	body := raw[:tokenRawLen-tokenMACSize]
	copy(body[5+tokenNonceLen:], fp[:tokenHint])
	copy(body[5+tokenNonceLen+tokenHint:], read[:tokenHint])
	copy(raw[len(body):], g.tokenMAC(tool, user, fp, read, body))
	return b64.EncodeToString(raw)
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
	exp := int64(binary.BigEndian.Uint32(body[1:5]))
	nonce := ApprovalID(user, string(body[5:5+tokenNonceLen]))
	if !hmac.Equal(mac, g.tokenMAC(tool, user, fp, read, body)) {
		why := tokenUnknown
		switch {
		case !hmac.Equal(body[5+tokenNonceLen:5+tokenNonceLen+tokenHint], fp[:tokenHint]):
			why = tokenMismatch
		case !hmac.Equal(body[5+tokenNonceLen+tokenHint:], read[:tokenHint]):
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
			g.use(ctx, kindToken, nonce, min(exp, now.Add(g.cfg.TokenTTL).Unix()), now.Unix()) // refused either way
		}
		return why
	}
	if now.Unix() >= exp {
		return tokenExpired
	}
	ok, forgotten, err := g.use(ctx, kindToken, nonce, exp, now.Unix())
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
