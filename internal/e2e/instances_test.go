package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Several instances behind one gateway: three servers in process, each
// with --stateless HTTP and the same AUDIOBOOKSHELF_STATE_KEY, behind a
// round-robin reverse proxy (net/http/httputil), over one Audiobookshelf
// stand-in. Every leg of a guarded call lands on another instance than the
// leg before it; the stand-in counts the mutating requests that reach it:
// one per approval, none otherwise.

// leg is one tools/call that went through the proxy.
type leg struct {
	instance int
	tool     string
	state    string // params.requestState
	answered bool   // params.inputResponses present
	token    string // arguments.confirm_token
}

// none fails the test when, at step, the stand-in has received a mutating
// request or shows the effect of case c.
func (cl *cluster) none(t *testing.T, c guardedCase, step string) {
	t.Helper()
	if m := mutations(cl.sd); len(m) != 0 {
		t.Fatalf("%s: sent %v", step, m)
	}
	if c.done(cl.sd) {
		t.Fatalf("%s: the effect happened", step)
	}
}

// cluster is the stand-in, three instances and the proxy in front of them.
type cluster struct {
	sd   *sd.Server
	url  string // the proxy's /mcp
	logs [3]*apptest.SyncBuffer
	mu   sync.Mutex
	n    int
	legs []leg
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	return startClusterStore(t, "")
}

// startClusterStore is startCluster with every instance recording spent
// approvals in the store at storeURL ("": each in its own memory).
func startClusterStore(t *testing.T, storeURL string) *cluster {
	t.Helper()
	c := &cluster{sd: sd.Start(t, sd.Options{})}
	key := make([]byte, guard.KeySize)
	rand.Read(key)
	var backends [3]*url.URL
	for i := range backends {
		c.logs[i] = &apptest.SyncBuffer{}
		cfg := &config.Config{URL: c.sd.URL(), APIKey: sd.DefaultAPIKey, Elicitation: true, Timeout: 10 * time.Second, StateKey: key, ApprovalStore: storeURL, Toolsets: config.AllToolsets()}
		srv, err := app.New(app.Options{Config: cfg, Version: "test", Stateless: true, Logger: slog.New(slog.NewJSONHandler(c.logs[i], nil)), Transport: validated(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{}))
		t.Cleanup(ts.Close)
		t.Cleanup(func() { srv.Close() })
		backends[i], _ = url.Parse(ts.URL)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		c.mu.Lock()
		i := c.n % len(backends)
		c.n++
		c.mu.Unlock()
		if r.In.Method == http.MethodPost {
			c.record(i, r.Out)
		}
		r.SetURL(backends[i])
		r.Out.Host = backends[i].Host // the instances answer loopback hosts only
	}}
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	c.url = ps.URL + app.MCPPath
	return c
}

// record notes a tools/call that instance i is about to get.
func (c *cluster) record(i int, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name           string          `json:"name"`
			RequestState   string          `json:"requestState"`
			InputResponses json.RawMessage `json:"inputResponses"`
			Arguments      struct {
				ConfirmToken string `json:"confirm_token"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.legs = append(c.legs, leg{instance: i, tool: msg.Params.Name, state: msg.Params.RequestState,
		answered: len(msg.Params.InputResponses) > 0 && string(msg.Params.InputResponses) != "null", token: msg.Params.Arguments.ConfirmToken})
}

// since returns the legs from index from on, and checks that each landed on
// another instance than the one before it.
func (c *cluster) since(t *testing.T, from int) []leg {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	legs := slices.Clone(c.legs[from:])
	for i := 1; i < len(legs); i++ {
		if legs[i].instance == legs[i-1].instance {
			t.Fatalf("legs %d and %d both landed on instance %d: %+v", i-1, i, legs[i].instance, legs)
		}
	}
	return legs
}

func (c *cluster) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.legs)
}

// outcomes are the guard's decisions logged by instance i, in order.
func (c *cluster) outcomes(i int) []string {
	var out []string
	for _, l := range strings.Split(c.logs[i].String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "guard" {
			out = append(out, fmt.Sprint(m["outcome"]))
		}
	}
	return out
}

func (c *cluster) connect(t *testing.T, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := apptest.ConnectHTTP(t, c.url, version, nil, opts)
	if err != nil {
		t.Fatalf("connect %s through the proxy: %v", version, err)
	}
	return cs
}

// touch changes what a guarded call reads without making it invalid: the
// list's order (and its updatedAt), a bookmark's title, a progress record's
// last update, the books' tags and genres. Audiobookshelf would change them the same way when somebody
// else edits the list, renames the bookmark or goes on listening.
func touch(t *testing.T, s *sd.Server, tool string) {
	t.Helper()
	rotate := func(ids []string) []string { return append(slices.Clone(ids[1:]), ids[0]) }
	s.Update(func(d *sd.Data) {
		switch tool {
		case "update_collection", "remove_books_from_collection", "delete_collection":
			for i := range d.Collections {
				d.Collections[i].Books = rotate(d.Collections[i].Books)
				d.Collections[i].LastUpdate += 1000
			}
		case "update_playlist", "remove_items_from_playlist", "delete_playlist":
			for i := range d.Playlists {
				p := &d.Playlists[i]
				p.Items = append(slices.Clone(p.Items[1:]), p.Items[0])
				p.LastUpdate += 1000
			}
		case "delete_bookmark":
			for i := range d.Users[0].Bookmarks {
				d.Users[0].Bookmarks[i].Title += " (renamed)"
			}
		case "delete_media_progress", "set_media_progress", "delete_podcast_episode": // progress goes on
			for i := range d.Users[0].MediaProgress {
				d.Users[0].MediaProgress[i].LastUpdate += 1000
				d.Users[0].MediaProgress[i].CurrentTime += 5
			}
		case "match_library_item", "update_item_metadata", "delete_podcast", "remove_item_cover", "set_item_cover", "batch_update_books", "batch_quick_match", "resolve_duplicate":
			for i := range d.Items {
				d.Items[i].UpdatedAt += 1000 // somebody edited the book or the podcast
			}
		case "add_items_to_playlist":
			for i := range d.Playlists {
				d.Playlists[i].Name += " (renamed)" // a rename moves updatedAt
				d.Playlists[i].LastUpdate += 1000
			}
		case "rename_tag", "rename_genre", "rename_narrator", "merge_tags", "merge_genres", "merge_narrators":
			for i := range d.Items {
				if b := d.Items[i].Book; b != nil { // somebody tagged the books
					b.Tags = append(b.Tags, "added meanwhile")
					b.Genres = append(b.Genres, "Added Meanwhile")
					b.Narrators = append(b.Narrators, "Added Meanwhile")
					b.UpdatedAt += 1000
				}
			}
		case "merge_authors", "update_author":
			for i := range d.Authors {
				d.Authors[i].UpdatedAt += 1000 // somebody edited the authors
			}
		case "merge_series":
			for i := range d.Items {
				if b := d.Items[i].Book; b != nil { // somebody edited the books
					b.Subtitle += " (edited)"
					d.Items[i].UpdatedAt += 1000
				}
			}
		case "update_series":
			for i := range d.Series {
				d.Series[i].Name += " (renamed)" // somebody renamed the series
				d.Series[i].UpdatedAt += 1000
			}
		case "set_item_chapters": // somebody renamed a chapter
			for i := range d.Items {
				if b := d.Items[i].Book; b != nil && len(b.Chapters) > 0 {
					b.Chapters[0].Title += " (renamed)"
				}
			}
		default:
			t.Fatalf("touch: no change for %s", tool)
		}
	})
}

func TestSeveralInstancesDialog(t *testing.T) {
	t.Parallel()
	for _, c := range guardedCases() {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			cl := startCluster(t)
			c.prepare(cl.sd)
			answer := "decline"
			var mu sync.Mutex
			asked := 0
			auto := cl.connect(t, apptest.Proto20260728, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked++
				if answer == "approve" {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}, nil
				}
				return &mcp.ElicitResult{Action: answer}, nil
			}})
			manual := cl.connect(t, apptest.Proto20260728, &mcp.ClientOptions{
				ElicitationHandler: approve, // declares elicitation; never runs
				MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
			})
			approval := mcp.InputResponseMap{guard.InputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}}
			retry := func(state string) *mcp.CallToolResult {
				t.Helper()
				res, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args, RequestState: state, InputResponses: approval})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}

			// Declined: the question from one instance, the answer at the next.
			cl.sd.ResetRequests()
			from := cl.mark()
			res := apptest.CallOn(t, auto, c.tool, c.args)
			legs := cl.since(t, from)
			if len(legs) != 2 || legs[0].answered || !legs[1].answered || legs[1].state == "" {
				t.Fatalf("declined: want a question and an answered retry, got %+v", legs)
			}
			if !res.IsError || !strings.Contains(apptest.Text(res), "declined") {
				t.Errorf("declined: %s", apptest.Text(res))
			}
			cl.none(t, c, "declined")

			// Approved at A, executed after the entries changed, at B.
			from = cl.mark()
			first, err := manual.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil || !first.NeedsInput() {
				t.Fatalf("first leg: %v %v", err, first)
			}
			touch(t, cl.sd, c.tool)
			if c.done(cl.sd) {
				t.Fatal("test bug: the change made the call's effect")
			}
			res = retry(first.RequestState)
			cl.since(t, from)
			p, _ := res.InputRequests[guard.InputID].(*mcp.ElicitParams)
			if !res.NeedsInput() || p == nil || !strings.Contains(p.Message, "changed after the previous question was asked") {
				t.Fatalf("a state approved before the entries changed: want a new question that says so, got %v %s", res.NeedsInput(), apptest.Text(res))
			}
			cl.none(t, c, "approved before a change")

			// Approved: the question at one instance, the answer at the next.
			mu.Lock()
			answer, asked = "approve", 0
			mu.Unlock()
			from = cl.mark()
			res = apptest.CallOn(t, auto, c.tool, c.args)
			legs = cl.since(t, from)
			mu.Lock()
			n := asked
			mu.Unlock()
			if res.IsError || !c.done(cl.sd) || n != 1 {
				t.Fatalf("approved: isError=%v done=%v asked=%d: %s", res.IsError, c.done(cl.sd), n, apptest.Text(res))
			}
			if len(legs) != 2 || !legs[1].answered {
				t.Fatalf("approved: legs %+v", legs)
			}
			wantMutations(t, cl.sd, c.method+" "+c.path)
			if o := cl.outcomes(legs[1].instance); len(o) == 0 || o[len(o)-1] != "approved" {
				t.Errorf("instance %d, which took the answer, logged %v", legs[1].instance, o)
			}

			// The approved state replayed: at the two other instances and at
			// the one that took it.
			cl.sd.ResetRequests()
			used := legs[1].state
			from = cl.mark()
			kept := ""
			if c.free != nil {
				kept = c.free(cl.sd)
			}
			for range 3 {
				res = retry(used)
				if c.free != nil && !res.IsError && !res.NeedsInput() {
					if now := c.free(cl.sd); now != kept {
						t.Fatalf("a replay, now a plain call, changed %s to %s", kept, now)
					}
					cl.sd.ResetRequests()
					continue
				}
				if !res.IsError && !res.NeedsInput() {
					t.Fatalf("a replayed state executed: %s", apptest.Text(res))
				}
			}
			replays := cl.since(t, from)
			seen := map[int]bool{}
			for _, l := range replays {
				seen[l.instance] = true
			}
			if len(seen) != 3 {
				t.Fatalf("the replays reached instances %v, want all three", seen)
			}
			if m := mutations(cl.sd); len(m) != 0 {
				t.Fatalf("a replayed state sent %v", m)
			}
		})
	}
}

func TestSeveralInstancesToken(t *testing.T) {
	t.Parallel()
	for _, c := range guardedCases() {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			cl := startCluster(t)
			c.prepare(cl.sd)
			// An older client that could show a dialog: behind stateless HTTP
			// it cannot be asked, so it takes the token path.
			cs := cl.connect(t, apptest.Proto20251125, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				t.Error("a stateless server pushed a question")
				return nil, nil
			}})
			cl.sd.ResetRequests()
			from := cl.mark()

			// The token from one instance, with other arguments at the next.
			tok := tokenOf(t, apptest.CallOn(t, cs, c.tool, c.args))
			if len(tok) > 60 {
				t.Errorf("token %q is %d characters long", tok, len(tok))
			}
			res := apptest.CallOn(t, cs, c.tool, with(c.other, "confirm_token", tok))
			tokenOf(t, res)
			if !strings.Contains(apptest.Text(res), "issued for another tool or for other arguments") {
				t.Errorf("other arguments: %s", apptest.Text(res))
			}
			cl.none(t, c, "other arguments")

			// Not called again (the person said no): nothing. Then the
			// entries change, and the token comes back at another instance.
			tok = tokenOf(t, apptest.CallOn(t, cs, c.tool, c.args))
			touch(t, cl.sd, c.tool)
			res = apptest.CallOn(t, cs, c.tool, with(c.args, "confirm_token", tok))
			fresh := tokenOf(t, res)
			if !strings.Contains(apptest.Text(res), "has changed since the token was issued") {
				t.Errorf("a token after the entries changed: %s", apptest.Text(res))
			}
			cl.none(t, c, "token after a change")

			// The token handed out with that refusal, at the next instance.
			res = apptest.CallOn(t, cs, c.tool, with(c.args, "confirm_token", fresh))
			if res.IsError || !c.done(cl.sd) {
				t.Fatalf("the fresh token did not execute: %s", apptest.Text(res))
			}
			wantMutations(t, cl.sd, c.method+" "+c.path)
			legs := cl.since(t, from)
			if len(legs) != 5 || legs[4].token != fresh {
				t.Fatalf("legs %+v", legs)
			}

			// The used token again, at each instance.
			cl.sd.ResetRequests()
			from = cl.mark()
			kept := ""
			if c.free != nil {
				kept = c.free(cl.sd)
			}
			for range 3 {
				res = apptest.CallOn(t, cs, c.tool, with(c.args, "confirm_token", fresh))
				if c.free != nil && !res.IsError {
					if now := c.free(cl.sd); now != kept {
						t.Fatalf("a used token, now on a plain call, changed %s to %s", kept, now)
					}
					cl.sd.ResetRequests()
					continue
				}
				if !res.IsError {
					t.Fatalf("a used token executed: %s", apptest.Text(res))
				}
			}
			seen := map[int]bool{}
			for _, l := range cl.since(t, from) {
				seen[l.instance] = true
			}
			if len(seen) != 3 {
				t.Fatalf("the reused token reached instances %v, want all three", seen)
			}
			if m := mutations(cl.sd); len(m) != 0 {
				t.Fatalf("a used token sent %v", m)
			}
		})
	}
}
