package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// auditTools are the curation toolset's audits.
var auditTools = []string{"audit_series", "audit_people", "audit_duplicates", "audit_missing", "audit_tags_and_genres"}

// auditFinding is a finding of any audit, as its answer gives it.
type auditFinding struct {
	Kind    string   `json:"kind"`
	IDs     []string `json:"ids"`
	Names   []string `json:"names"`
	Items   []string `json:"library_item_ids"`
	ItemID  string   `json:"library_item_id"` // audit_missing
	Missing []string `json:"missing"`         // audit_missing
}

// auditKeys walks every page of an audit of library and answers the key
// of each finding (standin.MessyKey), every id and name the findings
// name, and the counts the first page gave.
func auditKeys(t *testing.T, e *apptest.Env, tool, library string, limit int) (keys []string, named map[string]bool, counts map[string]int) {
	t.Helper()
	named = map[string]bool{}
	page := 0
	for range 1000 {
		res := e.Call(t, tool, map[string]any{"library_id": library, "page": page, "limit": limit})
		if res.IsError {
			t.Fatalf("%s: %s", tool, apptest.Text(res))
		}
		var v struct {
			Total    int            `json:"total"`
			Counts   map[string]int `json:"counts"`
			Findings []auditFinding `json:"findings"`
			Next     *struct {
				Page, Limit int
			} `json:"next"`
		}
		if err := json.Unmarshal([]byte(apptest.Text(res)), &v); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if counts == nil {
			counts = v.Counts
		}
		for _, f := range v.Findings {
			if tool == "audit_missing" {
				for _, k := range f.Missing {
					keys = append(keys, sd.MessyKey(tool, k, []string{f.ItemID}))
				}
				named[f.ItemID] = true
				continue
			}
			k := f.IDs
			if len(k) == 0 {
				k = f.Names
			}
			keys = append(keys, sd.MessyKey(tool, f.Kind, k))
			for _, s := range append(append(append([]string(nil), f.IDs...), f.Names...), f.Items...) {
				named[s] = true
			}
		}
		if v.Next == nil {
			return keys, named, counts
		}
		page, limit = v.Next.Page, v.Next.Limit
	}
	t.Fatalf("%s: still a next page after 1,000 pages", tool)
	return nil, nil, nil
}

// TestAuditsPrecisionRecall holds each audit to the problems planted in
// the stand-in's messy library (standin.MessyData): every planted problem
// of its kinds found (recall 1), nothing else reported (precision 1), no
// clean record or near miss named, and its counts the number of findings
// of each kind. The pages are walked at a limit of 2, so paging is part
// of what is counted. The figures go to RESULTS.md.
func TestAuditsPrecisionRecall(t *testing.T) {
	data, messy := sd.MessyData()
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	planted := map[string]map[string]bool{}
	for _, p := range messy.Planted {
		if planted[p.Tool] == nil {
			planted[p.Tool] = map[string]bool{}
		}
		planted[p.Tool][sd.MessyKey(p.Tool, p.Kind, p.Keys)] = true
	}
	var table []string
	table = append(table, "| audit | planted | reported | found (true positives) | precision | recall |", "|---|---|---|---|---|---|")
	for _, tool := range auditTools {
		want := planted[tool]
		if len(want) == 0 {
			t.Errorf("%s: nothing planted for it in the messy library", tool)
		}
		keys, named, counts := auditKeys(t, e, tool, sd.LibraryMessyID, 2)
		got := map[string]bool{}
		perKind := map[string]int{}
		for _, k := range keys {
			if got[k] {
				t.Errorf("%s reported twice: %s", tool, k)
			}
			got[k] = true
			perKind[strings.Fields(k)[1]]++
		}
		tp := 0
		for k := range got {
			if want[k] {
				tp++
			} else {
				t.Errorf("%s reported what was not planted: %s", tool, k)
			}
		}
		var missed []string
		for k := range want {
			if !got[k] {
				missed = append(missed, k)
			}
		}
		sort.Strings(missed)
		for _, k := range missed {
			t.Errorf("%s missed a planted problem: %s", tool, k)
		}
		for _, c := range messy.Clean {
			if named[c] {
				t.Errorf("%s named %s, which is clean", tool, c)
			}
		}
		// audit_missing counts books per kind; the others findings.
		for kind, n := range perKind {
			if counts[kind] != n {
				t.Errorf("%s: counts[%s] is %d; the findings of that kind are %d", tool, kind, counts[kind], n)
			}
		}
		for kind, n := range counts {
			if n != perKind[kind] {
				t.Errorf("%s: counts[%s] is %d; the findings of that kind are %d", tool, kind, n, perKind[kind])
			}
		}
		precision, recall := 1.0, 1.0
		if len(got) > 0 {
			precision = float64(tp) / float64(len(got))
		}
		if len(want) > 0 {
			recall = float64(tp) / float64(len(want))
		}
		table = append(table, fmt.Sprintf("| %s | %d | %d | %d | %.2f | %.2f |", tool, len(want), len(got), tp, precision, recall))
	}
	t.Logf("audits on the messy library (%d planted problems, %d clean records and near misses):\n%s",
		len(messy.Planted), len(messy.Clean), strings.Join(table, "\n"))
}

// The audits refuse a podcast library, naming the argument, and send
// nothing more than the first read.
func TestAuditsRefuseAPodcastLibrary(t *testing.T) {
	e := apptest.Start(t, apptest.Options{})
	for _, tool := range auditTools {
		res := e.Call(t, tool, map[string]any{"library_id": sd.LibraryPodcastsID})
		if !res.IsError || !strings.Contains(apptest.Text(res), `argument "library_id"`) || !strings.Contains(apptest.Text(res), "podcast library") {
			t.Errorf("%s on the podcast library: %s", tool, apptest.Text(res))
		}
	}
}

// Nothing of the curation toolset is in the default tools/list; named in
// AUDIOBOOKSHELF_TOOLSETS (default,curation) every audit is.
func TestCurationIsOffByDefault(t *testing.T) {
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
