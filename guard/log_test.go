package guard

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLogLines(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	eliciting := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: (&elicitRecorder{answer: acceptTrue}).handle}, nil)
	plain := h.connect(t, v20260728, nil, nil)
	args := thingArgs{ID: "t1", IDs: []string{"p1", "p2"}}

	call(t, eliciting, "delete_thing", args)
	tok := structured(t, call(t, plain, "delete_thing", args))["confirm_token"].(string)
	res := call(t, plain, "delete_thing", thingArgs{ID: "t1", IDs: []string{"p1"}, ConfirmToken: tok})
	tok2 := structured(t, res)["confirm_token"].(string)
	call(t, plain, "delete_thing", thingArgs{ID: "t1", IDs: []string{"p1"}, ConfirmToken: tok2})

	type want struct{ path, outcome, reason string }
	wants := []want{
		{"dialog", outcomeAsked, ""},
		{"dialog", outcomeApproved, ""},
		{"token", outcomeTokenIssued, ""},
		{"token", outcomeTokenRejected, tokenMismatch},
		{"token", outcomeApproved, ""},
	}
	lines := h.logs.lines(t)
	if len(lines) != len(wants) {
		t.Fatalf("%d lines, want %d: %s", len(lines), len(wants), h.logs.String())
	}
	for i, l := range lines {
		w := wants[i]
		if l["tool"] != "delete_thing" || l["path"] != w.path || l["outcome"] != w.outcome {
			t.Errorf("line %d: %v, want %+v", i, l, w)
		}
		if got, _ := l["reason"].(string); got != w.reason {
			t.Errorf("line %d: reason %q, want %q", i, got, w.reason)
		}
		targets, _ := l["targets"].([]any)
		wantTargets := []any{"t1", "p1", "p2"}
		if i >= 3 {
			wantTargets = []any{"t1", "p1"}
		}
		if !slices.Equal(targets, wantTargets) {
			t.Errorf("line %d: targets %v, want %v", i, targets, wantTargets)
		}
		if l["level"] != "INFO" {
			t.Errorf("line %d: level %v", i, l["level"])
		}
	}
	all := h.logs.String()
	for _, secret := range []string{tok, tok2, "This will delete", "Its parts", "The files stay", "confirm_token"} {
		if strings.Contains(all, secret) {
			t.Errorf("the log holds %q:\n%s", secret, all)
		}
	}
}
