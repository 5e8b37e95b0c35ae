package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestToolCountsAgree: every tool count the program prints, and the
// bundle's manifest, comes from the registry and says what it counts:
// what tools/list holds with no settings (the default tools and the
// discovery tools) or every toolset. (Before, tools/list offered 52 while
// --help and the manifest said 57, neither saying of what.)
func TestToolCountsAgree(t *testing.T) {
	byDefault, all := ToolCounts()
	if byDefault >= all || byDefault == 0 {
		t.Fatalf("ToolCounts: %d by default, %d in all", byDefault, all)
	}
	listed := func(env []string) (int, string) {
		t.Helper()
		s := start(t, env)
		s.initialize()
		s.send("tools/list", map[string]any{})
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(s.recv()["result"], &res); err != nil {
			t.Fatal(err)
		}
		s.in.Close()
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("the server did not exit")
		}
		return len(res.Tools), s.stderr.String()
	}
	n, stderr := listed(baseEnv())
	if n != byDefault {
		t.Errorf("tools/list with no settings: %d tools, ToolCounts says %d by default", n, byDefault)
	}
	if want := fmt.Sprintf(": %d tools listed (of %d in every toolset; the others one call_tool away;", byDefault, all); !strings.Contains(stderr, want) {
		t.Errorf("the start-up line does not say %q:\n%s", want, stderr)
	}
	n, stderr = listed(baseEnv("AUDIOBOOKSHELF_TOOLSETS=all"))
	if n != all {
		t.Errorf("tools/list with every toolset: %d tools, ToolCounts says %d", n, all)
	}
	if want := fmt.Sprintf(": %d tools listed (of %d in every toolset; every toolset is on;", all, all); !strings.Contains(stderr, want) {
		t.Errorf("the start-up line with every toolset does not say %q:\n%s", want, stderr)
	}

	_, _, help := runQuick(t, baseEnv(), "--help")
	if want := fmt.Sprintf("Tools: %d listed by default (", byDefault); !strings.Contains(help, want) {
		t.Errorf("--help does not say %q:\n%s", want, help)
	}

	b, err := os.ReadFile("../../packaging/mcpb/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		LongDescription string `json:"long_description"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help, fmt.Sprintf("), %d with every toolset", all)) {
		t.Errorf("--help does not count every tool, %d:\n%s", all, help)
	}
	for _, want := range []string{fmt.Sprintf("**%d tools** in ", all), fmt.Sprintf("Listed from the start: %d everyday tools and %d that", len(config.DefaultTools()), byDefault-len(config.DefaultTools()))} {
		if !strings.Contains(m.LongDescription, want) {
			t.Errorf("the bundle's long description does not say %q: %s", want, m.LongDescription)
		}
	}
}

// defaultTools is how many tools a server with no settings lists: the
// default tools and the discovery tools (ToolCounts, from the registry).
func defaultTools() int {
	n, _ := ToolCounts()
	return n
}
