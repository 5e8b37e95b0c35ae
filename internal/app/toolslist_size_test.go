package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// MaxToolsListBytes bounds what a client sends a model before the first
// question: the tools/list answer, the JSON-RPC line as the server writes
// it, with default settings (about 1,400 tokens; issue 30).
const MaxToolsListBytes = 6000

// TestDefaultToolsListSize measures the tools/list answer line a server
// started with no settings at all (the defaults of the environment parser:
// the default tools and the discovery tools) writes on stdout, and holds it
// to MaxToolsListBytes.
func TestDefaultToolsListSize(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	cfg, err := config.FromEnv(func(string) string { return "" }, none, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		srv.MCP.Run(ctx, StdioTransport(inR, outW, time.Second))
		outW.Close()
	}()
	defer inW.Close()
	go func() {
		for _, line := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		} {
			io.WriteString(inW, line+"\n")
		}
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	var line []byte
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && string(m.ID) == "2" {
			line = append(line, sc.Bytes()...)
			break
		}
	}
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &res); err != nil || len(res.Result.Tools) == 0 {
		t.Fatalf("no tools/list answer: %v %q", err, line)
	}
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
	}
	t.Logf("default tools/list: %d tools (%s), %d bytes on the line", len(names), strings.Join(names, ", "), len(line))
	if len(line) > MaxToolsListBytes {
		t.Errorf("the default tools/list answer is %d bytes, want at most %d: shorten descriptions in tools.yaml, or take a tool out of the default", len(line), MaxToolsListBytes)
	}
}

// TestInteropKnowsTheDefaultTools holds what the interop and bundle tests
// read as the default tools (interop/suite.mjs's DEFAULT_TOOLS): the tools
// docs/tools.md marks "In the default tools/list.", generated from
// tools.yaml, and the bundle manifest's toolsets setting, default, to what
// a server with no settings lists, tool by tool, so that a tool added to
// the default is counted everywhere without a number written anywhere.
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
	bundled, err := config.ParseToolsets(bundle.UserConfig.Toolsets.Default)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	current := ""
	for _, line := range strings.Split(string(doc), "\n") {
		if tool, ok := strings.CutPrefix(line, "### "); ok {
			current = tool
		}
		if strings.HasPrefix(line, "In the default tools/list.") && current != "" {
			documented = append(documented, current)
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
	fromBundle := Listed(false, bundled)
	slices.Sort(listed)
	slices.Sort(documented)
	slices.Sort(fromBundle)
	if !slices.Equal(listed, documented) || len(listed) == 0 {
		t.Errorf("a server with no settings lists %v; docs/tools.md marks %v as the default", listed, documented)
	}
	if !slices.Equal(listed, fromBundle) {
		t.Errorf("a server with no settings lists %v; the bundle's toolsets setting %q lists %v", listed, bundle.UserConfig.Toolsets.Default, fromBundle)
	}
}
