package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestApprovalStoreProcessesInARow: four stdio processes in a row with one
// fixed AUDIOBOOKSHELF_STATE_KEY, as a client that starts the server for
// every command runs them. The first hands out a confirm_token for removing
// the last two books of a collection, the second uses it; after each call
// the books are put back in the same order (so the collection reads as
// before), and the third and fourth bring the same token. With
// AUDIOBOOKSHELF_APPROVAL_STORE shared, the token removes the books once;
// without it (memory), every new process removes them again.
func TestApprovalStoreProcessesInARow(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	for _, shared := range []bool{true, false} {
		sd := standin.Start(t, standin.Options{})
		c, _ := sd.Collection(standin.CollectionDiscworldInOrder)
		order := slices.Clone(c.Books)
		removal := map[string]any{"collection_id": standin.CollectionDiscworldInOrder, "library_item_ids": order[len(order)-2:]}
		store := "AUDIOBOOKSHELF_APPROVAL_STORE=memory"
		if shared {
			store = "AUDIOBOOKSHELF_APPROVAL_STORE=" + apptest.StartRedis(t).URL
		}
		env := standinEnv(sd, "ELICITATION=false", "AUDIOBOOKSHELF_STATE_KEY="+key, store)

		res, s := callOverStdio(t, env, "remove_books_from_collection", removal)
		var first struct {
			StructuredContent struct {
				Token string `json:"confirm_token"`
			} `json:"structuredContent"`
		}
		if json.Unmarshal([]byte(res), &first) != nil || first.StructuredContent.Token == "" {
			t.Fatalf("process 1: no token: %s", res)
		}
		wantLine := "spent approvals are recorded in this process only"
		if shared {
			wantLine = "spent approvals are recorded in the shared store at tcp 127.0.0.1:"
		}
		if !strings.Contains(s.stderr.String(), wantLine) {
			t.Errorf("process 1 did not say where spent approvals are recorded (%q): %s", wantLine, s.stderr)
		}
		if !strings.Contains(s.stderr.String(), "state key fingerprint ") || strings.Contains(s.stderr.String(), key) {
			t.Errorf("process 1: no key fingerprint at start, or the key itself: %s", s.stderr)
		}
		tok := first.StructuredContent.Token
		var perProcess []int
		for p := 2; p <= 4; p++ {
			sd.ResetRequests()
			callOverStdio(t, env, "remove_books_from_collection", map[string]any{
				"collection_id": standin.CollectionDiscworldInOrder, "library_item_ids": order[len(order)-2:], "confirm_token": tok})
			n := 0
			for _, m := range sd.Mutations() {
				if strings.HasSuffix(m.Path, "/batch/remove") {
					n++
				}
			}
			perProcess = append(perProcess, n)
			if got, _ := sd.Collection(standin.CollectionDiscworldInOrder); !slices.Equal(got.Books, order) {
				putBack(t, sd, order[len(order)-2:])
			}
		}
		t.Logf("shared store %v: removals by processes 2, 3 and 4 with the one token: %v", shared, perProcess)
		want := []int{1, 0, 0}
		if !shared {
			want = []int{1, 1, 1}
		}
		if !slices.Equal(perProcess, want) {
			t.Errorf("shared store %v: removals per process %v, want %v", shared, perProcess, want)
		}
	}
}

// putBack adds ids at the end of the collection, one batch add each (as
// somebody would in Audiobookshelf; a batch add does not move updatedAt).
func putBack(t *testing.T, sd *standin.Server, ids []string) {
	t.Helper()
	for _, id := range ids {
		req, _ := http.NewRequest("POST", sd.URL()+"/api/collections/"+standin.CollectionDiscworldInOrder+"/batch/add", strings.NewReader(`{"books":["`+id+`"]}`))
		req.Header.Set("Authorization", "Bearer "+standin.DefaultAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// TestApprovalStoreRestartedEmpty: the shared store restarts without its
// data (a Redis without persistence). A confirm_token spent before that,
// brought again by a new process, is refused: nothing is sent, the answer
// says the store lost its data and must keep it, and the log says so too;
// a token given after the restart works. (Before, the spent token removed
// the books once more.)
func TestApprovalStoreRestartedEmpty(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	sd := standin.Start(t, standin.Options{})
	c, _ := sd.Collection(standin.CollectionDiscworldInOrder)
	order := slices.Clone(c.Books)
	removal := map[string]any{"collection_id": standin.CollectionDiscworldInOrder, "library_item_ids": order[len(order)-2:]}
	rd := apptest.StartRedis(t)
	env := standinEnv(sd, "ELICITATION=false", "AUDIOBOOKSHELF_STATE_KEY="+key, "AUDIOBOOKSHELF_APPROVAL_STORE="+rd.URL)
	type answer struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Token string `json:"confirm_token"`
		} `json:"structuredContent"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	call := func(args map[string]any) (answer, *session) {
		t.Helper()
		res, s := callOverStdio(t, env, "remove_books_from_collection", args)
		var a answer
		if err := json.Unmarshal([]byte(res), &a); err != nil {
			t.Fatal(err)
		}
		return a, s
	}
	withTok := func(tok string) map[string]any {
		out := maps.Clone(removal)
		out["confirm_token"] = tok
		return out
	}
	removals := func() int {
		n := 0
		for _, m := range sd.Mutations() {
			if strings.HasSuffix(m.Path, "/batch/remove") {
				n++
			}
		}
		return n
	}

	first, _ := call(removal)
	tok := first.StructuredContent.Token
	if tok == "" {
		t.Fatalf("no token: %+v", first)
	}
	sd.ResetRequests()
	if a, _ := call(withTok(tok)); a.IsError || removals() != 1 {
		t.Fatalf("the token's first use: %+v, %d removals", a, removals())
	}
	putBack(t, sd, order[len(order)-2:])

	rd.RestartEmpty(t)
	sd.ResetRequests()
	again, s := call(withTok(tok))
	text := ""
	for _, c := range again.Content {
		text += c.Text
	}
	if removals() != 0 || !again.IsError {
		t.Fatalf("the spent token after the store restarted empty: %d removals: %s", removals(), text)
	}
	for _, want := range []string{"Nothing was changed", "lost its data", "AUDIOBOOKSHELF_APPROVAL_STORE", "appendonly"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal does not say %q: %s", want, text)
		}
	}
	s.in.Close()
	s.cmd.Wait() // all of its log is in
	if !strings.Contains(s.stderr.String(), "lost its data") {
		t.Errorf("the log does not say the store lost its data: %s", s.stderr)
	}
	// The token handed out with the refusal was given after the restart.
	if next := again.StructuredContent.Token; next == "" {
		t.Fatal("no new token with the refusal")
	} else if a, _ := call(withTok(next)); a.IsError || removals() != 1 {
		t.Fatalf("a token given after the restart: %+v, %d removals", a, removals())
	}
}
