package live

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/auditscore"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// messyDurationScale divides the messy library's durations for the audio
// files written: its books last 7 to 16 hours, which would be 2 GB of
// audio; a hundredth of each keeps every ratio between two books (what
// audit_duplicates compares: within 5 % of the longer) in 20 MB.
const messyDurationScale = 100

// TestLiveMessyAudits writes the stand-in's messy library
// (standin.MessyData) onto a real Audiobookshelf and holds the audits
// (the five tools, audit_library's other book audits alone, and the sweep
// of them all) to what was planted there, counted as TestAuditsPrecisionRecall counts
// them on the stand-in (internal/auditscore): a book library of the run's
// own on a folder of its own, one folder per book with an audio file of
// the book's duration (a hundredth of it; the whole of it for
// standin.MessyUnscaled), or a PDF alone for the book with no audio, and
// a cover where the book has one, scanned; each book's metadata, tags and chapters written by a
// metadata patch (PATCH /api/items/:id/media); the book whose files are
// missing has its folder deleted and the library scanned again. The
// planted problems' ids are the stand-in's: they are mapped to the real
// ones by the book's folder, the author's and the series' name. The
// authors the stand-in gives an image get one (giveAuthorsImages). Each
// audit, called through the binary (its requests through the recording
// proxy, each answer checked against spec/), must find every planted
// problem and nothing else: precision and recall 1.00. The library is
// deleted at the end, even when a step fails; the server's other
// libraries are not touched.
func TestLiveMessyAudits(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live run is `make test-live` (it sets ABS_LIVE=1)")
	}
	target, key := liveServer(t)
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("the messy library's audio is made with ffmpeg, which is not on PATH")
	}
	a := &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 2 * time.Minute}}
	data, messy := standin.MessyData()
	authorName, seriesName := map[string]string{}, map[string]string{}
	for _, au := range data.Authors {
		if au.LibraryID == standin.LibraryMessyID {
			authorName[au.ID] = au.Name
		}
	}
	for _, s := range data.Series {
		if s.LibraryID == standin.LibraryMessyID {
			seriesName[s.ID] = s.Name
		}
	}
	var books []standin.LibraryItem
	for _, it := range data.Items {
		if it.LibraryID == standin.LibraryMessyID {
			books = append(books, it)
		}
	}

	// One folder per book, an audio file and a cover in it. The server
	// runs as this machine's user and reads the folder where it is.
	dir := t.TempDir()
	cover := coverJPEG()
	for _, b := range books {
		folder := filepath.Join(dir, b.RelPath)
		writeMessyBook(t, ffmpeg, folder, b)
		if b.Book.CoverPath != "" {
			if err := os.WriteFile(filepath.Join(folder, "cover.jpg"), messyCoverJPEG(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	run := fmt.Sprintf("mcp-live-messy-%d", time.Now().UnixNano())
	lib := struct{ ID string }{ownLibrary(t, a, run, dir)}

	// The books as Audiobookshelf scanned them, by folder.
	var listing struct {
		Total   int `json:"total"`
		Results []struct {
			ID      string `json:"id"`
			RelPath string `json:"relPath"`
			Media   struct {
				Duration float64 `json:"duration"`
			} `json:"media"`
		} `json:"results"`
	}
	a.get("/api/libraries/"+lib.ID+"/items?limit=200", &listing)
	if listing.Total != len(books) {
		t.Fatalf("the library holds %d items after its scan; %d folders were written", listing.Total, len(books))
	}
	to := map[string]string{}
	duration := map[string]float64{}
	for _, r := range listing.Results {
		duration[r.RelPath] = r.Media.Duration
		for _, b := range books {
			if b.RelPath == r.RelPath {
				to[b.ID] = r.ID
			}
		}
	}

	// The messy metadata, by one patch per book.
	for _, b := range books {
		id := to[b.ID]
		if id == "" {
			t.Fatalf("no item was scanned from the folder %s", b.RelPath)
		}
		bk := b.Book
		// An empty list, not null, for a book with no author: the patch
		// then takes the scanned one off too.
		authors, series := []map[string]any{}, []map[string]any{}
		for _, au := range bk.AuthorIDs {
			authors = append(authors, map[string]any{"name": authorName[au]})
		}
		for _, s := range bk.Series {
			var seq any
			if s.Sequence != "" {
				seq = s.Sequence
			}
			series = append(series, map[string]any{"name": seriesName[s.SeriesID], "sequence": seq})
		}
		orNull := func(s string) any {
			if s == "" {
				return nil
			}
			return s
		}
		chapters := []map[string]any{}
		if n := len(bk.Chapters); n > 0 {
			d := duration[b.RelPath]
			for c, ch := range bk.Chapters {
				chapters = append(chapters, map[string]any{"id": c, "start": d * float64(c) / float64(n), "end": d * float64(c+1) / float64(n), "title": ch.Title})
			}
		}
		body := map[string]any{
			"metadata": map[string]any{"title": bk.Title, "subtitle": orNull(bk.Subtitle), "authors": authors, "narrators": bk.Narrators,
				"series": series, "genres": bk.Genres, "publishedYear": orNull(bk.PublishedYear), "publisher": orNull(bk.Publisher),
				"description": orNull(bk.Description), "isbn": orNull(bk.ISBN), "asin": orNull(bk.ASIN), "language": orNull(bk.Language)},
			"tags":     bk.Tags,
			"chapters": chapters,
		}
		if st := a.do("PATCH", "/api/items/"+id+"/media", body, nil); st != 200 {
			t.Fatalf("PATCH /api/items/%s/media (%s): %d", id, b.RelPath, st)
		}
	}

	// A book whose files are gone: its folder deleted, the library scanned
	// again.
	var gone []string
	for _, b := range books {
		if b.IsMissing {
			if err := os.RemoveAll(filepath.Join(dir, b.RelPath)); err != nil {
				t.Fatal(err)
			}
			gone = append(gone, to[b.ID])
		}
	}
	if len(gone) > 0 {
		scanAndWait(t, a, lib.ID)
		for _, id := range gone {
			var it struct {
				IsMissing bool `json:"isMissing"`
			}
			a.get("/api/items/"+id, &it)
			if !it.IsMissing {
				t.Fatalf("item %s is not missing after its folder was deleted and the library scanned", id)
			}
		}
	}

	// Authors and series by name, read once every patch is in (the filter
	// data Audiobookshelf keeps for 30 minutes once read).
	var fd struct {
		Authors []struct{ ID, Name string }
		Series  []struct{ ID, Name string }
	}
	a.get("/api/libraries/"+lib.ID+"/filterdata", &fd)
	for id, name := range authorName {
		for _, au := range fd.Authors {
			if au.Name == name {
				to[id] = au.ID
			}
		}
		if to[id] == "" {
			t.Errorf("no author %q in the library's filter data", name)
		}
	}
	for id, name := range seriesName {
		for _, s := range fd.Series {
			if s.Name == name {
				to[id] = s.ID
			}
		}
		if to[id] == "" {
			t.Errorf("no series %q in the library's filter data", name)
		}
	}
	live := auditscore.Translate(messy, to)
	giveAuthorsImages(t, a, data, to, cover)

	// The audits, through the binary and the recording proxy.
	proxyURL, rec, spec, _ := specProxy(t, target, key)
	call := auditCalls(t, proxyURL, key)
	scores := auditscore.Run(context.Background(), call, lib.ID, 2, live, t.Errorf)
	if len(scores) != len(auditscore.Tools) {
		t.Errorf("figures for %d audits of %d", len(scores), len(auditscore.Tools))
	}
	report(t, spec, rec.all(), map[string]bool{"listLibraryItems": true, "listLibrarySeries": true, "getLibrary": true, "listLibraryAuthors": true, "listLibraryNarrators": true,
		"getLibraryItemCover": true})
	t.Logf("audits on the messy library written onto Audiobookshelf (%d books, %d planted problems, %d clean records and near misses):\n%s",
		len(books), len(live.Planted), len(live.Clean), auditscore.Table(scores))
}

// scanAndWait scans a library (POST /api/libraries/:id/scan answers at
// once) and waits until its lastScan moves on: the scan is over.
func scanAndWait(t *testing.T, a *abs, lib string) {
	t.Helper()
	var before struct {
		LastScan int64 `json:"lastScan"`
	}
	a.get("/api/libraries/"+lib, &before)
	if st := a.do("POST", "/api/libraries/"+lib+"/scan", nil, nil); st != 200 {
		t.Fatalf("POST /api/libraries/%s/scan: %d", lib, st)
	}
	// A hang guard, not a timing assertion: the shared machine is slow.
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		var now struct {
			LastScan int64 `json:"lastScan"`
		}
		a.get("/api/libraries/"+lib, &now)
		if now.LastScan > before.LastScan {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("library %s: the scan was not over after 10 minutes", lib)
}

// auditCalls connects the binary with the curation toolset through the
// proxy at proxyURL, and calls its tools with two minutes each to answer;
// an audit that asks the person fails the test.
func auditCalls(t *testing.T, proxyURL, key string) auditscore.Call {
	cs := connectBinary(t, proxyURL, key, []string{"AUDIOBOOKSHELF_TOOLSETS=default,curation"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Errorf("an audit asked the person")
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	return func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
}
