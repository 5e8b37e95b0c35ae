package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns a receiving middleware for the server
// (server.AddReceivingMiddleware(g.Middleware())); SendingMiddleware goes
// with it.
//
// For a client older than 2026-07-28, go-sdk's own server middleware (which
// NewServer installs first, so it runs inside this one) sends the guard's
// question as elicitation/create and re-runs the tool handler with the
// answer. When that request fails — the client's elicitation handler returns
// an error, the answer does not match the form, no answer comes within the
// question's life, the client goes away — the SDK's middleware returns the
// failure as a JSON-RPC error for tools/call and the handler is not re-run.
// This middleware turns exactly that case (the guard asked during this call
// and no answer reached it) into a tool result with isError that says what
// came back instead, and that nothing was changed. Every other error passes
// through untouched.
//
// go-sdk decides how to ask (push, or input_required) from the revision an
// initialize asked for, not the one it agreed to: a client that asks for
// 2026-07-28 in initialize is answered with 2025-11-25 (initialize does not
// exist from 2026-07-28 on), and the SDK would then send it input_required,
// which it cannot read, and refuse to push. So this middleware sets the
// revision of an initialize to the one go-sdk answers with before go-sdk
// reads it (agreedVersion): the answer is the same, and from then on the
// session is served, and asked, as that revision.
func (g *Guard) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
					p.ProtocolVersion = agreedVersion(p.ProtocolVersion)
				}
			}
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			tr := &callTrace{}
			if p, ok := req.GetParams().(interface{ GetProgressToken() any }); ok {
				tr.progressToken = p.GetProgressToken()
			}
			tr.session, _ = req.GetSession().(*mcp.ServerSession)
			res, err := next(context.WithValue(ctx, traceKey{}, tr), method, req)
			if err == nil {
				return res, nil
			}
			tool, targets, ok := tr.unanswered()
			if !ok {
				return res, err
			}
			outcome, reason, why := g.whatCameBack(tr, tool)
			g.decision(ctx, tool, targets, pathDialog, outcome, reason)
			return notChanged(tool, outcome, why+" If the person still wants this, call this tool again and a new question will be asked."), nil
		}
	}
}

// SendingMiddleware returns a sending middleware for the server
// (server.AddSendingMiddleware(g.SendingMiddleware())). It bounds the wait
// for the answer to a pushed question by the question's life (StateTTL):
// without it a client that never answers — it lost the question, or
// answered with another id — holds the call open for as long as the
// session lasts. It also records what came back, for Middleware to report.
var (
	errNoAnswerInTime = errors.New("no answer to elicitation/create within the question's life")
	errShuttingDown   = errors.New("the server is shutting down")
)

func (g *Guard) SendingMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			tr := traceFrom(ctx)
			if method != "elicitation/create" || tr == nil {
				return next(ctx, method, req)
			}
			bounded, cancel := context.WithTimeoutCause(ctx, g.cfg.StateTTL, errNoAnswerInTime)
			defer cancel()
			bounded, stop := context.WithCancelCause(bounded)
			defer stop(nil)
			unhook := context.AfterFunc(g.stopping, func() { stop(errShuttingDown) })
			defer unhook()
			if tr.progressToken != nil && tr.session != nil {
				waited := make(chan struct{})
				defer close(waited)
				go g.progressWhileAsking(ctx, tr, waited)
			}
			res, err := next(bounded, method, req)
			var cause error
			if err != nil && ctx.Err() == nil {
				cause = context.Cause(bounded)
			}
			er, _ := res.(*mcp.ElicitResult)
			tr.pushed(er, err, cause)
			if cause != nil {
				err = fmt.Errorf("%w: %w", cause, err)
			}
			return res, err
		}
	}
}

// progressWhileAsking sends a progress notification for the call's
// progress token every ProgressEvery until waited is closed: the question
// is pending, and a client that resets its timeout on progress keeps
// waiting for the person. ctx is the call's, so that the notification
// travels with the call (on its stream, over HTTP).
func (g *Guard) progressWhileAsking(ctx context.Context, tr *callTrace, waited <-chan struct{}) {
	t := time.NewTicker(g.cfg.ProgressEvery)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-waited:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_ = tr.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: tr.progressToken,
			Progress:      float64(n),
			Message:       "waiting for the person to answer the question",
		})
	}
}

// whatCameBack says, for a pushed question that did not reach the handler
// with an answer, what happened instead: the outcome and reason to log, and
// the sentence for the result.
func (g *Guard) whatCameBack(tr *callTrace, tool string) (outcome, reason, why string) {
	tr.mu.Lock()
	answer, err, cause := tr.answer, tr.pushErr, tr.cause
	tr.mu.Unlock()
	var wire *jsonrpc.Error
	switch {
	case errors.Is(cause, errShuttingDown):
		return outcomeNoAnswer, "server shutting down",
			"the server is shutting down (it was told to stop) and no answer to the question had come back, so the change was not approved."
	case errors.Is(cause, errNoAnswerInTime):
		return outcomeNoAnswer, "no answer within the question's life",
			fmt.Sprintf("no answer to the question came back within %s (the time a question is good for), so the change was not approved.", span(g.cfg.StateTTL))
	case answer != nil:
		// An answer came back, and go-sdk refused it: it does not match the form.
		return outcomeNotApproved, "answer off the form", describeAnswer(answer) + ", so the change was not approved."
	case errors.As(err, &wire):
		// The client's own error text is not repeated: only its code.
		return outcomeNoAnswer, "client answered with an error",
			fmt.Sprintf("the client answered the question with an error instead of an answer (JSON-RPC code %d%s).", wire.Code, codeMeaning(wire.Code))
	case err != nil:
		return outcomeNoAnswer, "elicitation failed",
			"no answer to the question came back: the question could not be sent, or the connection to the client ended before an answer came."
	}
	return outcomeNoAnswer, "elicitation failed",
		"no answer to the question came back: the client could not show it or answered with an error."
}

// codeMeaning says what a JSON-RPC error code from the client means here.
func codeMeaning(code int64) string {
	switch code {
	case jsonrpc.CodeInvalidParams:
		return ", invalid params: the client found its own answer did not match the form, or could not read the question"
	case jsonrpc.CodeMethodNotFound:
		return ", method not found: the client does not take questions (elicitation/create)"
	case jsonrpc.CodeInternalError:
		return ", internal error: the client failed while showing the question"
	}
	return ": the client could not show the question, or failed while showing it"
}

// describeAnswer says what an accepted answer held instead of a true Approve
// field. It names a field the client sent only when the name is a plain id;
// values are never repeated, only their kind.
func describeAnswer(er *mcp.ElicitResult) string {
	action := er.Action
	if action != "accept" && action != "decline" && action != "cancel" {
		action = "an unknown action"
	}
	v, has := er.Content[ApproveField]
	switch {
	case !has && len(er.Content) == 0:
		return fmt.Sprintf("the answer came back as %s with an empty form: no Approve field", action)
	case !has:
		return fmt.Sprintf("the answer came back as %s without the Approve field (it held %s instead)", action, fieldNames(er.Content))
	}
	return fmt.Sprintf("the answer came back as %s, but its Approve field was %s, not true or false", action, kindOf(v))
}

func fieldNames(m map[string]any) string {
	var names []string
	others := 0
	for k := range m {
		if ValidID(k) && len(k) <= 32 {
			names = append(names, k)
		} else {
			others++
		}
	}
	sort.Strings(names)
	if len(names) > 5 {
		others += len(names) - 5
		names = names[:5]
	}
	var parts []string
	if len(names) > 0 {
		parts = append(parts, "the field(s) "+strings.Join(names, ", "))
	}
	if others > 0 {
		parts = append(parts, fmt.Sprintf("%d other field(s)", others))
	}
	return strings.Join(parts, " and ")
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, float32, int, int64, json.Number:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	}
	return "of another kind"
}

type traceKey struct{}

// callTrace records, for one tools/call, whether the guard asked and whether
// an answer reached it.
type callTrace struct {
	mu         sync.Mutex
	didAsk     bool
	didAnswer  bool
	tool       string
	targetsIDs []string
	// What came back to a pushed question (SendingMiddleware).
	answer  *mcp.ElicitResult
	pushErr error
	cause   error // why the guard stopped waiting, if it did
	// The call's progress token (nil when it has none) and session, set
	// before the call runs: progress is sent while a question waits.
	progressToken any
	session       *mcp.ServerSession
}

func traceFrom(ctx context.Context) *callTrace {
	tr, _ := ctx.Value(traceKey{}).(*callTrace)
	return tr
}

func (t *callTrace) asked(tool string, targets []string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.didAsk, t.tool, t.targetsIDs = true, tool, append([]string(nil), targets...)
}

func (t *callTrace) answered() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.didAnswer = true
}

func (t *callTrace) pushed(answer *mcp.ElicitResult, err, cause error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answer, t.pushErr, t.cause = answer, err, cause
}

func (t *callTrace) unanswered() (string, []string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tool, t.targetsIDs, t.didAsk && !t.didAnswer
}
