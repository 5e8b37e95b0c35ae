package bench

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/views"
)

// maxAppsExtraTokens bounds what the views add to tools/list for a client
// that declares MCP Apps (each tool's _meta.ui and output schema, and the
// cover tool listed for the views): a client without the extension gets
// the list TestEveryToolsetListFits holds to its budget, unchanged.
const maxAppsExtraTokens = 600

// TestAppsToolsListCost: what a client with MCP Apps pays in tools/list for
// the views, with the default tools and with every toolset.
func TestAppsToolsListCost(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	for _, c := range []struct {
		name     string
		toolsets []string
	}{{"default", nil}, {"all", all}} {
		plain, _, err := ToolsList(t.Context(), tok, c.toolsets)
		if err != nil {
			t.Fatal(err)
		}
		apps, _, err := ToolsListAs(t.Context(), tok, c.toolsets, caps)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: tools/list %d tokens, %d for a client with MCP Apps (+%d)", c.name, plain, apps, apps-plain)
		if apps <= plain || apps-plain > maxAppsExtraTokens {
			t.Errorf("%s: a client with MCP Apps pays %d tokens more for tools/list; want more than 0 (the views are named) and at most %d", c.name, apps-plain, maxAppsExtraTokens)
		}
	}
}
