package live

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// keyRecorder is a reverse proxy in front of Audiobookshelf that records,
// for every request, which key made it (a hash: the record holds no key).
type keyRecorder struct {
	mu   sync.Mutex
	seen []keyedRequest
}

type keyedRequest struct{ method, path, key string }

func keyHash(k string) string {
	h := sha256.Sum256([]byte(k))
	return hex.EncodeToString(h[:8])
}

func (r *keyRecorder) requests() []keyedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]keyedRequest(nil), r.seen...)
}

func bearerOf(h string) string {
	f := strings.Fields(h)
	if len(f) == 2 && strings.EqualFold(f[0], "bearer") {
		return f[1]
	}
	return ""
}

type withBearer struct{ key string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

var listening = regexp.MustCompile(`(?m)^audiobookshelf-mcp: listening on (http://[^/\s]+/mcp)$`)

// TestLiveHousehold runs two real Audiobookshelf users through one
// per-person HTTP deployment of the binary (with sessions, and stateless):
// each sees only their own bookmarks and progress; one's question state and
// confirm_token are refused for the other; a session stays with the person
// who opened it; every request reached Audiobookshelf with its caller's own
// key. It makes a second user (and an API key for it) with the root key
// and deletes both, and everything it made, at the end.
func TestLiveHousehold(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("run by `make test-live` (ABS_LIVE=1) with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY (a root user's key) of a throwaway Audiobookshelf")
	}
	rawURL, rootKey := strings.TrimRight(os.Getenv("AUDIOBOOKSHELF_URL"), "/"), os.Getenv("AUDIOBOOKSHELF_API_KEY")
	if rawURL == "" || rootKey == "" {
		t.Skip("AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY are not both set")
	}
	target, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	rec := &keyRecorder{}
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		r := pr.In
		rec.mu.Lock()
		rec.seen = append(rec.seen, keyedRequest{r.Method, r.URL.Path, keyHash(bearerOf(r.Header.Get("Authorization")))})
		rec.mu.Unlock()
		pr.SetURL(target)
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ps := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go ps.Serve(ln)
	t.Cleanup(func() { ps.Close() })
	direct := &abs{t: t, base: rawURL, key: rootKey, hc: &http.Client{Timeout: 60 * time.Second}}

	// Root, and a second user made here: update, no delete.
	var rootMe struct{ ID string }
	direct.get("/api/me", &rootMe)
	pw := make([]byte, 16)
	rand.Read(pw)
	name := prefix + "household-" + hex.EncodeToString(pw[:4])
	var made struct{ User struct{ ID string } }
	if st := direct.do("POST", "/api/users", map[string]any{"username": name, "password": hex.EncodeToString(pw), "type": "user", "isActive": true,
		"permissions": map[string]any{"download": true, "update": true, "delete": false, "upload": false}}, &made); st != 200 || made.User.ID == "" {
		t.Fatalf("POST /api/users: %d", st)
	}
	t.Cleanup(func() { direct.do("DELETE", "/api/users/"+made.User.ID, nil, nil) })
	var key struct{ APIKey struct{ ID, APIKey string } }
	if st := direct.do("POST", "/api/api-keys", map[string]any{"name": name, "userId": made.User.ID, "isActive": true}, &key); st != 200 || key.APIKey.APIKey == "" {
		t.Fatalf("POST /api/api-keys: %d", st)
	}
	t.Cleanup(func() { direct.do("DELETE", "/api/api-keys/"+key.APIKey.ID, nil, nil) })
	otherKey := key.APIKey.APIKey
	other := &abs{t: t, base: rawURL, key: otherKey, hc: direct.hc}
	var otherMe struct {
		ID          string
		Permissions struct{ Update, Delete bool }
	}
	other.get("/api/me", &otherMe)
	if otherMe.ID != made.User.ID || !otherMe.Permissions.Update || otherMe.Permissions.Delete {
		t.Fatalf("the second user is %+v", otherMe)
	}

	// A book and a throwaway collection of two books (collections are the server's).
	bookLib := direct.libraries()["book"]
	var books struct{ Results []item }
	direct.get("/api/libraries/"+bookLib+"/items?limit=20", &books)
	if len(books.Results) < 3 {
		t.Fatalf("need three books, the library has %d", len(books.Results))
	}
	book, b2, b3 := books.Results[0].ID, books.Results[1].ID, books.Results[2].ID

	// Removing a cover wants the delete permission, not update
	// (LibraryItemController.middleware: every DELETE on an item): so
	// tools.yaml gives remove_item_cover the delete permission. Measured
	// with this user (update, no delete) on a book without a cover, where
	// an answer of 200 would change nothing.
	var raw struct{ Results []map[string]any }
	direct.get("/api/libraries/"+bookLib+"/items?limit=100", &raw)
	probed := ""
	for _, b := range raw.Results {
		if probed == "" && at(b, "media", "coverPath") == nil {
			probed = fmt.Sprint(b["id"])
			if st := other.do("DELETE", "/api/items/"+probed+"/cover", nil, nil); st != http.StatusForbidden {
				t.Errorf("DELETE /api/items/%s/cover by a user with update and no delete answered %d, want 403", probed, st)
			}
		}
	}
	if probed == "" {
		t.Log("every book has a cover: the delete permission of DELETE /api/items/{id}/cover was not measured")
	} else {
		t.Logf("DELETE /api/items/%s/cover by a user with update and no delete: 403, as tools.yaml has it", probed)
	}

	bin := serverBinary(t)

	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			args := []string{"--http", "127.0.0.1:0"}
			version := "2025-11-25"
			if stateless {
				args, version = append(args, "--stateless"), "2026-07-28"
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "AUDIOBOOKSHELF_URL=http://" + ln.Addr().String(),
				"AUDIOBOOKSHELF_MCP_AUTH=per-person", "AUDIOBOOKSHELF_TIMEOUT=60s", "AUDIOBOOKSHELF_TOOLSETS=all"}
			var stderr syncBuf
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
			var endpoint string
			for deadline := time.Now().Add(20 * time.Second); endpoint == ""; {
				if m := listening.FindStringSubmatch(stderr.String()); m != nil {
					endpoint = m[1]
				} else if time.Now().After(deadline) {
					t.Fatalf("not listening: %s", stderr.String())
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
			var rootAsked, otherAsked atomic.Int32
			dial := func(k string, asked *atomic.Int32) *mcp.ClientSession {
				opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
				if asked != nil {
					opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked.Add(1)
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cs, err := liveClient(opts).Connect(ctx,
					&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withBearer{k}}, MaxRetries: -1},
					&mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v\n%s", err, stderr.String())
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			call := func(cs *mcp.ClientSession, tool string, a map[string]any, state string) *mcp.CallToolResult {
				t.Helper()
				p := &mcp.CallToolParams{Name: tool, Arguments: a}
				if state != "" {
					p.RequestState = state
					p.InputResponses = mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, p)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res
			}
			textOf := func(res *mcp.CallToolResult) string {
				var b strings.Builder
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						b.WriteString(tc.Text)
					}
				}
				return b.String()
			}
			rootCS, otherCS := dial(rootKey, &rootAsked), dial(otherKey, &otherAsked)
			mark := len(rec.requests())

			// Each person's bookmark at the same time on the same book, and
			// the second user's progress: each sees only their own.
			at := 4.0 + float64(time.Now().UnixNano()%1000)/100
			rootTitle, otherTitle := prefix+"root-mark", prefix+"other-mark"
			var wg sync.WaitGroup
			for cs, title := range map[*mcp.ClientSession]string{rootCS: rootTitle, otherCS: otherTitle} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := call(cs, "create_bookmark", map[string]any{"library_item_id": book, "time": at, "title": title}, ""); r.IsError {
						t.Errorf("create_bookmark %s: %s", title, textOf(r))
					}
				}()
			}
			wg.Wait()
			t.Cleanup(func() {
				direct.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%v", book, at), nil, nil)
				other.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%v", book, at), nil, nil)
			})
			if r := call(otherCS, "set_media_progress", map[string]any{"library_item_id": book, "progress": 0.37}, ""); r.IsError {
				t.Errorf("set_media_progress: %s", textOf(r))
			}
			for _, c := range []struct {
				cs         *mcp.ClientSession
				own, not   string
				hasPercent bool
			}{{rootCS, rootTitle, otherTitle, false}, {otherCS, otherTitle, rootTitle, true}} {
				b := textOf(call(c.cs, "list_bookmarks", map[string]any{"library_item_id": book}, ""))
				if !strings.Contains(b, c.own) || strings.Contains(b, c.not) {
					t.Errorf("bookmarks seen: %s", b)
				}
				p := textOf(call(c.cs, "get_media_progress", map[string]any{"library_item_id": book}, ""))
				if strings.Contains(p, `"progress_pct":37`) != c.hasPercent {
					t.Errorf("progress seen (the second user's 37%% only for them): %s", p)
				}
			}

			// A throwaway collection of three books, for approvals both may give.
			var coll struct{ ID string }
			if st := direct.do("POST", "/api/collections", map[string]any{"libraryId": bookLib, "name": prefix + "household", "books": []string{book, b2, b3}}, &coll); st != 200 || coll.ID == "" {
				t.Fatalf("POST /api/collections: %d", st)
			}
			t.Cleanup(func() { direct.do("DELETE", "/api/collections/"+coll.ID, nil, nil) })
			books := func() int {
				var c struct{ Books []struct{ ID string } }
				direct.get("/api/collections/"+coll.ID, &c)
				return len(c.Books)
			}
			remove := func(id string) map[string]any {
				return map[string]any{"collection_id": coll.ID, "library_item_ids": []string{id}}
			}
			if stateless {
				res := call(rootCS, "remove_books_from_collection", remove(b2), "")
				if !res.NeedsInput() || res.RequestState == "" {
					t.Fatalf("root was not asked: %s", textOf(res))
				}
				again := call(otherCS, "remove_books_from_collection", remove(b2), res.RequestState)
				if !again.NeedsInput() || books() != 3 {
					t.Fatalf("root's question state worked for the second user: %s", textOf(again))
				}
				if r := call(rootCS, "remove_books_from_collection", remove(b2), res.RequestState); r.IsError || r.NeedsInput() || books() != 2 {
					t.Fatalf("root's own approval: %s", textOf(r))
				}
			} else {
				if r := call(rootCS, "remove_books_from_collection", remove(b2), ""); r.IsError || rootAsked.Load() != 1 || otherAsked.Load() != 0 || books() != 2 {
					t.Fatalf("pushed question: root asked %d, other asked %d: %s", rootAsked.Load(), otherAsked.Load(), textOf(r))
				}
				// The session stays with root.
				req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", rootCS.ID())
				req.Header.Set("Mcp-Protocol-Version", version)
				req.Header.Set("Authorization", "Bearer "+otherKey)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("the second user on root's session: %d", resp.StatusCode)
				}
			}
			// Tokens: clients that take no questions.
			rootTok, otherTok := dial(rootKey, nil), dial(otherKey, nil)
			first := call(rootTok, "remove_books_from_collection", remove(b3), "")
			sc, _ := first.StructuredContent.(map[string]any)
			tok, _ := sc["confirm_token"].(string)
			if tok == "" {
				t.Fatalf("no token: %s", textOf(first))
			}
			withTok := remove(b3)
			withTok["confirm_token"] = tok
			if r := call(otherTok, "remove_books_from_collection", withTok, ""); !r.IsError || !strings.Contains(textOf(r), "not issued to this person") || books() != 2 {
				t.Fatalf("root's token for the second user: %s", textOf(r))
			}
			if r := call(rootTok, "remove_books_from_collection", withTok, ""); r.IsError || books() != 1 {
				t.Fatalf("root's own token: %s", textOf(r))
			}
			// The second user may not delete: delete_collection is not offered.
			lt, err := otherCS.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range lt.Tools {
				if tl.Name == "delete_collection" {
					t.Error("delete_collection offered to a user without the delete permission")
				}
			}

			// Every request reached Audiobookshelf with one of the two keys,
			// each change with its caller's.
			rootH, otherH := keyHash(rootKey), keyHash(otherKey)
			changes := map[string]int{}
			for _, r := range rec.requests()[mark:] {
				if r.key != rootH && r.key != otherH {
					t.Errorf("%s %s with another key", r.method, r.path)
				}
				if r.method != "GET" {
					who := "root"
					if r.key == otherH {
						who = "other"
					}
					changes[who+" "+r.method+" "+strings.SplitN(strings.TrimPrefix(r.path, "/api/"), "/", 2)[0]]++
				}
			}
			want := map[string]int{"root POST me": 1, "other POST me": 1, "other PATCH me": 1, "root POST collections": 2}
			for k, n := range want {
				if changes[k] != n {
					t.Errorf("changes %v, want %v", changes, want)
					break
				}
			}
			t.Logf("requests to Audiobookshelf: %d; changes by person: %v", len(rec.requests())-mark, changes)
			if strings.Contains(stderr.String(), rootKey) || strings.Contains(stderr.String(), otherKey) {
				t.Error("a key is on the server's stderr")
			}
			if !strings.Contains(stderr.String(), `"user":"`+rootMe.ID+`"`) {
				t.Errorf("the log does not name root's user id")
			}
		})
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
