package guard

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenProves is what a confirm_token proves, word for word in every token result.
const TokenProves = "the call was made twice with the same arguments, nothing more"

// tokenPath decides a call on the token path.
func (g *Guard) tokenPath(ctx context.Context, q Question, fp [32]byte, reason string) (bool, *mcp.CallToolResult) {
	now := g.now()
	user := UserFrom(ctx)
	if q.ConfirmToken == "" {
		tok := g.issueToken(q.Tool, user, fp, q.read, now)
		g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeTokenIssued, "")
		return false, g.tokenResult(&q, tok, reason, "")
	}
	if why := g.redeemToken(ctx, q.ConfirmToken, q.Tool, user, fp, q.read, now); why != "" {
		if why == tokenStoreDown {
			g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeTokenRejected, why)
			return false, notChanged(q.Tool, outcomeStoreDown, storeDownWhy("the confirm_token", "call this tool again with the same confirm_token"))
		}
		if why == tokenOtherKeyAgain {
			// A new token would be checked by yet another key: say what
			// the operator must set, and hand out none.
			g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeTokenRejected, why)
			return false, g.keysDifferResult(q.Tool, tokenKeyFingerprint(q.ConfirmToken))
		}
		var renewals byte
		if why == tokenOtherKey {
			renewals = tokenRenewals(q.ConfirmToken) + 1
		}
		tok := g.issueTokenR(q.Tool, user, fp, q.read, now, renewals)
		g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeTokenRejected, why)
		return false, g.tokenResult(&q, tok, reason, why)
	}
	g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeApproved, "")
	return true, nil
}

// rejectedSentence says why a given confirm_token was not accepted.
func (g *Guard) rejectedSentence(why, tokenKey string) string {
	switch why {
	case tokenUsed:
		return "The confirm_token given was not accepted: it was already used, and each token works once."
	case tokenExpired:
		return fmt.Sprintf("The confirm_token given was not accepted: it had expired (tokens are good for %s).", span(g.cfg.TokenTTL))
	case tokenMismatch:
		return "The confirm_token given was not accepted: it was issued for another tool or for other arguments, and a token covers exactly the call it was issued for. It is used up now."
	case tokenChanged:
		return "The confirm_token given was not accepted: what the call would change on Audiobookshelf has changed since the token was issued, so it no longer covers this call. What the call would do now is below, with a new token."
	case tokenOtherPerson:
		return "The confirm_token given was not accepted: it was not issued to this person. A token works only for the Audiobookshelf user it was issued to (or it was sealed under another server key)."
	case tokenOtherKey:
		cause := fmt.Sprintf("most likely by this server before a restart, as it has no fixed %s", KeyVariable)
		if g.fixedKey {
			cause = fmt.Sprintf("by a server with another %s", KeyVariable)
		}
		return fmt.Sprintf("The confirm_token given was not accepted: it was sealed under another key (fingerprint %s; this server's is %s), %s. The new token below is this server's. If it is refused for the same reason, the processes serving these calls do not share a key, and no further token will be given.", tokenKey, g.KeyFingerprint(), cause)
	case tokenStoreLost:
		return storeLostSentence("The confirm_token given", "The new token below was given after that, and works.")
	case tokenForgotten:
		return fmt.Sprintf("The confirm_token given was not accepted: so many tokens were used on this server in the last %s that it can no longer tell whether this one was.", span(g.cfg.TokenTTL))
	default:
		return fmt.Sprintf("The confirm_token given was not accepted: it was not sealed under this server's key. It may come from a server that was restarted without a fixed %s, or from an instance with another key, or have been cut short when it was copied.", KeyVariable)
	}
}

// tokenResult is the result of the first call of the two, or of a call whose
// token was not accepted: it changes nothing and gives a fresh token.
func (g *Guard) tokenResult(q *Question, tok, reason, rejected string) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString("Nothing was changed.")
	if rejected != "" {
		b.WriteString(" ")
		b.WriteString(g.rejectedSentence(rejected, tokenKeyFingerprint(q.ConfirmToken)))
	}
	fmt.Fprintf(&b, "\n\n%s asks a person before it changes anything, but no question can be shown here: %s. It falls back to a two-call confirmation instead.", q.Tool, reason)
	if msg := q.Message(); msg != "" {
		fmt.Fprintf(&b, "\n\nWhat the call would do:\n\n%s", msg)
	}
	fmt.Fprintf(&b, "\n\nTo go ahead, call this tool again with identical arguments plus confirm_token %q. The token works once, for %s, and only for exactly these arguments.", tok, span(g.cfg.TokenTTL))
	fmt.Fprintf(&b, "\n\nWhat the token proves: %s. Nobody was asked, and receiving it is not anyone's approval. Tell the person what the call would do before calling again.", TokenProves)
	sc := map[string]any{
		"status":             "confirmation_required",
		"confirm_token":      tok,
		"expires_in_seconds": int64(g.cfg.TokenTTL.Seconds()),
		"reason":             reason,
		"proves":             TokenProves,
	}
	if rejected != "" {
		sc["rejected_token"] = rejected
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: b.String()}},
		StructuredContent: sc,
	}
}

// keysDifferResult is the result when a confirm_token was sealed under
// another key for the second time in a row: every process that checks a
// token has a key of its own (a gateway that starts a process per request,
// instances behind one address without a shared key). It changes nothing
// and hands out no token, because a new one would fail the same way; it
// says what the operator must set.
func (g *Guard) keysDifferResult(tool, tokenKey string) *mcp.CallToolResult {
	here := fmt.Sprintf("this process has a random key of its own (%s is not set)", KeyVariable)
	if g.fixedKey {
		here = fmt.Sprintf("this process's %s has fingerprint %s", KeyVariable, g.KeyFingerprint())
	}
	text := fmt.Sprintf("Nothing was changed: %s did not run because its confirm_token was sealed under another key again (fingerprint %s), and %s. The call is being checked by a different server process than the one that issued its token, with a different key: each request starts a new process (a gateway such as supergateway in stateless mode), or several instances serve this address. A new token would be refused the same way, so none is given. The operator must set %s to the same value on every process and instance of this server (make one with: openssl rand -base64 32), and %s to one shared store so that a token still works only once; then call again. Tell the person so, and do not call this tool again until it is done.",
		tool, tokenKey, here, KeyVariable, StoreVariable)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{
			"status":            "not_changed",
			"outcome":           outcomeTokenRejected,
			"rejected_token":    tokenOtherKeyAgain,
			"operator_must_set": KeyVariable,
		},
	}
}
