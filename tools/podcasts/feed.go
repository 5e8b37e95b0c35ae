package podcasts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// A feed episode has no Audiobookshelf id until it is downloaded, and its
// guid is free text (often a URL), so the tools name it by a key: "fe"
// and the first 16 hex digits of the SHA-256 of its guid, or of its
// enclosure URL when it has no guid. That is the same pair Audiobookshelf
// matches a feed episode with (PodcastEpisode.checkMatchesGuidOrEnclosureUrl),
// and the key is an id a model can pass back without quoting a URL.

// feedKey names a feed episode for the tools (see the top of this file):
// by its guid, or by its enclosure URL when it has none.
func feedKey(guid *string, enclosureURL string) string {
	src := enclosureURL
	if guid != nil && *guid != "" {
		src = *guid
	}
	sum := sha256.Sum256([]byte(src))
	return "fe" + hex.EncodeToString(sum[:8])
}

// keyOf is the key of a feed's episode.
func keyOf(e *absdata.FeedEpisode) string { return feedKey(e.GUID, e.Enclosure.URL) }

// feed is a feed as the tools use it: its episodes that have something to
// download, newest first.
type feed struct {
	Metadata absdata.FeedMetadata
	// Episodes newest first (by publishedAt; undated ones last, in feed
	// order).
	Episodes []*absdata.FeedEpisode
}

// FeedEpisode is one episode of a feed in a compact answer.
type FeedEpisode struct {
	Key       string `json:"key"`
	Title     string `json:"title"`
	Published string `json:"published,omitempty"`
	DurationS int64  `json:"duration_s,omitempty"`
	Season    string `json:"season,omitempty"`
	Episode   string `json:"episode,omitempty"`
	// EpisodeID is the library's episode when the podcast has it.
	EpisodeID string `json:"episode_id,omitempty"`
}

func feedEpisodeBrief(e *absdata.FeedEpisode) FeedEpisode {
	out := FeedEpisode{Key: keyOf(e), Title: e.Title, DurationS: compact.Seconds(e.DurationSeconds), Season: e.Season, Episode: e.Episode}
	if e.PublishedAt > 0 {
		out.Published = compact.Date(e.PublishedAt)
	}
	return out
}

// readFeed asks Audiobookshelf to fetch and parse a feed.
func readFeed(ctx context.Context, d *kit.Deps, feedURL string) (*feed, error) {
	body, err := podGet(ctx, d, "the feed "+feedURL, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPodcastFeed(ctx, abs.GetPodcastFeedJSONRequestBody{RssFeed: feedURL})
	})
	if err != nil {
		if e := kit.AsError(err); e != nil && e.Status == http.StatusNotFound {
			return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf could not read a podcast feed at %s: the request failed or the answer was not an RSS feed with a channel and episodes (404 from POST /api/podcasts/feed). Check the URL; a feed on a private or loopback address is refused by Audiobookshelf's SSRF filter unless its SSRF_REQUEST_FILTER_WHITELIST names that host.", feedURL)
		}
		return nil, err
	}
	var v absdata.Feed
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	f := &feed{Metadata: v.Podcast.Metadata}
	for _, raw := range v.Podcast.Episodes {
		e := &absdata.FeedEpisode{Raw: raw}
		if err := absdata.Unmarshal(raw, e); err != nil || e.Enclosure.URL == "" {
			continue
		}
		f.Episodes = append(f.Episodes, e)
	}
	sort.SliceStable(f.Episodes, func(i, j int) bool {
		a, b := f.Episodes[i].PublishedAt, f.Episodes[j].PublishedAt
		if (a > 0) != (b > 0) {
			return a > 0
		}
		return a > b
	})
	return f, nil
}
