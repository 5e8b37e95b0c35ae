package guard

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns a receiving middleware for the server
// (server.AddReceivingMiddleware(g.Middleware())).
//
// For a client older than 2026-07-28, go-sdk's own server middleware (which
// NewServer installs first, so it runs inside this one) sends the guard's
// question as elicitation/create and re-runs the tool handler with the
// answer. When that request fails — the client's elicitation handler returns
// an error, the answer does not match the form, the client goes away — the
// SDK's middleware returns the failure as a JSON-RPC error for tools/call and
// the handler is not re-run. This middleware turns exactly that case (the
// guard asked during this call and no answer reached it) into a tool result
// with isError that says no answer came and nothing was changed, and logs it
// as outcome "no answer". Every other error passes through untouched.
func (g *Guard) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			tr := &callTrace{}
			res, err := next(context.WithValue(ctx, traceKey{}, tr), method, req)
			if err == nil {
				return res, nil
			}
			tool, targets, ok := tr.unanswered()
			if !ok {
				return res, err
			}
			g.decision(ctx, tool, targets, pathDialog, outcomeNoAnswer, "elicitation failed")
			return notChanged(tool, outcomeNoAnswer, "no answer to the question came back: the client could not show it or answered with an error. If the person still wants this, call "+tool+" again and a new question will be asked."), nil
		}
	}
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

func (t *callTrace) unanswered() (string, []string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tool, t.targetsIDs, t.didAsk && !t.didAnswer
}
