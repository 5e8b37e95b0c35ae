package app

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// initialize's instructions are the ones generated from tools.yaml, and
// they name the kind of every guarded tool of the registry (internal/toolgen
// holds that a guarded tool added to tools.yaml reaches them). They stay
// short: a model reads them in every conversation.
func TestInstructionsNameEveryGuardedKind(t *testing.T) {
	cs := connectInMemory(t, &config.Config{Elicitation: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	got := cs.InitializeResult().Instructions
	if got != registry.Instructions {
		t.Errorf("initialize's instructions are not registry.Instructions:\n%s", got)
	}
	guarded := 0
	for _, tool := range registry.All {
		if tool.Guard == nil {
			continue
		}
		guarded++
		if tool.Guard.Kind == "" || !strings.Contains(got, tool.Guard.Kind) {
			t.Errorf("the instructions do not name %s's kind %q: %s", tool.Name, tool.Guard.Kind, got)
		}
	}
	if guarded < 15 {
		t.Errorf("test bug: %d guarded tools in the registry", guarded)
	}
	if n := len(got); n > 800 {
		t.Errorf("the instructions are %d characters; keep them under 800", n)
	}
}
