package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestToolsListSendsTheGeneratedDefinitions: what a client lists is each
// tool's generated definition, schema included, and not the bare schema
// go-sdk holds for it — with every tool, in read-only mode and with a
// toolset.
func TestToolsListSendsTheGeneratedDefinitions(t *testing.T) {
	for _, cfg := range []*config.Config{
		{Elicitation: true},
		{Elicitation: true, ReadOnly: true},
		{Elicitation: true, Toolsets: []string{"bookmarks"}},
		{Elicitation: true, Toolsets: config.AllToolsets()},
	} {
		listed := listTools(t, cfg)
		want := Select(cfg.ReadOnly, cfg.Toolsets)
		byName := map[string]*mcp.Tool{}
		for _, w := range want {
			byName[w.Name] = w.Definition
		}
		if Discovers(cfg.ReadOnly, cfg.Toolsets) {
			for _, d := range registry.Discovery {
				byName[d.Name] = d
			}
		}
		if len(listed) != len(byName) {
			t.Fatalf("%+v: %d tools listed, want %d", cfg, len(listed), len(byName))
		}
		for _, got := range listed {
			w, ok := byName[got.Name]
			if !ok {
				t.Errorf("%+v: %s is listed but not selected", cfg, got.Name)
				continue
			}
			// The client decodes the schema into a map, so compare the two
			// with their keys in one order.
			gotJSON, wantJSON := canonical(t, got), canonical(t, w)
			if gotJSON != wantJSON {
				t.Errorf("%s: listed definition is not the generated one\n got: %s\nwant: %s", got.Name, gotJSON, wantJSON)
			}
			if string(mustJSON(t, got.InputSchema)) == string(mustJSON(t, registrationSchema)) {
				t.Errorf("%s: listed with the schema go-sdk holds, not its own", got.Name)
			}
		}
	}
}

// TestGeneratedSchemasNeedNoSDKCheck holds what registrationSchema's
// comment relies on: every generated input schema has an object at its root
// and no x-mcp-header anywhere, so go-sdk's AddTool checks would find
// nothing to refuse and nothing to mirror into headers.
func TestGeneratedSchemasNeedNoSDKCheck(t *testing.T) {
	for _, tool := range registry.All {
		raw, ok := tool.Definition.InputSchema.(json.RawMessage)
		if !ok {
			t.Fatalf("%s: input schema is a %T, want the generated json.RawMessage", tool.Name, tool.Definition.InputSchema)
		}
		var root map[string]any
		if err := json.Unmarshal(raw, &root); err != nil {
			t.Fatalf("%s: input schema is not a JSON object: %v", tool.Name, err)
		}
		if root["type"] != "object" {
			t.Errorf("%s: input schema root type is %v, want object", tool.Name, root["type"])
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					if k == "x-mcp-header" {
						t.Errorf("%s: %s carries x-mcp-header, which go-sdk would need to see", tool.Name, path)
					}
					walk(path+"/"+k, x)
				}
			case []any:
				for _, x := range v {
					walk(path+"[]", x)
				}
			}
		}
		walk("", root)
	}
}

// canonical is v as JSON with every object's keys sorted.
func canonical(t *testing.T, v any) string {
	t.Helper()
	var x any
	if err := json.Unmarshal(mustJSON(t, v), &x); err != nil {
		t.Fatal(err)
	}
	return string(mustJSON(t, x))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestToolRequestsWaitForRegistration: until the tools are registered a
// tools/* request waits (and gives up with its context), while every other
// method goes straight through.
func TestToolRequestsWaitForRegistration(t *testing.T) {
	ready := make(chan struct{})
	var reached []string
	h := awaitTools(ready)(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		reached = append(reached, method)
		return &mcp.ListToolsResult{}, nil
	})
	if _, err := h(t.Context(), "ping", nil); err != nil {
		t.Fatalf("ping before registration: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := h(ctx, "tools/list", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tools/list before registration returned %v, want it to wait until its context ends", err)
	}
	done := make(chan error, 1)
	go func() { _, err := h(t.Context(), "tools/call", nil); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("tools/call went through before registration (err %v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(ready)
	if err := <-done; err != nil {
		t.Fatalf("tools/call after registration: %v", err)
	}
	if got := strings.Join(reached, ","); got != "ping,tools/call" {
		t.Errorf("methods that reached the handler: %s, want ping,tools/call", got)
	}
}
