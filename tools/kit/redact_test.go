package kit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAnswersAreRedacted: an answer that echoes the Authorization header
// reaches nothing with the key in it, error or result.
func TestAnswersAreRedacted(t *testing.T) {
	const key = "key-0123456789abcdef"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte("bad token: " + r.Header.Get("Authorization")))
	}))
	defer ts.Close()
	d, err := NewDeps(Options{URL: ts.URL, APIKey: key, Backoff: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Send(context.Background(), false, func(ctx context.Context) (*http.Response, error) { return d.API.GetMe(ctx) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Body), key) || !strings.Contains(string(r.Body), "Bearer "+Redacted) {
		t.Errorf("body %q", r.Body)
	}
	text := StatusError(r, "x", false).Error()
	if strings.Contains(text, key) || !strings.Contains(text, Redacted) {
		t.Errorf("error %q", text)
	}
}
