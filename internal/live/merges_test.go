package live

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLiveMerges: on a real Audiobookshelf, merge_authors and merge_series
// on two books of the book library that are in no series. The run gives
// them two authors and two series of its own (book B holding both of
// each), asks each merge and declines (nothing changes; the question says
// which record goes into which, by quoted name and id, and names the books
// by title), then approves: the
// books hold the kept author and series (B once, at the kept series'
// sequence), and the merged-away author and series are gone (404). At the
// end the books' authors and series are set back, the records the run
// made are gone, and the books' raw records are compared field by field
// with what they were before the run (updatedAt aside): 0 differ. The
// binary reaches Audiobookshelf through the recording proxy, so each
// answer it reads is checked against spec/.
func TestLiveMerges(t *testing.T) {
	target, key, a := liveABS(t)
	lib := a.libraries()["book"]
	// Two books in no series, claimed: no other run changes them meanwhile.
	books := claimBooks(a, lib, 2, noSeries)
	raw := func(id string) map[string]any {
		var v map[string]any
		a.get("/api/items/"+id+"?expanded=1", &v)
		return v
	}
	type named struct {
		ID       string  `json:"id"`
		Name     string  `json:"name"`
		Sequence *string `json:"sequence"`
	}
	refs := func(id, what string) []named {
		var v struct {
			Media struct {
				Metadata struct {
					Authors []named `json:"authors"`
					Series  []named `json:"series"`
				} `json:"metadata"`
			} `json:"media"`
		}
		a.get("/api/items/"+id, &v)
		if what == "authors" {
			return v.Media.Metadata.Authors
		}
		return v.Media.Metadata.Series
	}
	setRefs := func(id, what string, l []named) {
		t.Helper()
		out := []map[string]any{}
		for _, r := range l {
			m := map[string]any{"name": r.Name}
			if r.Sequence != nil {
				m["sequence"] = *r.Sequence
			}
			out = append(out, m)
		}
		if st := a.do("PATCH", "/api/items/"+id+"/media", map[string]any{"metadata": map[string]any{what: out}}, nil); st != 200 {
			t.Errorf("PATCH %s %s: %d", id, what, st)
		}
	}
	orig := map[string]map[string]any{}
	origRefs := map[string]map[string][]named{}
	for _, id := range books {
		orig[id] = raw(id)
		origRefs[id] = map[string][]named{"authors": refs(id, "authors"), "series": refs(id, "series")}
	}
	run := fmt.Sprintf("mcp-live-merge-%d", time.Now().UnixNano())
	var made []string // "authors/ID", "series/ID": gone at the end
	t.Cleanup(func() {
		for _, id := range books {
			setRefs(id, "authors", origRefs[id]["authors"])
			setRefs(id, "series", origRefs[id]["series"])
		}
		for _, p := range made {
			// An author with a description outlives its last book; the
			// run removes it. A series goes with its last book.
			if st := a.do("GET", "/api/"+p, nil, nil); st == 200 && strings.HasPrefix(p, "authors/") {
				a.do("DELETE", "/api/"+p, nil, nil)
			}
		}
		fields := 0
		for _, id := range books {
			if d := compareRaw(t, "restored "+id, orig[id], raw(id)); d != 0 {
				t.Errorf("%d field(s) of %s differ from before the run", d, id)
			}
			fields += leaves(orig[id])
		}
		for _, p := range made {
			if st := a.do("GET", "/api/"+p, nil, nil); st != 404 {
				t.Errorf("GET /api/%s after the run: %d, want 404 (the run's record is gone)", p, st)
			}
		}
		t.Logf("the 2 books restored: %d raw field(s) compared, 0 differing unless reported; %d record(s) the run made, gone", fields, len(made))
	})

	bin, rec, spec, _ := curationBinary(t, target, key, true)
	call, setDecline, lastQuestion := bin.call, bin.setDecline, bin.last
	idOf := func(l []named, name string) string {
		for _, r := range l {
			if r.Name == name {
				return r.ID
			}
		}
		t.Fatalf("no %q among %v", name, l)
		return ""
	}
	seq := func(s string) *string { return &s }
	state := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, id := range books {
			out[id] = raw(id)
		}
		return out
	}
	declined := func(tool string, args map[string]any, want []string) {
		t.Helper()
		before := state()
		n, _ := lastQuestion()
		_, text, isErr := call(tool, args)
		m, q := lastQuestion()
		if m != n+1 || !isErr || !strings.Contains(text, "Nothing was changed") {
			t.Fatalf("%s declined: want one question and nothing changed, asked %d: %s", tool, m-n, text)
		}
		quotedOnly(t, tool, q, run)
		for _, w := range want {
			if !strings.Contains(q, w) {
				t.Errorf("%s: the question lacks %q:\n%s", tool, w, q)
			}
		}
		for _, id := range books {
			if d := compareRaw(t, tool+" declined "+id, before[id], raw(id)); d != 0 {
				t.Errorf("%s declined changed %d field(s) of %s", tool, d, id)
			}
		}
	}

	// Authors: X on both books, Y on B; X gets a description.
	x, y := run+"-author-x", run+"-author-y"
	setRefs(books[0], "authors", append(slices.Clone(origRefs[books[0]]["authors"]), named{Name: x}))
	setRefs(books[1], "authors", append(slices.Clone(origRefs[books[1]]["authors"]), named{Name: x}, named{Name: y}))
	xID, yID := idOf(refs(books[1], "authors"), x), idOf(refs(books[1], "authors"), y)
	made = append(made, "authors/"+xID, "authors/"+yID)
	if st := a.do("PATCH", "/api/authors/"+xID, map[string]any{"description": run + " description"}, nil); st != 200 {
		t.Fatalf("PATCH author description: %d", st)
	}
	args := map[string]any{"author_id": xID, "into_author_id": yID}
	titles := map[string]string{}
	for _, id := range books {
		titles[id] = namedIn(titleOf(raw(id)), id)
	}
	declined("merge_authors", args, []string{"merge author " + namedIn(x, xID) + " into " + namedIn(y, yID), "removes author " + namedIn(x, xID),
		titles[books[0]], titles[books[1]], "its 2 book(s)", "1 of those books (" + titles[books[1]] + ") hold both", "a biography: yes; an ASIN: no; an image: no"})
	setDecline(false)
	beforeMerge := state()
	v, text, isErr := call("merge_authors", args)
	if isErr || v["merged"] != true || v["kept_author_id"] != yID || fmt.Sprint(v["books_moved"]) != "2" || fmt.Sprint(v["books_holding_both"]) != "1" || at(v, "gone", "description") != true {
		t.Fatalf("merge_authors approved: %s", text)
	}
	for _, id := range books {
		var names []string
		for _, r := range refs(id, "authors") {
			names = append(names, r.Name)
		}
		want := []string{}
		for _, r := range origRefs[id]["authors"] {
			want = append(want, r.Name)
		}
		if !slices.Equal(names, append(want, y)) {
			t.Errorf("%s: authors %q after the merge, want %q", id, names, append(want, y))
		}
	}
	if st := a.do("GET", "/api/authors/"+xID, nil, nil); st != 404 {
		t.Errorf("the merged author: GET %d, want 404", st)
	}
	// As the spec says: Audiobookshelf's author merge moves no book's
	// updatedAt (only bookAuthors rows change).
	for _, id := range books {
		if b, n := fmt.Sprint(beforeMerge[id]["updatedAt"]), fmt.Sprint(raw(id)["updatedAt"]); b != n {
			t.Errorf("%s: updatedAt %s after the author merge, was %s", id, n, b)
		}
	}

	// Series: S on A at 1, S and T on B at 2 and 7.
	setDecline(true)
	s, tn := run+"-series-s", run+"-series-t"
	setRefs(books[0], "series", append(slices.Clone(origRefs[books[0]]["series"]), named{Name: s, Sequence: seq("1")}))
	setRefs(books[1], "series", append(slices.Clone(origRefs[books[1]]["series"]), named{Name: s, Sequence: seq("2")}, named{Name: tn, Sequence: seq("7")}))
	sID, tID := idOf(refs(books[1], "series"), s), idOf(refs(books[1], "series"), tn)
	made = append(made, "series/"+sID, "series/"+tID)
	args = map[string]any{"series_id": sID, "into_series_id": tID}
	declined("merge_series", args, []string{"merge series " + namedIn(s, sID) + " into " + namedIn(tn, tID), "removes series " + namedIn(s, sID),
		titles[books[0]], titles[books[1]], "its 2 book(s)", "1 of those books (" + titles[books[1]] + ") are in series " + namedIn(tn, tID) + " already", "its summary: no"})
	setDecline(false)
	v, text, isErr = call("merge_series", args)
	if isErr || v["merged"] != true || v["kept_series_id"] != tID || fmt.Sprint(v["books_moved"]) != "2" || fmt.Sprint(v["books_in_both"]) != "1" || fmt.Sprint(v["items_updated"]) != "2" {
		t.Fatalf("merge_series approved: %s", text)
	}
	for i, id := range books {
		got := refs(id, "series")
		want := map[int]string{0: "1", 1: "7"}[i]
		if len(got) != len(origRefs[id]["series"])+1 || got[len(got)-1].ID != tID || got[len(got)-1].Sequence == nil || *got[len(got)-1].Sequence != want {
			b, _ := json.Marshal(got)
			t.Errorf("%s: series %s after the merge, want the original ones and %s at %s", id, b, tID, want)
		}
	}
	if st := a.do("GET", "/api/series/"+sID, nil, nil); st != 404 {
		t.Errorf("the merged series: GET %d, want 404", st)
	}
	report(t, spec, rec.all(), map[string]bool{"getMe": true, "getAuthor": true, "updateAuthor": true, "getSeries": true, "listLibraryItems": true, "getLibraryItem": true, "batchUpdateLibraryItems": true})
}
