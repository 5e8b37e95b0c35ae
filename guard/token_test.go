package guard

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	reasonClient    = `the client did not declare elicitation (form) support (the client this server sees calls itself "guard-test-client v0"), so it cannot show a question; if the person's app does show questions, a gateway or proxy between it and this server may have removed that capability`
	reasonServer    = "this server (audiobookshelf-mcp) was started with ELICITATION=false"
	reasonStateless = "a stateless HTTP deployment cannot push a question to a client older than 2026-07-28"
)

// tokenOf checks that res is a token result that changed nothing, and
// returns its token.
func tokenOf(t *testing.T, res *mcp.CallToolResult, reason string) string {
	t.Helper()
	txt := text(res)
	sc := structured(t, res)
	tok, _ := sc["confirm_token"].(string)
	if tok == "" || sc["status"] != "confirmation_required" || sc["reason"] != reason || sc["expires_in_seconds"] != float64(300) {
		t.Fatalf("structured content %v", sc)
	}
	for _, want := range []string{
		"Nothing was changed.",
		reason,
		"call this tool again with identical arguments plus confirm_token \"" + tok + "\"",
		"What the token proves: the call was made twice with the same arguments, nothing more.",
		"5 minutes",
		"What the call would do:\n\nThis will delete thing",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("token text does not say %q:\n%s", want, txt)
		}
	}
	if l := strings.ToLower(txt); strings.Contains(l, "approved") || strings.Contains(l, "confirmed") {
		t.Errorf("token text implies somebody approved:\n%s", txt)
	}
	if !res.IsError {
		t.Errorf("token result is not isError")
	}
	return tok
}

func TestTokenPath(t *testing.T) {
	for _, version := range []string{v20260728, v20251125} {
		t.Run(version, func(t *testing.T) {
			h := newHarness(t, Config{Elicitation: true}, true)
			cs := h.connect(t, version, nil, nil) // no ElicitationHandler
			args := thingArgs{ID: "t1", IDs: []string{"a", "b"}}
			withTok := func(a thingArgs, tok string) thingArgs { a.ConfirmToken = tok; return a }
			rejected := func(res *mcp.CallToolResult, says string) string {
				t.Helper()
				tok := tokenOf(t, res, reasonClient)
				if !strings.Contains(text(res), says) {
					t.Errorf("rejection does not say %q:\n%s", says, text(res))
				}
				if h.executed.Load() != 1 {
					t.Fatalf("executed %d", h.executed.Load())
				}
				return tok
			}

			tok := tokenOf(t, call(t, cs, "delete_thing", args), reasonClient)
			if h.executed.Load() != 0 {
				t.Fatal("the first call executed")
			}
			if r := call(t, cs, "delete_thing", withTok(args, tok)); text(r) != "deleted t1" || h.executed.Load() != 1 {
				t.Fatalf("second call with the token: %q, executed %d", text(r), h.executed.Load())
			}

			// Reused.
			fresh := rejected(call(t, cs, "delete_thing", withTok(args, tok)), "it was already used")
			if fresh == tok {
				t.Fatal("the rejection gave back the same token")
			}
			// Other arguments: a widened set, another target, another order.
			for _, other := range []thingArgs{
				{ID: "t1", IDs: []string{"a", "b", "c"}},
				{ID: "t2", IDs: []string{"a", "b"}},
				{ID: "t1", IDs: []string{"b", "a"}},
			} {
				tok := tokenOf(t, call(t, cs, "delete_thing", args), reasonClient)
				rejected(call(t, cs, "delete_thing", withTok(other, tok)), "issued for another tool or for other arguments")
				// The token is used up by the mismatch.
				rejected(call(t, cs, "delete_thing", withTok(args, tok)), "already used")
			}
			// Another tool.
			tok = tokenOf(t, call(t, cs, "delete_thing", args), reasonClient)
			res := call(t, cs, "other_thing", withTok(args, tok))
			if !strings.Contains(text(res), "issued for another tool or for other arguments") || h.executed.Load() != 1 {
				t.Fatalf("other tool: %s", text(res))
			}
			// Expired.
			tok = tokenOf(t, call(t, cs, "delete_thing", args), reasonClient)
			h.clock.Add(5 * time.Minute)
			rejected(call(t, cs, "delete_thing", withTok(args, tok)), "it had expired (tokens are good for 5 minutes)")
			// Unknown.
			fresh = rejected(call(t, cs, "delete_thing", withTok(args, "bogus")), "it was not sealed under this server's key")
			rejected(call(t, cs, "delete_thing", withTok(args, strings.Repeat("x", 1000))), "it was not sealed under this server's key")
			rejected(call(t, cs, "delete_thing", withTok(args, tok[:len(tok)-1])), "cut short when it was copied")
			// What the plan read changed between the two calls.
			tok = tokenOf(t, call(t, cs, "delete_thing", args), reasonClient)
			h.change("edited")
			changed := rejected(call(t, cs, "delete_thing", withTok(args, tok)), "has changed since the token was issued")
			h.change("")
			rejected(call(t, cs, "delete_thing", withTok(args, tok)), "already used") // used up here by the refusal
			h.change("edited")
			fresh2 := changed
			if r := call(t, cs, "delete_thing", withTok(args, fresh2)); text(r) != "deleted t1" || h.executed.Load() != 2 {
				t.Fatalf("the token handed out after the change: %q", text(r))
			}
			h.change("")

			// The fresh token a rejection hands out works.
			if r := call(t, cs, "delete_thing", withTok(args, fresh)); text(r) != "deleted t1" || h.executed.Load() != 3 {
				t.Fatalf("fresh token: %q", text(r))
			}

			for _, l := range h.logs.lines(t) {
				if l["path"] != "token" {
					t.Errorf("log line %v", l)
				}
				if l["outcome"] == outcomeTokenRejected && l["reason"] == nil {
					t.Errorf("token reject without a reason: %v", l)
				}
			}
		})
	}
}

// ELICITATION=false: an eliciting client is not asked; the text names this
// server, not the client.
func TestElicitationOff(t *testing.T) {
	for _, version := range []string{v20260728, v20251125} {
		t.Run(version, func(t *testing.T) {
			h := newHarness(t, Config{Elicitation: false}, true)
			rec := &elicitRecorder{answer: acceptTrue}
			cs := h.connect(t, version, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
			res := call(t, cs, "delete_thing", thingArgs{ID: "t1"})
			tok := tokenOf(t, res, reasonServer)
			if rec.count() != 0 || h.executed.Load() != 0 {
				t.Fatalf("asked %d, executed %d", rec.count(), h.executed.Load())
			}
			if strings.Contains(text(res), reasonClient) {
				t.Error("the text blames the client")
			}
			call(t, cs, "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok})
			if h.executed.Load() != 1 || rec.count() != 0 {
				t.Fatalf("asked %d, executed %d", rec.count(), h.executed.Load())
			}
		})
	}
}

func TestStatelessPath(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true, Stateless: true}, true)
	rec := &elicitRecorder{answer: acceptTrue}
	old := h.connect(t, v20251125, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
	tokenOf(t, call(t, old, "delete_thing", thingArgs{ID: "t1"}), reasonStateless)
	if rec.count() != 0 {
		t.Fatal("a stateless server pushed a question")
	}
	// A client known to take no questions is told that first: a newer
	// revision would not help it. (Over real stateless HTTP an old client's
	// capabilities never reach the call; internal/app tests that reason.)
	bare := h.connect(t, v20251125, nil, nil)
	tokenOf(t, call(t, bare, "delete_thing", thingArgs{ID: "t1"}), reasonClient)
	current := h.connect(t, v20260728, &mcp.ClientOptions{ElicitationHandler: rec.handle}, nil)
	if r := call(t, current, "delete_thing", thingArgs{ID: "t1"}); text(r) != "deleted t1" || rec.count() != 1 {
		t.Fatalf("2026-07-28 behind a stateless server: %q, asked %d", text(r), rec.count())
	}
}

// A client that declares only URL elicitation cannot show the form.
func TestURLOnlyClient(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	rec := &elicitRecorder{answer: acceptTrue}
	cs := h.connect(t, v20251125, &mcp.ClientOptions{
		ElicitationHandler: rec.handle,
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
	}, nil)
	tokenOf(t, call(t, cs, "delete_thing", thingArgs{ID: "t1"}), reasonClient)
	if rec.count() != 0 {
		t.Fatal("asked a URL-only client")
	}
}

// A token is short enough to copy, and any instance with the same key
// accepts it once; a restart with the same key too. Without the key's
// being shared, another instance refuses it.
func TestTokenAcrossInstances(t *testing.T) {
	key := make([]byte, KeySize)
	rand.Read(key)
	a := newHarness(t, Config{Elicitation: false, Key: key}, true)
	b := newHarness(t, Config{Elicitation: false, Key: key}, true)
	stranger := newHarness(t, Config{Elicitation: false}, true)
	args := thingArgs{ID: "t1", IDs: []string{"a", "b"}}
	tok := tokenOf(t, call(t, a.connect(t, v20251125, nil, nil), "delete_thing", args), reasonServer)
	if len(tok) != 59 || strings.ContainsAny(tok, "+/=") {
		t.Fatalf("token %q: want 59 characters of base64url", tok)
	}
	res := call(t, stranger.connect(t, v20251125, nil, nil), "delete_thing", thingArgs{ID: "t1", IDs: []string{"a", "b"}, ConfirmToken: tok})
	if stranger.executed.Load() != 0 || !strings.Contains(text(res), "sealed under another key (fingerprint "+a.g.KeyFingerprint()) {
		t.Fatalf("an instance with another key: executed %d: %s", stranger.executed.Load(), text(res))
	}
	bcs := b.connect(t, v20251125, nil, nil)
	withTok := thingArgs{ID: "t1", IDs: []string{"a", "b"}, ConfirmToken: tok}
	if r := call(t, bcs, "delete_thing", withTok); text(r) != "deleted t1" || b.executed.Load() != 1 {
		t.Fatalf("a token from another instance with the same key: %q", text(r))
	}
	if r := call(t, bcs, "delete_thing", withTok); b.executed.Load() != 1 || !strings.Contains(text(r), "already used") {
		t.Fatalf("the same token twice on one instance: %q", text(r))
	}
	if a.executed.Load() != 0 {
		t.Fatal("the issuing instance executed")
	}
}

// TestTokenKeyLoopEnds: instances that do not share a key, as a model meets
// them when every call reaches another one. The first refusal hands out a
// token (one restart between two calls is the likely cause, and that token
// works where it was sealed); a refusal of that token for the same reason
// hands out none and says what the operator must set.
func TestTokenKeyLoopEnds(t *testing.T) {
	args := thingArgs{ID: "t1"}
	instances := []*harness{newHarness(t, Config{Elicitation: false}, true)}
	tok := tokenOf(t, call(t, instances[0].connect(t, v20251125, nil, nil), "delete_thing", args), reasonServer)
	refusals := 0
	var last *mcp.CallToolResult
	for range 6 { // a model following the server's words
		h := newHarness(t, Config{Elicitation: false}, true)
		instances = append(instances, h)
		last = call(t, h.connect(t, v20251125, nil, nil), "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok})
		sc, _ := last.StructuredContent.(map[string]any)
		next, _ := sc["confirm_token"].(string)
		refusals++
		if next == "" {
			break
		}
		tok = next
	}
	for _, h := range instances {
		if h.executed.Load() != 0 {
			t.Fatal("an instance executed")
		}
	}
	if refusals != 2 {
		t.Errorf("%d refusals before no token was handed out, want 2", refusals)
	}
	want := []string{"Nothing was changed", "sealed under another key again", "AUDIOBOOKSHELF_STATE_KEY", "same value on every process", "openssl rand -base64 32", "do not call this tool again"}
	for _, w := range want {
		if !strings.Contains(text(last), w) {
			t.Errorf("the last refusal does not say %q: %s", w, text(last))
		}
	}

	// One restart: the token handed out after the first refusal works at
	// the instance that sealed it.
	first := newHarness(t, Config{Elicitation: false}, true)
	tok = tokenOf(t, call(t, first.connect(t, v20251125, nil, nil), "delete_thing", args), reasonServer)
	restarted := newHarness(t, Config{Elicitation: false}, true)
	rcs := restarted.connect(t, v20251125, nil, nil)
	res := call(t, rcs, "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok})
	tok = tokenOf(t, res, reasonServer)
	if r := call(t, rcs, "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok}); text(r) != "deleted t1" || restarted.executed.Load() != 1 {
		t.Fatalf("after one restart, the new token: %s", text(r))
	}
}

// The set of used tokens is bounded; when it overflows, the tokens it can
// no longer tell apart are refused, never let through twice.
func TestUsedTokenSetBound(t *testing.T) {
	h := newHarness(t, Config{Elicitation: false, MaxTokens: 2}, true)
	cs := h.connect(t, v20251125, nil, nil)
	args := thingArgs{ID: "t1"}
	var toks []string
	for range 3 {
		toks = append(toks, tokenOf(t, call(t, cs, "delete_thing", args), reasonServer))
		h.clock.Add(time.Second)
	}
	for _, tok := range toks {
		call(t, cs, "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok})
	}
	if h.executed.Load() != 3 {
		t.Fatalf("executed %d", h.executed.Load())
	}
	for i, tok := range toks {
		res := call(t, cs, "delete_thing", thingArgs{ID: "t1", ConfirmToken: tok})
		if h.executed.Load() != 3 {
			t.Fatalf("token %d replayed after the set was full", i)
		}
		if i == 0 && !strings.Contains(text(res), "can no longer tell whether this one was") {
			t.Errorf("the token pushed out of the set: %s", text(res))
		}
	}
	if n := len(h.g.usedTokens.seen); n > 2 {
		t.Fatalf("the used set holds %d, bound is 2", n)
	}
}

func TestTokenConcurrency(t *testing.T) {
	h := newHarness(t, Config{Elicitation: false}, true)
	cs := h.connect(t, v20251125, nil, nil)
	args := thingArgs{ID: "t1"}
	tok := tokenOf(t, call(t, cs, "delete_thing", args), reasonServer)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			a := args
			if i%2 == 0 {
				a.ConfirmToken = tok // all race for the same token
			} else {
				a.ID = fmt.Sprintf("t%d", i)
			}
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_thing", Arguments: a}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if h.executed.Load() != 1 {
		t.Fatalf("one token executed %d times", h.executed.Load())
	}
	outs := h.logs.outcomes(t)
	if n := len(slices.DeleteFunc(slices.Clone(outs), func(o string) bool { return o != outcomeApproved })); n != 1 {
		t.Fatalf("%d approvals logged: %v", n, outs)
	}
}
