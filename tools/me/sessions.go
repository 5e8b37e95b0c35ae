package me

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionBrief is one listening session.
type SessionBrief struct {
	ID        string  `json:"id"`
	ItemID    string  `json:"library_item_id"`
	EpisodeID string  `json:"episode_id,omitempty"`
	Title     string  `json:"title"`
	Author    string  `json:"author,omitempty"`
	Started   string  `json:"started"`
	ListenedS int64   `json:"listened_s"`
	FromS     float64 `json:"from_s"`
	ToS       float64 `json:"to_s"`
	Client    string  `json:"client,omitempty"`
}

func sessionBrief(s *absdata.Session) SessionBrief {
	b := SessionBrief{ID: s.ID, ItemID: s.LibraryItemID, Title: s.DisplayTitle, Author: s.DisplayAuthor,
		Started: compact.Stamp(s.StartedAt), ListenedS: compact.Seconds(s.TimeListening), FromS: compact.Round1(s.StartTime), ToS: compact.Round1(s.CurrentTime)}
	if s.EpisodeID != nil {
		b.EpisodeID = *s.EpisodeID
	}
	if s.DeviceInfo != nil {
		b.Client = s.DeviceInfo.ClientName
	}
	return b
}

// ListListeningSessions is list_listening_sessions.
func ListListeningSessions(ctx context.Context, d *kit.Deps, a toolargs.ListListeningSessions) (*mcp.CallToolResult, error) {
	params := &abs.ListListeningSessionsParams{Page: kit.Ptr(int(a.Page)), ItemsPerPage: kit.Ptr(int(a.Limit))}
	body, err := d.Get(ctx, "the listening sessions", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListListeningSessions(ctx, params)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Total    int               `json:"total"`
		Sessions []absdata.Session `json:"sessions"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return result.Page(d, "results", result.PagingOf(a.Page, a.Limit), v.Sessions, &v.Total, sessionBrief)
}
