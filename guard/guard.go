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
//
// Nothing an instance remembers is needed for the guard to hold: the request
// state and the token are both sealed under the state key (seal.go,
// token.go) over the tool, the arguments and a digest of what the tool read
// before asking, so any instance with the key checks them, and an approval
// brought back after its change was made finds that read changed. Each
// instance's set of used nonces is the second line.
//
// Every result that does not let the call go on has IsError set, so that a
// caller that looks only at isError cannot take "nothing was changed" for
// "done"; its text says what happened and why.
package guard

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config configures a Guard.
type Config struct {
	// Elicitation is the parsed ELICITATION variable: true asks through a
	// dialog where the client can show one; false always takes the token path.
	Elicitation bool
	// Key seals request state and confirm tokens (HMAC-SHA256). nil or
	// empty: a random key for this process. Otherwise exactly 32 bytes; every
	// instance (and every restart) with the same key accepts the same states
	// and tokens.
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
	// zero means the defaults (10 and 5 minutes). MaxTokens bounds the set of
	// tokens used on this instance, kept until they expire (default 1024);
	// when it is full it drops the token that expires first and refuses every
	// token expiring no later than it, as MaxAnswered does for questions.
	StateTTL, TokenTTL time.Duration
	MaxTokens          int
	// MaxAnswered bounds the set of answered questions (their nonces) kept
	// until they expire, so that an answered state cannot be replayed
	// (default 4096). When it is full, the question that expires first is
	// dropped and every state expiring no later than it is refused from then
	// on: a full set costs a fresh question, never a replay.
	MaxAnswered int
	// ProgressEvery is how often, while a pushed question waits for the
	// person's answer, the call sends a progress notification when its
	// tools/call carried a progress token (default 15 seconds): a client
	// that resets its request timeout on progress (the TypeScript SDK's
	// resetTimeoutOnProgress) then does not give up first.
	ProgressEvery time.Duration
	// Store, when set, records spent approvals for every instance that
	// shares it (AUDIOBOOKSHELF_APPROVAL_STORE); nil keeps them in this
	// Guard's own bounded sets (MaxTokens, MaxAnswered). When it cannot be
	// reached, approved calls are refused: nothing is sent.
	Store Store
}

const (
	defaultStateTTL    = 10 * time.Minute
	defaultTokenTTL    = 5 * time.Minute
	defaultMaxTokens   = 1024
	defaultMaxAnswered = 4096
	defaultProgress    = 15 * time.Second
	defaultServerName  = "audiobookshelf-mcp"
)

// Question is what a guarded tool asks, built by the tool after it has read
// what it needs to count. It names each target by its title or name beside
// its id, so the person can judge it without the conversation: a name is
// always data, put in with Quote (cleaned, clipped, quoted), never prose.
// Descriptions and other long text stay out.
type Question struct {
	// Tool is the tool's name.
	Tool string
	// Args is the decoded arguments without confirm_token; the approval is
	// bound to a fingerprint of its canonical JSON (lists keep their order).
	Args any
	// ConfirmToken is the confirm_token argument, "" when absent.
	ConfirmToken string
	// Read is what the plan read before asking, which the approval takes
	// out: the entries and their order, a bookmark's title and creation
	// time, a progress record's last update. The approval (request state and
	// token alike) is bound to a digest of its canonical JSON; the call that
	// comes back with the approval reads again, and a different digest is
	// asked about afresh. It must not be nil.
	Read any
	// Targets are the ids acted on, for the log line.
	Targets []string
	// Action is the first sentence: `This will remove 2 book(s) ("Mort",
	// "Sourcery") from collection "Discworld in order" (id col_1).`
	Action string
	// Found says, for each target found from a name, which words the call
	// used and what they matched (`You said "Space Opera"; the only
	// collection whose name holds it is "Space Opera Picks".`); it follows
	// the Action.
	Found []string
	// Consequences are sentences that depend on what was measured, such as
	// "These are its last entries: Audiobookshelf deletes the playlist itself."
	Consequences []string
	// TakesOut and Stays are the static texts from tools.yaml.
	TakesOut, Stays string

	read [32]byte // digest of Read, set by Check
}

// Guard decides guarded calls. It is safe for concurrent use.
type Guard struct {
	cfg        Config
	key        []byte
	keyFP      [4]byte // KeyFingerprint
	fixedKey   bool    // the key was configured, not drawn for this process
	log        *slog.Logger
	now        func() time.Time
	usedTokens *nonceSet // tokens used on this instance
	answers    *nonceSet // questions answered on this instance
	store      Store     // shared spent approvals; nil: the two sets above
	// stopping ends every pushed question at once (StopAsking).
	stopping context.Context
	stop     context.CancelFunc
}

// New returns a Guard, or an error for a key of the wrong length.
func New(cfg Config) (*Guard, error) {
	var key []byte
	switch len(cfg.Key) {
	case 0:
		key = make([]byte, KeySize)
		rand.Read(key) // never fails (crypto/rand since Go 1.24)
	case KeySize:
		key = append([]byte(nil), cfg.Key...)
	default:
		return nil, fmt.Errorf("guard: the state key must be exactly %d bytes (or empty for a random key per process), got %d", KeySize, len(cfg.Key))
	}
	if cfg.StateTTL < 0 || cfg.TokenTTL < 0 || cfg.MaxTokens < 0 || cfg.MaxAnswered < 0 || cfg.ProgressEvery < 0 {
		return nil, errors.New("guard: StateTTL, TokenTTL, MaxTokens, MaxAnswered and ProgressEvery must not be negative")
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = defaultProgress
	}
	if cfg.StateTTL == 0 {
		cfg.StateTTL = defaultStateTTL
	}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = defaultTokenTTL
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = defaultMaxTokens
	}
	if cfg.MaxAnswered == 0 {
		cfg.MaxAnswered = defaultMaxAnswered
	}
	if cfg.ServerName == "" {
		cfg.ServerName = defaultServerName
	}
	fixed := len(cfg.Key) > 0
	cfg.Key = nil // the Guard keeps its own copy
	g := &Guard{
		cfg:        cfg,
		key:        key,
		keyFP:      keyFingerprint(key),
		fixedKey:   fixed,
		log:        cfg.Logger,
		now:        cfg.Now,
		usedTokens: newNonceSet(cfg.MaxTokens),
		answers:    newNonceSet(cfg.MaxAnswered),
		store:      cfg.Store,
	}
	g.stopping, g.stop = context.WithCancel(context.Background())
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.now == nil {
		g.now = time.Now
	}
	return g, nil
}

// StopAsking ends the wait for every pushed question, now and from now on:
// the server is shutting down, and an answer could not be used. Each such
// call ends with a result that says so and that nothing was changed.
func (g *Guard) StopAsking() { g.stop() }

// Check reports whether the call may go on. When it returns false, res is the
// result the tool must return as it is (a question, a token, or a statement
// that nothing was changed); nothing may be sent to Audiobookshelf then.
func (g *Guard) Check(ctx context.Context, req *mcp.CallToolRequest, q Question) (approved bool, res *mcp.CallToolResult) {
	path, reason := g.choosePath(req)
	if err := validTargets(q.Targets); err != nil || !ValidID(q.Tool) {
		// The bad id is neither shown nor logged: it may be the very text
		// that must not reach the dialog.
		g.decision(ctx, q.Tool, nil, path, outcomeNotApproved, "a target is not a plain id")
		return false, refusedResult(q.Tool, "one of the ids it was given is not a plain id (letters, digits and _ . : - only), so the guard will not put it into a question")
	}
	fp, err := fingerprint(q.Tool, q.Args)
	if err != nil {
		g.decision(ctx, q.Tool, q.Targets, path, outcomeNotApproved, "arguments cannot be fingerprinted")
		return false, refusedResult(q.Tool, "its arguments could not be encoded to bind an approval to them")
	}
	if q.Read == nil {
		g.decision(ctx, q.Tool, q.Targets, path, outcomeNotApproved, "nothing read to bind to")
		return false, refusedResult(q.Tool, "it did not read what it would change, so an approval could not be bound to it")
	}
	if q.read, err = readDigest(q.Read); err != nil {
		g.decision(ctx, q.Tool, q.Targets, path, outcomeNotApproved, "what was read cannot be encoded")
		return false, refusedResult(q.Tool, "what it read could not be encoded to bind an approval to it")
	}
	if path == pathDialog {
		return g.dialog(ctx, req, q, fp)
	}
	return g.tokenPath(ctx, q, fp, reason)
}

type path string

const (
	pathDialog path = "dialog"
	pathToken  path = "token"
)

// Outcomes, as logged.
const (
	outcomeAsked         = "asked"
	outcomeApproved      = "approved"
	outcomeDeclined      = "declined"
	outcomeCancelled     = "cancelled"
	outcomeNotApproved   = "not approved"
	outcomeNoAnswer      = "no answer"
	outcomeStaleState    = "stale state"
	outcomeTokenIssued   = "token issued"
	outcomeTokenRejected = "token rejected"
	outcomeStoreDown     = "approval store unreachable"
)

// protocolMRTR is the first revision that carries questions in the result
// (input_required) instead of pushing elicitation/create.
const protocolMRTR = "2026-07-28"

// choosePath picks dialog or token for this request, and for the token path
// the sentence that says why no dialog is shown. A capability the client left
// out comes first: a newer revision or another deployment would not help a
// client that cannot show a question.
func (g *Guard) choosePath(req *mcp.CallToolRequest) (path, string) {
	if !g.cfg.Elicitation {
		return pathToken, fmt.Sprintf("this server (%s) was started with ELICITATION=false", g.cfg.ServerName)
	}
	old := req == nil || req.ProtocolVersion() < protocolMRTR
	if g.cfg.Stateless && old && (req == nil || req.ClientCapabilities() == nil) {
		// Behind stateless HTTP a client older than 2026-07-28 declared its
		// capabilities in an initialize this request does not carry.
		return pathToken, "the client did not declare elicitation (form) support with this request, and " + statelessReason +
			" (such a client says what it supports only when it connects, which a stateless deployment does not keep)"
	}
	if !formElicitation(req) {
		return pathToken, "the client did not declare elicitation (form) support" + seenClient(req) +
			", so it cannot show a question; if the person's app does show questions, a gateway or proxy between it and this server may have removed that capability"
	}
	if g.cfg.Stateless && old {
		return pathToken, statelessReason
	}
	return pathDialog, ""
}

// statelessReason says why a stateless deployment gives a client older than
// 2026-07-28 the token even when it takes questions.
const statelessReason = "a stateless HTTP deployment cannot push a question to a client older than " + protocolMRTR

// seenClient names the client as this server sees it (clientInfo), for a
// reason: behind a gateway that is the gateway, not the person's app.
func seenClient(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	info := req.ClientInfo()
	if info == nil || info.Name == "" {
		return " (the client this server sees sent no name)"
	}
	name := clipName(info.Name)
	if info.Version != "" {
		name += " " + clipName(info.Version)
	}
	return fmt.Sprintf(" (the client this server sees calls itself %q)", name)
}

// clipName keeps a client-chosen name short and on one line: it ends up in a
// tool result and a log line.
func clipName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}

// formElicitation reports whether the client declared form elicitation. An
// empty elicitation capability counts as form (the spec's backward
// compatibility rule, as go-sdk applies it).
func formElicitation(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// pushes reports whether go-sdk's server middleware answers a question for
// this request by sending elicitation/create and re-running the handler once
// (the session's revision predates 2026-07-28). It mirrors the SDK's own
// test, which reads the revision initialize asked for: Middleware has set it
// to the one agreed.
func pushes(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion < protocolMRTR
}

// agreedVersion is the revision go-sdk answers an initialize asking for v
// with: v if go-sdk speaks it and it is older than 2026-07-28, else the
// newest older one it speaks.
func agreedVersion(v string) string {
	supported := mcp.SupportedProtocolVersions() // newest first
	if v < protocolMRTR && slices.Contains(supported, v) {
		return v
	}
	for _, s := range supported {
		if s < protocolMRTR {
			return s
		}
	}
	return v
}

// decision writes the one log line of a decision: ids only, never the
// names the question shows.
func (g *Guard) decision(ctx context.Context, tool string, targets []string, p path, outcome, reason string) {
	attrs := []slog.Attr{
		slog.String("tool", tool),
		slog.Any("targets", targetsForLog(targets)),
		slog.String("path", string(p)),
		slog.String("outcome", outcome),
	}
	if reason != "" {
		attrs = append(attrs, slog.String("reason", reason))
	}
	if u := UserFrom(ctx); u != "" {
		attrs = append(attrs, slog.String("user", u))
	}
	g.log.LogAttrs(ctx, slog.LevelInfo, "guard", attrs...)
}

func targetsForLog(t []string) []string {
	if t == nil {
		return []string{}
	}
	return append([]string(nil), t...)
}
