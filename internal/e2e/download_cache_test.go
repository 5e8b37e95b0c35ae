package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// requestDownload asks the stand-in for one episode download of the Tiny
// Things podcast, as another client would (Audiobookshelf's web interface,
// its auto-download): a request that queues it and writes nothing to the
// database.
func requestDownload(t *testing.T, s *sd.Server, url string) {
	t.Helper()
	body := `[{"title":"Another episode","enclosure":{"url":"` + url + `","type":"audio/mpeg","length":"1000"}}]`
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/api/podcasts/"+sd.ItemPodcastTinyThings+"/download-episodes", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+sd.DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download request: %s", resp.Status)
	}
}

// TestDownloadQueueReadPastTheCache: Audiobookshelf caches GET
// /api/libraries/* answers until its next database write, and queuing a
// download writes nothing; the stand-in models that cache here. The queue
// must still be read as it is now: a download requested between
// delete_podcast's question and its approval makes the delete refused, and
// list_podcast_downloads shows a download requested after it was last
// called.
func TestDownloadQueueReadPastTheCache(t *testing.T) {
	t.Parallel()
	t.Run("delete_podcast", func(t *testing.T) {
		t.Parallel()
		var e *apptest.Env
		asked := 0
		e = start(t, apptest.Options{Elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			// While the person reads the question, a download is queued.
			requestDownload(t, e.Standin, "https://feeds.example.invalid/tiny/another.mp3")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}, nil
		}})
		e.Standin.ModelAPICache(true)
		e.Standin.HoldDownloads(true)
		res := e.Call(t, "delete_podcast", map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "delete_files": true})
		text := apptest.Text(res)
		if asked != 1 || !res.IsError || !strings.Contains(text, "1 episode download(s) queued or running") {
			t.Errorf("a download queued before the approval: asked %d: %s", asked, text)
		}
		if _, ok := e.Standin.Item(sd.ItemPodcastTinyThings); !ok {
			t.Errorf("the podcast was deleted with a download queued")
		}
	})
	t.Run("list_podcast_downloads", func(t *testing.T) {
		t.Parallel()
		e := startApproving(t)
		e.Standin.ModelAPICache(true)
		e.Standin.HoldDownloads(true)
		list := func() []any {
			v := decode(t, e.Call(t, "list_podcast_downloads", map[string]any{"library_id": sd.LibraryPodcastsID}))
			l, _ := at(t, v, "downloads").([]any)
			return l
		}
		if n := len(list()); n != 0 {
			t.Fatalf("test bug: %d downloads before any was requested", n)
		}
		requestDownload(t, e.Standin, "https://feeds.example.invalid/tiny/another.mp3")
		if n := len(list()); n != 1 {
			t.Errorf("list_podcast_downloads shows %d downloads after one was requested, want 1", n)
		}
	})
}
