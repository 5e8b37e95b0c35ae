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
		tok := g.issueToken(q.Tool, user, fp, q.read, now)
		g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeTokenRejected, why)
		return false, g.tokenResult(&q, tok, reason, why)
	}
	g.decision(ctx, q.Tool, q.Targets, pathToken, outcomeApproved, "")
	return true, nil
}

// rejectedSentence says why a given confirm_token was not accepted.
func (g *Guard) rejectedSentence(why string) string {
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
		b.WriteString(g.rejectedSentence(rejected))
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
