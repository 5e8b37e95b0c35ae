package me

import (
	"context"
	"encoding/json"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GetMe is get_me.
func GetMe(ctx context.Context, d *kit.Deps, a toolargs.GetMe) (*mcp.CallToolResult, error) {
	body, u, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(withoutSecrets(body))
	}
	inProgress, finished := 0, 0
	for _, p := range u.MediaProgress {
		switch {
		case p.IsFinished:
			finished++
		case p.Progress > 0 || p.CurrentTime > 0:
			inProgress++
		}
	}
	out := map[string]any{"id": u.ID, "username": u.Username, "type": u.Type, "active": u.Active(),
		"permissions": u.Permissions, "progress_records": len(u.MediaProgress), "in_progress": inProgress,
		"finished": finished, "bookmarks": len(u.Bookmarks), "created": compact.Date(u.CreatedAt)}
	if len(u.LibrariesAccessible) > 0 {
		out["libraries_accessible"] = u.LibrariesAccessible
	}
	return result.JSONResult(out)
}

// withoutSecrets drops the user's own session tokens from /api/me, which
// Audiobookshelf includes: a tool result must never carry a credential.
func withoutSecrets(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	for _, k := range []string{"token", "accessToken", "refreshToken"} {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return b
}
