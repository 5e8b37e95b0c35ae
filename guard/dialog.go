package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InputID is the key of the guard's question in InputRequests and of its
// answer in InputResponses.
const InputID = "approval"

// ApproveField is the form's one property: a boolean that defaults to false.
const ApproveField = "approve"

// ValidID reports whether s may appear in a question as an id: a letter or
// digit, then up to 127 letters, digits, '_', '.', ':' or '-' (the regular
// expression ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$, written as a loop because
// compiling the bounded repetition cost every start-up).
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '_' || c == '.' || c == ':' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

func validTargets(ids []string) error {
	for _, id := range ids {
		if !ValidID(id) {
			return errors.New("guard: a target is not a plain id")
		}
	}
	return nil
}

// clean makes one paragraph safe to show: invalid UTF-8, control characters
// (line breaks included), line and paragraph separators become spaces;
// format characters (zero-width, bidi controls and marks, BOM, soft hyphen,
// tag characters) are removed; runs of spaces collapse.
func clean(s string) string {
	s = strings.ToValidUTF8(s, " ")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
			continue
		case unicode.IsControl(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Zl, unicode.Zp):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// MaxQuoted is how many characters of a name a question shows; a longer
// name is clipped with an ellipsis.
const MaxQuoted = 80

// Quote makes a title or a name (Audiobookshelf's text, or the call's own
// words) safe to show inside a question: cleaned of control, format and
// line-break characters, clipped to MaxQuoted characters with an ellipsis,
// and put in double quotes (a double quote or backslash in it escaped), so
// it reads as data and never as a sentence of the dialog.
func Quote(s string) string {
	s = clean(s)
	if r := []rune(s); len(r) > MaxQuoted {
		s = strings.TrimRight(string(r[:MaxQuoted-1]), " ") + "…"
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Named is a target as a question names it: its noun, its quoted name and
// its id (`collection "Space Opera Picks" (id col_1)`); with no name, the
// noun and the id alone.
func Named(noun, name, id string) string {
	if clean(name) == "" {
		return fmt.Sprintf("%s %s", noun, id)
	}
	return fmt.Sprintf("%s %s (id %s)", noun, Quote(name), id)
}

// Message composes the question's text: the action, then the measured
// consequences, then what is taken out and what stays, as short paragraphs,
// each cleaned of control, zero-width and bidi characters.
func (q *Question) Message() string {
	var paras []string
	add := func(parts ...string) {
		var kept []string
		for _, p := range parts {
			if p = clean(p); p != "" {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			paras = append(paras, strings.Join(kept, " "))
		}
	}
	add(q.Action)
	add(q.Found...)
	add(q.Consequences...)
	add(q.TakesOut, q.Stays)
	return strings.Join(paras, "\n\n")
}

// renewedNote says why a question is asked again: the answer that came with
// the call could not be matched to it (why is the reason open gave).
func (g *Guard) renewedNote(why string) string {
	var cause string
	switch why {
	case "expired":
		cause = fmt.Sprintf("the previous question had expired (a question is good for %s) before its answer came back", span(g.cfg.StateTTL))
	case "already used":
		cause = "the answer that came back had already been used for an earlier call"
	case "other tool", "other arguments":
		cause = "the answer that came back was given to a question about another call (" + why + ")"
	case otherPerson:
		cause = "the answer that came back was given to a question asked of another person (another Audiobookshelf user), and an approval counts only for the person who gave it"
	case "missing":
		cause = "an answer came back without the question's state (requestState)"
	case whyStoreLost:
		return storeLostSentence("The answer that came back", "This is a new question, asked after that.")
	default:
		cause = "the answer that came back was not sealed by this server (it may predate a restart of the server, or come from another instance with another AUDIOBOOKSHELF_STATE_KEY)"
	}
	return "This question is asked again because " + cause + ", so that answer counted as no answer."
}

const changedNote = "This is a new question: what the call would change on Audiobookshelf changed after the previous question was asked, so the answer to that one was not used and nothing was sent. The text above is what it would do now."

// renewal is the note under a question asked again because the answer to
// the last one did not open (why, from open); "" for a first question.
func (g *Guard) renewal(why string) string {
	switch why {
	case "":
		return ""
	case stateChanged:
		return changedNote
	}
	return g.renewedNote(why)
}

func approvalSchema(tool string) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			ApproveField: {
				Type:        "boolean",
				Title:       "Approve",
				Description: fmt.Sprintf("Check this to let %s go ahead and make the change described above on the Audiobookshelf server. Left unchecked, nothing is changed.", clean(tool)),
				Default:     json.RawMessage("false"),
			},
		},
		Required: []string{ApproveField},
	}
}

// question is the multi round-trip result that asks: no content, one form
// input request, a freshly sealed state. renewed is why the last answer did
// not open, "" for a first question.
func (g *Guard) question(q *Question, user string, fp [32]byte, now time.Time, renewed string) *mcp.CallToolResult {
	msg := q.Message()
	if note := g.renewal(renewed); note != "" {
		msg += "\n\n" + note
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			InputID: &mcp.ElicitParams{
				Mode:            "form",
				Message:         msg,
				RequestedSchema: approvalSchema(q.Tool),
			},
		},
		RequestState: g.sealR(q.Tool, user, fp, q.read, now, renewed == otherKey),
	}
}

// dialog decides a call on the dialog path.
func (g *Guard) dialog(ctx context.Context, req *mcp.CallToolRequest, q Question, fp [32]byte) (bool, *mcp.CallToolResult) {
	now := g.now()
	user := UserFrom(ctx)
	tr := traceFrom(ctx)
	var responses mcp.InputResponseMap
	var state string
	if req.Params != nil {
		responses, state = req.Params.InputResponses, req.Params.RequestState
	}
	if len(responses) == 0 && state == "" {
		tr.asked(q.Tool, q.Targets)
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeAsked, "")
		return false, g.question(&q, user, fp, now, "")
	}
	tr.answered()
	if ok, why := g.open(ctx, state, q.Tool, user, fp, q.read, now); !ok {
		if why == whyStoreDown {
			// Not a new question: it could not be answered either.
			g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeStoreDown, why)
			return false, notChanged(q.Tool, outcomeStoreDown, storeDownWhy("the answer", "call this tool again"))
		}
		if why == whyStoreLost && pushes(req) {
			g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeStaleState, why)
			return false, notChanged(q.Tool, outcomeStaleState, storeLostSentence("the answer", "If the person still wants this, call this tool again and a new question will be asked."))
		}
		if why == otherKeyAgain {
			// The answer to a question asked afresh after an answer under
			// another key came under another key again: the instances do
			// not share one, and asking again would loop between them.
			g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeStaleState, why)
			return false, notChanged(q.Tool, outcomeStaleState, fmt.Sprintf("the answer came back with a question sealed by another instance of this server under another %s (this instance's key fingerprint is %s). The instances behind this address must all be started with the same %s (and the same %s); until they are, a question asked by one cannot be answered at another. Nothing was sent to Audiobookshelf; tell the person or the operator, and do not retry in a loop.", KeyVariable, g.KeyFingerprint(), KeyVariable, StoreVariable))
		}
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeStaleState, why)
		if pushes(req) {
			// go-sdk re-runs the handler only once for a client older than
			// 2026-07-28: a second question would reach it as a result it
			// cannot read. Say so instead.
			if why == otherPerson {
				return false, notChanged(q.Tool, outcomeStaleState, "the answer that came back was given to a question asked of another person (another Audiobookshelf user), and an approval counts only for the person who gave it. If this person wants this, call this tool again and they will be asked.")
			}
			if why == stateChanged {
				return false, notChanged(q.Tool, outcomeStaleState, "what it would change on Audiobookshelf changed while the question was open, so the answer was not used. If the person still wants this, call this tool again and a new question will be asked about what is there now.")
			}
			return false, notChanged(q.Tool, outcomeStaleState,
				fmt.Sprintf("the answer could not be matched to this call: the question had expired (questions are good for %s) before the answer came back. If the person still wants this, call this tool again and a new question will be asked.", span(g.cfg.StateTTL)))
		}
		if why == "" {
			why = "unknown"
		}
		return false, g.question(&q, user, fp, now, why)
	}
	er, ok := responses[InputID].(*mcp.ElicitResult)
	if !ok || er == nil {
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeNoAnswer, "")
		return false, notChanged(q.Tool, outcomeNoAnswer, "no answer to the question came back with this call. If the person still wants this, call this tool again and a new question will be asked.")
	}
	switch er.Action {
	case "accept":
		v, isBool := er.Content[ApproveField].(bool)
		if isBool && v {
			g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeApproved, "")
			return true, nil
		}
		if !isBool {
			// Not the form's answer: say what it held instead.
			g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeNotApproved, "answer off the form")
			return false, notChanged(q.Tool, outcomeNotApproved, describeAnswer(er)+", so the change was not approved.")
		}
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeNotApproved, "")
		return false, notChanged(q.Tool, outcomeNotApproved, "the form came back without the Approve box checked, so the change was not approved.")
	case "decline":
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeDeclined, "")
		return false, notChanged(q.Tool, outcomeDeclined, "the question was declined. Do not call it again unless the person asks for it.")
	case "cancel":
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeCancelled, "")
		return false, notChanged(q.Tool, outcomeCancelled, "the question was cancelled (dismissed without an answer), so the change was not approved.")
	default:
		g.decision(ctx, q.Tool, q.Targets, pathDialog, outcomeNotApproved, "unknown action")
		return false, notChanged(q.Tool, outcomeNotApproved, "the answer was neither accept, decline nor cancel, so the change was not approved.")
	}
}

// notChanged is the final result of a dialog that did not approve.
func notChanged(tool, outcome, why string) *mcp.CallToolResult {
	text := fmt.Sprintf("Nothing was changed: %s did not run because %s", tool, why)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{
			"status":  "not_changed",
			"outcome": outcome,
		},
	}
}

// refusedResult is the result when the guard will not ask at all.
func refusedResult(tool, why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Nothing was changed: %s did not run because %s.", tool, why)}},
		StructuredContent: map[string]any{
			"status":  "not_changed",
			"outcome": outcomeNotApproved,
		},
	}
}

// span writes a TTL as people say it: "10 minutes", "90 seconds".
func span(d time.Duration) string {
	switch {
	case d%time.Minute == 0 && d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d <= time.Second:
		return "1 second"
	default:
		return fmt.Sprintf("%d seconds", (d+time.Second-1)/time.Second)
	}
}

// storeLostSentence says that an approval (what) was refused because the
// store of spent approvals lost its data after it was given; then is what
// follows for the caller.
func storeLostSentence(what, then string) string {
	return fmt.Sprintf("%s was not used: the store of spent approvals (%s) lost its data after it was given (it was restarted or emptied without keeping what it held), so it can no longer tell whether that approval was already used, and nothing was sent to Audiobookshelf. The store must keep its data across restarts (Redis or Valkey with appendonly yes, or snapshots that are kept); tell the operator. %s", what, StoreVariable, then)
}

// storeDownWhy says that an approval was not used because the shared store
// of spent approvals could not be reached.
func storeDownWhy(what, again string) string {
	return fmt.Sprintf("the store of spent approvals (%s) could not be reached, so %s could not be recorded as spent, and an approval that cannot be recorded is not used: nothing was sent to Audiobookshelf. Tell the person; once the store answers again, %s.", StoreVariable, what, again)
}
