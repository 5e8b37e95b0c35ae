package guard

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manual connects a 2026-07-28 client that does not retry by itself, so the
// test carries inputResponses and requestState by hand.
func (h *harness) manual(t *testing.T) *mcp.ClientSession {
	rec := &elicitRecorder{answer: func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("the client's handler must not run with MultiRoundTrip disabled")
		return nil, nil
	}}
	return h.connect(t, v20260728, &mcp.ClientOptions{
		ElicitationHandler: rec.handle, // declares elicitation
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}, nil)
}

// ask makes the first call and returns the input_required result.
func ask(t *testing.T, cs *mcp.ClientSession, tool string, args thingArgs) *mcp.CallToolResult {
	t.Helper()
	res := call(t, cs, tool, args)
	mustAsk(t, res)
	return res
}

func mustAsk(t *testing.T, res *mcp.CallToolResult) *mcp.ElicitParams {
	t.Helper()
	if !res.NeedsInput() || res.RequestState == "" || len(res.Content) != 0 {
		t.Fatalf("want input_required with a state and no content, got NeedsInput=%v state=%q text=%q", res.NeedsInput(), res.RequestState, text(res))
	}
	p, ok := res.InputRequests[InputID].(*mcp.ElicitParams)
	if !ok || len(res.InputRequests) != 1 || p.Mode != "form" {
		t.Fatalf("input requests %#v", res.InputRequests)
	}
	return p
}

func retry(t *testing.T, cs *mcp.ClientSession, tool string, args thingArgs, state string, resp mcp.InputResponseMap) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: resp, RequestState: state})
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	return res
}

var approve = mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: true}}}

func TestSealedStateRoundTrip(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.manual(t)
	args := thingArgs{ID: "t1", IDs: []string{"a"}}
	first := ask(t, cs, "delete_thing", args)
	if res := retry(t, cs, "delete_thing", args, first.RequestState, approve); text(res) != "deleted t1" || h.executed.Load() != 1 {
		t.Fatalf("approved retry: %q", text(res))
	}
	// Replayed: the same approved state again asks anew.
	res := retry(t, cs, "delete_thing", args, first.RequestState, approve)
	p := mustAsk(t, res)
	if res.RequestState == first.RequestState || h.executed.Load() != 1 {
		t.Fatalf("replay executed or reused the state")
	}
	if !strings.Contains(p.Message, "asked again because the answer that came back had already been used") {
		t.Errorf("renewed question does not say so: %q", p.Message)
	}
	// The fresh question works.
	if res := retry(t, cs, "delete_thing", args, res.RequestState, approve); h.executed.Load() != 2 {
		t.Fatalf("fresh question: %q", text(res))
	}
	lines := h.logs.lines(t)
	if lines[2]["outcome"] != outcomeStaleState || lines[2]["reason"] != "already used" {
		t.Errorf("replay logged as %v", lines[2])
	}
}

// Every state that does not open onto this call counts as no answer and
// brings a fresh question; none executes.
func TestStaleStates(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.manual(t)
	other := newHarness(t, Config{Elicitation: true}, true) // another key
	otherCS := other.manual(t)

	args := thingArgs{ID: "t1", IDs: []string{"a"}}
	state := func(tool string, a thingArgs) string { return ask(t, cs, tool, a).RequestState }
	tamper := func(s string, at int) string {
		b := []byte(s)
		if b[at] == 'A' {
			b[at] = 'B'
		} else {
			b[at] = 'A'
		}
		return string(b)
	}

	cases := []struct {
		name  string
		state func() string
		args  thingArgs
		why   string
	}{
		{"tampered payload", func() string { return tamper(state("delete_thing", args), 3) }, args, "bad seal"},
		{"tampered mac", func() string { s := state("delete_thing", args); return tamper(s, len(s)-2) }, args, "bad seal"},
		{"truncated", func() string { s := state("delete_thing", args); return s[:len(s)-4] }, args, "malformed"},
		{"no dot", func() string { return strings.ReplaceAll(state("delete_thing", args), ".", "") }, args, "malformed"},
		{"garbage", func() string { return "not a state" }, args, "malformed"},
		{"empty with answer", func() string { return "" }, args, "missing"},
		{"another tool", func() string { return state("other_thing", args) }, args, "other tool"},
		{"another target", func() string { return state("delete_thing", thingArgs{ID: "t2", IDs: []string{"a"}}) }, args, "other arguments"},
		{"a widened set", func() string { return state("delete_thing", thingArgs{ID: "t1", IDs: []string{"a"}}) }, thingArgs{ID: "t1", IDs: []string{"a", "b"}}, "other arguments"},
		{"another order", func() string { return state("delete_thing", thingArgs{ID: "t1", IDs: []string{"a", "b", "c"}}) }, thingArgs{ID: "t1", IDs: []string{"c", "b", "a"}}, "other arguments"},
		{"another key", func() string { return ask(t, otherCS, "delete_thing", args).RequestState }, args, otherKey},
		{"expired", func() string { s := state("delete_thing", args); h.clock.Add(10 * time.Minute); return s }, args, "expired"},
		{"what it read changed", func() string { s := state("delete_thing", args); h.change("edited"); return s }, args, stateChanged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.state()
			res := retry(t, cs, "delete_thing", c.args, s, approve)
			p := mustAsk(t, res)
			// The new question says why it is asked again.
			says := map[string]string{
				"bad seal": "not sealed by this server", "malformed": "not sealed by this server", otherKey: "not sealed by this server",
				"missing": "without the question's state", "other tool": "about another call (other tool)",
				"other arguments": "about another call (other arguments)",
				"expired":         "the previous question had expired (a question is good for 10 minutes)",
			}[c.why]
			if c.why != stateChanged && (!strings.Contains(p.Message, "This question is asked again because ") || !strings.Contains(p.Message, says)) {
				t.Errorf("the new question does not say why (%s): %q", c.why, p.Message)
			}
			if res.RequestState == s {
				t.Error("the stale state came back")
			}
			if note := h.g.renewal(c.why); !strings.Contains(p.Message, note) {
				t.Errorf("the fresh question does not say %q:\n%s", note, p.Message)
			}
			if h.executed.Load() != 0 {
				t.Fatal("a stale state executed")
			}
			lines := h.logs.lines(t)
			last := lines[len(lines)-1]
			if last["outcome"] != outcomeStaleState || last["reason"] != c.why {
				t.Errorf("logged %v, want stale state (%s)", last, c.why)
			}
			// The fresh question is good for the call it was asked for.
			if fresh := retry(t, cs, "delete_thing", c.args, res.RequestState, approve); h.executed.Load() != 1 {
				t.Fatalf("the fresh question did not work: %q", text(fresh))
			}
			h.executed.Store(0)
		})
	}
}

// Instances that share a key open each other's states. Another instance
// does not know that a state was used elsewhere: what stops a replay there
// is the read digest, once the approved change has been made.
func TestSharedKey(t *testing.T) {
	key := make([]byte, KeySize)
	rand.Read(key)
	a := newHarness(t, Config{Elicitation: true, Key: key}, true)
	b := newHarness(t, Config{Elicitation: true, Key: key}, true)
	c := newHarness(t, Config{Elicitation: true, Key: key}, true)
	args := thingArgs{ID: "t1"}
	s := ask(t, a.manual(t), "delete_thing", args).RequestState
	if retry(t, b.manual(t), "delete_thing", args, s, approve); b.executed.Load() != 1 {
		t.Fatal("a state sealed with the shared key did not open on another instance")
	}
	c.change("after the deletion")
	res := retry(t, c.manual(t), "delete_thing", args, s, approve)
	if p := mustAsk(t, res); c.executed.Load() != 0 || !strings.Contains(p.Message, changedNote) {
		t.Fatalf("a replay at a third instance after the change: executed %d, %q", c.executed.Load(), p.Message)
	}
	// Without the change the third instance cannot tell: the per-process
	// nonce set only guards the instance that took the answer.
	d := newHarness(t, Config{Elicitation: true, Key: key}, true)
	if retry(t, d.manual(t), "delete_thing", args, s, approve); d.executed.Load() != 1 {
		t.Fatal("expected a replay elsewhere to go through when nothing it read changed")
	}
	if mustAsk(t, retry(t, b.manual(t), "delete_thing", args, s, approve)); b.executed.Load() != 1 {
		t.Fatal("the instance that took the answer let it through twice")
	}
}

// rootsAnswer is a roots/list answer under the question's id, decoded from
// the JSON a client sends, as go-sdk decodes it: the one kind of answer
// besides sampling's that an input response can be, and not an elicitation.
func rootsAnswer(t *testing.T) mcp.InputResponseMap {
	t.Helper()
	var m mcp.InputResponseMap
	if err := json.Unmarshal([]byte(`{"`+InputID+`": {"roots": []}}`), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m[InputID].(*mcp.ElicitResult); ok || m[InputID] == nil {
		t.Fatalf("a roots answer decodes as %T", m[InputID])
	}
	return m
}

func TestAnswersThatDoNotApprove(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.manual(t)
	args := thingArgs{ID: "t1"}
	for _, c := range []struct {
		name    string
		resp    mcp.InputResponseMap
		outcome string
	}{
		{"no responses", nil, outcomeNoAnswer},
		{"answer under another id", mcp.InputResponseMap{"other": approve[InputID]}, outcomeNoAnswer},
		{"not an ElicitResult", rootsAnswer(t), outcomeNoAnswer},
		{"approve as a string", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: "true"}}}, outcomeNotApproved},
		{"approve as a number", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: 1}}}, outcomeNotApproved},
		{"accept without content", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept"}}, outcomeNotApproved},
		{"accept false", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{ApproveField: false}}}, outcomeNotApproved},
		{"approve under another field", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}, outcomeNotApproved},
		{"unknown action", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "yes", Content: map[string]any{ApproveField: true}}}, outcomeNotApproved},
		{"decline with approve true", mcp.InputResponseMap{InputID: &mcp.ElicitResult{Action: "decline", Content: map[string]any{ApproveField: true}}}, outcomeDeclined},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ask(t, cs, "delete_thing", args).RequestState
			res := retry(t, cs, "delete_thing", args, s, c.resp)
			if res.NeedsInput() || !res.IsError || !strings.HasPrefix(text(res), "Nothing was changed") {
				t.Fatalf("result %v %q", res.NeedsInput(), text(res))
			}
			if h.executed.Load() != 0 {
				t.Fatal("executed")
			}
			if sc := structured(t, res); sc["outcome"] != c.outcome {
				t.Errorf("outcome %v, want %s", sc["outcome"], c.outcome)
			}
			// The state is used up by its answer, whatever it was.
			mustAsk(t, retry(t, cs, "delete_thing", args, s, approve))
			if h.executed.Load() != 0 {
				t.Fatal("a state answered once executed on its second answer")
			}
		})
	}
}

// Many retries racing with one approved state: one executes.
func TestConcurrentReplay(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true}, true)
	cs := h.manual(t)
	args := thingArgs{ID: "t1"}
	s := ask(t, cs, "delete_thing", args).RequestState
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_thing", Arguments: args, InputResponses: approve, RequestState: s}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if h.executed.Load() != 1 {
		t.Fatalf("one state executed %d times", h.executed.Load())
	}
}

// A full set of answered questions costs a fresh question, never a replay.
func TestAnsweredSetBound(t *testing.T) {
	h := newHarness(t, Config{Elicitation: true, MaxAnswered: 2}, true)
	cs := h.manual(t)
	args := thingArgs{ID: "t1"}
	var states []string
	for range 3 {
		states = append(states, ask(t, cs, "delete_thing", args).RequestState)
		h.clock.Add(time.Second)
	}
	for _, s := range states {
		retry(t, cs, "delete_thing", args, s, approve)
	}
	if h.executed.Load() != 3 {
		t.Fatalf("executed %d", h.executed.Load())
	}
	for i, s := range states {
		mustAsk(t, retry(t, cs, "delete_thing", args, s, approve))
		if h.executed.Load() != 3 {
			t.Fatalf("state %d replayed after the set was full", i)
		}
	}
	if n := len(h.g.answers.seen); n > 2 {
		t.Fatalf("the answered set holds %d, bound is 2", n)
	}
}

func TestNonceSet(t *testing.T) {
	s := newNonceSet(2)
	use := func(n string, exp, now int64) bool { ok, _ := s.use(n, exp, now); return ok }
	if !use("n1", 100, 0) || !use("n2", 200, 0) || use("n1", 100, 0) {
		t.Fatal("basic use")
	}
	if ok, forgotten := s.use("n2", 200, 0); ok || forgotten {
		t.Fatal("a nonce still held must be refused as seen, not forgotten")
	}
	if !use("n3", 300, 0) { // evicts n1, floor 100
		t.Fatal("n3")
	}
	if use("n1", 100, 0) || use("n4", 50, 0) || use("n2", 200, 0) || use("n3", 300, 0) {
		t.Fatal("replay after eviction")
	}
	if ok, forgotten := s.use("n1", 100, 0); ok || !forgotten {
		t.Fatal("an evicted nonce must be refused as forgotten")
	}
	if !use("n5", 400, 0) { // evicts n2, floor 200
		t.Fatal("n5")
	}
	// Expired entries are pruned lazily.
	if !use("n6", 500, 350) || len(s.seen) != 2 {
		t.Fatalf("prune: %v", s.seen)
	}
}

func TestParseKey(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	for _, enc := range []string{base64.StdEncoding.EncodeToString(key), base64.RawStdEncoding.EncodeToString(key), " " + base64.StdEncoding.EncodeToString(key) + "\n"} {
		got, err := ParseKey(enc)
		if err != nil || !bytes.Equal(got, key) {
			t.Fatalf("ParseKey(%q) = %x, %v", enc, got, err)
		}
	}
	secret := base64.StdEncoding.EncodeToString(key[:16])
	for _, bad := range []string{"", "   ", secret, base64.StdEncoding.EncodeToString(append(key, 0)), base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 32)), "not base64!"} {
		_, err := ParseKey(bad)
		if err == nil {
			t.Fatalf("ParseKey(%q) accepted", bad)
		}
		msg := err.Error()
		if !strings.Contains(msg, "AUDIOBOOKSHELF_STATE_KEY") || !strings.Contains(msg, "exactly 32 bytes") || !strings.Contains(msg, "standard base64") {
			t.Errorf("error %q does not name the variable and what is allowed", msg)
		}
		if len(bad) > 4 && strings.Contains(msg, strings.TrimSpace(bad)) {
			t.Errorf("error %q repeats the value", msg)
		}
	}
}

func TestNewKeyLength(t *testing.T) {
	for _, n := range []int{0, 32} {
		if _, err := New(Config{Key: make([]byte, n)}); err != nil {
			t.Errorf("%d-byte key: %v", n, err)
		}
	}
	for _, n := range []int{1, 16, 31, 33, 64} {
		if _, err := New(Config{Key: make([]byte, n)}); err == nil {
			t.Errorf("%d-byte key accepted", n)
		}
	}
	// Two Guards without a key do not share one.
	a, _ := New(Config{})
	b, _ := New(Config{})
	if bytes.Equal(a.key, b.key) {
		t.Fatal("random keys are equal")
	}
}

func TestFingerprint(t *testing.T) {
	fp := func(tool string, args any) [32]byte {
		f, err := fingerprint(tool, args)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := fp("delete_thing", boundArgs{ID: "a", IDs: []string{"x", "y"}})
	if base != fp("delete_thing", boundArgs{ID: "a", IDs: []string{"x", "y"}}) {
		t.Fatal("not deterministic")
	}
	for name, other := range map[string][32]byte{
		"tool":    fp("other_thing", boundArgs{ID: "a", IDs: []string{"x", "y"}}),
		"order":   fp("delete_thing", boundArgs{ID: "a", IDs: []string{"y", "x"}}),
		"widened": fp("delete_thing", boundArgs{ID: "a", IDs: []string{"x", "y", "z"}}),
		"target":  fp("delete_thing", boundArgs{ID: "b", IDs: []string{"x", "y"}}),
		"split":   fp("delete_thin", boundArgs{ID: "a", IDs: []string{"x", "y"}}),
	} {
		if other == base {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	// A top-level confirm_token does not count.
	m := map[string]any{"id": "a"}
	withTok := map[string]any{"id": "a", "confirm_token": "tok"}
	if fp("t", m) != fp("t", withTok) {
		t.Error("confirm_token changed the fingerprint")
	}
	if _, err := fingerprint("t", map[string]any{"c": make(chan int)}); err == nil {
		t.Error("unencodable args fingerprinted")
	}
}

// A state sealed under another key is asked about afresh once (the likely
// cause is a restart that drew a new key); when the answer to that fresh
// question comes back under another key again, the instances behind one
// address do not share AUDIOBOOKSHELF_STATE_KEY, and asking again would
// make a client that answers at once loop between them: the call ends
// with an error that says the keys differ and gives this instance's
// fingerprint, never the key; nothing runs. (Before, each hop asked anew.)
func TestStateUnderAnotherKeyNoLoop(t *testing.T) {
	a := newHarness(t, Config{Elicitation: true}, true)
	b := newHarness(t, Config{Elicitation: true}, true)
	csA, csB := a.manual(t), b.manual(t)
	args := thingArgs{ID: "t1", IDs: []string{"a"}}
	s := ask(t, csA, "delete_thing", args).RequestState
	// A's question answered at B: asked afresh once.
	res := retry(t, csB, "delete_thing", args, s, approve)
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("the first answer under another key: want a fresh question, got %v", res)
	}
	// B's fresh question answered at A: the keys differ; an error, no loop.
	res = retry(t, csA, "delete_thing", args, res.RequestState, approve)
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	if !res.IsError || res.NeedsInput() || !strings.Contains(text, "AUDIOBOOKSHELF_STATE_KEY") || !strings.Contains(text, a.g.KeyFingerprint()) || !strings.Contains(text, "do not retry") {
		t.Fatalf("the second hop under another key: want an error that names the key variable and the fingerprint, got needsInput=%v %q", res.NeedsInput(), text)
	}
	if a.g.KeyFingerprint() == b.g.KeyFingerprint() {
		t.Fatal("two random keys with one fingerprint")
	}
	if a.executed.Load()+b.executed.Load() != 0 {
		t.Fatal("a state under another key executed")
	}
}
