package live

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// loopbackFeed serves podcast feeds on 127.0.0.1 for Audiobookshelf to read
// (it must be started with SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1): three
// mp3 episodes of 3 s made with ffmpeg, the same in every feed. The feed
// named NAME is at URL(NAME) with the channel title Title(NAME), so that
// each part of a run can subscribe in a folder of its own; its episodes'
// guids carry the run's name.
type loopbackFeed struct {
	base, run string
	mu        sync.Mutex
	fetched   []string
}

// serveLoopbackFeed makes the episodes and serves the feeds until the test
// ends. Its error is only that ffmpeg is missing; any other failure ends
// the test.
func serveLoopbackFeed(t *testing.T, run string) (*loopbackFeed, error) {
	t.Helper()
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, fmt.Errorf("ffmpeg makes the feed's mp3 files: %w", err)
	}
	dir := t.TempDir()
	for i := 1; i <= 3; i++ {
		out, err := exec.Command(ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
			fmt.Sprintf("sine=frequency=%d:duration=3", 300+100*i), "-ac", "1", "-b:a", "32k",
			"-metadata", fmt.Sprintf("title=%s episode %d", run, i), filepath.Join(dir, fmt.Sprintf("ep%d.mp3", i))).CombinedOutput()
		if err != nil {
			t.Fatalf("ffmpeg: %v\n%s", err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &loopbackFeed{base: "http://" + ln.Addr().String(), run: run}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.fetched = append(f.fetched, r.URL.Path)
		f.mu.Unlock()
		rest, isFeed := strings.CutPrefix(r.URL.Path, "/feed-")
		name, isXML := strings.CutSuffix(rest, ".xml")
		if !isFeed || !isXML {
			http.ServeFile(w, r, filepath.Join(dir, filepath.Base(r.URL.Path)))
			return
		}
		var items strings.Builder
		for i := 3; i >= 1; i-- {
			st, _ := os.Stat(filepath.Join(dir, fmt.Sprintf("ep%d.mp3", i)))
			pub := time.Date(2026, 11, 1+i, 8, 0, 0, 0, time.UTC).Format(time.RFC1123Z)
			fmt.Fprintf(&items, `<item><title>Episode %d</title><description>Episode %d.</description>`+
				`<pubDate>%s</pubDate><guid isPermaLink="false">%s-ep%d</guid><itunes:duration>00:00:03</itunes:duration>`+
				`<enclosure url="%s/ep%d.mp3" length="%d" type="audio/mpeg"/></item>`, i, i, pub, run, i, f.base, i, st.Size())
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">`+
			`<channel><title>%s</title><description>A feed served by make test-live.</description><language>en</language>`+
			`<itunes:author>%s</itunes:author><itunes:explicit>false</itunes:explicit>%s</channel></rss>`, f.Title(name), run, items.String())
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f, nil
}

// URL is the address of the feed named name.
func (f *loopbackFeed) URL(name string) string { return f.base + "/feed-" + name + ".xml" }

// Title is the channel title of the feed named name.
func (f *loopbackFeed) Title(name string) string { return f.run + " " + name }

// Fetched is every path Audiobookshelf asked for so far, in order.
func (f *loopbackFeed) Fetched() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.fetched...)
}
