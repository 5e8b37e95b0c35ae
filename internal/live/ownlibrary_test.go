package live

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// silentBook writes a silent MP3 of secs seconds at path (its folder made
// first): the audio of a book in a library of the test's own.
func silentBook(t *testing.T, ffmpeg, path, secs string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ffmpeg, "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono",
		"-t", secs, "-c:a", "libmp3lame", "-b:a", "8k", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg for %s: %v\n%s", path, err, out)
	}
}

// ownLibrary makes a book library named name on dir (the server runs as
// this machine's user and reads the folder where it is), scans it and
// waits for the scan. The library is deleted when the test ends, even on
// failure. a must be the root user's.
func ownLibrary(t *testing.T, a *abs, name, dir string) string {
	t.Helper()
	var lib struct{ ID string }
	if st := a.do("POST", "/api/libraries", map[string]any{"name": name, "mediaType": "book", "icon": "books",
		"folders": []map[string]any{{"fullPath": dir}}}, &lib); st != 200 || lib.ID == "" {
		t.Fatalf("creating the library %s: %d", name, st)
	}
	t.Cleanup(func() {
		if st := a.do("DELETE", "/api/libraries/"+lib.ID, nil, nil); st != 200 {
			t.Errorf("deleting the library %s (%s): %d", name, lib.ID, st)
		}
	})
	scanAndWait(t, a, lib.ID)
	return lib.ID
}

// liveWithFFmpeg is the start of a live test that writes books of its
// own: it skips outside make test-live, and answers the server, the root
// key, ffmpeg's path (failing the test without it) and a root client.
func liveWithFFmpeg(t *testing.T) (target *url.URL, key, ffmpeg string, a *abs) {
	t.Helper()
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live run is `make test-live` (it sets ABS_LIVE=1)")
	}
	target, key = liveServer(t)
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("the books' audio is made with ffmpeg, which is not on PATH")
	}
	return target, key, ffmpeg, &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 2 * time.Minute}}
}
