package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// delete_podcast against the stand-in: its question (the podcast and the playlists by quoted name and id, and counts),
// what it takes out once approved, and a book refused.

// progressOf counts every user's progress records of the podcast's
// episodes, and the playlist entries that hold them.
func podcastHeld(s *sd.Server, episodes map[string]bool) (progress, entries int) {
	d := s.Snapshot()
	for _, u := range d.Users {
		for _, mp := range u.MediaProgress {
			if episodes[mp.MediaItemID] {
				progress++
			}
		}
	}
	for _, p := range d.Playlists {
		for _, e := range p.Items {
			if episodes[e.EpisodeID] {
				entries++
			}
		}
	}
	return progress, entries
}

func TestDeletePodcast(t *testing.T) {
	t.Parallel()
	for _, files := range []bool{false, true} {
		t.Run(fmt.Sprintf("delete_files %v, declined", files), func(t *testing.T) {
			t.Parallel()
			rec := &recorder{answer: answers[2].answer} // decline
			e := start(t, apptest.Options{Elicit: rec.handle})
			before := stateOf(t, e.Standin)
			it, _ := e.Standin.Item(sd.ItemPodcastTinyThings)
			eps := map[string]bool{}
			for _, ep := range it.Podcast.Episodes {
				eps[ep.ID] = true
			}
			audio := 0
			for _, f := range it.LibraryFiles {
				if f.FileType == "audio" {
					audio++
				}
			}
			// this user's records and playlists, as the question counts them
			mine := 0
			for _, mp := range e.Standin.Snapshot().Users[0].MediaProgress {
				if eps[mp.MediaItemID] {
					mine++
				}
			}
			if mine == 0 || audio != len(eps) {
				t.Fatalf("test bug: sample podcast has %d progress records of root, %d audio files for %d episodes", mine, audio, len(eps))
			}
			res := e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": files})
			q := rec.asked()
			if len(q) != 1 {
				t.Fatalf("asked %d times: %s", len(q), apptest.Text(res))
			}
			wants := []string{"delete " + named("podcast", it.Podcast.Title, sd.ItemPodcastTinyThings), fmt.Sprintf("its %d episode(s)", len(eps)),
				fmt.Sprintf("%d audio file(s)", audio), fmt.Sprintf("%d record(s) of this user", mine), "playlist(s) of this user: " + named("", "Catch-up Episodes", sd.PlaylistCatchUp)}
			if files {
				wants = append(wants, "DELETE ITS FOLDER FROM DISK")
			} else {
				wants = append(wants, "folder stays on disk")
			}
			for _, w := range wants {
				if !strings.Contains(q[0], w) {
					t.Errorf("the question lacks %q:\n%s", w, q[0])
				}
			}
			// Names only: no episode's title, nor the folder's path.
			for _, title := range []string{it.Podcast.Episodes[0].Title, it.Path} {
				if strings.Contains(q[0], title) {
					t.Errorf("the question carries text of Audiobookshelf (%q):\n%s", title, q[0])
				}
			}
			if !strings.Contains(apptest.Text(res), "othing was changed") || len(e.Standin.Mutations()) != 0 {
				t.Errorf("declined, yet: %v %s", mutations(e.Standin), apptest.Text(res))
			}
			for _, d := range stateDiff("", before, stateOf(t, e.Standin), nil) {
				t.Errorf("declined, yet changed: %s", d)
			}
		})
	}

	t.Run("approved, with its files", func(t *testing.T) {
		t.Parallel()
		e := start(t, apptest.Options{Elicit: approve})
		it, _ := e.Standin.Item(sd.ItemPodcastTinyThings)
		eps := map[string]bool{}
		for _, ep := range it.Podcast.Episodes {
			eps[ep.ID] = true
		}
		progress, entries := podcastHeld(e.Standin, eps)
		if progress == 0 || entries == 0 {
			t.Fatalf("test bug: %d progress records, %d playlist entries", progress, entries)
		}
		e.Standin.ResetRequests()
		v := decode(t, e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true}))
		if at(t, v, "deleted") != true || at(t, v, "files_deleted") != true || at(t, v, "episodes_removed").(float64) != float64(len(eps)) {
			t.Errorf("answer: %v", v)
		}
		if got := mutations(e.Standin); len(got) != 1 || got[0] != "DELETE /api/items/"+sd.ItemPodcastTinyThings {
			t.Errorf("mutations: %v", got)
		}
		if r := lastRequest(t, e.Standin, "DELETE", sd.ItemPodcastTinyThings); r.Query.Get("hard") != "1" {
			t.Errorf("hard delete query: %q", r.RawQuery)
		}
		if _, ok := e.Standin.Item(sd.ItemPodcastTinyThings); ok {
			t.Error("the podcast is still there")
		}
		if p, n := podcastHeld(e.Standin, eps); p != 0 || n != 0 {
			t.Errorf("left %d progress records and %d playlist entries of its episodes", p, n)
		}
		if f := e.Standin.DeletedFiles(); len(f) != 1 || f[0] != it.Path {
			t.Errorf("deleted from disk: %v, want its folder %s", f, it.Path)
		}
		// A second delete finds nothing, asks nobody and sends nothing.
		e.Standin.ResetRequests()
		res := e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true})
		if !res.IsError || !strings.Contains(apptest.Text(res), "404") || len(e.Standin.Mutations()) != 0 {
			t.Errorf("second delete: %s", apptest.Text(res))
		}
	})

	t.Run("a book is refused", func(t *testing.T) {
		t.Parallel()
		rec := &recorder{answer: answers[0].answer}
		e := start(t, apptest.Options{Elicit: rec.handle})
		before := stateOf(t, e.Standin)
		res := e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemMort, "delete_files": true})
		if text := apptest.Text(res); !res.IsError || !strings.Contains(text, `"library_item_id"`) || !strings.Contains(text, "not a podcast") || !strings.Contains(text, "Nothing was changed") {
			t.Errorf("a book: %s", text)
		}
		if len(rec.asked()) != 0 || len(e.Standin.Mutations()) != 0 {
			t.Errorf("a book: asked %d, sent %v", len(rec.asked()), mutations(e.Standin))
		}
		for _, d := range stateDiff("", before, stateOf(t, e.Standin), nil) {
			t.Errorf("a book: changed %s", d)
		}
	})
}

// list_podcast_downloads with episodes says where each download key's
// episode is: downloading or queued, then downloaded with its episode id
// (matched on the guid and enclosure URL Audiobookshelf keeps on it), or
// neither.
func TestDownloadKeysNameTheirEpisodes(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	v := decode(t, e.Call(t, "download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "newest": 3}))
	queued := at(t, v, "queued").([]any)
	if len(queued) != 3 || str(at(t, queued[0], "enclosure_url")) == "" || str(at(t, queued[0], "guid")) == "" {
		t.Fatalf("queued: %v", v)
	}
	if pb := at(t, v, "put_back").(map[string]any); str(pb["tool"]) != "delete_podcast_episode" || !strings.Contains(str(at(t, v, "also_changed")), "size") {
		t.Errorf("put_back: %v", v)
	}
	keys := []any{at(t, queued[0], "key"), at(t, queued[1], "key"), at(t, queued[2], "key"), "fe00000000000000"}
	args := map[string]any{"library_id": sd.LibraryPodcastsID, "library_item_id": sd.ItemPodcastTinyThings, "episodes": keys}
	// The stand-in steps its queue once per request: the queue, read
	// first, has the second running and the third queued; the podcast,
	// read after it, has the first two.
	v = decode(t, e.Call(t, "list_podcast_downloads", args))
	got := at(t, v, "episodes").([]any)
	if str(at(t, got[0], "state")) != "downloaded" || str(at(t, got[1], "state")) != "downloaded" ||
		str(at(t, got[2], "state")) != "queued" || str(at(t, got[3], "state")) != "not_in_library" {
		t.Fatalf("states: %v", got)
	}
	it, _ := e.Standin.Item(sd.ItemPodcastTinyThings)
	n := len(it.Podcast.Episodes)
	for i, ep := range it.Podcast.Episodes[n-2:] {
		if str(at(t, got[i], "episode_id")) != ep.ID || str(at(t, got[i], "title")) != ep.Title {
			t.Errorf("downloaded: %v, want episode %s", got[i], ep.ID)
		}
	}
	v = decode(t, e.Call(t, "list_podcast_downloads", args))
	it, _ = e.Standin.Item(sd.ItemPodcastTinyThings)
	if got := at(t, v, "episodes").([]any); str(at(t, got[2], "state")) != "downloaded" || str(at(t, got[2], "episode_id")) != it.Podcast.Episodes[n].ID {
		t.Errorf("after the queue: %v", got)
	}
	e.Standin.ResetRequests()
	res := e.Call(t, "list_podcast_downloads", map[string]any{"library_id": sd.LibraryPodcastsID, "episodes": keys})
	if !res.IsError || !strings.Contains(apptest.Text(res), `"episodes"`) {
		t.Errorf("episodes without library_item_id: %s", apptest.Text(res))
	}
	for _, r := range e.Standin.Requests() {
		t.Errorf("episodes without library_item_id: sent %s %s", r.Method, r.Path)
	}
}

// A podcast with downloads queued or running is not deleted: Audiobookshelf
// does not cancel them, and each one that starts would make the podcast's
// folder again. Nobody is asked and nothing is sent; once the queue is
// done, the delete asks as usual.
func TestDeletePodcastWithDownloadsQueued(t *testing.T) {
	t.Parallel()
	rec := &recorder{answer: answers[0].answer}
	e := start(t, apptest.Options{Elicit: rec.handle})
	e.Standin.HoldDownloads(true)
	decode(t, e.Call(t, "download_podcast_episodes", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "newest": 2}))
	before := stateOf(t, e.Standin)
	e.Standin.ResetRequests()
	res := e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true})
	if text := apptest.Text(res); !res.IsError || !strings.Contains(text, "2 episode download(s) queued or running") || !strings.Contains(text, "list_podcast_downloads") {
		t.Errorf("with downloads queued: %s", text)
	}
	if len(rec.asked()) != 0 || len(e.Standin.Mutations()) != 0 {
		t.Errorf("with downloads queued: asked %d, sent %v", len(rec.asked()), mutations(e.Standin))
	}
	for _, d := range stateDiff("", before, stateOf(t, e.Standin), nil) {
		t.Errorf("with downloads queued, changed: %s", d)
	}
	e.Standin.HoldDownloads(false)
	for i := 0; i < 3; i++ { // one step of the queue per request
		e.Call(t, "list_podcast_downloads", map[string]any{"library_id": sd.LibraryPodcastsID})
	}
	if q := e.Standin.Downloads(); len(q) != 0 {
		t.Fatalf("test bug: the queue still holds %v", q)
	}
	v := decode(t, e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true}))
	if at(t, v, "deleted") != true || len(rec.asked()) != 1 {
		t.Errorf("after the queue: asked %d: %v", len(rec.asked()), v)
	}
}
