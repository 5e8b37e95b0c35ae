package compact

import (
	"math"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Progress is a user's progress on one item or episode.
type Progress struct {
	ID          string  `json:"id"` // the record id delete_media_progress takes
	ItemID      string  `json:"library_item_id,omitempty"`
	EpisodeID   string  `json:"episode_id,omitempty"`
	CurrentTime float64 `json:"current_time_s"`
	DurationS   int64   `json:"duration_s,omitempty"`
	ProgressPct int     `json:"progress_pct"`
	Finished    bool    `json:"finished"`
	Hidden      bool    `json:"hidden_from_continue_listening,omitempty"`
	LastUpdate  string  `json:"last_update,omitempty"`
	StartedAt   string  `json:"started_at,omitempty"`
	FinishedAt  string  `json:"finished_at,omitempty"`
}

func ProgressOf(p *absdata.Progress) *Progress {
	if p == nil {
		return nil
	}
	out := &Progress{
		ID: p.ID, ItemID: p.LibraryItemID, CurrentTime: math.Round(p.CurrentTime*10) / 10,
		DurationS: Seconds(p.Duration), ProgressPct: Pct(p.Progress), Finished: p.IsFinished,
		Hidden: p.HideFromContinueListening, LastUpdate: Stamp(p.LastUpdate), StartedAt: Stamp(p.StartedAt),
	}
	if p.EpisodeID != nil {
		out.EpisodeID = *p.EpisodeID
	}
	if p.FinishedAt != nil {
		out.FinishedAt = Stamp(*p.FinishedAt)
	}
	return out
}

// ProgressIn is a progress record inside an entry of a list that already
// names its item, its episode and, most often, its duration: the record id
// (delete_media_progress takes it), where the user is, and when it last
// moved. get_library_item has the whole record.
type ProgressIn struct {
	ID          string  `json:"id"`
	CurrentTime float64 `json:"current_time_s"`
	DurationS   int64   `json:"duration_s,omitempty"` // only when the entry has none
	ProgressPct int     `json:"progress_pct"`
	Finished    bool    `json:"finished,omitempty"`
	Hidden      bool    `json:"hidden_from_continue_listening,omitempty"`
	LastUpdate  string  `json:"last_update,omitempty"`
}

// Within is p inside an entry whose duration is durationS (0: none).
func (p *Progress) Within(durationS int64) *ProgressIn {
	if p == nil {
		return nil
	}
	out := &ProgressIn{ID: p.ID, CurrentTime: p.CurrentTime, ProgressPct: p.ProgressPct, Finished: p.Finished,
		Hidden: p.Hidden, LastUpdate: p.LastUpdate}
	if durationS == 0 {
		out.DurationS = p.DurationS
	}
	return out
}
