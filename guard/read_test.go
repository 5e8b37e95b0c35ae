package guard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Before 2026-07-28 the SDK re-runs the handler once with the answer: when
// what the tool reads changed while the question was open, the approval
// does not apply, and the result says so instead of asking again.
func TestPushedAnswerAfterChange(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	rec := &elicitRecorder{answer: func(r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		h.change("edited by somebody else")
		return acceptTrue(r)
	}}
	cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
	res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
	if h.executed.Load() != 0 || len(res.InputRequests) != 0 || !res.IsError || !strings.Contains(text(res), "changed while the question was open") {
		t.Fatalf("executed %d, result %q", h.executed.Load(), text(res))
	}
	lines := h.logs.lines(t)
	if l := lines[len(lines)-1]; l["outcome"] != outcomeStaleState || l["reason"] != stateChanged {
		t.Errorf("logged %v", l)
	}
}

// A question whose tool says nothing about what it read is refused: an
// approval must be bound to it.
func TestQuestionWithoutRead(t *testing.T) {
	for _, elicit := range []bool{true, false} {
		h := newHarness(t, Config{Elicitation: elicit}, true)
		h.mutate = func(q *Question) { q.Read = nil }
		rec := &elicitRecorder{answer: acceptTrue}
		cs := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
		res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
		if h.executed.Load() != 0 || rec.count() != 0 || !res.IsError || !strings.Contains(text(res), "did not read what it would change") {
			t.Fatalf("elicitation=%v: executed %d, asked %d: %q", elicit, h.executed.Load(), rec.count(), text(res))
		}
	}
}

// Every character of a token matters: changed anywhere, it is not accepted.
// Presented for another read, other arguments, another tool or too late, it
// is refused with the reason; accepted once, it is refused after.
func TestTokenSealed(t *testing.T) {
	g, err := New(Config{Elicitation: false})
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := fingerprint("delete_thing", boundArgs{ID: "t1"})
	otherFP, _ := fingerprint("delete_thing", boundArgs{ID: "t2"})
	read, _ := readDigest("v1")
	otherRead, _ := readDigest("v2")
	tok := g.issueToken("delete_thing", "", fp, read, t0)
	if len(tok) != tokenLen || tokenLen != 59 {
		t.Fatalf("token %q: %d characters, want %d = 59", tok, len(tok), tokenLen)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(tok) {
		at := strings.IndexByte(alphabet, tok[i])
		for _, shift := range []int{1, 32} {
			bad := tok[:i] + string(alphabet[(at+shift)%64]) + tok[i+1:]
			if why := g.redeemToken(context.Background(), bad, "delete_thing", "", fp, read, t0); why == "" {
				t.Fatalf("a token changed at %d (%q) was accepted", i, bad)
			}
		}
	}
	for _, c := range []struct {
		name     string
		tool     string
		fp, read [32]byte
		at       time.Time
		want     string
	}{
		{"another tool", "other_thing", fp, read, t0, tokenUnknown},
		{"other arguments", "delete_thing", otherFP, read, t0, tokenMismatch},
		{"another read", "delete_thing", fp, otherRead, t0, tokenChanged},
		{"expired", "delete_thing", fp, read, t0.Add(5 * time.Minute), tokenExpired},
		{"in time", "delete_thing", fp, read, t0.Add(5*time.Minute - time.Second), ""},
		{"used", "delete_thing", fp, read, t0.Add(time.Minute), tokenUsed},
	} {
		tok := g.issueToken("delete_thing", "", fp, read, t0)
		if c.want == tokenUsed {
			g.redeemToken(context.Background(), tok, "delete_thing", "", fp, read, t0)
		}
		if got := g.redeemToken(context.Background(), tok, c.tool, "", c.fp, c.read, c.at); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// Another key: sealed under another key; a token handed out in place
	// of one so refused, refused again: the loop ends.
	other, _ := New(Config{Elicitation: false})
	if got := other.redeemToken(context.Background(), g.issueToken("delete_thing", "", fp, read, t0), "delete_thing", "", fp, read, t0); got != tokenOtherKey {
		t.Errorf("another key: %q", got)
	}
	if got := other.redeemToken(context.Background(), g.issueTokenR("delete_thing", "", fp, read, t0, 1), "delete_thing", "", fp, read, t0); got != tokenOtherKeyAgain {
		t.Errorf("another key again: %q", got)
	}
	// A renewed token at the process that sealed it (one restart) works.
	if got := g.redeemToken(context.Background(), g.issueTokenR("delete_thing", "", fp, read, t0, 1), "delete_thing", "", fp, read, t0); got != "" {
		t.Errorf("a renewed token at its own key: %q", got)
	}
}
