package bookmarks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A bookmark that another client created with its time as a string must
// not break decoding the list it is in (GET /api/me, the bookmark lists):
// it decodes, and shows as stored as text.
func TestBookmarkTimeDecodesNumberOrString(t *testing.T) {
	var list struct {
		Bookmarks []absdata.Bookmark `json:"bookmarks"`
	}
	body := `{"bookmarks":[{"libraryItemId":"li_1","time":7.5,"title":"a","createdAt":1},{"libraryItemId":"li_1","time":"8 s","title":"b","createdAt":2}]}`
	if err := absdata.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if b, ok := bookmarkOf(list.Bookmarks[0]); !ok || b.TimeS != 7.5 {
		t.Errorf("first = %+v, %v; want 7.5", b, ok)
	}
	if _, ok := bookmarkOf(list.Bookmarks[1]); ok {
		t.Error("a time stored as text decoded as a number")
	}
}

// TestWriteAnswerNotAudiobookshelf: a write answered by something that is
// not Audiobookshelf (a 200 with [], null, text that is not JSON, an object
// without the fields, an empty 204, a 200 other than "OK") is an error that
// says the change may or may not have been made and how to look; the real
// answer is believed.
func TestWriteAnswerNotAudiobookshelf(t *testing.T) {
	var status int
	var body, ctype string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			// The rename reads the old title first; that read is
			// Audiobookshelf's, the write's answer is the one under test.
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"bookmarks":[{"libraryItemId":"li1","time":12,"title":"old","createdAt":1}]}`))
			return
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	// A key that is no part of the answers (answers are redacted of it).
	d, err := kit.NewDeps(kit.Options{URL: ts.URL, APIKey: "answers-test-key", Timeout: 5 * time.Second, Backoff: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rename := func() string {
		plan, err := PlanUpdateBookmark(ctx, d, toolargs.UpdateBookmark{LibraryItemID: "li1", Time: 12, Title: "new"})
		if err != nil {
			return err.Error()
		}
		res, err := plan.Execute(ctx)
		if err == nil {
			return "ok: " + resultText(res)
		}
		return err.Error()
	}
	deleteColl := func() string {
		_, err := d.Mutate(ctx, "collection c1", func(ctx context.Context) (*http.Response, error) { return d.API.DeleteCollection(ctx, "c1") })
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	for _, c := range []struct {
		status       int
		ctype, body  string
		call         func() string
		tool, detail string
	}{
		{200, "application/json", `[]`, rename, "list_bookmarks", "a JSON array"},
		{200, "application/json", `null`, rename, "list_bookmarks", "JSON null"},
		{200, "application/json", `{"ok":`, rename, "list_bookmarks", "not JSON"},
		{200, "text/plain", `OK`, rename, "list_bookmarks", "not JSON"},
		{200, "application/json", `{"time":12,"title":"new"}`, rename, "list_bookmarks", "without libraryItemId"},
		{204, "", ``, rename, "list_bookmarks", "204 and an empty body"},
		{200, "application/json", `{}`, deleteColl, "get_collection", `200 and "{}"`},
		{204, "", ``, deleteColl, "get_collection", "204 and an empty body"},
		{200, "text/plain", ``, deleteColl, "get_collection", "200 and an empty body"},
	} {
		status, ctype, body = c.status, c.ctype, c.body
		got := c.call()
		if strings.HasPrefix(got, "ok") || !strings.Contains(got, "may or may not have been made") || !strings.Contains(got, "look with "+c.tool) || !strings.Contains(got, c.detail) {
			t.Errorf("%d %q: %s", c.status, c.body, got)
		}
	}
	// Audiobookshelf's own answers are believed.
	status, ctype, body = 200, "application/json", `{"libraryItemId":"li1","time":12,"title":"new","createdAt":1}`
	if got := rename(); !strings.HasPrefix(got, "ok") || !strings.Contains(got, `"updated":true`) {
		t.Errorf("Audiobookshelf's answer to the rename: %s", got)
	}
	status, ctype, body = 200, "text/plain; charset=utf-8", "OK"
	if got := deleteColl(); got != "ok" {
		t.Errorf("Audiobookshelf's answer to the delete: %s", got)
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
