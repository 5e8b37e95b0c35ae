package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/auditscore"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// auditTools are the curation toolset's audits with a tool of their own.
var auditTools = auditscore.OwnTools

// TestAuditsPrecisionRecall holds each audit to the problems planted in
// the stand-in's messy library (standin.MessyData): every planted problem
// of its kinds found (recall 1), nothing else reported (precision 1), no
// clean record or near miss named, and its counts the number of findings
// of each kind (internal/auditscore counts them; TestLiveMessyAudits
// counts the same on a real Audiobookshelf). The pages are walked at a
// limit of 2, so paging is part of what is counted. The figures go to
// RESULTS.md.
func TestAuditsPrecisionRecall(t *testing.T) {
	t.Parallel()
	data, messy := sd.MessyData()
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	call := func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return e.CallErr(name, args)
	}
	scores := auditscore.Run(context.Background(), call, sd.LibraryMessyID, 2, messy, t.Errorf)
	if len(scores) != len(auditscore.Tools) {
		t.Errorf("figures for %d audits of %d", len(scores), len(auditscore.Tools))
	}
	t.Logf("audits on the messy library (%d planted problems, %d clean records and near misses):\n%s",
		len(messy.Planted), len(messy.Clean), auditscore.Table(scores))
}

// Audiobookshelf 2.36 keeps a library's filter data once it is read (or
// a scan starts) and does not add to it the narrators a metadata patch
// sets; the stand-in keeps it the same way. audit_people reads the
// authors and narrators from the books: a narrator spelt anew since the
// filter data was read is found, though the filter data does not list
// it. (Reading the filter data, the audit missed both narrator spellings
// of the messy library on a real server: TestLiveMessyAudits.)
func TestAuditPeopleSeesNarratorsEditedSinceTheFilterData(t *testing.T) {
	t.Parallel()
	data, _ := sd.MessyData()
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	narrators := func() []string {
		v := decode(t, e.Call(t, "get_library_filter_data", map[string]any{"library_id": sd.LibraryMessyID}))
		var out []string
		for _, n := range at(t, v, "narrators").([]any) {
			out = append(out, n.(string))
		}
		return out
	}
	if got := narrators(); slices.Contains(got, "ray porter") || !slices.Contains(got, "Ray Porter") {
		t.Fatalf("the messy library's narrators before the edit: %v", got)
	}
	// One book's narrator spelt anew, by a metadata patch as a person's
	// client would send it.
	var book string
	for _, it := range data.Items {
		if it.LibraryID == sd.LibraryMessyID && it.RelPath == "watch-1" {
			book = it.ID
		}
	}
	body := strings.NewReader(`{"metadata":{"narrators":["ray porter"]}}`)
	req, _ := http.NewRequest(http.MethodPatch, e.Standin.URL()+"/api/items/"+book+"/media", body)
	req.Header.Set("Authorization", "Bearer "+sd.DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH /api/items/%s/media: %d", book, resp.StatusCode)
	}
	if got := narrators(); slices.Contains(got, "ray porter") {
		t.Errorf("the filter data lists the narrator set since it was read, which 2.36 does not: %v", got)
	}
	call := func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return e.CallErr(name, args)
	}
	keys, _, _, err := auditscore.Walk(context.Background(), call, "audit_people", sd.LibraryMessyID, 50)
	if err != nil {
		t.Fatal(err)
	}
	want := sd.MessyKey("audit_people", "narrator_spelling", []string{"Ray Porter", "ray porter"})
	if !slices.Contains(keys, want) {
		t.Errorf("audit_people does not find the narrator spelt anew (%s); it found:\n%s", want, strings.Join(keys, "\n"))
	}
}

// The audits refuse a podcast library, naming the argument, and send
// nothing more than the first read.
func TestAuditsRefuseAPodcastLibrary(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{})
	for _, tool := range auditTools {
		res := e.Call(t, tool, map[string]any{"library_id": sd.LibraryPodcastsID})
		if !res.IsError || !strings.Contains(apptest.Text(res), `argument "library_id"`) || !strings.Contains(apptest.Text(res), "podcast library") {
			t.Errorf("%s on the podcast library: %s", tool, apptest.Text(res))
		}
	}
}

// TestAuditsTakeTheBookLibraryByNameOrNone: an audit's library may be
// named, or left out where the user has one book library (the sample's
// Podcasts library does not count); each answers exactly as with the id.
// A podcast library named is refused as its id is.
func TestAuditsTakeTheBookLibraryByNameOrNone(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{})
	for _, tool := range auditTools {
		byID := e.Call(t, tool, map[string]any{"library_id": sd.LibraryBooksID})
		if byID.IsError {
			t.Fatalf("%s by id: %s", tool, apptest.Text(byID))
		}
		for _, args := range []map[string]any{{"library_id": "Books"}, {"library_id": "books"}, {}} {
			res := e.Call(t, tool, args)
			if res.IsError || apptest.Text(res) != apptest.Text(byID) {
				t.Errorf("%s %v: %s, want the answer by id", tool, args, apptest.Text(res))
			}
		}
		res := e.Call(t, tool, map[string]any{"library_id": "Podcasts"})
		if !res.IsError || !strings.Contains(apptest.Text(res), `argument "library_id"`) {
			t.Errorf("%s on the podcast library by name: %s", tool, apptest.Text(res))
		}
	}
}

// Nothing of the curation toolset is in the default tools/list; named in
// AUDIOBOOKSHELF_TOOLSETS (default,curation) every audit is.
func TestCurationIsOffByDefault(t *testing.T) {
	t.Parallel()
	def := start(t, apptest.Options{Config: func(c *config.Config) { c.Toolsets = nil }})
	names := listedTools(t, def)
	for _, n := range auditTools {
		if slices.Contains(names, n) {
			t.Errorf("%s is listed by default", n)
		}
	}
	if !slices.Contains(names, "list_libraries") {
		t.Errorf("the default tools lack list_libraries: %v", names)
	}
	res, err := def.CallErr("audit_series", map[string]any{"library_id": sd.LibraryBooksID})
	if err == nil && !res.IsError {
		t.Errorf("audit_series answered while curation is off: %s", apptest.Text(res))
	}
	sets, err := config.ParseToolsets("default,curation")
	if err != nil {
		t.Fatal(err)
	}
	on := start(t, apptest.Options{Config: func(c *config.Config) { c.Toolsets = sets }})
	names = listedTools(t, on)
	for _, n := range append(auditTools, "list_libraries") {
		if !slices.Contains(names, n) {
			t.Errorf("default,curation does not list %s", n)
		}
	}
	if slices.Contains(names, "scan_library") {
		t.Errorf("default,curation lists upkeep's scan_library")
	}
}

// The podcasts audit of audit_library on the messy podcast library
// (standin.MessyPodcasts): a podcast with no episode and one whose newest
// episode is two years old are found; one a week old, one 300 days old
// and one with old episodes beside a new one are not.
func TestPodcastAuditsPrecisionRecall(t *testing.T) {
	t.Parallel()
	data, _ := sd.MessyData()
	messy := sd.MessyPodcasts(data, time.Now())
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	call := func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return e.CallErr(name, args)
	}
	scores := auditscore.RunTools(context.Background(), call, auditscore.PodcastTools, sd.LibraryMessyPodcastsID, 1, messy, t.Errorf)
	if len(scores) != len(auditscore.PodcastTools) {
		t.Errorf("figures for %d audits of %d", len(scores), len(auditscore.PodcastTools))
	}
	t.Logf("audits on the messy podcast library (%d planted problems, %d near misses):\n%s",
		len(messy.Planted), len(messy.Clean), auditscore.Table(scores))
}

// audit_library refuses an audit it does not have, naming the argument
// and the audits the library has, after reading the library alone.
func TestAuditLibraryRefusesAnUnknownAudit(t *testing.T) {
	t.Parallel()
	e := apptest.Start(t, apptest.Options{})
	e.Standin.ResetRequests()
	res := e.Call(t, "audit_library", map[string]any{"library_id": sd.LibraryBooksID, "audit": "spines"})
	text := apptest.Text(res)
	if !res.IsError || !strings.Contains(text, `argument "audit"`) || !strings.Contains(text, "is not an audit") || !strings.Contains(text, "author_images, covers") {
		t.Errorf("audit_library with audit spines: %s", text)
	}
	if n := len(e.Standin.Requests()); n != 1 {
		t.Errorf("audit_library with audit spines sent %d requests; the library's read alone was due", n)
	}
}

// audit_library reads each listing once, however many of its audits read
// it: on the messy library no request is sent twice, and the sweep sends
// fewer than the five audits called one by one (which read the library,
// its books and its authors more than once between them).
func TestAuditLibraryReadsEachListingOnce(t *testing.T) {
	t.Parallel()
	data, _ := sd.MessyData()
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	sent := func() []string {
		var out []string
		for _, r := range e.Standin.Requests() {
			out = append(out, r.Method+" "+r.Path+"?"+r.Query.Encode())
		}
		return out
	}
	e.Standin.ResetRequests()
	if res := e.Call(t, "audit_library", map[string]any{"library_id": sd.LibraryMessyID}); res.IsError {
		t.Fatal(apptest.Text(res))
	}
	sweep := sent()
	seen := map[string]bool{}
	for _, r := range sweep {
		if seen[r] {
			t.Errorf("audit_library sent %s twice", r)
		}
		seen[r] = true
	}
	e.Standin.ResetRequests()
	for _, tool := range auditTools {
		if res := e.Call(t, tool, map[string]any{"library_id": sd.LibraryMessyID}); res.IsError {
			t.Fatal(apptest.Text(res))
		}
	}
	if one := sent(); len(sweep) >= len(one) {
		t.Errorf("audit_library sent %d requests; the five audits one by one %d", len(sweep), len(one))
	}
}
