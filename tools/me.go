package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

type absUser struct {
	ID                  string          `json:"id"`
	Username            string          `json:"username"`
	Type                string          `json:"type"`
	IsActive            bool            `json:"isActive"`
	MediaProgress       []absProgress   `json:"mediaProgress"`
	Bookmarks           []absBookmark   `json:"bookmarks"`
	Permissions         json.RawMessage `json:"permissions"`
	LibrariesAccessible []string        `json:"librariesAccessible"`
	ItemTagsSelected    []string        `json:"itemTagsSelected"`
	SeriesHideFromCL    []string        `json:"seriesHideFromContinueListening"`
	LastSeen            int64           `json:"lastSeen"`
	CreatedAt           int64           `json:"createdAt"`
}

func (d *Deps) getMe(ctx context.Context) ([]byte, *absUser, error) {
	body, err := d.get(ctx, "the current user", func(ctx context.Context) (*http.Response, error) { return d.API.GetMe(ctx) })
	if err != nil {
		return nil, nil, err
	}
	var u absUser
	if err := decode(body, &u); err != nil {
		return nil, nil, err
	}
	return body, &u, nil
}

// GetMe is get_me.
func GetMe(ctx context.Context, d *Deps, a toolargs.GetMe) (*mcp.CallToolResult, error) {
	body, u, err := d.getMe(ctx)
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(withoutSecrets(body))
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
	out := map[string]any{"id": u.ID, "username": u.Username, "type": u.Type, "active": u.IsActive,
		"permissions": u.Permissions, "progress_records": len(u.MediaProgress), "in_progress": inProgress,
		"finished": finished, "bookmarks": len(u.Bookmarks), "created": date(u.CreatedAt)}
	if len(u.LibrariesAccessible) > 0 {
		out["libraries_accessible"] = u.LibrariesAccessible
	}
	return jsonResult(out)
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

// ListItemsInProgress is list_items_in_progress.
func ListItemsInProgress(ctx context.Context, d *Deps, a toolargs.ListItemsInProgress) (*mcp.CallToolResult, error) {
	// Audiobookshelf takes only a limit (MeController.
	// getAllLibraryItemsInProgress: the first limit, most recent first),
	// so a page is cut here from the first (page+1)*limit, and one more
	// tells whether there is more after it.
	page, limit := int(a.Page), int(a.Limit)
	// The entries carry no progress but its time (progressLastUpdate:
	// MeController.getAllLibraryItemsInProgress), so the compact form asks
	// for the user's progress records at the same time.
	var records *pending[[]absProgress]
	if !full(a.Detail) {
		records = alongside(ctx, func(ctx context.Context) []absProgress {
			recs, _ := d.progressRecords(ctx)
			return recs
		})
	}
	body, err := d.get(ctx, "the items in progress", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListItemsInProgress(ctx, &abs.ListItemsInProgressParams{Limit: ptrOf((page+1)*limit + 1)})
	})
	if err != nil {
		if records != nil {
			records.abandon()
		}
		return nil, err
	}
	if full(a.Detail) {
		var raw struct {
			LibraryItems []json.RawMessage `json:"libraryItems"`
		}
		if err := decode(body, &raw); err != nil {
			return nil, err
		}
		rows := pageOf(raw.LibraryItems, page, limit)
		if rows == nil {
			rows = []json.RawMessage{}
		}
		b, err := json.Marshal(map[string]any{"libraryItems": rows})
		if err != nil {
			return nil, Errorf(Stated, "internal error: could not encode the result: %v", err)
		}
		return rawResult(b)
	}
	var v struct {
		LibraryItems []struct {
			absItem
			ProgressLastUpdate int64 `json:"progressLastUpdate"`
		} `json:"libraryItems"`
	}
	if err := decode(body, &v); err != nil {
		records.abandon()
		return nil, err
	}
	recs := records.wait()
	byKey := make(map[[2]string]*absProgress, len(recs))
	inProgress := 0
	for i := range recs {
		p := &recs[i]
		ep := ""
		if p.EpisodeID != nil {
			ep = *p.EpisodeID
		}
		byKey[[2]string{p.LibraryItemID, ep}] = p
		if !p.IsFinished && p.CurrentTime > 0 {
			inProgress++
		}
	}
	type entry struct {
		ItemBrief
		Episode  *EpisodeBrief `json:"episode,omitempty"`
		Progress *Progress     `json:"progress,omitempty"`
	}
	all := v.LibraryItems
	total := len(all)
	if total > (page+1)*limit {
		// There is more: as many as the user's records in progress say,
		// and at least one more than this page.
		total = max(inProgress, total)
	}
	rows := pageOf(all, page, limit)
	out := make([]entry, 0, len(rows))
	for i := range rows {
		it := &rows[i].absItem
		e := entry{ItemBrief: brief(it, nil)}
		ep := ""
		if it.RecentEpisode != nil {
			b := episodeBrief(it.RecentEpisode, "")
			e.Episode = &b
			ep = it.RecentEpisode.ID
		}
		if p := byKey[[2]string{it.ID, ep}]; p != nil {
			e.Progress = progressOf(p)
			e.ProgressPct, e.Finished = nil, false
		}
		out = append(out, e)
	}
	return pageResult(d, "items", out, total, page, limit)
}

// GetListeningStats is get_listening_stats.
func GetListeningStats(ctx context.Context, d *Deps, a toolargs.GetListeningStats) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "the listening stats", func(ctx context.Context) (*http.Response, error) { return d.API.GetListeningStats(ctx) })
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var v struct {
		TotalTime float64 `json:"totalTime"`
		Items     map[string]struct {
			ID            string  `json:"id"`
			TimeListening float64 `json:"timeListening"`
			MediaItem     *struct {
				Metadata absMetadata `json:"metadata"`
			} `json:"mediaItem"`
		} `json:"items"`
		Days           map[string]float64 `json:"days"`
		DayOfWeek      map[string]float64 `json:"dayOfWeek"`
		Today          float64            `json:"today"`
		RecentSessions []absSession       `json:"recentSessions"`
	}
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	type top struct {
		ID    string `json:"library_item_id"`
		Title string `json:"title,omitempty"`
		TimeS int64  `json:"time_s"`
	}
	tops := make([]top, 0, len(v.Items))
	for _, it := range v.Items {
		t := top{ID: it.ID, TimeS: seconds(it.TimeListening)}
		if it.MediaItem != nil {
			t.Title = it.MediaItem.Metadata.Title
		}
		tops = append(tops, t)
	}
	sort.Slice(tops, func(i, j int) bool {
		if tops[i].TimeS != tops[j].TimeS {
			return tops[i].TimeS > tops[j].TimeS
		}
		return tops[i].ID < tops[j].ID
	})
	if len(tops) > 10 {
		tops = tops[:10]
	}
	days := make([]string, 0, len(v.Days))
	for k := range v.Days {
		days = append(days, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(days)))
	if len(days) > 7 {
		days = days[:7]
	}
	recentDays := make([]map[string]any, 0, len(days))
	for _, k := range days {
		recentDays = append(recentDays, map[string]any{"day": k, "time_s": seconds(v.Days[k])})
	}
	sessions := make([]SessionBrief, 0, 5)
	for i := range v.RecentSessions {
		if i == 5 {
			break
		}
		sessions = append(sessions, sessionBrief(&v.RecentSessions[i]))
	}
	out := map[string]any{"total_time_s": seconds(v.TotalTime), "today_s": seconds(v.Today), "items_listened": len(v.Items),
		"top_items": tops, "recent_days": recentDays, "recent_sessions": sessions}
	return jsonResult(out)
}

// GetYearStats is get_year_stats.
func GetYearStats(ctx context.Context, d *Deps, a toolargs.GetYearStats) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "the year stats", func(ctx context.Context) (*http.Response, error) {
		return d.API.GetYearStats(ctx, int(a.Year))
	})
	if err != nil {
		return nil, err
	}
	var v map[string]json.RawMessage
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	// Cover lists are file paths for the web UI's collage, no use to a model.
	delete(v, "booksWithCovers")
	delete(v, "finishedBooksWithCovers")
	return jsonResult(v)
}

type absSession struct {
	ID            string  `json:"id"`
	LibraryItemID string  `json:"libraryItemId"`
	EpisodeID     *string `json:"episodeId"`
	MediaType     string  `json:"mediaType"`
	DisplayTitle  string  `json:"displayTitle"`
	DisplayAuthor string  `json:"displayAuthor"`
	Duration      float64 `json:"duration"`
	PlayMethod    int     `json:"playMethod"`
	MediaPlayer   string  `json:"mediaPlayer"`
	DeviceInfo    *struct {
		ClientName string `json:"clientName"`
		DeviceName string `json:"deviceName"`
	} `json:"deviceInfo"`
	TimeListening float64 `json:"timeListening"`
	StartTime     float64 `json:"startTime"`
	CurrentTime   float64 `json:"currentTime"`
	StartedAt     int64   `json:"startedAt"`
	UpdatedAt     int64   `json:"updatedAt"`
}

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

func sessionBrief(s *absSession) SessionBrief {
	b := SessionBrief{ID: s.ID, ItemID: s.LibraryItemID, Title: s.DisplayTitle, Author: s.DisplayAuthor,
		Started: stamp(s.StartedAt), ListenedS: seconds(s.TimeListening), FromS: round1(s.StartTime), ToS: round1(s.CurrentTime)}
	if s.EpisodeID != nil {
		b.EpisodeID = *s.EpisodeID
	}
	if s.DeviceInfo != nil {
		b.Client = s.DeviceInfo.ClientName
	}
	return b
}

// ListListeningSessions is list_listening_sessions.
func ListListeningSessions(ctx context.Context, d *Deps, a toolargs.ListListeningSessions) (*mcp.CallToolResult, error) {
	params := &abs.ListListeningSessionsParams{Page: ptrOf(int(a.Page)), ItemsPerPage: ptrOf(int(a.Limit))}
	body, err := d.get(ctx, "the listening sessions", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListListeningSessions(ctx, params)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Total    int          `json:"total"`
		Sessions []absSession `json:"sessions"`
	}
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]SessionBrief, 0, len(v.Sessions))
	for i := range v.Sessions {
		out = append(out, sessionBrief(&v.Sessions[i]))
	}
	return pageResult(d, "results", out, v.Total, int(a.Page), int(a.Limit))
}
