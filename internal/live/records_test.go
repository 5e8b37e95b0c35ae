package live

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveRecords: on a real Audiobookshelf, in a library of the run's own
// (three silent books, deleted at the end with everything in it):
//   - update_author sets a biography and an ASIN and answers with the
//     put-back, which gives them back as null; an image from a URL (served
//     on loopback) asks first and is then set;
//   - a rename onto another author's exact name is refused (it would be
//     a merge); merge_authors with keep carries the merged-away author's name and
//     biography onto the author kept, which keeps its id and its image;
//   - update_series renames a series, and its put-back gives the name back;
//     merge_series with keep gives the series kept the other one's name,
//     and a book's series keep their order;
//   - resolve_duplicate asks (declined: nothing changes; the question counts
//     what goes), then removes the copy from the library: the item is gone
//     (404), its file is still on disk, the copy kept is untouched.
func TestLiveRecords(t *testing.T) {
	target, key, ffmpeg, a := liveWithFFmpeg(t)
	run := fmt.Sprintf("rec%d", time.Now().UnixNano()%1_000_000_000)
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("book-%02d", i), fmt.Sprintf("book-%02d.mp3", i))
		silentBook(t, ffmpeg, f, "1")
		files = append(files, f)
	}
	lib := ownLibrary(t, a, "mcp-live-records-"+run, dir)
	var listing struct {
		Results []struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"results"`
	}
	a.get("/api/libraries/"+lib+"/items?limit=10&sort=media.metadata.title", &listing)
	if len(listing.Results) != 3 {
		t.Fatalf("the library holds %d items after its scan, want 3", len(listing.Results))
	}
	books := make([]string, 3)
	for _, r := range listing.Results {
		for i := range files {
			if strings.HasPrefix(files[i], r.Path) {
				books[i] = r.ID
			}
		}
	}
	x, y, s, tn := run+" Author X", run+" Author Y", run+" Series S", run+" Series T"
	patch := func(id string, metadata map[string]any) {
		t.Helper()
		if st := a.do("PATCH", "/api/items/"+id+"/media", map[string]any{"metadata": metadata}, nil); st != 200 {
			t.Fatalf("PATCH /api/items/%s/media: %d", id, st)
		}
	}
	patch(books[0], map[string]any{"title": run + " Dune", "authors": []map[string]any{{"name": x}}, "series": []map[string]any{{"name": s, "sequence": "1"}}})
	patch(books[1], map[string]any{"title": run + " Emma", "authors": []map[string]any{{"name": x}, {"name": y}},
		"series": []map[string]any{{"name": s, "sequence": "2"}, {"name": tn, "sequence": "7"}}})
	patch(books[2], map[string]any{"title": run + " Dune", "authors": []map[string]any{{"name": x}}})
	type ref struct{ ID, Name string }
	var item struct {
		Media struct {
			Metadata struct {
				Authors []ref `json:"authors"`
				Series  []ref `json:"series"`
			} `json:"metadata"`
		} `json:"media"`
	}
	a.get("/api/items/"+books[1], &item)
	ids := map[string]string{}
	for _, r := range append(item.Media.Metadata.Authors, item.Media.Metadata.Series...) {
		ids[r.Name] = r.ID
	}
	xID, yID, sID, tID := ids[x], ids[y], ids[s], ids[tn]
	if xID == "" || yID == "" || sID == "" || tID == "" {
		t.Fatalf("the run's authors and series: %v", ids)
	}
	type author struct {
		ID          string  `json:"id"`
		Name        string  `json:"name"`
		Description *string `json:"description"`
		ASIN        *string `json:"asin"`
		ImagePath   *string `json:"imagePath"`
	}
	getAuthor := func(id string) author {
		var au author
		a.get("/api/authors/"+id, &au)
		return au
	}
	bin, rec, spec, _ := curationBinary(t, target, key, false)

	// update_author: free, with its put-back.
	v, text, isErr := bin.call("update_author", map[string]any{"author_id": yID, "description": "Wrote " + run, "asin": "B0" + run[:8]})
	if isErr || v["put_back"] == nil {
		t.Fatalf("update_author: %s", text)
	}
	if au := getAuthor(yID); au.Description == nil || *au.Description != "Wrote "+run || au.ASIN == nil || *au.ASIN != "B0"+run[:8] {
		t.Fatalf("after update_author the author is %+v", au)
	}
	pb := v["put_back"].(map[string]any)
	if _, text, isErr := bin.call(pb["tool"].(string), pb["arguments"].(map[string]any)); isErr {
		t.Fatalf("the put-back: %s", text)
	}
	if au := getAuthor(yID); au.Description != nil || au.ASIN != nil {
		t.Errorf("after the put-back the author is %+v, want description and ASIN null as before", au)
	}

	// An image from a URL asks first.
	img := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(coverJPEG())
	}))
	defer img.Close()
	n, _ := bin.last()
	v, text, isErr = bin.call("update_author", map[string]any{"author_id": yID, "image_url": img.URL + "/y.jpg"})
	if m, q := bin.last(); isErr || m != n+1 || !strings.Contains(q, "give author "+namedIn(y, yID)+" an image") || v["not_put_back"] == nil {
		t.Fatalf("update_author with an image: asked %d, %q: %s", m-n, q, text)
	}
	if au := getAuthor(yID); au.ImagePath == nil || *au.ImagePath == "" {
		t.Errorf("after the image the author is %+v", au)
	}

	// A rename onto X's exact name would be Audiobookshelf's merge: refused.
	if _, text, isErr := bin.call("update_author", map[string]any{"author_id": yID, "name": x}); !isErr || !strings.Contains(text, "merge_authors") {
		t.Errorf("update_author onto another author's name: want a refusal pointing to merge_authors: %s", text)
	}
	if au := getAuthor(yID); au.Name != y {
		t.Errorf("after the refused rename the author is named %q", au.Name)
	}

	// merge_authors with keep: X's name and biography onto Y, which keeps
	// its id and image.
	if st := a.do("PATCH", "/api/authors/"+xID, map[string]any{"description": "X of " + run}, nil); st != 200 {
		t.Fatalf("PATCH author X: %d", st)
	}
	v, text, isErr = bin.call("merge_authors", map[string]any{"author_id": xID, "into_author_id": yID, "keep": []string{"name", "description"}})
	if isErr || v["kept_author_id"] != yID {
		t.Fatalf("merge_authors with keep: %s", text)
	}
	if au := getAuthor(yID); au.Name != x || au.Description == nil || *au.Description != "X of "+run || au.ImagePath == nil {
		t.Errorf("the author kept is %+v, want X's name and biography and its own image", au)
	}
	if st := a.do("GET", "/api/authors/"+xID, nil, nil); st != 404 {
		t.Errorf("the merged author: GET %d, want 404", st)
	}

	// update_series and its put-back.
	v, text, isErr = bin.call("update_series", map[string]any{"series_id": tID, "name": tn + " renamed"})
	if isErr || v["put_back"] == nil {
		t.Fatalf("update_series: %s", text)
	}
	pb = v["put_back"].(map[string]any)
	if _, text, isErr := bin.call(pb["tool"].(string), pb["arguments"].(map[string]any)); isErr {
		t.Fatalf("the series put-back: %s", text)
	}
	var se struct{ Name string }
	a.get("/api/series/"+tID, &se)
	if se.Name != tn {
		t.Errorf("after the put-back the series is named %q, want %q", se.Name, tn)
	}
	// merge_series with keep: T takes S's name, and book 0's series keep
	// their order (U after S becomes U after T; book 2 keeps U in between).
	u := run + " Series U"
	patch(books[0], map[string]any{"series": []map[string]any{{"name": s, "sequence": "1"}, {"name": u, "sequence": "3"}}})
	patch(books[2], map[string]any{"series": []map[string]any{{"name": u, "sequence": "4"}}})
	v, text, isErr = bin.call("merge_series", map[string]any{"series_id": sID, "into_series_id": tID, "keep": []string{"name"}})
	if isErr || v["kept_series_id"] != tID {
		t.Fatalf("merge_series with keep: %s", text)
	}
	a.get("/api/series/"+tID, &se)
	if se.Name != s {
		t.Errorf("the series kept is named %q, want %q", se.Name, s)
	}
	var b0 struct {
		Media struct {
			Metadata struct {
				Series []struct {
					ID, Name string
					Sequence *string
				} `json:"series"`
			} `json:"metadata"`
		} `json:"media"`
	}
	a.get("/api/items/"+books[0], &b0)
	if got := b0.Media.Metadata.Series; len(got) != 2 || got[0].ID != tID || got[1].Name != u || got[1].Sequence == nil || *got[1].Sequence != "3" {
		t.Errorf("book 0's series after the merge: %+v, want %s then %q at 3", got, tID, u)
	}
	if fmt.Sprint(v["order_kept_on"]) != "1" {
		t.Errorf("merge_series: order kept on %v books, want 1", v["order_kept_on"])
	}

	// resolve_duplicate: declined, then approved.
	bin.setDecline(true)
	n, _ = bin.last()
	_, text, isErr = bin.call("resolve_duplicate", map[string]any{"keep_item_id": books[0], "remove_item_id": books[2]})
	m, q := bin.last()
	if !isErr || m != n+1 || !strings.Contains(text, "Nothing was changed") {
		t.Fatalf("resolve_duplicate declined: asked %d: %s", m-n, text)
	}
	for _, w := range []string{"remove book " + namedIn(run+" Dune", books[2]) + " from its library, keeping book " + namedIn(run+" Dune", books[0]),
		"Its files are not deleted", "bookmarks: 0", "collections holding it: 0", "next scan of the library adds it back"} {
		if !strings.Contains(q, w) {
			t.Errorf("the question lacks %q:\n%s", w, q)
		}
	}
	if st := a.do("GET", "/api/items/"+books[2], nil, nil); st != 200 {
		t.Fatalf("declined, the copy answers %d", st)
	}
	bin.setDecline(false)
	v, text, isErr = bin.call("resolve_duplicate", map[string]any{"keep_item_id": books[0], "remove_item_id": books[2]})
	if isErr || v["removed"] != true || v["files_deleted"] != false {
		t.Fatalf("resolve_duplicate: %s", text)
	}
	if st := a.do("GET", "/api/items/"+books[2], nil, nil); st != 404 {
		t.Errorf("the copy removed answers %d, want 404", st)
	}
	if st := a.do("GET", "/api/items/"+books[0], nil, nil); st != 200 {
		t.Errorf("the copy kept answers %d, want 200", st)
	}
	if _, err := os.Stat(files[2]); err != nil {
		t.Errorf("the file of the copy removed: %v, want it still on disk", err)
	}
	// Every answer of the new routes, read through the recording proxy,
	// is held to spec/.
	report(t, spec, rec.all(), map[string]bool{"updateAuthor": true, "uploadAuthorImage": true, "updateSeries": true, "listLibraryAuthors": true,
		"listLibraryCollections": true, "listPlaylists": true, "deleteLibraryItem": true, "batchUpdateLibraryItems": true})
}
