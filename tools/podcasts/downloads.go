package podcasts

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RecentlyAddedCap is how many of a podcast's most recently added
// episodes list_podcast_downloads shows.
const RecentlyAddedCap = 5

// CheckNewEpisodes is check_new_episodes.
func CheckNewEpisodes(ctx context.Context, d *kit.Deps, a toolargs.CheckNewEpisodes) (*mcp.CallToolResult, error) {
	it, f, err := podcastFeed(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	var missing []FeedEpisode
	for _, e := range f.Episodes {
		if _, ok := holds(it, e); !ok {
			missing = append(missing, feedEpisodeBrief(e))
		}
	}
	if missing == nil {
		missing = []FeedEpisode{}
	}
	return result.Page(d, "episodes", result.PagingOf(a.Page, a.Limit), missing, nil, result.AsIs,
		result.Extra("library_item_id", it.ID), result.Extra("feed_episodes", len(f.Episodes)),
		result.Extra("in_library", len(f.Episodes)-len(missing)))
}

// downloadQueue reads a library's episode download queue as it is now.
// Audiobookshelf answers GET /api/libraries/* from a cache until its next
// database write, and queuing a download writes nothing: a plain second
// read would show the queue as the first saw it, so delete_podcast's read
// at approval would miss a download requested after its question, and
// list_podcast_downloads show none while downloads run. sort=random is the
// one request the cache skips (ApiCacheManager.middleware); the route
// ignores it otherwise.
func downloadQueue(ctx context.Context, d *kit.Deps, libraryID string) (current *absdata.Download, queue []absdata.Download, err error) {
	body, err := d.Get(ctx, "the download queue of library "+kit.ShowID(libraryID), func(ctx context.Context) (*http.Response, error) {
		return d.API.ListEpisodeDownloads(ctx, libraryID, &abs.ListEpisodeDownloadsParams{Sort: kit.Ptr(abs.Random)})
	})
	if err != nil {
		return nil, nil, err
	}
	var v absdata.DownloadQueue
	if err := kit.Decode(body, &v); err != nil {
		return nil, nil, err
	}
	return v.Current, v.Queue, nil
}

// queuedFor reports whether the episode is running or queued for the item:
// Audiobookshelf compares the encoded enclosure URL
// (PodcastEpisodeDownload.setData).
func queuedFor(e *absdata.FeedEpisode, itemID string, all []absdata.Download) bool {
	u := e.Enclosure.URL
	enc := u
	if dec, err := url.PathUnescape(u); err == nil && dec == u {
		enc = encodeURI(u)
	}
	for _, q := range all {
		if q.LibraryItemID == itemID && (q.URL == u || q.URL == enc) {
			return true
		}
	}
	return false
}

// encodeURI is JavaScript's encodeURI.
func encodeURI(s string) string {
	const keep = ";,/?:@&=+$-_.!~*'()#"
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// DownloadPodcastEpisodes is download_podcast_episodes.
func DownloadPodcastEpisodes(ctx context.Context, d *kit.Deps, a toolargs.DownloadPodcastEpisodes) (*mcp.CallToolResult, error) {
	it, f, err := podcastFeed(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	current, queue, err := downloadQueue(ctx, d, it.LibraryID)
	if err != nil {
		return nil, err
	}
	all := queue
	if current != nil {
		all = append([]absdata.Download{*current}, queue...)
	}
	var pick []*absdata.FeedEpisode
	var skipped []map[string]string
	if a.Episodes != nil {
		byKey := map[string]*absdata.FeedEpisode{}
		for _, e := range f.Episodes {
			if _, dup := byKey[keyOf(e)]; !dup {
				byKey[keyOf(e)] = e
			}
		}
		seen := map[string]bool{}
		var unknown []string
		for _, k := range a.Episodes {
			e := byKey[k]
			switch {
			case e == nil:
				unknown = append(unknown, k)
			case seen[k]:
			default:
				seen[k] = true
				pick = append(pick, e)
			}
		}
		if len(unknown) > 0 {
			return nil, kit.Errorf(kit.Unchanged, `argument "episodes": %s %s not in the feed of podcast %s (check_new_episodes lists the keys of the episodes it lacks).`, result.ListIDs(unknown), result.PluralBe(len(unknown)), kit.ShowID(it.ID))
		}
		var have []string
		for _, e := range pick {
			if id, ok := holds(it, e); ok {
				have = append(have, keyOf(e)+" (episode "+id+")")
			}
		}
		if len(have) > 0 {
			return nil, kit.Errorf(kit.Unchanged, `argument "episodes": podcast %s already has %s; Audiobookshelf would download a second copy. Leave %s out.`, kit.ShowID(it.ID), result.ListIDs(have), map[bool]string{true: "it", false: "them"}[len(have) == 1])
		}
	} else {
		for _, e := range f.Episodes {
			if len(pick) == int(*a.Newest) {
				break
			}
			if _, ok := holds(it, e); !ok && !queuedFor(e, it.ID, all) {
				pick = append(pick, e)
			}
		}
	}
	var send []*absdata.FeedEpisode
	for _, e := range pick {
		if queuedFor(e, it.ID, all) {
			skipped = append(skipped, map[string]string{"key": keyOf(e), "why": "already queued or downloading"})
			continue
		}
		send = append(send, e)
	}
	queued := make([]QueuedEpisode, 0, len(send))
	keys := make([]string, 0, len(send))
	for _, e := range send {
		q := QueuedEpisode{FeedEpisode: feedEpisodeBrief(e), EnclosureURL: e.Enclosure.URL}
		if e.GUID != nil {
			q.GUID = *e.GUID
		}
		queued = append(queued, q)
		keys = append(keys, q.Key)
	}
	out := map[string]any{"library_item_id": it.ID, "queued": queued}
	if len(skipped) > 0 {
		out["skipped"] = skipped
	}
	if len(send) == 0 {
		out["note"] = "Nothing was queued: the podcast has every episode asked for, or they are queued already. Nothing was sent."
		return result.JSONResult(out)
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range send {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e.Raw)
	}
	buf.WriteByte(']')
	if _, err := podMutate(kit.ForItem(ctx, it.ID), d, "the download of episodes of podcast "+kit.ShowID(it.ID), func(ctx context.Context) (*http.Response, error) {
		return d.API.DownloadPodcastEpisodesWithBody(ctx, it.ID, "application/json", bytes.NewReader(buf.Bytes()))
	}); err != nil {
		return nil, err
	}
	find := map[string]any{"library_id": it.LibraryID, "library_item_id": it.ID, "episodes": keys}
	out["next"] = fmt.Sprintf(`Audiobookshelf downloads them one at a time; list_podcast_downloads {"library_id": %q, "library_item_id": %q} follows them.`, it.LibraryID, it.ID)
	out["episode_ids_from"] = &result.PutBack{Tool: "list_podcast_downloads", Arguments: find,
		Note: "Once a download has finished, this names its episode id (under episodes, by key). Audiobookshelf keeps the feed's guid and enclosure URL on the new episode, and the key is made from them (the guid, or the enclosure URL when there is none), as it is for each entry of queued."}
	out["put_back"] = &result.PutBack{Tool: "delete_podcast_episode", Arguments: map[string]any{"library_item_id": it.ID, "delete_file": true},
		Note: "One call for each downloaded episode, with its episode_id from episode_ids_from added; it removes the episode with its file, and asks the person first, as every delete does. A download that failed made no episode and needs no put-back."}
	out["also_changed"] = downloadSideEffects
	return result.JSONResult(out)
}

// QueuedEpisode is one episode download_podcast_episodes queued, with what
// identifies it on the episode Audiobookshelf makes of it
// (PodcastEpisode.createFromRssPodcastEpisode keeps the feed's enclosure
// URL and guid).
type QueuedEpisode struct {
	FeedEpisode
	GUID         string `json:"guid,omitempty"`
	EnclosureURL string `json:"enclosure_url"`
}

// downloadSideEffects is what a finished download changes on the podcast
// beyond the new episode (PodcastManager.scanAddPodcastEpisodeAudioFile),
// and what of it the put-back leaves.
const downloadSideEffects = "A finished download also adds the audio file to the podcast's files, sets its episode count (numEpisodes), recounts the item's size from all its files and moves its updatedAt. delete_podcast_episode takes the file and the count back, not the size: Audiobookshelf does not recount it on a delete, so it keeps counting the deleted file until it next recounts (the next finished download of this podcast does). The podcast's lastEpisodeCheck is not touched (only the scheduled episode check sets it)."

// episodeKey is the key of a library episode: the one its feed episode
// had, made from what Audiobookshelf kept of it (guid, enclosure URL).
func episodeKey(ep *absdata.Episode) string {
	u := ""
	if ep.Enclosure != nil {
		u = ep.Enclosure.URL
	}
	return feedKey(ep.GUID, u)
}

// downloadKey is the key of a queued download (its guid, or its URL as
// queued or as the feed had it before Audiobookshelf encoded it).
func downloadKey(q *absdata.Download) []string {
	if q.GUID != nil && *q.GUID != "" {
		return []string{feedKey(q.GUID, "")}
	}
	out := []string{feedKey(nil, q.URL)}
	if dec, err := url.PathUnescape(q.URL); err == nil && dec != q.URL {
		out = append(out, feedKey(nil, dec))
	}
	return out
}

// KeyState is where the episode of one download key is, in
// list_podcast_downloads.
type KeyState struct {
	Key       string `json:"key"`
	State     string `json:"state"`
	EpisodeID string `json:"episode_id,omitempty"`
	Title     string `json:"title,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Download is one running or queued download in list_podcast_downloads.
type Download struct {
	ID            string `json:"id"`
	LibraryItemID string `json:"library_item_id"`
	Podcast       string `json:"podcast,omitempty"`
	Title         string `json:"title,omitempty"`
	Published     string `json:"published,omitempty"`
	State         string `json:"state"`
}

// AddedEpisode is one of a podcast's most recently added episodes.
type AddedEpisode struct {
	EpisodeID string `json:"episode_id"`
	Title     string `json:"title"`
	Added     string `json:"added"`
	DurationS int64  `json:"duration_s,omitempty"`
}

// ListPodcastDownloads is list_podcast_downloads.
func ListPodcastDownloads(ctx context.Context, d *kit.Deps, a toolargs.ListPodcastDownloads) (*mcp.CallToolResult, error) {
	if a.Episodes != nil && a.LibraryItemID == nil {
		return nil, kit.Errorf(kit.NotSent, `argument "episodes": give library_item_id too (the podcast the keys were queued for).`)
	}
	current, queue, err := downloadQueue(ctx, d, a.LibraryID)
	if err != nil {
		return nil, err
	}
	var out []Download
	add := func(q *absdata.Download, state string) {
		if a.LibraryItemID != nil && q.LibraryItemID != *a.LibraryItemID {
			return
		}
		dl := Download{ID: q.ID, LibraryItemID: q.LibraryItemID, State: state}
		if q.Title != nil {
			dl.Title = *q.Title
		}
		if q.PodcastTitle != nil && a.LibraryItemID == nil {
			dl.Podcast = *q.PodcastTitle
		}
		if q.PublishedAt != nil && *q.PublishedAt > 0 {
			dl.Published = compact.Date(*q.PublishedAt)
		}
		out = append(out, dl)
	}
	if current != nil {
		add(current, "downloading")
	}
	for i := range queue {
		add(&queue[i], "queued")
	}
	if out == nil {
		out = []Download{}
	}
	extra := []result.Field{result.Extra("library_id", a.LibraryID)}
	if a.LibraryItemID != nil {
		it, err := getPodcast(ctx, d, *a.LibraryItemID)
		if err != nil {
			return nil, err
		}
		if it.LibraryID != a.LibraryID {
			return nil, kit.Errorf(kit.Unchanged, `argument "library_item_id": podcast %s is in library %s, not in %s.`, kit.ShowID(it.ID), kit.ShowID(it.LibraryID), a.LibraryID)
		}
		eps := append([]absdata.Episode{}, it.Media.Episodes...)
		sort.SliceStable(eps, func(i, j int) bool { return eps[i].AddedAt > eps[j].AddedAt })
		added := []AddedEpisode{}
		for _, e := range eps[:min(len(eps), RecentlyAddedCap)] {
			ae := AddedEpisode{EpisodeID: e.ID, Title: e.Title, Added: compact.Stamp(e.AddedAt)}
			if e.AudioFile != nil {
				ae.DurationS = compact.Seconds(e.AudioFile.Duration)
			}
			added = append(added, ae)
		}
		extra = append(extra, result.Extra("library_item_id", it.ID), result.Extra("recently_added", added), result.Extra("episodes_in_library", len(it.Media.Episodes)))
		if a.Episodes != nil {
			extra = append(extra, result.Extra("episodes", keyStates(it, a.Episodes, current, queue)))
		}
	}
	extra = append(extra, result.Extra("finished", "Audiobookshelf keeps no list of finished downloads: a finished one is an episode of its podcast (recently_added, with library_item_id); one that left the queue without becoming an episode failed (the Audiobookshelf log says why)."))
	return result.Page(d, "downloads", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs, extra...)
}

// keyStates says for each download key where its episode is: an episode
// of the podcast (its id), downloading or queued, or neither.
func keyStates(it *absdata.Item, keys []string, current *absdata.Download, queue []absdata.Download) []KeyState {
	eps := map[string]*absdata.Episode{}
	for i := range it.Media.Episodes {
		ep := &it.Media.Episodes[i]
		if k := episodeKey(ep); eps[k] == nil {
			eps[k] = ep
		}
	}
	waiting := map[string]string{}
	if current != nil && current.LibraryItemID == it.ID {
		for _, k := range downloadKey(current) {
			waiting[k] = "downloading"
		}
	}
	for i := range queue {
		if queue[i].LibraryItemID == it.ID {
			for _, k := range downloadKey(&queue[i]) {
				if waiting[k] == "" {
					waiting[k] = "queued"
				}
			}
		}
	}
	out := make([]KeyState, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		switch {
		case eps[k] != nil:
			out = append(out, KeyState{Key: k, State: "downloaded", EpisodeID: eps[k].ID, Title: eps[k].Title})
		case waiting[k] != "":
			out = append(out, KeyState{Key: k, State: waiting[k]})
		default:
			out = append(out, KeyState{Key: k, State: "not_in_library", Note: "not an episode of the podcast and not in its queue: not started yet (right after download_podcast_episodes Audiobookshelf may show it nowhere for a moment; ask again), failed (the Audiobookshelf log says why), never queued, or deleted since"})
		}
	}
	return out
}
