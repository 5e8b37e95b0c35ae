package guard

import "context"

// Per-person deployments (streamable HTTP where each person brings their own
// Audiobookshelf key): every approval is bound to the Audiobookshelf user id
// of the person it was given to. The id is in the sealed request state and
// under its MAC, under the confirm_token's MAC, and in the key of the
// used-approval record (ApprovalID), so one person's approval never executes
// for another, on any instance. With one key for everyone (no user in the
// context) nothing changes: the user is "".

type userCtx struct{}

// WithUser returns ctx carrying the Audiobookshelf user id of the person the
// call is made for; Check binds approvals to it.
func WithUser(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, userCtx{}, userID)
}

// UserFrom is the user id WithUser put in ctx, "" for none.
func UserFrom(ctx context.Context) string {
	u, _ := ctx.Value(userCtx{}).(string)
	return u
}

// ApprovalID is the identity of one approval in a used-approval store: the
// user it was given to and its nonce. Two people's approvals never share
// one, whatever their nonces.
func ApprovalID(userID, nonce string) string {
	if userID == "" {
		return nonce
	}
	return userID + "\x00" + nonce
}

// otherPerson is why a state or token given to another person is refused.
const otherPerson = "given to another person"
