package e2e

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The podcasts toolset against the stand-in (every answer held to spec/):
// search, feeds, subscribing, checking, downloading, the queue, and the
// guarded delete.

// The read tools of the toolset join TestReadTools, and its calls
// TestRequestsPerCall (which holds tools.yaml's request counts).
func init() {
	readCases = append(readCases, podcastReadCases...)
	for _, c := range podcastReadCases {
		requestCases = append(requestCases, readCase{tool: c.tool, args: c.args})
	}
	requestCases = append(requestCases, []readCase{
		{tool: "list_podcast_downloads", args: map[string]any{"library_id": sd.LibraryPodcastsID, "library_item_id": sd.ItemPodcastOrbital}},
		{tool: "create_podcast", args: map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift}},
		{tool: "download_podcast_episodes", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "newest": 2}},
		// Orbital has every episode of its feed: nothing is sent.
		{tool: "download_podcast_episodes", args: map[string]any{"library_item_id": sd.ItemPodcastOrbital, "newest": 50}},
		{tool: "delete_podcast_episode", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2, "delete_file": true}},
		{tool: "delete_podcast", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true}},
		{tool: "list_podcast_downloads", args: map[string]any{"library_id": sd.LibraryPodcastsID, "library_item_id": sd.ItemPodcastTinyThings, "episodes": []string{"fe0000000000000000"}}},
	}...)
}

var podcastReadCases = []readCase{
	{tool: "search_podcasts", args: map[string]any{"term": "orbital"}, route: "/api/search/podcast",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 1 || str(at(t, v, "podcasts", 0, "feed_url")) != sd.FeedOrbital ||
				str(at(t, v, "podcasts", 0, "author")) != "Delta-V Collective" {
				t.Errorf("search: %v", v)
			}
		},
		fail: map[string]any{"term": ""}, failWant: []string{`"term"`, "must not be empty"}},
	{tool: "get_podcast_feed", args: map[string]any{"feed_url": sd.FeedTinyThings, "limit": 3}, route: "/api/podcasts/feed", method: "POST",
		check: func(t *testing.T, v any) {
			// 3 new episodes and the library's 5, newest first.
			if at(t, v, "total").(float64) != 8 || at(t, v, "returned").(float64) != 3 || str(at(t, v, "title")) != "The History of Tiny Things" ||
				!strings.Contains(str(at(t, v, "episodes", 0, "title")), "Bonus 3") || !strings.HasPrefix(str(at(t, v, "episodes", 0, "key")), "fe") {
				t.Errorf("feed: %v", v)
			}
		},
		fail: map[string]any{"feed_url": "ftp://feeds.example.com/x.xml"}, failWant: []string{`"feed_url"`, "http:// or https://"}},
	{tool: "check_new_episodes", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings}, route: "/api/items/" + sd.ItemPodcastTinyThings,
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 3 || at(t, v, "in_library").(float64) != 5 || at(t, v, "feed_episodes").(float64) != 8 {
				t.Errorf("new episodes: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": sd.ItemMort}, failWant: []string{`"library_item_id"`, "not a podcast"}, failSends: true},
	{tool: "list_podcast_downloads", args: map[string]any{"library_id": sd.LibraryPodcastsID}, route: "/episode-downloads",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 0 || !strings.Contains(str(at(t, v, "finished")), "no list of finished downloads") {
				t.Errorf("downloads: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404", unknownID}, failSends: true},
}

func TestPodcastSubscribeCheckDownloadDelete(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})

	// Subscribe: the library's one folder is taken, the path is the
	// folder and the title as the web client makes it.
	res := e.Call(t, "create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift})
	v := decode(t, res)
	id := str(at(t, v, "library_item_id"))
	if str(at(t, v, "path")) != "/podcasts/Night Shift - Stories After Dark" || at(t, v, "feed_episodes").(float64) != 4 {
		t.Errorf("created: %v", v)
	}
	if body := string(lastRequest(t, e.Standin, "POST", "/api/podcasts").Body); !strings.Contains(body, `"feedUrl":"`+sd.FeedNightShift+`"`) {
		t.Errorf("create body: %s", body)
	}
	// A second subscription to the same podcast is refused by Audiobookshelf.
	res = e.Call(t, "create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift})
	if !res.IsError || !strings.Contains(apptest.Text(res), "already has a folder") {
		t.Errorf("second subscribe: %s", apptest.Text(res))
	}

	// Check: every feed episode is new.
	v = decode(t, e.Call(t, "check_new_episodes", map[string]any{"library_item_id": id}))
	if at(t, v, "total").(float64) != 4 {
		t.Fatalf("check: %v", v)
	}
	k1, k2 := str(at(t, v, "episodes", 0, "key")), str(at(t, v, "episodes", 1, "key"))

	// Download two by key: one request with both feed episodes as
	// Audiobookshelf parsed them.
	e.Standin.ResetRequests()
	v = decode(t, e.Call(t, "download_podcast_episodes", map[string]any{"library_item_id": id, "episodes": []string{k1, k2}}))
	if n, _ := at(t, v, "queued").([]any); len(n) != 2 {
		t.Fatalf("queued: %v", v)
	}
	if got := mutations(e.Standin); len(got) != 1 || got[0] != "POST /api/podcasts/"+id+"/download-episodes" {
		t.Errorf("mutations: %v", got)
	}
	// The queue (the stand-in finishes one download per request): read
	// first, it shows the second running; the podcast, read after it, has
	// both (the queue is read first so that a download finishing in
	// between shows twice, never nowhere).
	v = decode(t, e.Call(t, "list_podcast_downloads", map[string]any{"library_id": sd.LibraryPodcastsID, "library_item_id": id}))
	if at(t, v, "total").(float64) != 1 || str(at(t, v, "downloads", 0, "state")) != "downloading" ||
		len(at(t, v, "recently_added").([]any)) != 2 {
		t.Errorf("downloads: %v", v)
	}
	// Asking again for what is queued or in the library queues nothing.
	e.Standin.ResetRequests()
	res = e.Call(t, "download_podcast_episodes", map[string]any{"library_item_id": id, "episodes": []string{k1}})
	if !res.IsError || !strings.Contains(apptest.Text(res), `"episodes"`) || !strings.Contains(apptest.Text(res), "already has") {
		t.Errorf("again: %s", apptest.Text(res))
	}
	if len(e.Standin.Mutations()) != 0 {
		t.Errorf("sent %v", mutations(e.Standin))
	}
	item, _ := e.Standin.Item(id)
	if len(item.Podcast.Episodes) != 2 {
		t.Fatalf("episodes after the downloads: %d", len(item.Podcast.Episodes))
	}
	ep := item.Podcast.Episodes[0]

	// Delete one, with its file, after the dialog.
	e.Standin.ResetRequests()
	v = decode(t, e.Call(t, "delete_podcast_episode", map[string]any{"library_item_id": id, "episode_id": ep.ID, "delete_file": true}))
	if at(t, v, "episodes_left").(float64) != 1 || at(t, v, "file_deleted") != true {
		t.Errorf("deleted: %v", v)
	}
	if got := mutations(e.Standin); len(got) != 1 || got[0] != "DELETE /api/podcasts/"+id+"/episode/"+ep.ID {
		t.Errorf("mutations: %v", got)
	}
	if r := lastRequest(t, e.Standin, "DELETE", ep.ID); r.Query.Get("hard") != "1" {
		t.Errorf("hard delete query: %q", r.RawQuery)
	}
	if files := e.Standin.DeletedFiles(); len(files) != 1 || files[0] != ep.AudioFile.Metadata.Path {
		t.Errorf("deleted files: %v", files)
	}
}

func TestPodcastDeleteDialog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		args  map[string]any
		wants []string
		not   string
	}{
		{"without the file", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2},
			[]string{"remove " + named("episode", "The Button", sd.EpisodeTinyThings2) + " from " + named("podcast", "The History of Tiny Things", sd.ItemPodcastTinyThings), "audio file stays on disk",
				"1 playlist(s) of this user: " + named("", "Catch-up Episodes", sd.PlaylistCatchUp), "0 record(s)"}, "DELETE ITS AUDIO FILE"},
		{"with the file", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings1, "delete_file": true},
			[]string{"remove " + named("episode", "The Screw", sd.EpisodeTinyThings1), "DELETE ITS AUDIO FILE FROM DISK", "bytes", "1 record(s)", "only a feed that still carries the episode"}, "stays on disk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{answer: answers[2].answer} // decline
			e := start(t, apptest.Options{Elicit: rec.handle})
			before, _ := e.Standin.Item(sd.ItemPodcastTinyThings)
			res := e.Call(t, "delete_podcast_episode", c.args)
			asked := rec.asked()
			if len(asked) != 1 {
				t.Fatalf("asked %d times", len(asked))
			}
			for _, w := range c.wants {
				if !strings.Contains(asked[0], w) {
					t.Errorf("the question lacks %q:\n%s", w, asked[0])
				}
			}
			if strings.Contains(asked[0], c.not) {
				t.Errorf("the question says %q:\n%s", c.not, asked[0])
			}
			// Names stand quoted: no title stands in a sentence.
			onlyQuoted(t, "the question", asked[0], "The Button", "The Screw", "Tiny Things", "Catch-up")
			if !strings.Contains(apptest.Text(res), "othing was changed") {
				t.Errorf("declined: %s", apptest.Text(res))
			}
			after, _ := e.Standin.Item(sd.ItemPodcastTinyThings)
			if len(after.Podcast.Episodes) != len(before.Podcast.Episodes) || len(e.Standin.Mutations()) != 0 || len(e.Standin.DeletedFiles()) != 0 {
				t.Errorf("declined, yet changed: %v", mutations(e.Standin))
			}
		})
	}
}

// TestPodcastDeleteTakesOutPlaylistsAndProgress: approved, the episode's
// playlist entries and progress go; a playlist left empty is deleted.
func TestPodcastDeleteTakesOutPlaylistsAndProgress(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Playlists {
			if d.Playlists[i].ID == sd.PlaylistCatchUp {
				d.Playlists[i].Items = d.Playlists[i].Items[:1] // only TinyThings2
			}
		}
	})
	v := decode(t, e.Call(t, "delete_podcast_episode", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2}))
	if ps, _ := at(t, v, "playlists_deleted").([]any); len(ps) != 1 || str(ps[0]) != sd.PlaylistCatchUp {
		t.Errorf("answer: %v", v)
	}
	if _, ok := e.Standin.Playlist(sd.PlaylistCatchUp); ok {
		t.Error("the emptied playlist is still there")
	}
	if len(e.Standin.DeletedFiles()) != 0 {
		t.Errorf("files deleted without delete_file: %v", e.Standin.DeletedFiles())
	}
}

// TestPodcastPermissions: the permission a user lacks is named, and the
// delete asks nobody without it.
func TestPodcastPermissions(t *testing.T) {
	t.Parallel()
	rec := &recorder{answer: answers[0].answer}
	e := start(t, apptest.Options{Elicit: rec.handle, Config: func(c *config.Config) { c.APIKey = sd.ListenerAPIKey }})
	res := e.Call(t, "delete_podcast_episode", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2})
	if !res.IsError || !strings.Contains(apptest.Text(res), "delete permission") || len(rec.asked()) != 0 {
		t.Errorf("delete without the permission (asked %d): %s", len(rec.asked()), apptest.Text(res))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_podcast_feed", map[string]any{"feed_url": sd.FeedOrbital}},
		{"create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift}},
		{"check_new_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital}},
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "newest": 1}},
	} {
		res := e.Call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), "only admin and root users") || !strings.Contains(apptest.Text(res), "of type user") {
			t.Errorf("%s as a user: %s", c.tool, apptest.Text(res))
		}
	}
	if len(e.Standin.Mutations()) != 0 {
		t.Errorf("sent %v", mutations(e.Standin))
	}
	// Searching needs no admin.
	if res := e.Call(t, "search_podcasts", map[string]any{"term": "tiny"}); res.IsError {
		t.Errorf("search as a user: %s", apptest.Text(res))
	}
}

// TestPodcastBadArguments: each is refused naming the argument, before
// anything is sent.
func TestPodcastBadArguments(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve})
	for _, c := range []struct {
		tool  string
		args  map[string]any
		wants []string
		sends bool
	}{
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital}, []string{`"episodes"`, `"newest"`}, false},
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "episodes": []string{"fe0000000000000000"}, "newest": 1}, []string{"not both"}, false},
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "episodes": []string{"fe0000000000000000"}}, []string{`"episodes"`, "fe0000000000000000", "not in the feed"}, true},
		{"download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "newest": 51}, []string{`"newest"`}, false},
		{"create_podcast", map[string]any{"library_id": sd.LibraryBooksID, "feed_url": sd.FeedNightShift}, []string{`"library_id"`, "book library"}, true},
		{"create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift, "folder_id": "nope"}, []string{`"folder_id"`, "has no folder"}, true},
		{"create_podcast", map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": "javascript:alert(1)"}, []string{`"feed_url"`}, false},
		{"get_podcast_feed", map[string]any{"feed_url": "https://feeds.example.com/none.xml"}, []string{"could not read a podcast feed", "SSRF"}, true},
		{"delete_podcast_episode", map[string]any{"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeTinyThings1}, []string{`"episode_id"`, "has no episode"}, true},
		{"delete_podcast_episode", map[string]any{"library_item_id": sd.ItemMort, "episode_id": sd.EpisodeTinyThings1}, []string{`"library_item_id"`, "not a podcast"}, true},
		{"list_podcast_downloads", map[string]any{"library_id": sd.LibraryBooksID, "library_item_id": sd.ItemPodcastOrbital}, []string{`"library_item_id"`, "not in"}, true},
	} {
		e.Standin.ResetRequests()
		res := e.Call(t, c.tool, c.args)
		text := apptest.Text(res)
		if !res.IsError {
			t.Errorf("%s %v accepted: %s", c.tool, c.args, text)
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q lacks %q", c.tool, c.args, text, w)
			}
		}
		if sent := len(e.Standin.Requests()) > 0; sent != c.sends {
			t.Errorf("%s %v: sent requests %v, want %v", c.tool, c.args, sent, c.sends)
		}
		if len(e.Standin.Mutations()) != 0 {
			t.Errorf("%s %v sent %v", c.tool, c.args, mutations(e.Standin))
		}
	}
}
