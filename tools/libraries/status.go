package libraries

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/versions"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GetServerStatus is get_server_status.
func GetServerStatus(ctx context.Context, d *kit.Deps, a toolargs.GetServerStatus) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the server status", func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if err != nil {
		return nil, err
	}
	var s absdata.ServerStatus
	if err := kit.Decode(body, &s); err != nil {
		return nil, err
	}
	out := map[string]any{"reachable": true, "url": d.BaseURL, "app": s.App, "server_version": s.ServerVersion,
		"initialized": s.IsInit, "auth_methods": s.AuthMethods, "api_key_configured": d.HasKey,
		"written_for": versions.Spec}
	// What this server's version lacks of what the tools use (the
	// x-abs-since gates of the spec).
	if l := kit.Lacks(s.ServerVersion); len(l) > 0 {
		out["lacks"] = l
		out["note"] = fmt.Sprintf("Audiobookshelf %s is older than some routes the tools use (listed in lacks, each with the release it came in); update the server to %s for all of them.", s.ServerVersion, versions.Spec)
	}
	return result.JSONResult(out)
}
