package app

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// MaxToolsListBytes bounds what a client sends a model before the first
// question: the tools/list result with default settings.
const MaxToolsListBytes = 36000

// TestDefaultToolsListSize measures the serialized tools/list result of a
// server started with no settings at all (the defaults of the environment
// parser: every toolset that is on by default) and holds it under
// MaxToolsListBytes.
func TestDefaultToolsListSize(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	cfg, err := config.FromEnv(func(string) string { return "" }, none, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, cfg, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default tools/list: %d tools, %d bytes", len(res.Tools), len(b))
	if len(res.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	if len(b) >= MaxToolsListBytes {
		t.Errorf("the default tools/list result is %d bytes, want under %d: shorten descriptions in tools.yaml", len(b), MaxToolsListBytes)
	}
}

// TestInteropKnowsTheDefaultTools holds what the interop and bundle tests
// read as the default tools (interop/suite.mjs's DEFAULT_TOOLS): the tools
// of docs/tools.md under the toolsets of the bundle manifest's default
// setting, both generated from tools.yaml, to what a server with no
// settings registers, tool by tool, so that a tool added to a default
// toolset is counted everywhere without a number written anywhere.
func TestInteropKnowsTheDefaultTools(t *testing.T) {
	man, err := os.ReadFile("../../packaging/mcpb/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var bundle struct {
		UserConfig struct {
			Toolsets struct {
				Default string `json:"default"`
			} `json:"toolsets"`
		} `json:"user_config"`
	}
	if err := json.Unmarshal(man, &bundle); err != nil {
		t.Fatal(err)
	}
	on := strings.Split(bundle.UserConfig.Toolsets.Default, ",")
	doc, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	current := ""
	for _, line := range strings.Split(string(doc), "\n") {
		if ts, ok := strings.CutPrefix(line, "## "); ok {
			current = ts
		}
		if tool, ok := strings.CutPrefix(line, "### "); ok && slices.Contains(on, current) {
			documented = append(documented, tool)
		}
	}
	none := func(string) (string, bool) { return "", false }
	cfg, err := config.FromEnv(func(string) string { return "" }, none, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectInMemory(t, cfg, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range res.Tools {
		listed = append(listed, tool.Name)
	}
	slices.Sort(listed)
	slices.Sort(documented)
	if !slices.Equal(listed, documented) || len(listed) == 0 {
		t.Errorf("a server with no settings lists %v; docs/tools.md under the bundle's default toolsets %v has %v", listed, on, documented)
	}
}
