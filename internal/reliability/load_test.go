package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

const (
	dialogSessions     = 16 // each: 5 reads and 5 guarded deletes
	tokenSessions      = 10 // each: 2 reads and 2 guarded deletes without a dialog
	callsPerDialog     = 10
	callsPerToken      = 4
	deletesPerDialog   = 5
	concurrentCalls    = dialogSessions*callsPerDialog + tokenSessions*callsPerToken
	approvedEveryOther = 2
)

func loadCollection(session, i int) string {
	return fmt.Sprintf("c0110000-0000-4000-8000-%06d%06d", session, i)
}

func loadPlaylist(session int, which string) string {
	n := map[string]int{"A": 1, "B": 2}[which]
	return fmt.Sprintf("b0110000-0000-4000-8000-%06d%06d", session, n)
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestLoadOverStreamableHTTP: 200 tool calls at once over streamable HTTP
// from 26 sessions on both protocol revisions, with the bearer token,
// against one server. Reads name distinct records; 80 guarded deletes have
// distinct targets, half approved and half declined by the person's answer,
// which depends only on the target the question names; 20 more go the
// token path. Every call gets its own answer, every question names only its
// own target, approvals and tokens do not cross, and after shutdown no
// goroutine is left.
func TestLoadOverStreamableHTTP(t *testing.T) {
	base := runtime.NumGoroutine()

	s := sd.New(sd.Options{})
	s.Update(func(d *sd.Data) {
		for i := range dialogSessions {
			for j := range deletesPerDialog {
				d.Collections = append(d.Collections, sd.Collection{ID: loadCollection(i, j), LibraryID: sd.LibraryBooksID,
					Name: "Load " + loadCollection(i, j), Books: []string{sd.ItemMort}, CreatedAt: 1, LastUpdate: 1})
			}
		}
		for i := range tokenSessions {
			for _, w := range []string{"A", "B"} {
				d.Playlists = append(d.Playlists, sd.Playlist{ID: loadPlaylist(i, w), LibraryID: sd.LibraryBooksID, UserID: sd.UserRootID,
					Name: "Load " + w, Items: []sd.PlaylistItem{{LibraryItemID: sd.ItemMort}}, CreatedAt: 1, LastUpdate: 1})
			}
		}
	})
	absURL, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var log apptest.SyncBuffer
	srv, err := app.New(app.Options{Config: &config.Config{URL: absURL, APIKey: sd.DefaultAPIKey, Elicitation: true, Timeout: 30 * time.Second, Toolsets: config.AllToolsets()},
		Version: "test", Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{BearerToken: secretToken}))
	endpoint := ts.URL + app.MCPPath
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: bearerTransport{secretToken, tr}}

	// Without the token there is no session.
	noToken := &http.Client{Transport: tr}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "no-token", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: noToken, MaxRetries: -1}, nil); err == nil {
		t.Error("a client without the bearer token got a session")
	}

	var asked sync.Map // target id → number of questions that named it
	var crossed atomic.Int64
	connect := func(name, proto string, own map[string]bool, elicit bool) *mcp.ClientSession {
		opts := &mcp.ClientOptions{}
		if elicit {
			opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				ids := uuidRE.FindAllString(r.Params.Message, -1)
				target := ""
				for _, id := range ids {
					if !own[id] {
						crossed.Add(1)
						t.Errorf("%s was asked about %s, which is not its own: %q", name, id, r.Params.Message)
					}
					if strings.HasPrefix(id, "c0110000") {
						if target != "" && target != id {
							t.Errorf("%s: one question names two targets: %q", name, r.Params.Message)
						}
						target = id
					}
				}
				n, _ := asked.LoadOrStore(target, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				// The person approves every other collection, by its id.
				if target != "" && target[len(target)-1]%approvedEveryOther == 0 {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
		if err != nil {
			t.Fatalf("%s: connect: %v", name, err)
		}
		return cs
	}

	type call struct {
		cs     *mcp.ClientSession
		tool   string
		args   map[string]any
		check  func(res *mcp.CallToolResult) string // "" when the answer is this call's own
		res    *mcp.CallToolResult
		err    error
		target string
	}
	var calls []*call
	var sessions []*mcp.ClientSession
	items := []string{sd.ItemColourOfMagic, sd.ItemLightFantastic, sd.ItemEqualRites, sd.ItemMort, sd.ItemSourcery,
		sd.ItemWyrdSisters, sd.ItemGoodOmens, sd.ItemLeviathanWakes, sd.ItemCalibansWar, sd.ItemAbaddonsGate}
	idIs := func(want string) func(*mcp.CallToolResult) string {
		return func(res *mcp.CallToolResult) string {
			var v struct {
				ID string `json:"id"`
			}
			if res.IsError || json.Unmarshal([]byte(apptest.Text(res)), &v) != nil || v.ID != want {
				return "answer for another record: " + clipText(apptest.Text(res))
			}
			return ""
		}
	}
	for i := range dialogSessions {
		proto := []string{apptest.Proto20260728, apptest.Proto20251125}[i%2]
		own := map[string]bool{sd.ItemMort: true}
		for j := range deletesPerDialog {
			own[loadCollection(i, j)] = true
		}
		cs := connect(fmt.Sprintf("dialog-%d", i), proto, own, true)
		sessions = append(sessions, cs)
		for j := range deletesPerDialog {
			item := items[(i+j)%len(items)]
			calls = append(calls, &call{cs: cs, tool: "get_library_item", args: map[string]any{"library_item_id": item}, check: idIs(item)})
			id := loadCollection(i, j)
			approve := id[len(id)-1]%approvedEveryOther == 0
			calls = append(calls, &call{cs: cs, tool: "delete_collection", args: map[string]any{"collection_id": id}, target: id,
				check: func(res *mcp.CallToolResult) string {
					text := apptest.Text(res)
					switch {
					case approve && (res.IsError || !strings.Contains(text, id)):
						return "approved, but: " + text
					case !approve && (!res.IsError || !strings.Contains(text, "declined")):
						return "declined, but: " + text
					}
					return ""
				}})
		}
	}
	for i := range tokenSessions {
		proto := []string{apptest.Proto20260728, apptest.Proto20251125}[i%2]
		cs := connect(fmt.Sprintf("token-%d", i), proto, nil, false)
		sessions = append(sessions, cs)
		for _, w := range []string{"A", "B"} {
			id := loadPlaylist(i, w)
			calls = append(calls, &call{cs: cs, tool: "get_playlist", args: map[string]any{"playlist_id": id}, check: idIs(id)})
			calls = append(calls, &call{cs: cs, tool: "delete_playlist", args: map[string]any{"playlist_id": id}, target: id,
				check: func(res *mcp.CallToolResult) string {
					if tokenOf(res) == "" || !strings.Contains(apptest.Text(res), id) {
						return "no token for its own target: " + apptest.Text(res)
					}
					return ""
				}})
		}
	}
	if len(calls) != concurrentCalls {
		t.Fatalf("%d calls planned", len(calls))
	}

	// All at once.
	start := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	for _, c := range calls {
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c.res, c.err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		})
	}
	close(start)
	wg.Wait()
	took := time.Since(began)
	held := 0
	for _, c := range calls {
		if c.err != nil {
			t.Errorf("%s %v: %v", c.tool, c.args, c.err)
			continue
		}
		if why := c.check(c.res); why != "" {
			t.Errorf("%s %v: %s", c.tool, c.args, why)
			continue
		}
		held++
	}

	// Each collection was asked about once; approved ones are gone, declined
	// ones stay.
	for i := range dialogSessions {
		for j := range deletesPerDialog {
			id := loadCollection(i, j)
			n, ok := asked.Load(id)
			if !ok || n.(*atomic.Int64).Load() != 1 {
				t.Errorf("collection %s asked about %v times", id, n)
			}
			_, exists := s.Collection(id)
			if approved := id[len(id)-1]%approvedEveryOther == 0; exists == approved {
				t.Errorf("collection %s: approved %v, still there %v", id, approved, exists)
			}
		}
	}

	// Tokens do not cross: A's call with B's token changes nothing (and
	// uses B's token up), A's own token deletes A, B's spent token does not
	// delete B.
	tokens := map[string]string{}
	for _, c := range calls {
		if c.tool == "delete_playlist" && c.res != nil {
			tokens[c.target] = tokenOf(c.res)
		}
	}
	for i := range tokenSessions {
		cs := sessions[dialogSessions+i]
		a, b := loadPlaylist(i, "A"), loadPlaylist(i, "B")
		del := func(id, tok string) *mcp.CallToolResult {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_playlist", Arguments: map[string]any{"playlist_id": id, "confirm_token": tok}})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if res := del(a, tokens[b]); !res.IsError || !strings.Contains(apptest.Text(res), "not accepted") {
			t.Errorf("A with B's token: %s", apptest.Text(res))
		}
		if _, ok := s.Playlist(a); !ok {
			t.Errorf("playlist %s was deleted with another call's token", a)
		}
		if res := del(a, tokens[a]); res.IsError {
			t.Errorf("A with its own token: %s", apptest.Text(res))
		}
		if res := del(b, tokens[b]); !res.IsError {
			t.Errorf("B with its token after A tried it: %s", apptest.Text(res))
		}
		if _, ok := s.Playlist(b); !ok {
			t.Errorf("playlist %s was deleted with a spent token", b)
		}
		if _, ok := s.Playlist(a); ok {
			t.Errorf("playlist %s is still there", a)
		}
	}
	if crossed.Load() != 0 {
		t.Errorf("%d questions named another session's ids", crossed.Load())
	}
	if strings.Contains(log.String(), secretToken) {
		t.Error("the log carries the MCP token")
	}
	t.Logf("%d concurrent calls from %d sessions answered in %v", held, len(sessions), took.Round(time.Millisecond))

	// Shut down; nothing may be left running.
	for _, cs := range sessions {
		cs.Close()
	}
	ts.CloseClientConnections()
	ts.Close()
	tr.CloseIdleConnections()
	s.Close()
	if n := settleGoroutines(base, 10*time.Second); n > base {
		t.Errorf("%d goroutines after shutdown, %d before:\n%s", n, base, goroutineDump())
	}
	if held == concurrentCalls && !t.Failed() {
		figure(t, "concurrent calls held", held)
	}
}

// tokenOf is a token result's confirm_token, or "".
func tokenOf(res *mcp.CallToolResult) string {
	b, _ := json.Marshal(res.StructuredContent)
	var v struct {
		Token string `json:"confirm_token"`
	}
	json.Unmarshal(b, &v)
	return v.Token
}
