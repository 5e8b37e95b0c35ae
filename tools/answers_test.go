package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

// TestWriteAnswersAreTheSpecs keeps writeAnswers equal to
// spec/audiobookshelf.yaml: every write operation has its entry, found by
// its method and path, with the 200 the spec gives it (the plain "OK", or
// the required fields of its schema).
func TestWriteAnswersAreTheSpecs(t *testing.T) {
	b, err := os.ReadFile("../spec/audiobookshelf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type resp struct {
		Ref     string `yaml:"$ref"`
		Content map[string]struct {
			Schema struct {
				Ref string `yaml:"$ref"`
			} `yaml:"schema"`
		} `yaml:"content"`
	}
	var spec struct {
		Paths map[string]map[string]struct {
			OperationID string          `yaml:"operationId"`
			Responses   map[string]resp `yaml:"responses"`
		} `yaml:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required []string `yaml:"required"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	seen := 0
	for path, ops := range spec.Paths {
		for method, op := range ops {
			method = strings.ToUpper(method)
			if method != http.MethodPost && method != http.MethodPatch && method != http.MethodDelete && method != http.MethodPut {
				continue
			}
			seen++
			sample := "/base" + param.ReplaceAllString(path, "x1")
			w := answerFor(method, sample)
			if w == nil || w.op != op.OperationID {
				t.Errorf("%s %s (%s): writeAnswers has no entry for it (found %v)", method, path, op.OperationID, w)
				continue
			}
			ok, found := op.Responses["200"]
			if !found {
				t.Errorf("%s: the spec gives no 200", op.OperationID)
				continue
			}
			if plain := ok.Ref == "#/components/responses/PlainOK"; plain != w.plainOK {
				t.Errorf("%s: the spec's 200 is plain OK: %v, writeAnswers says %v", op.OperationID, plain, w.plainOK)
			}
			if !w.plainOK {
				ref := ok.Content["application/json"].Schema.Ref
				req := spec.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Required
				// A quick match answers {warning} or {updated, libraryItem}:
				// no field is common to both, so nothing is required.
				if (len(req) == 0 && op.OperationID != "matchLibraryItem") || !slices.Equal(req, w.required) {
					t.Errorf("%s: the spec's %s requires %v, writeAnswers %v", op.OperationID, ref, req, w.required)
				}
			}
		}
	}
	if seen != len(writeAnswers) {
		t.Errorf("the spec has %d write operations, writeAnswers %d entries", seen, len(writeAnswers))
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
	d, err := NewDeps(Options{URL: ts.URL, APIKey: "answers-test-key", Timeout: 5 * time.Second, Backoff: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rename := func() string {
		res, err := UpdateBookmark(ctx, d, toolargs.UpdateBookmark{LibraryItemID: "li1", Time: 12, Title: "new"})
		if err == nil {
			return "ok: " + resultText(res)
		}
		return err.Error()
	}
	deleteColl := func() string {
		_, err := d.mutate(ctx, "collection c1", func(ctx context.Context) (*http.Response, error) { return d.API.DeleteCollection(ctx, "c1") })
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

// resultText is the text of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
