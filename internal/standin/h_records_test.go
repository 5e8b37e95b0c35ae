package standin

import (
	"strings"
	"testing"
)

// TestSeriesUpdate: PATCH /api/series/:id as SeriesController.update
// answers on 2.36: the update permission, name and description read only
// as strings (null ignored: 400 when nothing else is there), no merge
// with a series of the same name, the series answered, updatedAt moved
// only by a change.
func TestSeriesUpdate(t *testing.T) {
	s := start(t)
	refuses(t, s, "PATCH", "/api/series/", "", "a refused update", []refusal{
		{"no update permission", SeriesExpanse, ListenerAPIKey, map[string]any{"name": "X"}, 403, "Forbidden"},
		{"unknown series", "nope", "", map[string]any{"name": "X"}, 404, "Not Found"},
		{"null description only", SeriesExpanse, "", map[string]any{"description": nil}, 400, "No valid fields to update"},
		{"no field", SeriesExpanse, "", map[string]any{"asin": "B0"}, 400, "No valid fields to update"},
	})
	r := call(t, s, "PATCH", "/api/series/"+SeriesExpanse, map[string]any{"name": "Discworld", "description": "Space."}, "")
	if r.status != 200 || !strings.Contains(r.body, `"name":"Discworld"`) || !strings.Contains(r.body, `"description":"Space."`) {
		t.Fatalf("the update: %d %s", r.status, r.body)
	}
	n := 0
	for _, se := range s.Snapshot().Series {
		if se.Name == "Discworld" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d series named Discworld after the rename, want 2 (no merge)", n)
	}
}

// TestAuthorImage: POST /api/authors/:id/image as AuthorController.
// uploadImage answers on 2.36: update and upload permissions, a url of
// http: or https: only, {author} with its new imagePath.
func TestAuthorImage(t *testing.T) {
	s := start(t)
	refuses(t, s, "POST", "/api/authors/", "/image", "a refused image", []refusal{
		{"no update permission", AuthorPratchett, ListenerAPIKey, map[string]any{"url": "https://x.example/a.jpg"}, 403, "Forbidden"},
		{"unknown author", "nope", "", map[string]any{"url": "https://x.example/a.jpg"}, 404, "Not Found"},
		{"no url", AuthorPratchett, "", map[string]any{}, 400, "Invalid request payload. 'url' not in request body"},
		{"not http", AuthorPratchett, "", map[string]any{"url": "ftp://x.example/a.jpg"}, 400, `Invalid request payload. Invalid url "ftp://x.example/a.jpg"`},
	})
	r := call(t, s, "POST", "/api/authors/"+AuthorPratchett+"/image", map[string]any{"url": "https://x.example/a.jpg"}, "")
	if r.status != 200 || !strings.Contains(r.body, `"imagePath":"/metadata/authors/`+AuthorPratchett+`.jpg"`) {
		t.Errorf("the image: %d %s", r.status, r.body)
	}
}

// refusal is a request the stand-in refuses: to record id, with body,
// as the user of key ("" root), answered status and text.
type refusal struct {
	name, id, key string
	body          any
	status        int
	text          string
}

// refuses sends each refusal by method to before+id+after, checks its
// answer, and that none of them (what) changed the data.
func refuses(t *testing.T, s *Server, method, before, after, what string, cases []refusal) {
	t.Helper()
	data := string(s.SnapshotJSON())
	for _, c := range cases {
		r := call(t, s, method, before+c.id+after, c.body, c.key)
		if r.status != c.status || strings.TrimSpace(r.body) != c.text {
			t.Errorf("%s: %d %q, want %d %q", c.name, r.status, r.body, c.status, c.text)
		}
	}
	if string(s.SnapshotJSON()) != data {
		t.Fatal(what + " changed the data")
	}
}
