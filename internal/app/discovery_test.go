package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// startDefault is the server with no toolsets set (the default tools and
// the discovery tools) behind its HTTP handler, over a stand-in.
func startDefault(t *testing.T, stateless bool, edit func(*config.Config)) *httpEnv {
	t.Helper()
	return startHTTP(t, stateless, app.HTTPOptions{}, func(c *config.Config) {
		c.Toolsets = nil
		if edit != nil {
			edit(c)
		}
	})
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// toolsetState is list_toolsets' entry for a toolset.
func toolsetState(t *testing.T, cs *mcp.ClientSession, toolset string) (state string, tools []string, leftOut string) {
	t.Helper()
	res := apptest.CallOn(t, cs, "list_toolsets", nil)
	if res.IsError {
		t.Fatalf("list_toolsets: %s", apptest.Text(res))
	}
	var out struct {
		Toolsets []struct {
			Name, State string
			Tools       []string
			LeftOut     string `json:"left_out"`
		}
	}
	if err := json.Unmarshal([]byte(apptest.Text(res)), &out); err != nil {
		t.Fatalf("list_toolsets answer: %v %s", err, apptest.Text(res))
	}
	for _, ts := range out.Toolsets {
		if ts.Name == toolset {
			tools = append(tools, ts.Tools...)
			return ts.State, tools, ts.LeftOut
		}
	}
	t.Fatalf("list_toolsets has no %s: %s", toolset, apptest.Text(res))
	return "", nil, ""
}

// TestEnableToolsetInOneSession: with no settings a session lists the
// default and discovery tools; a direct call of a tool of another
// toolset is refused, naming call_tool and enable_toolset, until
// enable_toolset turns its toolset on; then the session is told (notifications/tools/list_changed), lists
// the toolset's tools and calls them, and another session of the same
// server still lists the default alone.
func TestEnableToolsetInOneSession(t *testing.T) {
	e := startDefault(t, false, nil)
	changed := make(chan struct{}, 8)
	cs, err := e.connect(t, "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.connect(t, "2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs.InitializeResult().Capabilities.Tools == nil || !cs.InitializeResult().Capabilities.Tools.ListChanged {
		t.Errorf("the tools capability does not declare listChanged: %+v", cs.InitializeResult().Capabilities.Tools)
	}
	start := app.Listed(false, nil)
	slices.Sort(start)
	if got := names(t, cs); !slices.Equal(got, start) {
		t.Fatalf("a session with no settings lists %v, want %v", got, start)
	}
	if slices.Contains(start, "get_playlist") {
		t.Fatal("get_playlist is a default tool; the test needs one that is not")
	}
	getPlaylist := map[string]any{"playlist_id": standin.PlaylistCommute}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_playlist", Arguments: getPlaylist}); err == nil || !strings.Contains(err.Error(), `enable_toolset with toolset "playlists"`) {
		t.Errorf("a direct call of a tool that is not listed: %v", err)
	}
	if state, tools, _ := toolsetState(t, cs, "playlists"); state != "off" || !slices.Contains(tools, "delete_playlist") {
		t.Errorf("playlists before: %s %v", state, tools)
	}
	if state, _, _ := toolsetState(t, cs, "libraries"); !strings.HasPrefix(state, "partly") {
		t.Errorf("libraries (list_libraries and search_library are default): %s", state)
	}
	select {
	case <-changed:
		t.Fatal("notifications/tools/list_changed before anything was turned on")
	default:
	}

	res := apptest.CallOn(t, cs, "enable_toolset", map[string]any{"toolset": "playlists"})
	if res.IsError || !strings.Contains(apptest.Text(res), `"name":"delete_playlist"`) || !strings.Contains(apptest.Text(res), `"args":{"confirm_token?":`) ||
		!strings.Contains(apptest.Text(res), `"items":"array of {episode_id?, library_item_id}`) ||
		strings.Count(apptest.Text(res), `"playlist_id":"string"`) != 1 || !strings.Contains(apptest.Text(res), `"playlist_id":"as above"`) {
		t.Fatalf("enable_toolset: %s", apptest.Text(res))
	}
	select {
	case <-changed:
	case <-time.After(apptest.HangGuard):
		t.Fatal("no notifications/tools/list_changed after enable_toolset")
	}
	got := names(t, cs)
	for _, n := range []string{"get_playlist", "delete_playlist", "list_playlists", "list_libraries", "call_tool"} {
		if !slices.Contains(got, n) {
			t.Errorf("after enable_toolset playlists the session does not list %s: %v", n, got)
		}
	}
	if state, _, _ := toolsetState(t, cs, "playlists"); state != "on" {
		t.Errorf("playlists after: %s", state)
	}
	if res := apptest.CallOn(t, cs, "get_playlist", getPlaylist); res.IsError || !strings.Contains(apptest.Text(res), standin.PlaylistCommute) {
		t.Errorf("get_playlist once on: %s", apptest.Text(res))
	}
	if res := apptest.CallOn(t, cs, "call_tool", map[string]any{"name": "get_playlist", "arguments": getPlaylist}); res.IsError || !strings.Contains(apptest.Text(res), standin.PlaylistCommute) {
		t.Errorf("call_tool get_playlist once on: %s", apptest.Text(res))
	}
	// Again: already on, and nobody is told twice.
	if res := apptest.CallOn(t, cs, "enable_toolset", map[string]any{"toolset": "playlists"}); res.IsError || !strings.Contains(apptest.Text(res), "call_tool") {
		t.Errorf("enable_toolset again: %s", apptest.Text(res))
	}
	select {
	case <-changed:
		t.Error("notifications/tools/list_changed twice for one toolset")
	case <-time.After(50 * time.Millisecond):
	}
	// The other session: still the default.
	if got := names(t, other); !slices.Equal(got, start) {
		t.Errorf("another session lists %v after the first turned playlists on", got)
	}
	if _, err := other.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_playlist", Arguments: getPlaylist}); err == nil {
		t.Error("another session calls get_playlist directly")
	}
	// Bad arguments: named, nothing changed.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"enable_toolset", map[string]any{"toolset": "nope"}, `toolset: "nope" is not a toolset; one of libraries,`},
		{"enable_toolset", map[string]any{}, "toolset: is missing"},
		{"call_tool", map[string]any{"name": "nope"}, `name: "nope" is not a tool of this server`},
		{"call_tool", map[string]any{"name": "enable_toolset", "arguments": map[string]any{"toolset": "me"}}, "is called directly"},
		{"call_tool", map[string]any{"name": "get_playlist", "args": getPlaylist}, "unknown field"},
	} {
		if res := apptest.CallOn(t, cs, c.tool, c.args); !res.IsError || !strings.Contains(apptest.Text(res), c.want) {
			t.Errorf("%s %v: %s", c.tool, c.args, apptest.Text(res))
		}
	}
	if n := len(e.sd.Mutations()); n != 0 {
		t.Errorf("%d mutating requests reached Audiobookshelf", n)
	}
}

// TestCallToolReachesAnyToolset: call_tool runs a tool of a toolset that
// is off in a fresh session, as its first call (a gateway may start a new
// session for each request, so nothing turned on before may still be on),
// and turns the toolset on in that session as enable_toolset does: the
// session is told once, and lists the toolset's tools.
func TestCallToolReachesAnyToolset(t *testing.T) {
	e := startDefault(t, false, nil)
	changed := make(chan struct{}, 8)
	cs, err := e.connect(t, "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	getPlaylist := map[string]any{"name": "get_playlist", "arguments": map[string]any{"playlist_id": standin.PlaylistCommute}}
	for i := range 2 {
		if res := apptest.CallOn(t, cs, "call_tool", getPlaylist); res.IsError || !strings.Contains(apptest.Text(res), standin.PlaylistCommute) {
			t.Fatalf("call_tool get_playlist in a fresh session (call %d): %s", i+1, apptest.Text(res))
		}
	}
	select {
	case <-changed:
	case <-time.After(apptest.HangGuard):
		t.Fatal("no notifications/tools/list_changed after call_tool turned playlists on")
	}
	select {
	case <-changed:
		t.Error("notifications/tools/list_changed twice for one toolset")
	case <-time.After(50 * time.Millisecond):
	}
	if got := names(t, cs); !slices.Contains(got, "delete_playlist") {
		t.Errorf("after call_tool get_playlist the session does not list delete_playlist: %v", got)
	}
	if state, _, _ := toolsetState(t, cs, "playlists"); state != "on" {
		t.Errorf("playlists after call_tool: %s", state)
	}
}

// TestEveryToolsetMeansNoDiscovery: AUDIOBOOKSHELF_TOOLSETS=all lists every
// tool and no discovery tool; naming toolsets lists theirs and the
// discovery tools.
func TestEveryToolsetMeansNoDiscovery(t *testing.T) {
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	e := startHTTP(t, false, app.HTTPOptions{}, func(c *config.Config) { c.Toolsets = all })
	cs, err := e.connect(t, "2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := names(t, cs)
	if slices.Contains(got, "call_tool") || slices.Contains(got, "list_toolsets") || !slices.Contains(got, "scan_library") || len(got) != len(app.Select(false, all)) {
		t.Errorf("all: %d tools %v", len(got), got)
	}
	some, err := config.ParseToolsets("default,collections")
	if err != nil {
		t.Fatal(err)
	}
	e = startHTTP(t, false, app.HTTPOptions{}, func(c *config.Config) { c.Toolsets = some })
	cs, err = e.connect(t, "2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = names(t, cs)
	for _, n := range []string{"list_libraries", "get_collection", "delete_collection", "enable_toolset"} {
		if !slices.Contains(got, n) {
			t.Errorf("default,collections does not list %s: %v", n, got)
		}
	}
	if slices.Contains(got, "get_playlist") {
		t.Errorf("default,collections lists get_playlist")
	}
}

// TestCallToolMatrix: a guarded tool reached through call_tool asks as a
// direct call does, on both revisions (pushed in a session of 2025-11-25,
// sealed in the result on 2026-07-28, with and without --stateless), and
// an older client of a stateless deployment gets the token, whose second
// call goes through call_tool too. Without a session call_tool runs any
// tool, with nothing turned on.
func TestCallToolMatrix(t *testing.T) {
	for _, c := range guardedHTTPCases {
		t.Run(c.name, func(t *testing.T) {
			e := startDefault(t, c.stateless, nil)
			a := &asker{answer: c.answer}
			cs, err := e.connect(t, c.version, &mcp.ClientOptions{ElicitationHandler: a.handle}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sessionless := c.stateless || c.version == "2026-07-28"
			if !sessionless {
				if res := apptest.CallOn(t, cs, "enable_toolset", map[string]any{"toolset": "playlists"}); res.IsError {
					t.Fatalf("enable_toolset: %s", apptest.Text(res))
				}
			} else if res := apptest.CallOn(t, cs, "enable_toolset", map[string]any{"toolset": "playlists"}); res.IsError || !strings.Contains(apptest.Text(res), "keeps no session") {
				t.Errorf("enable_toolset without a session must say that nothing stays on: %s", apptest.Text(res))
			}
			checkDeletePlaylist(t, e, a, c, func(args map[string]any) *mcp.CallToolResult {
				return apptest.CallOn(t, cs, "call_tool", map[string]any{"name": "delete_playlist", "arguments": args})
			},
				"the client did not declare elicitation (form) support with this request, and a stateless HTTP deployment cannot push a question to a client older than 2026-07-28")
		})
	}
}

// TestCallToolReadOnly: in read-only mode call_tool is listed (for the
// read tools of the other toolsets) and runs them, and refuses a write
// tool, sending nothing; enable_toolset offers the read tools alone and
// says what it left out.
func TestCallToolReadOnly(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		e := startDefault(t, false, func(c *config.Config) { c.ReadOnly = true })
		cs, err := e.connect(t, version, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := names(t, cs)
		if !slices.Contains(got, "call_tool") || slices.Contains(got, "set_media_progress") || slices.Contains(got, "create_bookmark") {
			t.Errorf("%s: read-only lists %v", version, got)
		}
		res := apptest.CallOn(t, cs, "enable_toolset", map[string]any{"toolset": "playlists"})
		if res.IsError || strings.Contains(apptest.Text(res), `"name":"delete_playlist"`) || !strings.Contains(apptest.Text(res), "read-only (AUDIOBOOKSHELF_READ_ONLY)") {
			t.Errorf("%s: enable_toolset in read-only mode: %s", version, apptest.Text(res))
		}
		res = apptest.CallOn(t, cs, "call_tool", map[string]any{"name": "get_playlist", "arguments": map[string]any{"playlist_id": standin.PlaylistCommute}})
		if res.IsError || !strings.Contains(apptest.Text(res), standin.PlaylistCommute) {
			t.Errorf("%s: call_tool get_playlist in read-only mode: %s", version, apptest.Text(res))
		}
		for _, w := range []string{"delete_playlist", "create_bookmark"} {
			res = apptest.CallOn(t, cs, "call_tool", map[string]any{"name": w, "arguments": map[string]any{"playlist_id": standin.PlaylistCommute}})
			if !res.IsError || !strings.Contains(apptest.Text(res), "read-only (AUDIOBOOKSHELF_READ_ONLY=true)") {
				t.Errorf("%s: call_tool %s in read-only mode: %s", version, w, apptest.Text(res))
			}
		}
		if n := len(e.sd.Mutations()); n != 0 {
			t.Errorf("%s: %d mutating requests reached Audiobookshelf in read-only mode", version, n)
		}
	}
}

// TestCallToolPerPerson: per person, the tools a person's permissions
// leave out are left out of list_toolsets, of enable_toolset's answer and of
// tools/list once on, and call_tool refuses one with the very answer a
// direct call gets; what the person may use runs, as the person.
func TestCallToolPerPerson(t *testing.T) {
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	cfg := &config.Config{URL: sd.URL(), Elicitation: true, Timeout: 10 * time.Second, Auth: config.AuthAuto}
	if err := cfg.ResolveAuth(true); err != nil || !cfg.PerPerson {
		t.Fatalf("not per person: %v", err)
	}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{PerPerson: true}))
	t.Cleanup(ts.Close)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		partner, err := apptest.ConnectHTTP(t, ts.URL+app.MCPPath, version, withKey(standin.PartnerAPIKey), nil)
		if err != nil {
			t.Fatal(err)
		}
		state, tools, leftOut := toolsetState(t, partner, "collections")
		if state != "off" || slices.Contains(tools, "delete_collection") || !slices.Contains(tools, "update_collection") || !strings.Contains(leftOut, "permission") {
			t.Errorf("%s: partner (no delete) sees collections as %s %v, left out %q", version, state, tools, leftOut)
		}
		res := apptest.CallOn(t, partner, "enable_toolset", map[string]any{"toolset": "collections"})
		if res.IsError || strings.Contains(apptest.Text(res), `"name":"delete_collection"`) || !strings.Contains(apptest.Text(res), `"name":"get_collection"`) {
			t.Errorf("%s: enable_toolset for partner: %s", version, apptest.Text(res))
		}
		del := map[string]any{"collection_id": standin.CollectionSpaceOpera}
		through := apptest.CallOn(t, partner, "call_tool", map[string]any{"name": "delete_collection", "arguments": del})
		if !through.IsError || !strings.Contains(apptest.Text(through), "delete") {
			t.Errorf("%s: call_tool delete_collection for partner: %s", version, apptest.Text(through))
		}
		if version == "2025-11-25" {
			// In a session, once on: tools/list leaves it out, and a direct
			// call gets the same refusal.
			if got := names(t, partner); slices.Contains(got, "delete_collection") || !slices.Contains(got, "get_collection") {
				t.Errorf("partner lists %v", got)
			}
			direct := apptest.CallOn(t, partner, "delete_collection", del)
			if apptest.Text(direct) != apptest.Text(through) {
				t.Errorf("call_tool and a direct call refuse differently:\n%s\n%s", apptest.Text(through), apptest.Text(direct))
			}
		}
		res = apptest.CallOn(t, partner, "call_tool", map[string]any{"name": "get_collection", "arguments": del})
		if res.IsError {
			t.Errorf("%s: call_tool get_collection for partner: %s", version, apptest.Text(res))
		}
	}
	if n := len(sd.Mutations()); n != 0 {
		t.Errorf("%d mutating requests reached Audiobookshelf", n)
	}
	for _, r := range sd.Requests() {
		if r.Credential != standin.PartnerAPIKey {
			t.Errorf("a request reached Audiobookshelf with another key: %s %s", r.Method, r.Path)
		}
	}
}
