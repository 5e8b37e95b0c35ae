package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLiveUpkeep runs the upkeep toolset through the built binary against a
// real Audiobookshelf: a library scan with progress notifications, a
// metadata edit put back and compared field by field, a cover read as an
// image, and the question before an overriding match (declined: metadata
// providers are on the internet, which this run does not reach).
// Everything it changes it gives back.
func TestLiveUpkeep(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live run is `make test-live` (it sets ABS_LIVE=1), with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY of a throwaway Audiobookshelf")
	}
	target, key := liveServer(t)
	proxyURL, rec, _, a := specProxy(t, target, key)
	// Cover uploads and removals are no tool's: they go straight to the
	// server, past the spec's proxy.
	direct := &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 60 * time.Second}}

	bookLib := os.Getenv("ABS_BOOK_LIBRARY")
	if bookLib == "" {
		bookLib = a.libraries()["book"]
	}
	if bookLib == "" {
		t.Fatal("the server needs a book library")
	}
	var books struct {
		Results []struct {
			ID    string
			Media struct {
				CoverPath *string `json:"coverPath"`
				Metadata  struct {
					Title      string
					SeriesName string `json:"seriesName"` // the listing is minified
				}
			}
		}
	}
	a.get("/api/libraries/"+bookLib+"/items?limit=100", &books)
	// A book in a series without a cover, claimed: no other run changes it
	// meanwhile.
	book := claimBooks(direct, bookLib, 1, func(it map[string]any) bool {
		return at(it, "media", "coverPath") == nil && !noSeries(it)
	})[0]
	t.Logf("book library %s, book %s", bookLib, book)

	var asked atomic.Int32
	var pmu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	cs := connectUpkeep(t, proxyURL, key, &asked, func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		pmu.Lock()
		progress = append(progress, r.Params)
		pmu.Unlock()
	})
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
	}
	for _, n := range []string{"scan_library", "update_item_metadata", "match_library_item", "get_item_cover"} {
		if !slices.Contains(names, n) {
			t.Fatalf("AUDIOBOOKSHELF_TOOLSETS=default,upkeep does not list %s", n)
		}
	}
	call := func(params *mcp.CallToolParams) (*mcp.CallToolResult, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", params.Name, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return res, text
	}
	jsonOf := func(name, text string) map[string]any {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s: not JSON: %s", name, text)
		}
		return v
	}

	// 1. A scan, with a progress token. Another run may be scanning the
	// same library: then wait for it and try again.
	var scan map[string]any
	for try := 0; ; try++ {
		params := &mcp.CallToolParams{Name: "scan_library", Arguments: map[string]any{"library_id": bookLib}}
		params.SetProgressToken("live-scan")
		res, text := call(params)
		if res.IsError && strings.Contains(text, "already running") && try < 20 {
			time.Sleep(3 * time.Second)
			continue
		}
		if res.IsError {
			t.Fatalf("scan_library: %s", text)
		}
		scan = jsonOf("scan_library", text)
		break
	}
	t.Logf("scan_library: %v", scan)
	if scan["finished"] != true || scan["outcome"] != "completed" || scan["added"] == nil || scan["updated"] == nil || scan["missing"] == nil {
		t.Errorf("scan_library: want a completed scan with Audiobookshelf's counts, got %v", scan)
	}
	for i := 0; i < 50; i++ { // notifications may arrive after the result
		pmu.Lock()
		n := len(progress)
		last := ""
		if n > 0 {
			last = progress[n-1].Message
		}
		pmu.Unlock()
		if strings.Contains(last, "completed") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pmu.Lock()
	for _, p := range progress {
		t.Logf("progress %v/%v %q", p.Progress, p.Total, p.Message)
	}
	if len(progress) < 2 {
		t.Errorf("%d progress notifications, want at least the start and the end", len(progress))
	}
	pmu.Unlock()

	// 2. A metadata edit, put back, compared field by field with the
	// record before.
	var before map[string]any
	a.get("/api/items/"+book, &before)
	restore := restoreBody(before)
	t.Cleanup(func() {
		var now map[string]any
		a.get("/api/items/"+book, &now)
		if fmt.Sprint(now["media"]) != fmt.Sprint(before["media"]) {
			t.Logf("the put-back did not restore %s; restoring it directly", book)
			direct.do("PATCH", "/api/items/"+book+"/media", restore, nil)
		}
	})
	run := fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1_000_000)
	meta := at(before, "media", "metadata").(map[string]any)
	var authors []string
	for _, au := range meta["authors"].([]any) {
		authors = append(authors, au.(map[string]any)["name"].(string))
	}
	seriesName := meta["series"].([]any)[0].(map[string]any)["name"].(string)
	fields := map[string]any{
		"title": run + " title", "subtitle": run + " subtitle", "authors": append(slices.Clone(authors), run+" Coauthor"),
		"narrators": []string{run + " Narrator"}, "series": []map[string]any{{"name": seriesName, "sequence": "99"}},
		"genres": []string{run + " genre"}, "tags": []string{run + "-tag"}, "description": run + " description", "publish_year": "1901",
	}
	res, text := call(&mcp.CallToolParams{Name: "update_item_metadata", Arguments: map[string]any{"library_item_id": book, "fields": fields}})
	if res.IsError {
		t.Fatalf("update_item_metadata: %s", text)
	}
	upd := jsonOf("update_item_metadata", text)
	t.Logf("update_item_metadata changed %v", upd["changed"])
	var mid map[string]any
	a.get("/api/items/"+book, &mid)
	if at(mid, "media", "metadata", "title") != run+" title" || fmt.Sprint(at(mid, "media", "tags")) != "["+run+"-tag]" {
		t.Errorf("the edit is not on the server: %v", at(mid, "media"))
	}
	pb, _ := upd["put_back"].(map[string]any)
	if pb == nil {
		t.Fatalf("no put_back in %s", text)
	}
	res, text = call(&mcp.CallToolParams{Name: pb["tool"].(string), Arguments: pb["arguments"]})
	if res.IsError {
		t.Fatalf("put-back: %s", text)
	}
	var after map[string]any
	a.get("/api/items/"+book, &after)
	diffs := compareRaw(t, "item", before, after)
	t.Logf("put-back: the raw record compared field by field, %d field(s) differ", diffs)
	var au struct {
		Authors []struct{ Name string } `json:"authors"`
	}
	a.get("/api/libraries/"+bookLib+"/authors", &au)
	for _, x := range au.Authors {
		if strings.HasPrefix(x.Name, run) {
			t.Errorf("author %q outlived the put-back", x.Name)
		}
	}

	// 3. The cover as an image: none at first, then one uploaded for the
	// run and removed after (coverPath back to null).
	res, text = call(&mcp.CallToolParams{Name: "get_item_cover", Arguments: map[string]any{"library_item_id": book}})
	if !res.IsError || !strings.Contains(text, "no cover") {
		t.Errorf("a book without a cover: %s", text)
	}
	uploadCover(t, direct, book)
	t.Cleanup(func() {
		direct.do("DELETE", "/api/items/"+book+"/cover", nil, nil)
		var now map[string]any
		a.get("/api/items/"+book, &now)
		if at(now, "media", "coverPath") != nil {
			t.Errorf("the cover of %s is still there: %v", book, at(now, "media", "coverPath"))
		}
	})
	res, text = call(&mcp.CallToolParams{Name: "get_item_cover", Arguments: map[string]any{"library_item_id": book, "width": 200}})
	if res.IsError {
		t.Fatalf("get_item_cover: %s", text)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/jpeg" || len(img.Data) < 3 || img.Data[0] != 0xFF || img.Data[1] != 0xD8 {
		t.Fatalf("get_item_cover: first content %T, not a JPEG image", res.Content[0])
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != 200 {
		t.Errorf("the cover decodes to %v (%v), want width 200", cfg, err)
	}
	t.Logf("get_item_cover: %d bytes of JPEG, %dx%d; %s", len(img.Data), cfg.Width, cfg.Height, text)

	// 4. match_library_item: an overriding match asks first; the answer
	// here is decline, so no provider is asked (they are on the internet).
	before2 := asked.Load()
	res, text = call(&mcp.CallToolParams{Name: "match_library_item", Arguments: map[string]any{"library_item_id": book, "override": true}})
	if asked.Load() != before2+1 || !res.IsError || !strings.Contains(text, "Nothing was changed") {
		t.Errorf("an overriding match: asked %d, %s", asked.Load()-before2, text)
	}
	for _, r := range rec.all() {
		if r.Operation == "matchLibraryItem" {
			t.Errorf("a match reached Audiobookshelf: %s", r)
		}
	}
	t.Log("match_library_item: checked here, the question before an overriding match (declined, nothing sent); Audiobookshelf's own providers (Google Books, Audible, ...) are on the internet, which this run does not reach, so a match itself runs in TestLivePutBackEveryWrite, through a custom metadata provider served on 127.0.0.1.")

	// Every answer the proxy saw against the spec.
	ops := map[string]int{}
	for _, r := range rec.all() {
		if r.Err != nil {
			t.Errorf("does not conform: %s", r)
		}
		ops[r.Operation]++
	}
	for _, op := range []string{"scanLibrary", "listTasks", "getLoggerData", "updateLibraryItemMedia", "getLibraryItemCover"} {
		if ops[op] == 0 {
			t.Errorf("%s was not reached", op)
		}
	}
	t.Logf("answers checked against the spec, by operation: %v", ops)
}

// at walks decoded JSON by object keys.
func at(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// compareRaw compares two raw records field by field at every depth,
// ignoring what Audiobookshelf moves on every save, and counts the fields
// that differ (each is an error).
func compareRaw(t *testing.T, path string, before, after any) int {
	t.Helper()
	bm, okb := before.(map[string]any)
	am, oka := after.(map[string]any)
	if okb && oka {
		keys := map[string]bool{}
		for k := range bm {
			keys[k] = true
		}
		for k := range am {
			keys[k] = true
		}
		n := 0
		for k := range keys {
			if k != "updatedAt" && k != "lastUpdate" {
				n += compareRaw(t, path+"."+k, bm[k], am[k])
			}
		}
		return n
	}
	bl, okb := before.([]any)
	al, oka := after.([]any)
	if okb && oka && len(bl) == len(al) {
		n := 0
		for i := range bl {
			n += compareRaw(t, fmt.Sprintf("%s[%d]", path, i), bl[i], al[i])
		}
		return n
	}
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	if string(a) != string(b) {
		t.Errorf("%s is %s after the put-back, was %s", path, a, b)
		return 1
	}
	return 0
}

// restoreBody is the PATCH body that sets a book's edited fields back to
// those of raw (the safety net when a put-back fails).
func restoreBody(raw map[string]any) map[string]any {
	meta := at(raw, "media", "metadata").(map[string]any)
	var authors, series []map[string]any
	for _, a := range meta["authors"].([]any) {
		authors = append(authors, map[string]any{"name": a.(map[string]any)["name"]})
	}
	for _, s := range meta["series"].([]any) {
		m := s.(map[string]any)
		series = append(series, map[string]any{"name": m["name"], "sequence": m["sequence"]})
	}
	return map[string]any{
		"metadata": map[string]any{"title": meta["title"], "subtitle": meta["subtitle"], "description": meta["description"],
			"publishedYear": meta["publishedYear"], "narrators": meta["narrators"], "genres": meta["genres"], "authors": authors, "series": series},
		"tags": at(raw, "media", "tags"),
	}
}

// uploadCover gives a book a cover for the run (POST /api/items/{id}/cover,
// multipart), a plain 300x450 JPEG.
func uploadCover(t *testing.T, direct *abs, id string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 300, 450))
	for y := 0; y < 450; y++ {
		for x := 0; x < 300; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var jb bytes.Buffer
	jpeg.Encode(&jb, img, &jpeg.Options{Quality: 90})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("cover", "cover.jpg")
	fw.Write(jb.Bytes())
	mw.Close()
	req, _ := http.NewRequest("POST", direct.base+"/api/items/"+id+"/cover", &body)
	req.Header.Set("Authorization", "Bearer "+direct.key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := direct.hc.Do(req)
	if err != nil {
		t.Fatalf("uploading a cover: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("uploading a cover: %d", resp.StatusCode)
	}
}

// connectUpkeep starts the binary with the upkeep toolset on; guarded
// tools ask and this client declines, counting the questions.
func connectUpkeep(t *testing.T, base, key string, asked *atomic.Int32, progress func(context.Context, *mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	return connectBinary(t, base, key, []string{"AUDIOBOOKSHELF_TOOLSETS=default,upkeep"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			// The put-back of the metadata edit takes the run's co-author
			// off its one book, which deletes it: that is approved. Every
			// other question (an overriding match) is declined.
			if strings.Contains(r.Params.Message, "Audiobookshelf deletes an author or series left with no book") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ProgressNotificationHandler: progress,
	})
}
