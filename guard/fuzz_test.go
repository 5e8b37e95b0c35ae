package guard

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzOpenState: opening an arbitrary string never panics and never
// approves, neither in open itself nor through Check with an approving answer.
func FuzzOpenState(f *testing.F) {
	now := t0
	g, err := New(Config{Elicitation: true, Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	other, _ := New(Config{Elicitation: true, Now: func() time.Time { return now }})
	args := boundArgs{ID: "t1", IDs: []string{"a"}}
	fp, _ := fingerprint("delete_thing", args)
	otherFP, _ := fingerprint("delete_thing", boundArgs{ID: "t2"})
	read, _ := readDigest("v1")
	otherRead, _ := readDigest("v2")

	f.Add("")
	f.Add(".")
	f.Add("..")
	f.Add("e30.")
	f.Add("e30.AAAA")
	f.Add(other.seal("delete_thing", "", fp, read, now))             // another key
	f.Add(g.seal("other_thing", "", fp, read, now))                  // another tool
	f.Add(g.seal("delete_thing", "", otherFP, read, now))            // other arguments
	f.Add(g.seal("delete_thing", "", fp, otherRead, now))            // another read
	f.Add(g.seal("delete_thing", "", fp, read, now.Add(-time.Hour))) // expired
	f.Add("eyJ2IjoxLCJ0IjoiZGVsZXRlX3RoaW5nIn0.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")

	raw, _ := json.Marshal(args)
	f.Fuzz(func(t *testing.T, s string) {
		if ok, _ := g.open(context.Background(), s, "delete_thing", "", fp, read, now); ok {
			t.Fatalf("open(%q) approved", s)
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Meta: mcp.Meta{
				mcp.MetaKeyProtocolVersion:    "2026-07-28",
				mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
			},
			Name:           "delete_thing",
			Arguments:      raw,
			InputResponses: approve,
			RequestState:   s,
		}}
		ok, res := g.Check(context.Background(), req, Question{Tool: "delete_thing", Args: args, Read: "v1", Targets: []string{"t1", "a"}, Action: "This will delete thing t1."})
		if ok || res == nil {
			t.Fatalf("Check approved state %q", s)
		}
		if _, why := g.unseal(s); why == otherKeyAgain {
			// Sealed under another key: an error that says so, never a
			// new question (a client answering at once would loop).
			if !res.IsError || len(res.InputRequests) != 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, KeyVariable) {
				t.Fatalf("state %q under another key: want an error naming %s, got %+v", s, KeyVariable, res)
			}
			return
		}
		if len(res.InputRequests) != 1 || res.RequestState == "" || res.RequestState == s {
			t.Fatalf("state %q: want a fresh question, got %+v", s, res)
		}
	})
}
