// Package guard asks a person before a tool takes out something that cannot
// be put back from here. It is the only place that decides whether a guarded
// tool call may go on to Audiobookshelf.
//
// One mechanism serves every protocol revision: a guarded call that has no
// valid approval returns go-sdk's multi round-trip result (InputRequests with a
// sealed RequestState). On 2026-07-28 that travels to the client as
// input_required and comes back as a retry; on older revisions go-sdk's own
// middleware pushes elicitation/create and re-runs the handler. Clients that
// cannot show a form get the two-call token instead.
package guard

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config configures a Guard.
type Config struct {
	// Elicitation is the parsed ELICITATION variable: true asks through a
	// dialog where the client can show one; false always takes the token path.
	Elicitation bool
	// Key seals request state (HMAC-SHA256). nil or empty: a random key for
	// this process. Otherwise exactly 32 bytes.
	Key []byte
	// Stateless is true when the server runs streamable HTTP without sessions:
	// a client older than 2026-07-28 cannot be asked then, so it gets the token.
	Stateless bool
	// ServerName names this server in texts ("audiobookshelf-mcp").
	ServerName string
	// Logger receives one structured line per guarded decision. nil: discard.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests move it to expire states.
	Now func() time.Time
	// StateTTL and TokenTTL bound how long a question or token is good for;
	// zero means the defaults (10 and 5 minutes). MaxTokens bounds the token
	// store (default 1024, oldest evicted).
	StateTTL, TokenTTL time.Duration
	MaxTokens          int
}

// Question is what a guarded tool asks, built by the tool after it has read
// what it needs to count. Every string in it must be made of ids and counts
// only: never a title, name or description.
type Question struct {
	// Tool is the tool's name.
	Tool string
	// Args is the decoded arguments without confirm_token; the approval is
	// bound to a fingerprint of its canonical JSON (lists keep their order).
	Args any
	// ConfirmToken is the confirm_token argument, "" when absent.
	ConfirmToken string
	// Targets are the ids acted on, for the log line.
	Targets []string
	// Action is the first sentence: "This will remove 2 book(s) from collection col_1."
	Action string
	// Consequences are sentences that depend on what was measured, such as
	// "These are its last entries: Audiobookshelf deletes the playlist itself."
	Consequences []string
	// TakesOut and Stays are the static texts from tools.yaml.
	TakesOut, Stays string
}

// Guard decides guarded calls. It is safe for concurrent use.
type Guard struct {
	cfg Config
}

// New returns a Guard, or an error for a key of the wrong length.
func New(cfg Config) (*Guard, error) {
	return &Guard{cfg: cfg}, nil
}

// Check reports whether the call may go on. When it returns false, res is the
// result the tool must return as it is (a question, a token, or a statement
// that nothing was changed); nothing may be sent to Audiobookshelf then.
func (g *Guard) Check(ctx context.Context, req *mcp.CallToolRequest, q Question) (approved bool, res *mcp.CallToolResult) {
	panic("guard: not implemented")
}
