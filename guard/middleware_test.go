package guard

import (
	"errors"
	"slices"
	"strings"
	"testing"

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
// turns that into a result that says no answer came and nothing changed.
func TestMiddlewareNoAnswer(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
	}{
		{"handler error", failingElicitation},
		{"answer off the form", badAnswer},
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
			if !res.IsError || !strings.Contains(text(res), "Nothing was changed") || !strings.Contains(text(res), "no answer to the question came back") {
				t.Errorf("result %v %q", res.IsError, text(res))
			}
			if strings.Contains(text(res), "crashed") {
				t.Error("the client's error text reached the result")
			}
			if got := h.logs.outcomes(t); !slices.Equal(got, []string{outcomeAsked, outcomeNoAnswer}) {
				t.Errorf("logged %v", got)
			}
			if l := h.logs.lines(t)[1]; l["tool"] != "delete_thing" || l["path"] != "dialog" {
				t.Errorf("no-answer line %v", l)
			}
		})
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
