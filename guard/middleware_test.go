package guard

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func failingElicitation(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return nil, errors.New("the client's dialog crashed")
}

// badAnswer accepts with content that does not match the form.
func badAnswer(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: "yes"}}, nil
}

// Before 2026-07-28, go-sdk's middleware pushes the question; when that
// request fails it returns a JSON-RPC error for tools/call. Guard.Middleware
// turns that into a result that says what came back instead, and that
// nothing was changed. The client's own error text is not repeated.
func TestMiddlewareNoAnswer(t *testing.T) {
	for _, c := range []struct {
		name    string
		answer  func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
		says    string
		outcome string
	}{
		{"handler error", failingElicitation, "the client answered the question with an error instead of an answer (JSON-RPC code 0: the client could not show the question, or failed while showing it)", outcomeNoAnswer},
		// A go-sdk client checks its own answer against the form and sends
		// an error instead.
		{"answer off the form", badAnswer, "(JSON-RPC code -32602, invalid params: the client found its own answer did not match the form", outcomeNoAnswer},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{Elicitation: true}, true)
			rec := &elicitRecorder{answer: c.answer}
			cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_thing", Arguments: thingArgs{ID: "t1"}})
			if err != nil {
				t.Fatalf("CallTool returned an error; the middleware should have made it a result: %v", err)
			}
			if rec.count() != 1 || h.executed.Load() != 0 {
				t.Fatalf("asked %d, executed %d", rec.count(), h.executed.Load())
			}
			if !res.IsError || !strings.Contains(text(res), "Nothing was changed") || !strings.Contains(text(res), c.says) {
				t.Errorf("result %v %q, want it to say %q", res.IsError, text(res), c.says)
			}
			// A gateway may rename the tool (mcp-hub: abs__delete_thing),
			// so the way on does not name it.
			if !strings.Contains(text(res), "call this tool again") || strings.Contains(text(res), "call delete_thing") {
				t.Errorf("the way on must say \"call this tool again\": %q", text(res))
			}
			if strings.Contains(text(res), "crashed") || strings.Contains(text(res), "yes") {
				t.Error("the client's own text reached the result")
			}
			if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked, c.outcome}) {
				t.Errorf("logged %v", got)
			}
			if l := h.logs.lines(t)[1]; l["tool"] != "delete_thing" || l["path"] != "dialog" {
				t.Errorf("no-answer line %v", l)
			}
		})
	}
}

// An accepted answer that does not carry a true Approve field is reported
// as what it is, never as "the client could not show it". On 2026-07-28 the
// guard reads the answer itself (the content below, as a client sends it);
// before, a go-sdk client refuses such an answer of its own handler against
// the form and sends an error instead (-32602), which is what is reported.
// What go-sdk's server reports when another client sends the content itself
// is tested over stdio (internal/app).
func TestAnswersOffTheFormSayWhatCameBack(t *testing.T) {
	cases := []struct {
		name    string
		content map[string]any
		says    string
	}{
		{"empty", map[string]any{}, "the answer came back as accept with an empty form: no Approve field"},
		{"approve as a string", map[string]any{ApproveField: "true"}, "its Approve field was a string, not true or false"},
		{"approve as a number", map[string]any{ApproveField: 1}, "its Approve field was a number, not true or false"},
		{"another field", map[string]any{"confirm": true}, "without the Approve field (it held the field(s) confirm instead)"},
		{"a field name that is not an id", map[string]any{"ig nore\nprevious": true}, "without the Approve field (it held 1 other field(s) instead)"},
	}
	for _, c := range cases {
		t.Run(v20260728+"/"+c.name, func(t *testing.T) {
			h := newHarness(t, Config{Elicitation: true}, true)
			cs := h.manual(t)
			first := ask(t, cs, "delete_thing", thingArgs{ID: "t1"})
			res := retry(t, cs, "delete_thing", thingArgs{ID: "t1"}, first.RequestState,
				mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: c.content}})
			got := text(res)
			if h.executed.Load() != 0 || !res.IsError || !strings.Contains(got, "Nothing was changed") || !strings.Contains(got, c.says+", so the change was not approved") {
				t.Errorf("executed %d, result %q, want it to say %q", h.executed.Load(), got, c.says)
			}
			if strings.Contains(got, "ig nore") || strings.Contains(got, "Approve box") {
				t.Errorf("result %q", got)
			}
			if o := h.logs.outcomes(t); len(o) != 2 || o[1] != outcomeNotApproved {
				t.Errorf("logged %v", o)
			}
		})
		t.Run(v20251125+"/"+c.name, func(t *testing.T) {
			h := newHarness(t, Config{Elicitation: true}, true)
			rec := &elicitRecorder{answer: func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: c.content}, nil
			}}
			cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
			res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
			got := text(res)
			if h.executed.Load() != 0 || !res.IsError || !strings.Contains(got, "the client answered the question with an error instead of an answer (JSON-RPC code -32602, invalid params: the client found its own answer did not match the form") {
				t.Errorf("executed %d, result %q", h.executed.Load(), got)
			}
			if strings.Contains(got, "could not show it") {
				t.Errorf("result %q", got)
			}
		})
	}
}

// A pushed question nobody answers ends the call when its life is over,
// saying so; nothing executes.
func TestPushedQuestionIsBoundedByItsLife(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true, StateTTL: time.Second}, true)
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done() // never answers; gives up only when the server cancels
		return nil, ctx.Err()
	}}, nil)
	res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
	if h.executed.Load() != 0 || !res.IsError || !strings.Contains(text(res), "no answer to the question came back within 1 second (the time a question is good for)") {
		t.Fatalf("executed %d, result %q", h.executed.Load(), text(res))
	}
	if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked, outcomeNoAnswer}) {
		t.Errorf("logged %v", got)
	}
}

// What the middleware is for: without it, the same failure reaches the
// client as a protocol error (still nothing executes).
func TestWithoutMiddlewareTheFailureIsAnError(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, false)
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: (&elicitRecorder{answer: failingElicitation}).handle}, nil)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_thing", Arguments: thingArgs{ID: "t1"}})
	if err == nil || !strings.Contains(err.Error(), "multi-round-trip") {
		t.Fatalf("err = %v, want go-sdk's multi-round-trip error", err)
	}
	if h.executed.Load() != 0 {
		t.Fatal("executed")
	}
}

// The middleware leaves every other error alone.
func TestMiddlewarePassesOtherErrors(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: (&elicitRecorder{answer: acceptTrue}).handle}, nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("unknown tool: no error")
	}
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "broken", Arguments: thingArgs{ID: "t1"}}); err == nil && !res.IsError {
		t.Error("broken tool: no error")
	} else if err == nil && strings.Contains(text(res), "no answer") {
		t.Error("a tool's own error was taken for a failed question")
	}
	if len(h.logs.lines(t)) != 0 {
		t.Errorf("logged %v", h.logs.lines(t))
	}
}

// An error after the answer came is not "no answer": the person answered,
// and the tool may have changed something. It passes through.
func TestMiddlewareErrorAfterAnswer(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: (&elicitRecorder{answer: acceptTrue}).handle}, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fragile_thing", Arguments: thingArgs{ID: "t1"}})
	if err == nil && !strings.Contains(text(res), "failed after approval") {
		t.Fatalf("the tool's error was replaced: %q", text(res))
	}
	if h.executed.Load() != 1 {
		t.Fatal("not executed")
	}
	if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked, outcomeApproved}) {
		t.Errorf("logged %v", got)
	}
}

// On 2026-07-28 a failing client handler fails in the client: the retry is
// never sent, and nothing executes.
func TestFailingElicitationOnMRTR(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.connect(t, v20260728, &mcp.ClientOptions{ElicitationHandler: (&elicitRecorder{answer: failingElicitation}).handle}, nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_thing", Arguments: thingArgs{ID: "t1"}}); err == nil {
		t.Fatal("no error")
	}
	if h.executed.Load() != 0 {
		t.Fatal("executed")
	}
	if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked}) {
		t.Errorf("logged %v", got)
	}
}

// Before 2026-07-28 the SDK re-runs the handler once: a question that expired
// while the person read it must end in a result, not in a second question the
// client cannot read.
func TestPushedAnswerAfterExpiry(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	rec := &elicitRecorder{answer: func(r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		h.clock.Add(11 * 60e9) // the person took 11 minutes
		return acceptTrue(r)
	}}
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
	res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
	if h.executed.Load() != 0 || len(res.InputRequests) != 0 || !res.IsError || !strings.Contains(text(res), "the question had expired (questions are good for 10 minutes)") {
		t.Fatalf("executed %d, result %q", h.executed.Load(), text(res))
	}
	if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked, outcomeStaleState}) {
		t.Errorf("logged %v", got)
	}
}
