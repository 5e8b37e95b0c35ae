package compact

import (
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// EpisodeBrief is one podcast episode in a list.
type EpisodeBrief struct {
	ID        string `json:"id"`
	ItemID    string `json:"library_item_id,omitempty"`
	Podcast   string `json:"podcast,omitempty"`
	Title     string `json:"title"`
	Season    string `json:"season,omitempty"`
	Episode   string `json:"episode,omitempty"`
	Published string `json:"published,omitempty"`
	DurationS int64  `json:"duration_s,omitempty"`
}

func Episode(e *absdata.Episode, podcast string) EpisodeBrief {
	b := EpisodeBrief{ID: e.ID, ItemID: e.LibraryItemID, Podcast: podcast, Title: e.Title,
		Season: string(e.Season), Episode: string(e.Episode), DurationS: Seconds(e.Length())}
	if e.PublishedAt > 0 {
		b.Published = Date(e.PublishedAt)
	} else if t, err := time.Parse(time.RFC1123Z, e.PubDate); err == nil {
		b.Published = t.UTC().Format("2006-01-02")
	}
	return b
}
