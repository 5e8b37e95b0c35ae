package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// listTools builds a server that is not connected to any Audiobookshelf and
// lists its tools through a real go-sdk client.
func listTools(t *testing.T, cfg *config.Config) []*mcp.Tool {
	t.Helper()
	cs := connectInMemory(t, cfg, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestToolsListAnnotations: with no settings tools/list holds the default
// tools and the discovery tools, with every toolset on (all) every tool and
// no discovery tool; each states all four hints.
func TestToolsListAnnotations(t *testing.T) {
	for _, toolsets := range [][]string{nil, config.AllToolsets()} {
		tools := listTools(t, &config.Config{Elicitation: true, Toolsets: toolsets})
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		want := Listed(false, toolsets)
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) || len(want) == 0 {
			t.Fatalf("toolsets %v: tools/list returned %v, want %v", toolsets, names, want)
		}
		if toolsets != nil && len(tools) != len(registry.All) {
			t.Errorf("every toolset: %d tools listed, want all %d", len(tools), len(registry.All))
		}
		reads := 0
		for _, tool := range tools {
			b, err := json.Marshal(tool)
			if err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Annotations map[string]any `json:"annotations"`
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			// All four on every tool: a missing destructiveHint defaults to
			// true, so a read-only tool says false.
			for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				_, ok := raw.Annotations[k].(bool)
				if !ok {
					t.Errorf("%s: annotation %s is not a boolean: %s", tool.Name, k, b)
				}
			}
			if tool.Annotations.ReadOnlyHint {
				reads++
			}
			if tool.Annotations.OpenWorldHint == nil || *tool.Annotations.OpenWorldHint != reachesOut[tool.Name] {
				t.Errorf("%s: openWorldHint must be %v (one Audiobookshelf server is a closed domain; only tools that have it fetch feeds or ask iTunes reach beyond)", tool.Name, reachesOut[tool.Name])
			}
		}
		// call_tool is listed in read-only mode too, for the read tools
		// of the other toolsets, and is no read tool itself.
		if want := len(slices.DeleteFunc(Listed(true, toolsets), func(n string) bool { return n == "call_tool" })); reads != want {
			t.Errorf("toolsets %v: %d read-only tools, want %d", toolsets, reads, want)
		}
	}
}

// reachesOut are the tools through which Audiobookshelf fetches a feed or
// asks iTunes: the open-world ones.
var reachesOut = map[string]bool{"search_podcasts": true, "get_podcast_feed": true, "create_podcast": true,
	"check_new_episodes": true, "download_podcast_episodes": true,
	// upkeep: Audiobookshelf asks a metadata provider over the internet,
	// or downloads a cover from a URL
	"match_library_item": true, "find_match_candidates": true, "search_covers": true, "set_item_cover": true,
	"get_provider_chapters": true, "set_item_chapters": true,
	// curation: the same, for many items in the background; and an
	// author's image, which Audiobookshelf downloads from the URL given
	"batch_quick_match": true,
	"update_author":     true,
	// it runs any of them
	"call_tool": true}

func TestReadOnlyModeRegistersOnlyReadTools(t *testing.T) {
	for _, toolsets := range [][]string{nil, config.AllToolsets()} {
		tools := listTools(t, &config.Config{Elicitation: true, ReadOnly: true, Toolsets: toolsets})
		if want := len(Listed(true, toolsets)); len(tools) != want || want == 0 {
			t.Fatalf("read-only mode lists %d tools, want %d", len(tools), want)
		}
		for _, tool := range tools {
			// call_tool stays, for the read tools of the other toolsets; it
			// refuses a write tool (TestCallToolMatrix).
			if !tool.Annotations.ReadOnlyHint && tool.Name != "call_tool" {
				t.Errorf("read-only mode lists the write tool %s", tool.Name)
			}
		}
	}
}

func TestToolsetsSelectTools(t *testing.T) {
	tools := listTools(t, &config.Config{Elicitation: true, Toolsets: []string{"collections"}, ReadOnly: true})
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "call_tool,enable_toolset,get_collection,list_collections,list_toolsets" {
		t.Errorf("collections toolset in read-only mode lists %s", got)
	}
}

// TestToolSnapshots keeps one JSON file per tool with its definition as a
// model sees it, so that any change to a name, description, schema or hint
// shows in review. UPDATE_TOOLSNAPS=1 rewrites them.
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") == "1"
	dir := filepath.Join("testdata", "toolsnaps")
	seen := map[string]bool{}
	// Every tool (all toolsets), and the discovery tools (the default list).
	tools := listTools(t, &config.Config{Elicitation: true, Toolsets: config.AllToolsets()})
	for _, tool := range listTools(t, &config.Config{Elicitation: true}) {
		if !slices.ContainsFunc(tools, func(o *mcp.Tool) bool { return o.Name == tool.Name }) {
			tools = append(tools, tool)
		}
	}
	for _, tool := range tools {
		b, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, '\n')
		path := filepath.Join(dir, tool.Name+".snap")
		seen[tool.Name+".snap"] = true
		if update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no snapshot of its definition: run UPDATE_TOOLSNAPS=1 go test ./internal/app and commit internal/app/testdata/toolsnaps/%s.snap (CONTRIBUTING.md, step 4): %v", tool.Name, tool.Name, err)
			continue
		}
		if !bytes.Equal(want, b) {
			t.Errorf("%s: the definition differs from its snapshot %s; if intended, rewrite with UPDATE_TOOLSNAPS=1 go test ./internal/app\ngot:\n%s", tool.Name, path, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] {
			if update {
				os.Remove(filepath.Join(dir, e.Name()))
			} else {
				t.Errorf("snapshot %s has no tool", e.Name())
			}
		}
	}
}

// TestGuardedToolsAreDestructiveAndTakeConfirmToken ties the registry to the
// guard contract: exactly the eight tools of guard.md ask, and
// set_media_progress when it would clear a finished date (issue: the date
// cannot be given back), delete_podcast_episode and delete_podcast; each
// is marked destructive (or, adding only, asks on an effect alone) and
// takes confirm_token.
func TestGuardedToolsMatchTheContract(t *testing.T) {
	want := map[string]string{
		"delete_collection": "always", "delete_playlist": "always", "delete_media_progress": "always",
		"delete_bookmark": "always", "remove_books_from_collection": "always", "remove_items_from_playlist": "always",
		"update_collection":  "when library_item_ids present or effect replaces_unrestorable_text",
		"update_playlist":    "when items present or effect replaces_unrestorable_text",
		"set_media_progress": "when effect clears_finished_date",
		// podcasts toolset
		"delete_podcast_episode": "always",
		"delete_podcast":         "always",
		// upkeep
		"match_library_item":   "when effect overwrites_filled_fields",
		"update_item_metadata": "when effect deletes_author_or_series or effect reorders_authors_or_series or effect replaces_unrestorable_values",
		// bookmarks: a title its put-back could not carry (a CR, say)
		"update_bookmark":   "when effect replaces_unrestorable_text",
		"remove_item_cover": "always",
		// replacing a cover: Audiobookshelf overwrites the old file
		"set_item_cover":    "when effect replaces_cover",
		"set_item_chapters": "when effect replaces_chapters",
		// playlists: filling an empty playlist (its put-back would delete it)
		"add_items_to_playlist": "when effect fills_empty_playlist",
		// curation: a rename onto a name in use (a merge), or of a name
		// not last on some item (the rename back would not give the order)
		"rename_tag":   "when effect merges_names or effect reorders_names",
		"rename_genre": "when effect merges_names or effect reorders_names",
		// curation: a merge takes a record out
		"merge_authors": "always",
		"merge_series":  "always",
		// curation: an author's image from a URL (the old file cannot be
		// had back), a text the put-back could not give back exactly (a
		// series' null description), and a duplicate copy removed
		"update_author":     "when image_url present or effect replaces_unrestorable_text",
		"update_series":     "when effect replaces_unrestorable_text",
		"resolve_duplicate": "always",
		// curation batch fixes: what one call back could not give back
		// exactly (text somebody typed, a list's middle, a series emptied);
		// a quick match of many items always
		"batch_update_books": "when effect replaces_values or effect partial_lists or effect deletes_series",
		"batch_quick_match":  "always",
		// and a narrator's rename, which reaches books the user may not see
		"rename_narrator": "when effect merges_names or effect reorders_names",
		// curation: a merge takes names out, always
		"merge_tags":      "always",
		"merge_genres":    "always",
		"merge_narrators": "always",
	}
	got := map[string]string{}
	for _, tool := range registry.All {
		if tool.Guard == nil {
			continue
		}
		got[tool.Name] = tool.Guard.Condition
		// A tool that only adds may ask on an effect the plan finds
		// (add_items_to_playlist on an empty playlist), never otherwise.
		effectsOnly := tool.Guard.Condition != "always" && len(tool.Guard.WhenParams) == 0 && len(tool.Guard.WhenEffects) > 0
		if (!tool.Destructive && !effectsOnly) || tool.ReadOnly {
			t.Errorf("%s is guarded but not marked destructive", tool.Name)
		}
		if !strings.Contains(string(tool.Definition.InputSchema.(json.RawMessage)), `"confirm_token"`) {
			t.Errorf("%s is guarded but takes no confirm_token", tool.Name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("guarded tools: %v, want %v", got, want)
	}
	for name, cond := range want {
		if got[name] != cond {
			t.Errorf("%s: guard %q, want %q", name, got[name], cond)
		}
	}
}

func TestCallsWithoutSetupExplainIt(t *testing.T) {
	srv, err := New(Options{Config: &config.Config{Elicitation: true, Toolsets: config.AllToolsets()}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := srv.MCP.Connect(ctx, st, nil)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"list_libraries", "get_server_status", "delete_collection"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"collection_id": "c1"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "AUDIOBOOKSHELF_URL is not set") || !strings.Contains(text, "AUDIOBOOKSHELF_API_KEY") {
			t.Errorf("%s without setup: %v %q", name, res.IsError, text)
		}
	}
}

// connectInMemory assembles a server from cfg and connects a go-sdk client
// to it in memory, with opts (nil: the client's defaults); both ends close
// when the test ends.
func connectInMemory(t *testing.T, cfg *config.Config, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	srv, err := New(Options{Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
