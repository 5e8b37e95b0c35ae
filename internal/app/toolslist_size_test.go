package app

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
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

// TestInteropKnowsTheDefaultTools holds interop/suite.mjs's DEFAULT_TOOLS,
// the number of tools the TypeScript clients and gateways must be offered,
// to what a server with no settings registers, so that a tool added to a
// default toolset fails here, in the Go tests, and not first in the interop
// run.
func TestInteropKnowsTheDefaultTools(t *testing.T) {
	src, err := os.ReadFile("../../interop/suite.mjs")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^export const DEFAULT_TOOLS = (\d+);$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("interop/suite.mjs has no line export const DEFAULT_TOOLS = N;")
	}
	want, _ := strconv.Atoi(string(m[1]))
	none := func(string) (string, bool) { return "", false }
	cfg, err := config.FromEnv(func(string) string { return "" }, none, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectInMemory(t, cfg, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != want {
		t.Errorf("interop/suite.mjs says DEFAULT_TOOLS = %d, a server with no settings lists %d tools: set it to %d", want, len(res.Tools), len(res.Tools))
	}
}
