package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The shared store of spent approvals (AUDIOBOOKSHELF_APPROVAL_STORE) with
// a real redis-server, behind the three-instance balancer: the replays
// that the digest cannot tell apart, because the collection reads as it did
// when the approval was given, are refused at every instance. Without the
// store, the instances that did not take the approval let them through
// (docs/guards.md, "Deployments").

// lastTwo removes the last two books of a collection and puts them back in
// the same order, so that it reads as before.
func lastTwo(t *testing.T) (order []string, removal map[string]any) {
	t.Helper()
	s := sd.Start(t, sd.Options{})
	c, _ := s.Collection(sd.CollectionDiscworldInOrder)
	order = slices.Clone(c.Books)
	return order, map[string]any{"collection_id": sd.CollectionDiscworldInOrder, "library_item_ids": order[len(order)-2:]}
}

// putBackLastTwo adds the two books again at the end, as somebody else
// would in Audiobookshelf (straight to it, not through the instances), one
// batch add each (a batch add appends in id order, not in the order given):
// the collection reads as it did, and Audiobookshelf does not move its
// updatedAt on a batch add.
func putBackLastTwo(t *testing.T, cl *cluster, order []string) {
	t.Helper()
	for _, id := range order[len(order)-2:] {
		body := strings.NewReader(`{"books":["` + id + `"]}`)
		req, _ := http.NewRequest("POST", cl.sd.URL()+"/api/collections/"+sd.CollectionDiscworldInOrder+"/batch/add", body)
		req.Header.Set("Authorization", "Bearer "+sd.DefaultAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("put back: %s", resp.Status)
		}
	}
	if c, _ := cl.sd.Collection(sd.CollectionDiscworldInOrder); !slices.Equal(c.Books, order) {
		t.Fatalf("put back: %v, want %v", c.Books, order)
	}
}

// removals counts the stand-in's batch removals from the collection.
func removals(cl *cluster) int {
	n := 0
	for _, m := range mutations(cl.sd) {
		if strings.HasSuffix(m, "/batch/remove") {
			n++
		}
	}
	return n
}

func TestStoreReplayAcrossInstances(t *testing.T) {
	t.Parallel()
	order, removal := lastTwo(t)
	for _, shared := range []bool{true, false} {
		name := "without a store"
		store := ""
		if shared {
			name = "with a shared store"
			store = apptest.StartRedis(t).URL
		}
		t.Run(name+"/answer", func(t *testing.T) {
			cl := startClusterStore(t, store)
			manual := cl.connect(t, apptest.Proto20260728, &mcp.ClientOptions{
				ElicitationHandler: approve, // declares elicitation; never runs
				MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
			})
			accept := mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}
			first, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal})
			if err != nil || !first.NeedsInput() {
				t.Fatalf("first leg: %v %v", err, first)
			}
			state := first.RequestState
			from := cl.mark()
			res, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal, RequestState: state, InputResponses: accept})
			if err != nil || res.IsError || res.NeedsInput() || removals(cl) != 1 {
				t.Fatalf("the approved answer: %v %s; removals %d", err, apptest.Text(res), removals(cl))
			}
			putBackLastTwo(t, cl, order)
			cl.sd.ResetRequests()
			for range 3 {
				if _, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal, RequestState: state, InputResponses: accept}); err != nil {
					t.Fatal(err)
				}
				if c, _ := cl.sd.Collection(sd.CollectionDiscworldInOrder); !slices.Equal(c.Books, order) {
					putBackLastTwo(t, cl, order)
				}
			}
			seen := map[int]bool{}
			for _, l := range cl.since(t, from) {
				seen[l.instance] = true
			}
			if len(seen) != 3 {
				t.Fatalf("the calls reached instances %v, want all three", seen)
			}
			n := removals(cl)
			t.Logf("%s: the answer replayed 3 times, at every instance, after the books were put back: %d removal(s)", name, n)
			if shared && n != 0 {
				t.Errorf("with a shared store a spent answer removed the books again %d time(s)", n)
			}
			if !shared && n != 2 {
				t.Errorf("without a store the two instances that did not take the answer should each remove the books again (docs/guards.md); %d removal(s)", n)
			}
		})
		t.Run(name+"/token", func(t *testing.T) {
			cl := startClusterStore(t, store)
			cs := cl.connect(t, apptest.Proto20251125, nil) // stateless and older: the token path
			tok := tokenOf(t, apptest.CallOn(t, cs, "remove_books_from_collection", removal))
			if res := apptest.CallOn(t, cs, "remove_books_from_collection", with(removal, "confirm_token", tok)); res.IsError || removals(cl) != 1 {
				t.Fatalf("the token: %s; removals %d", apptest.Text(res), removals(cl))
			}
			putBackLastTwo(t, cl, order)
			cl.sd.ResetRequests()
			for range 3 {
				apptest.CallOn(t, cs, "remove_books_from_collection", with(removal, "confirm_token", tok))
				if c, _ := cl.sd.Collection(sd.CollectionDiscworldInOrder); !slices.Equal(c.Books, order) {
					putBackLastTwo(t, cl, order)
				}
			}
			n := removals(cl)
			t.Logf("%s: the token replayed 3 times after the books were put back: %d removal(s)", name, n)
			if shared && n != 0 {
				t.Errorf("with a shared store a used token removed the books again %d time(s)", n)
			}
			if !shared && n != 2 {
				t.Errorf("without a store the two instances that did not take the token should each remove the books again (docs/guards.md); %d removal(s)", n)
			}
		})
	}
}

// A question declined at one instance, answered accept with the same state
// at another: with the shared store the answer was spent by the decline.
func TestStoreDeclinedThenAccepted(t *testing.T) {
	t.Parallel()
	_, removal := lastTwo(t)
	for _, shared := range []bool{true, false} {
		store := ""
		if shared {
			store = apptest.StartRedis(t).URL
		}
		cl := startClusterStore(t, store)
		manual := cl.connect(t, apptest.Proto20260728, &mcp.ClientOptions{
			ElicitationHandler: approve,
			MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		})
		first, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal})
		if err != nil || !first.NeedsInput() {
			t.Fatalf("first leg: %v %v", err, first)
		}
		from := cl.mark()
		decline := mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "decline"}}
		res, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal, RequestState: first.RequestState, InputResponses: decline})
		if err != nil || !res.IsError || !strings.Contains(apptest.Text(res), "declined") {
			t.Fatalf("declined: %v %s", err, apptest.Text(res))
		}
		accept := mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}
		res, err = manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal, RequestState: first.RequestState, InputResponses: accept})
		if err != nil {
			t.Fatal(err)
		}
		legs := cl.since(t, from)
		if len(legs) != 2 || legs[0].instance == legs[1].instance {
			t.Fatalf("legs %+v", legs)
		}
		n := removals(cl)
		if shared && (n != 0 || (!res.IsError && !res.NeedsInput())) {
			t.Errorf("with a shared store, accept after decline at another instance: %d removal(s): %s", n, apptest.Text(res))
		}
		if !shared && n != 1 {
			t.Errorf("without a store, accept after decline at another instance made %d removal(s); docs/guards.md says it goes through", n)
		}
	}
}

// The store cannot be reached: an approved answer and a token are refused,
// nothing is sent, and the answer says why; no new question (which could
// not be spent either).
func TestStoreUnreachableFailsClosed(t *testing.T) {
	t.Parallel()
	r := apptest.StartRedis(t)
	cl := startClusterStore(t, r.URL)
	_, removal := lastTwo(t)
	manual := cl.connect(t, apptest.Proto20260728, &mcp.ClientOptions{
		ElicitationHandler: approve,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	older := cl.connect(t, apptest.Proto20251125, nil)
	first, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first leg: %v %v", err, first)
	}
	tok := tokenOf(t, apptest.CallOn(t, older, "remove_books_from_collection", removal))
	r.Stop()
	accept := mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}
	res, err := manual.CallTool(context.Background(), &mcp.CallToolParams{Name: "remove_books_from_collection", Arguments: removal, RequestState: first.RequestState, InputResponses: accept})
	if err != nil || !res.IsError || res.NeedsInput() || !strings.Contains(apptest.Text(res), "AUDIOBOOKSHELF_APPROVAL_STORE") || !strings.Contains(apptest.Text(res), "could not be reached") {
		t.Errorf("an approved answer with the store down: %v needsInput=%v %s", err, res.NeedsInput(), apptest.Text(res))
	}
	res = apptest.CallOn(t, older, "remove_books_from_collection", with(removal, "confirm_token", tok))
	if !res.IsError || !strings.Contains(apptest.Text(res), "could not be reached") || strings.Contains(apptest.Text(res), r.Addr) {
		t.Errorf("a token with the store down: %s", apptest.Text(res))
	}
	if m := mutations(cl.sd); len(m) != 0 {
		t.Errorf("sent with the store down: %v", m)
	}
}
