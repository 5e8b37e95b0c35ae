package live

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// livePodcasts runs the podcasts toolset against the real server: a small
// RSS feed served on loopback with three short mp3 enclosures (made with
// ffmpeg), subscribed to, checked, two episodes downloaded, one deleted with
// its file after the dialog (and, declined, not), and the podcast removed at
// the end with its folder. Audiobookshelf must let its SSRF filter through
// to 127.0.0.1 (SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1). Podcast search
// needs the internet: it is called for the shape of its answer only.
//
// call runs a tool through the binary with the approving client; decline is
// a second session whose person declines every question; direct talks to
// Audiobookshelf without the proxy (the clean-up route is not in spec/).
func livePodcasts(t *testing.T, call func(string, map[string]any) map[string]any, decline *mcp.ClientSession, direct *abs, podLib, run string) {
	t.Helper()
	// search_podcasts: Audiobookshelf asks iTunes.
	s := call("search_podcasts", map[string]any{"term": "history"})
	if n, _ := s["total"].(float64); n == 0 {
		t.Logf("search_podcasts: 0 results. Audiobookshelf asks iTunes, and it answers [] when it cannot reach it: this machine has no internet access, so the search itself was not exercised (the stand-in tests cover it); the route and its answer's shape were.")
	} else {
		t.Logf("search_podcasts: %v results from iTunes", n)
	}

	feeds, err := serveLoopbackFeed(t, run)
	if err != nil {
		t.Errorf("the podcast part needs a feed on loopback: %v", err)
		return
	}
	feedURL, title := feeds.URL("Loopback"), feeds.Title("Loopback")

	// Read the feed, subscribe.
	f := call("get_podcast_feed", map[string]any{"feed_url": feedURL})
	if f == nil || f["title"] != title || f["total"] != float64(3) {
		t.Fatalf("get_podcast_feed of the loopback feed: %v (is Audiobookshelf started with SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1?)", f)
	}
	c := call("create_podcast", map[string]any{"library_id": podLib, "feed_url": feedURL})
	id, _ := c["library_item_id"].(string)
	if id == "" {
		t.Fatalf("create_podcast: %v", c)
	}
	t.Logf("create_podcast: item %s at %v", id, c["path"])
	t.Cleanup(func() {
		// The podcast and its folder, with what is left of its files,
		// when delete_podcast below did not run (404 when it did).
		if st := direct.do("DELETE", "/api/items/"+id+"?hard=1", nil, nil); st != 200 && st != 404 {
			t.Errorf("removing the podcast %s: %d", id, st)
		}
	})

	// Check: the three episodes are new.
	n := call("check_new_episodes", map[string]any{"library_item_id": id})
	eps, _ := n["episodes"].([]any)
	if len(eps) != 3 {
		t.Fatalf("check_new_episodes: %v", n)
	}
	var keys []string
	for _, e := range eps[:2] {
		keys = append(keys, e.(map[string]any)["key"].(string))
	}
	t.Logf("check_new_episodes: %d new, downloading the newest 2 (%v)", len(eps), keys)

	// Download two; follow the queue until both are episodes.
	d := call("download_podcast_episodes", map[string]any{"library_item_id": id, "episodes": keys})
	if q, _ := d["queued"].([]any); len(q) != 2 {
		t.Fatalf("download_podcast_episodes: %v", d)
	}
	var it struct {
		Media struct {
			Episodes []struct {
				ID        string `json:"id"`
				AudioFile struct {
					Metadata struct {
						Path string `json:"path"`
					} `json:"metadata"`
				} `json:"audioFile"`
			} `json:"episodes"`
		} `json:"media"`
	}
	deadline := time.Now().Add(2 * time.Minute)
	polls := 0
	for {
		l := call("list_podcast_downloads", map[string]any{"library_id": podLib, "library_item_id": id})
		polls++
		direct.get("/api/items/"+id, &it)
		if l != nil && l["total"] == float64(0) && len(it.Media.Episodes) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 2 minutes: downloads %v, %d episodes", l, len(it.Media.Episodes))
		}
		time.Sleep(time.Second)
	}
	t.Logf("downloads: both episodes in the library after %d list_podcast_downloads calls; the feed server saw %v", polls, feeds.Fetched())
	ep := it.Media.Episodes[0]
	file := ep.AudioFile.Metadata.Path
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the downloaded file %s: %v", file, err)
	}

	// Declined: nothing changes, the file stays.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	res, err := decline.CallTool(ctx, &mcp.CallToolParams{Name: "delete_podcast_episode", Arguments: map[string]any{"library_item_id": id, "episode_id": ep.ID, "delete_file": true}})
	cancel()
	if err != nil || !res.IsError {
		t.Fatalf("declined delete: %v %v", err, res)
	}
	direct.get("/api/items/"+id, &it)
	if _, err := os.Stat(file); err != nil || len(it.Media.Episodes) != 2 {
		t.Fatalf("declined, yet changed: %d episodes, file %v", len(it.Media.Episodes), err)
	}
	t.Logf("delete_podcast_episode declined: 2 episodes still, %s still on disk", filepath.Base(file))

	// Approved: the episode and its file go.
	del := call("delete_podcast_episode", map[string]any{"library_item_id": id, "episode_id": ep.ID, "delete_file": true})
	direct.get("/api/items/"+id, &it)
	_, statErr := os.Stat(file)
	if del["deleted"] != true || len(it.Media.Episodes) != 1 || !os.IsNotExist(statErr) {
		t.Fatalf("approved delete: %v; %d episodes, file: %v", del, len(it.Media.Episodes), statErr)
	}
	t.Logf("delete_podcast_episode approved with delete_file: 1 episode left, %s gone from disk", filepath.Base(file))

	// The podcast, with its folder, through delete_podcast (approved).
	folder, _ := c["path"].(string)
	dp := call("delete_podcast", map[string]any{"library_item_id": id, "delete_files": true})
	_, folderErr := os.Stat(folder)
	if dp["deleted"] != true || direct.do("GET", "/api/items/"+id, nil, nil) != 404 || !os.IsNotExist(folderErr) {
		t.Fatalf("delete_podcast: %v; folder %s: %v", dp, folder, folderErr)
	}
	t.Logf("delete_podcast approved with delete_files: the podcast is gone (404) and so is its folder")
}

// connectDeclining starts the binary like connect, with a client whose
// person declines every question.
func connectDeclining(t *testing.T, base, key string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, base, key, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
}
