package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The two-call confirm_token across processes of the built binary: it is
// sealed under AUDIOBOOKSHELF_STATE_KEY, so another process with the same
// key accepts it (once), and so does the same server after a restart.

const sharedKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

// reorder is a guarded call that leaves the collection in place, so that a
// second use of its token reaches the guard rather than a missing target.
var reorder = map[string]any{"collection_id": standin.CollectionDiscworldInOrder,
	"library_item_ids": []string{standin.ItemMort, standin.ItemColourOfMagic, standin.ItemLightFantastic, standin.ItemEqualRites}}

func withToken(tok string) map[string]any {
	out := map[string]any{"confirm_token": tok}
	for k, v := range reorder {
		out[k] = v
	}
	return out
}

func tokenIn(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	sc, _ := res.StructuredContent.(map[string]any)
	tok, _ := sc["confirm_token"].(string)
	if !res.IsError || tok == "" {
		t.Fatalf("want a confirm_token result, got isError=%v: %s", res.IsError, apptest.Text(res))
	}
	return tok
}

func reordered(sd *standin.Server) bool {
	c, _ := sd.Collection(standin.CollectionDiscworldInOrder)
	return slices.Equal(c.Books, reorder["library_item_ids"].([]string))
}

// TestTokenAcrossProcesses: two stateless HTTP processes with one key; an
// older client (the token path behind stateless HTTP) gets the token from
// one and brings it to the other: accepted once, refused after at both.
func TestTokenAcrossProcesses(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	env := standinEnv(sd, "AUDIOBOOKSHELF_STATE_KEY="+sharedKey)
	a := startHTTP(t, env, "--http", "127.0.0.1:0", "--stateless")
	b := startHTTP(t, env, "--http", "127.0.0.1:0", "--stateless")
	ca, err := a.client("2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.client("2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sd.ResetRequests()
	tok := tokenIn(t, apptest.CallOn(t, ca, "update_collection", reorder))
	if len(sd.Mutations()) != 0 {
		t.Fatal("the first call changed something")
	}
	res := apptest.CallOn(t, cb, "update_collection", withToken(tok))
	if res.IsError || !reordered(sd) || len(sd.Mutations()) != 1 {
		t.Fatalf("the token from the other process: isError=%v, %d mutations: %s", res.IsError, len(sd.Mutations()), apptest.Text(res))
	}
	sd.ResetRequests()
	for name, cs := range map[string]*mcp.ClientSession{"the process that accepted it": cb, "the process that issued it": ca} {
		res := apptest.CallOn(t, cs, "update_collection", withToken(tok))
		tokenIn(t, res)
		if len(sd.Mutations()) != 0 {
			t.Fatalf("the used token at %s sent %v", name, sd.Mutations())
		}
	}
	a.stop()
	b.stop()
}

// TestTokenSurvivesRestart: over stdio, one process after the other (as a
// client that starts a server per command does). With the same key the
// second process accepts the first one's token, once; without a fixed key
// it refuses it and says why.
func TestTokenSurvivesRestart(t *testing.T) {
	for _, fixed := range []bool{true, false} {
		sd := standin.Start(t, standin.Options{})
		env := standinEnv(sd)
		if fixed {
			env = append(env, "AUDIOBOOKSHELF_STATE_KEY="+sharedKey)
		}
		callOnce := func(args map[string]any, more ...map[string]any) []map[string]any {
			t.Helper()
			s := start(t, env)
			s.initialize() // no elicitation capability: the token path
			var out []map[string]any
			for _, a := range append([]map[string]any{args}, more...) {
				s.send("tools/call", map[string]any{"name": "update_collection", "arguments": a})
				var res map[string]any
				if err := json.Unmarshal(s.recv()["result"], &res); err != nil {
					t.Fatal(err)
				}
				out = append(out, res)
			}
			s.in.Close()
			done := make(chan struct{})
			go func() { s.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatalf("the first process did not exit: %s", s.stderr)
			}
			return out
		}
		sc := func(res map[string]any) map[string]any { m, _ := res["structuredContent"].(map[string]any); return m }
		text := func(res map[string]any) string { b, _ := json.Marshal(res["content"]); return string(b) }

		first := callOnce(reorder)[0]
		tok, _ := sc(first)["confirm_token"].(string)
		if tok == "" {
			t.Fatalf("fixed=%v: no token: %v", fixed, first)
		}
		sd.ResetRequests()
		second := callOnce(withToken(tok), withToken(tok))
		if !fixed {
			if second[0]["isError"] != true || !strings.Contains(text(second[0]), "AUDIOBOOKSHELF_STATE_KEY") || len(sd.Mutations()) != 0 || reordered(sd) {
				t.Errorf("without a fixed key, a restarted server must refuse the token and name the variable: %v, %d mutations", second[0], len(sd.Mutations()))
			}
			continue
		}
		if second[0]["isError"] == true || !reordered(sd) || len(sd.Mutations()) != 1 {
			t.Fatalf("with a fixed key the restarted server did not accept the token: %v, %d mutations", second[0], len(sd.Mutations()))
		}
		if second[1]["isError"] != true || sc(second[1])["status"] != "confirmation_required" || len(sd.Mutations()) != 1 {
			t.Errorf("the same token a second time: %v, %d mutations", second[1], len(sd.Mutations()))
		}
	}
}

// TestTokenLoopEndsAcrossProcesses: one process of the binary per request,
// as supergateway in stateless mode runs a stdio server, without a fixed
// AUDIOBOOKSHELF_STATE_KEY. A model that follows the server's words (calls
// again with the token each answer gives) ends after at most two refusals,
// with an answer that names what the operator must set and gives no
// token; nothing is changed. With a fixed key, the token from one process
// works in the next. (Before, every answer handed out a new token that the
// next process refused the same way, without end.)
func TestTokenLoopEndsAcrossProcesses(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	oneRequest := func(env []string, args map[string]any) map[string]any {
		t.Helper()
		s := start(t, env)
		s.initialize() // no elicitation capability: the token path
		s.send("tools/call", map[string]any{"name": "update_collection", "arguments": args})
		var res map[string]any
		if err := json.Unmarshal(s.recv()["result"], &res); err != nil {
			t.Fatal(err)
		}
		s.in.Close()
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("the process did not exit: %s", s.stderr)
		}
		return res
	}
	scOf := func(res map[string]any) map[string]any { m, _ := res["structuredContent"].(map[string]any); return m }
	textOf := func(res map[string]any) string { b, _ := json.Marshal(res["content"]); return string(b) }

	env := standinEnv(sd)
	res := oneRequest(env, reorder)
	refusals := 0
	for range 6 {
		tok, _ := scOf(res)["confirm_token"].(string)
		if tok == "" {
			break
		}
		res = oneRequest(env, withToken(tok))
		refusals++
	}
	if refusals == 0 || refusals > 2 {
		t.Errorf("%d refusals before the answers stopped handing out tokens, want 1 or 2", refusals)
	}
	if _, has := scOf(res)["confirm_token"]; has || res["isError"] != true {
		t.Fatalf("the loop did not end: %v", res)
	}
	for _, want := range []string{"AUDIOBOOKSHELF_STATE_KEY", "same value on every process", "AUDIOBOOKSHELF_APPROVAL_STORE", "Nothing was changed"} {
		if !strings.Contains(textOf(res), want) {
			t.Errorf("the last answer does not say %q: %s", want, textOf(res))
		}
	}
	if scOf(res)["operator_must_set"] != "AUDIOBOOKSHELF_STATE_KEY" {
		t.Errorf("structuredContent: %v", scOf(res))
	}
	if len(sd.Mutations()) != 0 || reordered(sd) {
		t.Fatalf("something was changed: %v", sd.Mutations())
	}

	fixed := append(env, "AUDIOBOOKSHELF_STATE_KEY="+sharedKey)
	tok, _ := scOf(oneRequest(fixed, reorder))["confirm_token"].(string)
	if tok == "" {
		t.Fatal("no token with a fixed key")
	}
	if res := oneRequest(fixed, withToken(tok)); res["isError"] == true || !reordered(sd) || len(sd.Mutations()) != 1 {
		t.Fatalf("with a fixed key the next process did not accept the token: %v, %d mutations", res, len(sd.Mutations()))
	}
}
