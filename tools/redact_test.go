package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	r, res := d.send(context.Background(), false, func(ctx context.Context) (*http.Response, error) { return d.API.GetMe(ctx) })
	if res != nil {
		t.Fatal(res)
	}
	if strings.Contains(string(r.Body), key) || !strings.Contains(string(r.Body), "Bearer "+Redacted) {
		t.Errorf("body %q", r.Body)
	}
	text := statusError(r, "x", false).Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, key) || !strings.Contains(text, Redacted) {
		t.Errorf("error %q", text)
	}
}
