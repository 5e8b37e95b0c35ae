package live

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/auditscore"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestLiveMessyPodcastAudits writes the stand-in's messy podcast library
// (standin.MessyPodcasts) onto a real Audiobookshelf and holds
// audit_library's podcasts audit, alone and in the sweep, to what was
// planted there: a podcast library of the run's own on a folder of its
// own; each podcast made (POST /api/podcasts) and its episodes downloaded
// from a server on loopback (POST /api/podcasts/:id/download-episodes),
// each dated as the stand-in dates it (publishedAt, from now: two years
// old, a week old, 300 days...). Precision and recall must be 1.00. The
// library is deleted at the end, even when a step fails.
func TestLiveMessyPodcastAudits(t *testing.T) {
	target, key, a := liveABS(t)
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("the episodes are made with ffmpeg, which is not on PATH")
	}
	data, _ := standin.MessyData()
	messy := standin.MessyPodcasts(data, time.Now())
	var podcasts []standin.LibraryItem
	for _, it := range data.Items {
		if it.LibraryID == standin.LibraryMessyPodcastsID {
			podcasts = append(podcasts, it)
		}
	}

	dir := t.TempDir()
	mp3 := filepath.Join(t.TempDir(), "ep.mp3")
	if out, err := exec.Command(ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
		"-ac", "1", "-b:a", "32k", mp3).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/mpeg")
		http.ServeFile(w, r, mp3)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	run := fmt.Sprintf("mcp-live-messy-podcasts-%d", time.Now().UnixNano())
	var lib struct {
		ID      string `json:"id"`
		Folders []struct {
			ID string `json:"id"`
		} `json:"folders"`
	}
	if st := a.do("POST", "/api/libraries", map[string]any{"name": run, "mediaType": "podcast", "icon": "podcast",
		"folders": []map[string]any{{"fullPath": dir}}}, &lib); st != 200 || lib.ID == "" || len(lib.Folders) != 1 {
		t.Fatalf("creating the podcast library %s: %d", run, st)
	}
	t.Cleanup(func() {
		if st := a.do("DELETE", "/api/libraries/"+lib.ID, nil, nil); st != 200 {
			t.Errorf("deleting the library %s (%s): %d", run, lib.ID, st)
		}
	})
	// Every download over before the library goes.
	t.Cleanup(func() {
		for range 120 {
			var q struct {
				CurrentDownload map[string]any   `json:"currentDownload"`
				Queue           []map[string]any `json:"queue"`
			}
			a.do("GET", "/api/libraries/"+lib.ID+"/episode-downloads", nil, &q)
			if q.CurrentDownload == nil && len(q.Queue) == 0 {
				return
			}
			time.Sleep(time.Second)
		}
	})

	to := map[string]string{}
	want := map[string]int{}
	for n, p := range podcasts {
		var made struct {
			ID string `json:"id"`
		}
		body := map[string]any{"path": filepath.Join(dir, p.RelPath), "folderId": lib.Folders[0].ID, "libraryId": lib.ID,
			"media": map[string]any{"metadata": map[string]any{"title": p.Podcast.Title, "author": p.Podcast.Author,
				"feedUrl": fmt.Sprintf("%s/feed-%d.xml", base, n)}, "autoDownloadEpisodes": false}}
		if st := a.do("POST", "/api/podcasts", body, &made); st != 200 || made.ID == "" {
			t.Fatalf("POST /api/podcasts (%s): %d", p.Podcast.Title, st)
		}
		to[p.ID] = made.ID
		if len(p.Podcast.Episodes) == 0 {
			continue
		}
		var eps []map[string]any
		for i, e := range p.Podcast.Episodes {
			eps = append(eps, map[string]any{"title": e.Title, "guid": fmt.Sprintf("%s-%d-%d", run, n, i),
				"pubDate": time.UnixMilli(e.PublishedAt).UTC().Format(time.RFC1123Z), "publishedAt": e.PublishedAt,
				"enclosure": map[string]any{"url": fmt.Sprintf("%s/ep-%d-%d.mp3", base, n, i), "type": "audio/mpeg", "length": "12000"}})
		}
		if st := a.do("POST", "/api/podcasts/"+made.ID+"/download-episodes", eps, nil); st != 200 {
			t.Fatalf("POST /api/podcasts/%s/download-episodes (%s): %d", made.ID, p.Podcast.Title, st)
		}
		want[made.ID] = len(eps)
	}
	// A hang guard, not a timing assertion: the downloads are one at a
	// time on a shared machine.
	deadline := time.Now().Add(5 * time.Minute)
	for id, n := range want {
		for {
			var it struct {
				Media struct {
					Episodes []struct {
						PublishedAt int64 `json:"publishedAt"`
					} `json:"episodes"`
				} `json:"media"`
			}
			a.get("/api/items/"+id+"?expanded=1", &it)
			if len(it.Media.Episodes) == n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("podcast %s holds %d episodes after 5 minutes; %d were downloaded", id, len(it.Media.Episodes), n)
			}
			time.Sleep(time.Second)
		}
	}
	live := auditscore.Translate(messy, to)

	proxyURL, rec, spec, _ := specProxy(t, target, key)
	call := auditCalls(t, proxyURL, key)
	scores := auditscore.RunTools(context.Background(), call, auditscore.PodcastTools, lib.ID, 1, live, t.Errorf)
	if len(scores) != len(auditscore.PodcastTools) {
		t.Errorf("figures for %d audits of %d", len(scores), len(auditscore.PodcastTools))
	}
	report(t, spec, rec.all(), map[string]bool{"getLibrary": true, "listLibraryItems": true, "getLibraryItem": true})
	t.Logf("audits on the messy podcast library written onto Audiobookshelf (%d podcasts, %d planted problems, %d near misses):\n%s",
		len(podcasts), len(live.Planted), len(live.Clean), auditscore.Table(scores))
}
