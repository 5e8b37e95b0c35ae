package kit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A server under a base path, of a release before the bookmark routes: the
// gate cuts the base path before matching, asks /status under it, and names
// the version; a 404 elsewhere stays a plain 404.
func TestVersionGateUnderBasePath(t *testing.T) {
	statusAsked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/abs/status":
			statusAsked++
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"app":"audiobookshelf","serverVersion":"2.35.1","isInit":true}`)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "<pre>Cannot GET "+r.URL.Path+"</pre>")
		}
	}))
	defer srv.Close()
	d, err := NewDeps(Options{URL: srv.URL + "/abs", APIKey: "k", Timeout: 5 * time.Second, Backoff: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	text := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	_, err = d.Get(context.Background(), "bookmarks", func(ctx context.Context) (*http.Response, error) { return d.API.ListAllBookmarks(ctx) })
	if got := text(err); !strings.Contains(got, "Audiobookshelf 2.35.1 does not have GET /api/me/bookmarks, which came in Audiobookshelf 2.36.0") {
		t.Errorf("gated 404: %q", got)
	}
	if statusAsked != 1 {
		t.Errorf("/status asked %d times, want 1", statusAsked)
	}
	_, err = d.Get(context.Background(), "library l1", func(ctx context.Context) (*http.Response, error) { return d.API.GetLibrary(ctx, "l1") })
	if got := text(err); strings.Contains(got, "came in") || !strings.Contains(got, "404") {
		t.Errorf("ungated 404: %q", got)
	}
	if statusAsked != 1 {
		t.Errorf("/status asked for an ungated 404")
	}
}
