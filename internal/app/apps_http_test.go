package app_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/views"
)

// TestAppsOverHTTP: over streamable HTTP, with and without a session, on
// 2025-11-25 (capabilities in initialize) and 2026-07-28 (in each
// request's _meta), a client that declares MCP Apps gets the view's URI and
// structured content, and one that does not gets neither. A server without
// sessions (--stateless) cannot see what a 2025-11-25
// client declared in initialize, so that client gets no views.
func TestAppsOverHTTP(t *testing.T) {
	ctx := context.Background()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	for _, stateless := range []bool{false, true} {
		e := startHTTP(t, stateless, app.HTTPOptions{}, func(c *config.Config) { c.Toolsets = nil })
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			for _, withApps := range []bool{false, true} {
				name := fmt.Sprintf("stateless %v, %s, apps %v", stateless, version, withApps)
				opts := &mcp.ClientOptions{}
				if withApps {
					opts.Capabilities = caps
				}
				cs, err := e.connect(t, version, opts, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				lt, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				uri := ""
				for _, tool := range lt.Tools {
					if tool.Name == "list_items_in_progress" {
						if ui, ok := tool.Meta["ui"].(map[string]any); ok {
							uri, _ = ui["resourceUri"].(string)
						}
					}
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_items_in_progress", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %v", name, err, res)
				}
				want := withApps && !(stateless && version == "2025-11-25")
				if want != (uri == views.URI("now-listening")) || want != (res.StructuredContent != nil) {
					t.Errorf("%s: view %q, structured content %v", name, uri, res.StructuredContent != nil)
				}
				cs.Close()
			}
		}
	}
}
