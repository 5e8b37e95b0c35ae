package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
)

// household is one per-person HTTP deployment over the stand-in's household.
type household struct {
	sd  *standin.Server
	url string
	log *apptest.SyncBuffer
	// version is what its clients ask for: 2025-11-25 with sessions (the
	// endpoint serves 2026-07-28 there too, without one), else 2026-07-28.
	version string
}

func startHousehold(t *testing.T, stateless bool) *household {
	t.Helper()
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	cfg := &config.Config{URL: sd.URL(), Elicitation: true, Timeout: 10 * time.Second, Auth: config.AuthAuto, Toolsets: config.AllToolsets()}
	if err := cfg.ResolveAuth(true); err != nil || !cfg.PerPerson {
		t.Fatalf("auto with a URL and no key is not per-person: %v %v", cfg.PerPerson, err)
	}
	log := &apptest.SyncBuffer{}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Stateless: stateless,
		Logger: slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{PerPerson: true}))
	t.Cleanup(ts.Close)
	version := "2026-07-28"
	if !stateless {
		version = "2025-11-25"
	}
	return &household{sd: sd, url: ts.URL + app.MCPPath, log: log, version: version}
}

func withKey(key string) *http.Client {
	return &http.Client{Transport: headerTransport{"Authorization", "Bearer " + key}}
}

// connectAs connects with key; asked, when not nil, makes the client take
// questions: a pushed one (with sessions, which speak 2025-11-25) is
// approved and counted in it; on 2026-07-28 (stateless) the multi
// round-trip retry is left to the test.
func (h *household) connectAs(t *testing.T, key string, asked *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	if asked != nil {
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}, nil
		}
	}
	cs, err := apptest.ConnectHTTP(t, h.url, h.version, withKey(key), opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tl := range res.Tools {
		out[tl.Name] = true
	}
	return out
}

var approve = mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}

func callState(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, state string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if state != "" {
		p.RequestState, p.InputResponses = state, approve
	}
	res, err := cs.CallTool(t.Context(), p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// Two people share one per-person deployment, with sessions and stateless:
// each sees only their own progress and bookmarks, at the same time; what
// one writes is theirs; one's question state and confirm_token are refused
// for the other; a session stays with the person who opened it; tools/list
// and the guard follow each person's permissions; and nothing reached
// Audiobookshelf with a key other than the caller's own.
func TestHouseholdTwoPeople(t *testing.T) {
	for _, c := range []struct {
		stateless bool
		version   string
	}{{false, "2025-11-25"}, {false, "2026-07-28"}, {true, "2026-07-28"}} {
		t.Run(fmt.Sprintf("stateless=%v/%s", c.stateless, c.version), func(t *testing.T) {
			h := startHousehold(t, c.stateless)
			h.version = c.version
			// With a session (2025-11-25) questions are pushed; 2026-07-28
			// carries them in the result, sealed, with or without --stateless.
			stateless := c.version == "2026-07-28"
			var rootAsked, partnerAsked atomic.Int32
			root := h.connectAs(t, standin.DefaultAPIKey, &rootAsked)
			partner := h.connectAs(t, standin.PartnerAPIKey, &partnerAsked)
			listener := h.connectAs(t, standin.ListenerAPIKey, &atomic.Int32{})

			// tools/list follows the person's permissions.
			rootTools, partnerTools, listenerTools := toolNames(t, root), toolNames(t, partner), toolNames(t, listener)
			all, noDelete := len(app.Select(false, config.AllToolsets())), 0
			for _, tool := range app.Select(false, config.AllToolsets()) {
				if !tool.Permission.HeldBy(permission.User{Type: "user", Update: true, Download: true}) {
					continue // delete_collection, delete_podcast_episode, delete_podcast, the admin-only podcast tools and set_item_cover (upload)
				}
				noDelete++
			}
			if !rootTools["delete_collection"] || !rootTools["create_collection"] || len(rootTools) != all {
				t.Errorf("root (every permission) lists %d tools", len(rootTools))
			}
			if partnerTools["delete_collection"] || !partnerTools["update_collection"] || len(partnerTools) != noDelete || noDelete >= all {
				t.Errorf("partner (no delete) lists %d tools, delete_collection %v", len(partnerTools), partnerTools["delete_collection"])
			}
			needing := 0
			for _, rt := range registry.All {
				// Every tool with a permission in the manifest: the upkeep
				// toolset's are not listed here, being off by default.
				if rt.Permission.None() {
					continue
				}
				needing++
				if listenerTools[rt.Name] {
					t.Errorf("listener (no update, no delete) is offered %s", rt.Name)
				}
			}
			if needing == 0 {
				t.Error("no tool of the registry needs a permission")
			}
			if !listenerTools["delete_playlist"] || !listenerTools["delete_bookmark"] {
				t.Error("listener lost tools on their own data")
			}

			// Both at once: each sees their own progress and bookmarks.
			type view struct{ progress, bookmarks string }
			look := func(cs *mcp.ClientSession) view {
				p := apptest.CallOn(t, cs, "get_media_progress", map[string]any{"library_item_id": standin.ItemColourOfMagic})
				b := apptest.CallOn(t, cs, "list_bookmarks", nil)
				if p.IsError || b.IsError {
					t.Errorf("progress %s / bookmarks %s", apptest.Text(p), apptest.Text(b))
				}
				pj, _ := json.Marshal(p.StructuredContent)
				return view{string(pj) + apptest.Text(p), apptest.Text(b)}
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			seen := map[string][]view{}
			for i := 0; i < 4; i++ {
				for name, cs := range map[string]*mcp.ClientSession{"root": root, "partner": partner} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						v := look(cs)
						mu.Lock()
						seen[name] = append(seen[name], v)
						mu.Unlock()
					}()
				}
			}
			wg.Wait()
			for _, v := range seen["root"] {
				if !strings.Contains(v.progress, `"progress_pct":42,`) || strings.Contains(v.progress, `"progress_pct":87,`) ||
					!strings.Contains(v.bookmarks, "The Luggage appears") || strings.Contains(v.bookmarks, "Partner:") {
					t.Errorf("root saw %+v", v)
				}
			}
			for _, v := range seen["partner"] {
				if !strings.Contains(v.progress, `"progress_pct":87,`) || strings.Contains(v.progress, `"progress_pct":42,`) ||
					!strings.Contains(v.bookmarks, "Partner: the Octavo") || strings.Contains(v.bookmarks, "Luggage") {
					t.Errorf("partner saw %+v", v)
				}
			}

			// What partner writes is partner's.
			if res := apptest.CallOn(t, partner, "create_bookmark", map[string]any{"library_item_id": standin.ItemGoodOmens, "time": 77, "title": "Partner's own"}); res.IsError {
				t.Fatalf("create_bookmark: %s", apptest.Text(res))
			}
			if n := len(h.sd.UserBookmarks(standin.UserPartnerID, standin.ItemGoodOmens)); n != 1 {
				t.Errorf("partner has %d bookmarks on Good Omens", n)
			}
			if n := len(h.sd.Bookmarks(standin.ItemGoodOmens)); n != 1 {
				t.Errorf("root's bookmarks on Good Omens: %d, want the sample's 1", n)
			}

			remove := map[string]any{"collection_id": standin.CollectionSpaceOpera, "library_item_ids": []string{standin.ItemCalibansWar}}
			if !stateless {
				// With sessions the question is pushed to the session's
				// own client: root is asked, partner never.
				before := len(h.sd.Mutations())
				if res := callState(t, root, "remove_books_from_collection", remove, ""); res.IsError || rootAsked.Load() != 1 || partnerAsked.Load() != 0 {
					t.Fatalf("root asked %d, partner asked %d: %s", rootAsked.Load(), partnerAsked.Load(), apptest.Text(res))
				}
				if m := h.sd.Mutations(); len(m) != before+1 || m[len(m)-1].Credential != standin.DefaultAPIKey {
					t.Errorf("root's approved change was not made once with root's key")
				}
				if !strings.Contains(h.log.String(), `"outcome":"approved","user":"`+standin.UserRootID+`"`) {
					t.Errorf("the approval is not logged with root's user id:\n%s", h.log.String())
				}
			}
			if stateless {
				// Root's question state is refused for partner: a fresh question, nothing sent.
				asked := callState(t, root, "remove_books_from_collection", remove, "")
				if !asked.NeedsInput() || asked.RequestState == "" {
					t.Fatalf("root was not asked: %s", apptest.Text(asked))
				}
				before := len(h.sd.Mutations())
				res := callState(t, partner, "remove_books_from_collection", remove, asked.RequestState)
				if !res.NeedsInput() || res.RequestState == asked.RequestState || len(h.sd.Mutations()) != before {
					t.Fatalf("root's approval executed for partner, or no fresh question: needs input %v, %s", res.NeedsInput(), apptest.Text(res))
				}
				if msg := res.InputRequests[guard.InputID].(*mcp.ElicitParams).Message; !strings.Contains(msg, "another person") {
					t.Errorf("the new question does not say why: %q", msg)
				}
				if res := callState(t, root, "remove_books_from_collection", remove, asked.RequestState); res.IsError || res.NeedsInput() {
					t.Fatalf("root's own approval: %s", apptest.Text(res))
				}
				if m := h.sd.Mutations(); len(m) != before+1 || m[len(m)-1].Credential != standin.DefaultAPIKey {
					t.Errorf("the approved change was not made once with root's key: %d", len(m)-before)
				}
			}

			// Root's confirm_token is refused for partner.
			rootTok := h.connectAs(t, standin.DefaultAPIKey, nil)
			partnerTok := h.connectAs(t, standin.PartnerAPIKey, nil)
			remove2 := map[string]any{"collection_id": standin.CollectionSpaceOpera, "library_item_ids": []string{standin.ItemProjectHailMary}}
			first := apptest.CallOn(t, rootTok, "remove_books_from_collection", remove2)
			sc, _ := first.StructuredContent.(map[string]any)
			tok, _ := sc["confirm_token"].(string)
			if tok == "" {
				t.Fatalf("no token for root: %s", apptest.Text(first))
			}
			before := len(h.sd.Mutations())
			with := map[string]any{"collection_id": standin.CollectionSpaceOpera, "library_item_ids": []string{standin.ItemProjectHailMary}, "confirm_token": tok}
			res := apptest.CallOn(t, partnerTok, "remove_books_from_collection", with)
			if !res.IsError || !strings.Contains(apptest.Text(res), "not issued to this person") || len(h.sd.Mutations()) != before {
				t.Fatalf("root's token for partner: %s", apptest.Text(res))
			}
			if res := apptest.CallOn(t, rootTok, "remove_books_from_collection", with); res.IsError {
				t.Fatalf("root's own token: %s", apptest.Text(res))
			}
			if m := h.sd.Mutations(); len(m) != before+1 || m[len(m)-1].Credential != standin.DefaultAPIKey {
				t.Errorf("the token's change was not made once with root's key")
			}

			// No delete permission: refused without asking, nothing read or sent.
			n := len(h.sd.Requests())
			res = callState(t, partner, "delete_collection", map[string]any{"collection_id": standin.CollectionDiscworldInOrder}, "")
			if !res.IsError || res.NeedsInput() || !strings.Contains(apptest.Text(res), `Audiobookshelf's delete permission (canDelete)`) {
				t.Errorf("delete without the right: %s", apptest.Text(res))
			}
			if got := h.sd.Requests()[n:]; len(got) != 0 {
				t.Errorf("%d requests reached Audiobookshelf for a refused call", len(got))
			}

			// A session stays with the person who opened it.
			if !stateless {
				code, body := postAs(t, h.url, standin.PartnerAPIKey, root.ID())
				if code != http.StatusForbidden || !strings.Contains(body, "another person") {
					t.Errorf("partner on root's session: %d %q", code, body)
				}
				if res := apptest.CallOn(t, root, "list_libraries", nil); res.IsError {
					t.Errorf("root's session after partner's try: %s", apptest.Text(res))
				}
			}

			// No key, or a key Audiobookshelf refuses: 401, saying what to send.
			// (challenge_test.go holds the challenge to RFC 6750's syntax.)
			for key, challenge := range map[string]string{"": `Bearer realm="audiobookshelf-mcp", error="invalid_request", error_description="Send your own Audiobookshelf API key as the header Authorization: Bearer KEY`,
				"not-a-key": `Bearer realm="audiobookshelf-mcp", error="invalid_token", error_description="Audiobookshelf does not accept the API key`} {
				code, body, hdr := postAsHeader(t, h.url, key, "")
				if code != http.StatusUnauthorized || !strings.Contains(body, "Audiobookshelf API key") || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), challenge) {
					t.Errorf("key %q: %d %q %q", key, code, body, hdr.Get("WWW-Authenticate"))
				}
			}

			// Nothing reached Audiobookshelf with a key other than its caller's:
			// every request carried one of the three people's keys, as that
			// person; the refused key was only checked (GET /api/me).
			people := map[string]string{standin.DefaultAPIKey: standin.UserRootID, standin.PartnerAPIKey: standin.UserPartnerID, standin.ListenerAPIKey: standin.UserListenerID}
			for _, r := range h.sd.Requests() {
				if r.Credential == "not-a-key" {
					if r.Method != "GET" || r.Path != "/api/me" {
						t.Errorf("the refused key reached %s %s", r.Method, r.Path)
					}
					continue
				}
				if id, ok := people[r.Credential]; !ok || r.UserID != id {
					t.Errorf("%s %s made with an unknown key or as the wrong user %q", r.Method, r.Path, r.UserID)
				}
			}
			// Logs name the user id, never a key.
			logs := h.log.String()
			if !strings.Contains(logs, `"user":"`+standin.UserRootID+`"`) || !strings.Contains(logs, `"user":"`+standin.UserPartnerID+`"`) {
				t.Errorf("logs do not name the users:\n%s", logs)
			}
			for key := range people {
				if strings.Contains(logs, key) {
					t.Errorf("a key is in the logs")
				}
			}
		})
	}
}

// postAs posts a tools/list with key ("" for none) on session sid ("" for
// none), and returns the status and body.
func postAs(t *testing.T, url, key, sid string) (int, string) {
	t.Helper()
	code, body, _ := postAsHeader(t, url, key, sid)
	return code, body
}

func postAsHeader(t *testing.T, url, key, sid string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// A key is checked with Audiobookshelf once and then believed for a while
// (remembered by its hash); when Audiobookshelf cannot answer the check,
// the request gets 502 and nothing else is sent.
func TestHouseholdKeyCheck(t *testing.T) {
	h := startHousehold(t, true)
	cs := h.connectAs(t, standin.PartnerAPIKey, nil)
	for i := 0; i < 5; i++ {
		if r := apptest.CallOn(t, cs, "list_libraries", nil); r.IsError {
			t.Fatal(apptest.Text(r))
		}
	}
	checks := 0
	for _, r := range h.sd.RequestsBy(standin.PartnerAPIKey) {
		if r.Path == "/api/me" {
			checks++
		}
	}
	if checks != 1 {
		t.Errorf("the key was checked %d times for 6 HTTP requests or more, want once", checks)
	}
	// A key deleted in Audiobookshelf while it is still believed here: the
	// call says so, and what to do.
	h.sd.Update(func(d *standin.Data) {
		for i := range d.Users {
			if d.Users[i].ID == standin.UserPartnerID {
				d.Users[i].APIKey = ""
			}
		}
	})
	if r := apptest.CallOn(t, cs, "list_libraries", nil); !r.IsError || !strings.Contains(apptest.Text(r), "refused your API key") || strings.Contains(apptest.Text(r), standin.PartnerAPIKey) {
		t.Errorf("a key deleted since it was checked: %s", apptest.Text(r))
	}
	h.sd.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/me" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	n := len(h.sd.Requests())
	code, body := postAs(t, h.url, standin.ListenerAPIKey, "")
	if code != http.StatusBadGateway || !strings.Contains(body, "HTTP 503") || strings.Contains(body, standin.ListenerAPIKey) {
		t.Errorf("check failing: %d %q", code, body)
	}
	// The check is a GET, retried like every GET on a 503; nothing else.
	for _, r := range h.sd.Requests()[n:] {
		if r.Method != "GET" || r.Path != "/api/me" {
			t.Errorf("sent %s %s", r.Method, r.Path)
		}
	}
}
