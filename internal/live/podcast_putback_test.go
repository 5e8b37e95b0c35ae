package live

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLivePodcastPutBack runs the two podcast writes that do not ask
// against a real Audiobookshelf, each followed by the put-back its answer
// names (approved), and compares Audiobookshelf's raw records before and
// after field by field (updatedAt and lastUpdate aside):
//
//   - create_podcast from a feed served on loopback, then delete_podcast
//     with delete_files: the podcast library's items, this user's progress
//     and playlists are as before, and the folder the call made is gone
//     from disk;
//   - download_podcast_episodes of one episode of that feed into a podcast
//     subscribed for the purpose, the queue followed until it is done
//     through the call its answer names, then delete_podcast_episode with
//     delete_file: the podcast's raw record is as before but for its size,
//     which Audiobookshelf recounts on a download and not on a delete (the
//     answer says so; checked here to be the deleted file's size more).
//
// Audiobookshelf must let its SSRF filter through to 127.0.0.1
// (SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1). Whatever it makes it removes,
// even when a step fails.
func TestLivePodcastPutBack(t *testing.T) {
	target, key, a := liveABS(t)
	base := target.String()
	podLib := a.libraries()["podcast"]
	if podLib == "" {
		t.Fatal("the server needs a podcast library")
	}
	run := fmt.Sprintf("putback-podcast-%d", time.Now().UnixNano())

	// Two feeds of the same episodes under two titles, so that each part
	// subscribes in a folder of its own.
	feeds, err := serveLoopbackFeed(t, run)
	if err != nil {
		t.Fatalf("the run needs a feed on loopback: %v", err)
	}

	var asked atomic.Int32
	cs := connectEvery(t, base, key, &asked)
	call := func(t *testing.T, tool string, args any) map[string]any {
		t.Helper()
		return callJSON(t, cs, tool, args)
	}
	// Whatever the run subscribed to goes, with its folder, even when a
	// step fails (404 once the put-back has removed it).
	made := map[string]bool{}
	t.Cleanup(func() {
		for id := range made {
			if st := a.do("DELETE", "/api/items/"+id+"?hard=1", nil, nil); st != 200 && st != 404 {
				t.Errorf("removing podcast %s: %d", id, st)
			}
		}
	})
	create := func(t *testing.T, feed string) map[string]any {
		t.Helper()
		n := asked.Load()
		c := call(t, "create_podcast", map[string]any{"library_id": podLib, "feed_url": feeds.URL(feed)})
		id, _ := c["library_item_id"].(string)
		if id == "" {
			t.Fatalf("create_podcast: %v (is Audiobookshelf started with SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1?)", c)
		}
		made[id] = true
		if asked.Load() != n {
			t.Fatalf("create_podcast asked the person: it must be free")
		}
		return c
	}
	// library is what a podcast's creation and removal may touch: the
	// library's items (raw, by id), this user's progress and playlists.
	library := func(t *testing.T) map[string]any {
		t.Helper()
		var items struct {
			Results []map[string]any `json:"results"`
			Total   int              `json:"total"`
		}
		a.get("/api/libraries/"+podLib+"/items?limit=1000", &items)
		if len(items.Results) != items.Total {
			t.Fatalf("the podcast library has %d items, more than one page", items.Total)
		}
		byID := map[string]any{}
		for _, it := range items.Results {
			byID[fmt.Sprint(it["id"])] = it
		}
		var me map[string]any
		a.get("/api/me", &me)
		var pls map[string]any
		a.get("/api/playlists", &pls)
		return map[string]any{"items": byID, "progress": me["mediaProgress"], "playlists": pls["playlists"]}
	}
	fields := func(v any) int { return leaves(v) }

	t.Run("create_podcast then delete_podcast", func(t *testing.T) {
		before := library(t)
		c := create(t, "A")
		id, folder := c["library_item_id"].(string), fmt.Sprint(c["path"])
		if st, err := os.Stat(folder); err != nil || !st.IsDir() {
			t.Fatalf("the podcast's folder %s: %v", folder, err)
		}
		if after := library(t); len(after["items"].(map[string]any)) != len(before["items"].(map[string]any))+1 {
			t.Fatalf("test bug: create_podcast added no item")
		}
		pb, _ := c["put_back"].(map[string]any)
		args, _ := pb["arguments"].(map[string]any)
		if pb["tool"] != "delete_podcast" || args["library_item_id"] != id || args["delete_files"] != true {
			t.Fatalf("create_podcast's put_back: %v", c["put_back"])
		}
		n := asked.Load()
		d := call(t, "delete_podcast", args)
		if asked.Load() != n+1 || d["deleted"] != true {
			t.Fatalf("delete_podcast (asked %d): %v", asked.Load()-n, d)
		}
		after := library(t)
		if diff := compareRaw(t, "podcast library", before, after); diff > 0 {
			t.Errorf("%d of %d field(s) differ after create_podcast and its put-back", diff, fields(before))
		} else {
			t.Logf("create_podcast then delete_podcast: %d field(s) of the library's %d items, progress and playlists compared, all the same", fields(before), len(before["items"].(map[string]any)))
		}
		if _, err := os.Stat(folder); !os.IsNotExist(err) {
			t.Errorf("the folder %s create_podcast made is still on disk: %v", folder, err)
		}
	})

	t.Run("download_podcast_episodes then delete_podcast_episode", func(t *testing.T) {
		c := create(t, "B")
		id := c["library_item_id"].(string)
		raw := func() map[string]any {
			var it map[string]any
			a.get("/api/items/"+id+"?expanded=1", &it)
			return it
		}
		before := raw()
		check := call(t, "check_new_episodes", map[string]any{"library_item_id": id})
		eps, _ := check["episodes"].([]any)
		if len(eps) != 3 {
			t.Fatalf("check_new_episodes: %v", check)
		}
		keyOf := eps[0].(map[string]any)["key"]
		n := asked.Load()
		d := call(t, "download_podcast_episodes", map[string]any{"library_item_id": id, "episodes": []any{keyOf}})
		if asked.Load() != n {
			t.Fatalf("download_podcast_episodes asked the person: it must be free")
		}
		q, _ := d["queued"].([]any)
		if len(q) != 1 || q[0].(map[string]any)["enclosure_url"] == "" {
			t.Fatalf("download_podcast_episodes: %v", d)
		}
		if !strings.Contains(fmt.Sprint(d["also_changed"]), "size") {
			t.Errorf("the answer does not say what else a download changes: %v", d)
		}
		find, _ := d["episode_ids_from"].(map[string]any)
		pb, _ := d["put_back"].(map[string]any)
		if find == nil || pb == nil || pb["tool"] != "delete_podcast_episode" {
			t.Fatalf("the answer names no put-back: %v", d)
		}
		// Wait for the download through the call the answer names.
		episodeID := ""
		deadline := time.Now().Add(2 * time.Minute)
		polls, notYet := 0, 0
		for episodeID == "" {
			l := call(t, fmt.Sprint(find["tool"]), find["arguments"])
			polls++
			states, _ := l["episodes"].([]any)
			if len(states) != 1 {
				t.Fatalf("%s: %v", find["tool"], l)
			}
			s := states[0].(map[string]any)
			switch s["state"] {
			case "downloaded":
				episodeID, _ = s["episode_id"].(string)
			case "queued", "downloading":
			case "not_in_library":
				// Measured on 2.36: for a moment right after the request
				// the download shows neither in the queue nor as an
				// episode (the answer's note says so); a failed one stays
				// so, and the deadline ends the wait.
				notYet++
			default:
				var queue any
				a.get("/api/libraries/"+podLib+"/episode-downloads", &queue)
				t.Fatalf("the download: %v (the answer: %v; the queue now: %v; the answer of the download: %v)", s, l, queue, d)
			}
			if episodeID == "" {
				if time.Now().After(deadline) {
					t.Fatalf("after 2 minutes the episode is not downloaded: %v", s)
				}
				time.Sleep(time.Second)
			}
		}
		mid := raw()
		midEps, _ := at(mid, "media", "episodes").([]any)
		if len(midEps) != 1 || at(midEps[0], "id") != episodeID {
			t.Fatalf("after the download the podcast has %d episode(s), want episode %s", len(midEps), episodeID)
		}
		file := fmt.Sprint(at(midEps[0], "audioFile", "metadata", "path"))
		fileSize, _ := at(midEps[0], "audioFile", "metadata", "size").(float64)
		t.Logf("downloaded as episode %s (%s, %.0f bytes) after %d list_podcast_downloads call(s), %d of them before the download showed anywhere", episodeID, filepath.Base(file), fileSize, polls, notYet)

		args := map[string]any{"episode_id": episodeID}
		for k, v := range pb["arguments"].(map[string]any) {
			args[k] = v
		}
		n = asked.Load()
		del := call(t, "delete_podcast_episode", args)
		if asked.Load() != n+1 || del["deleted"] != true {
			t.Fatalf("delete_podcast_episode (asked %d): %v", asked.Load()-n, del)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("the downloaded file %s is still on disk: %v", file, err)
		}
		after := raw()
		// size: recounted from the item's files on the download, not on
		// the delete (PodcastManager.scanAddPodcastEpisodeAudioFile,
		// PodcastController.removeEpisode); the answer says so.
		var files float64
		for _, f := range before["libraryFiles"].([]any) {
			s, _ := at(f, "metadata", "size").(float64)
			files += s
		}
		bs, _ := before["size"].(float64)
		as, _ := after["size"].(float64)
		if as != files+fileSize {
			t.Errorf("size after the put-back is %.0f; want the podcast's files before (%.0f) and the deleted episode (%.0f)", as, files, fileSize)
		}
		t.Logf("size: %.0f before, %.0f after the put-back (recounted with the deleted file, as the answer says)", bs, as)
		delete(before, "size")
		delete(after, "size")
		if diff := compareRaw(t, "podcast "+id, before, after); diff > 0 {
			t.Errorf("%d of %d field(s) differ after the download and its put-back", diff, fields(before))
		} else {
			t.Logf("download then delete_podcast_episode: %d field(s) of the podcast's raw record compared, all the same but size", fields(before))
		}
	})
}
