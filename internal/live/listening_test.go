package live

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLiveListening runs the listening toolset against a real
// Audiobookshelf as a user made here (so nobody's progress or shelves are
// touched): with book 1 of a series finished, what_next names book 2 and
// get_series_progress says so; with book 2 taken out of the series on the
// server, what_next names book 3 with the gap before it, and the book's
// series are given back exactly (its raw record compared); three listening sessions synced for that
// user on known days give get_listening_by_period's totals by month and
// day, held to Audiobookshelf's own listening stats; the series taken off
// Continue Series leaves the shelf and comes back with the put-back of
// the answer. Every answer goes through the validating proxy. The user,
// its key and its sessions are deleted at the end.
func TestLiveListening(t *testing.T) {
	l := startListener(t, "listening")
	proxyURL, rec, spec, root, user, userKey := l.proxyURL, l.rec, l.spec, l.root, l.user, l.userKey

	// The series with the most books, its books in order.
	lib := root.libraries()["book"]
	var series struct {
		Results []struct {
			ID    string
			Books []struct{ ID string }
		}
	}
	root.get("/api/libraries/"+lib+"/series?limit=50", &series)
	var seriesID string
	most := 0
	for _, s := range series.Results {
		if len(s.Books) > most {
			seriesID, most = s.ID, len(s.Books)
		}
	}
	if most < 2 {
		t.Fatalf("the book library needs a series of two books or more")
	}
	var inOrder struct{ Results []bookInSeries }
	seriesFilter := "/api/libraries/" + lib + "/items?sort=sequence&minified=1&filter=series." + base64.StdEncoding.EncodeToString([]byte(seriesID))
	root.get(seriesFilter, &inOrder)
	first, second := inOrder.Results[0].ID, inOrder.Results[1].ID
	inSeries := map[string]bool{}
	for _, b := range inOrder.Results {
		inSeries[b.ID] = true
	}
	// The series' books, claimed: the gap case takes one out of the series
	// for a moment, and no other run changes them meanwhile.
	claimBooks(root, lib, len(inSeries), func(it map[string]any) bool { return inSeries[fmt.Sprint(it["id"])] })
	var all struct{ Results []struct{ ID string } }
	root.get("/api/libraries/"+lib+"/items?limit=100&minified=1", &all)
	var others []string
	for _, it := range all.Results {
		if !inSeries[it.ID] {
			others = append(others, it.ID)
		}
	}
	if len(others) < 2 {
		t.Fatalf("the book library needs two books outside series %s", seriesID)
	}

	// Book 1 finished; three sessions on two other books, on known days.
	if st := user.do("PATCH", "/api/me/progress/"+first, map[string]any{"isFinished": true}, nil); st != 200 {
		t.Fatalf("PATCH progress: %d", st)
	}
	sessions := []struct {
		item, day string
		secs      float64
	}{{others[0], "2025-03-10", 600}, {others[1], "2025-03-20", 900.5}, {others[0], "2025-04-02", 300}}
	for _, s := range sessions {
		at, _ := time.Parse("2006-01-02 15:04", s.day+" 12:00")
		syncSession(t, user, lib, s.item, at, at, at.Add(time.Duration(s.secs)*time.Second), s.secs)
	}

	cs := connectBinary(t, proxyURL, userKey, []string{"AUDIOBOOKSHELF_TOOLSETS=default,listening"}, nil)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		return callJSON(t, cs, tool, args)
	}

	// What next: book 2 of the series.
	v := call("what_next", map[string]any{})
	found := false
	for _, n := range v["next_in_series"].([]any) {
		n := n.(map[string]any)
		if n["series_id"] != seriesID {
			continue
		}
		found = true
		next, _ := n["next"].(map[string]any)
		if next == nil || next["library_item_id"] != second || n["finished"] != 1.0 {
			t.Errorf("series %s: want the next book %s after 1 finished: %v", seriesID, second, n)
		}
	}
	if !found {
		t.Errorf("what_next does not name series %s: %v", seriesID, v)
	}
	sp := call("get_series_progress", map[string]any{"series_id": seriesID})
	books := sp["books"].([]any)
	if books[0].(map[string]any)["state"] != "finished" || books[1].(map[string]any)["state"] != "not_started" {
		t.Errorf("series progress: %v", sp)
	}

	// A gap: book 2 taken out of the series on the server (its series list
	// without this one), so the person is midway through a series with a
	// gap; what_next names book 3 with gap_before [2]. Then the book's
	// series are given back and its raw record, the series' and the
	// series' books in order are compared field by field with before.
	gapCase(t, root, seriesFilter, seriesID, inOrder.Results, call)

	// Listening by period, against Audiobookshelf's own days.
	var stats struct{ Days map[string]float64 }
	user.get("/api/me/listening-stats", &stats)
	want := map[string]float64{}
	for d, s := range stats.Days {
		if d >= "2025-03-01" && d <= "2025-04-30" {
			want[d[:7]] += s
		}
	}
	if want["2025-03"] != 1500.5 || want["2025-04"] != 300 {
		t.Errorf("Audiobookshelf counts %v for the synced sessions", want)
	}
	v = call("get_listening_by_period", map[string]any{"from": "2025-03-01", "to": "2025-04-30", "by": "month"})
	got := map[string]float64{}
	for _, p := range v["periods"].([]any) {
		p := p.(map[string]any)
		got[p["period"].(string)] = p["time_s"].(float64)
	}
	for m, s := range want {
		if got[m] != float64(int64(s+0.5)) {
			t.Errorf("%s: the tool says %v s, Audiobookshelf %v s", m, got[m], s)
		}
	}
	if v["total_s"] != float64(int64(1800.5+0.5)) {
		t.Errorf("total %v, want 1801", v["total_s"])
	}
	v = call("get_listening_by_period", map[string]any{"from": "2025-03-10", "to": "2025-03-10", "by": "day"})
	if v["total_s"] != float64(int64(stats.Days["2025-03-10"]+0.5)) {
		t.Errorf("2025-03-10: %v, Audiobookshelf %v", v["total_s"], stats.Days["2025-03-10"])
	}

	// Continue Series: off the shelf, and back with the put-back.
	onShelf := func() bool {
		t.Helper()
		var shelves []struct {
			ID       string
			Entities []struct {
				Media struct {
					Metadata struct{ Series any }
				}
				ID string
			}
		}
		user.get("/api/libraries/"+lib+"/personalized", &shelves)
		for _, sh := range shelves {
			if sh.ID != "continue-series" {
				continue
			}
			for _, e := range sh.Entities {
				if strings.Contains(fmt.Sprint(e.Media.Metadata.Series), seriesID) || inSeries[e.ID] {
					return true
				}
			}
		}
		return false
	}
	if !onShelf() {
		t.Fatalf("series %s is not on the user's Continue Series shelf to begin with", seriesID)
	}
	// The user's raw record before each write and after its put-back,
	// field by field (lastSeen and updatedAt move on their own).
	rawMe := func() map[string]any {
		var m map[string]any
		user.get("/api/me", &m)
		delete(m, "lastSeen")
		delete(m, "updatedAt")
		return m
	}
	shown := rawMe()
	v = call("hide_series_from_continue_series", map[string]any{"series_id": seriesID})
	if onShelf() {
		t.Errorf("series %s is still on Continue Series: %v", seriesID, v)
	}
	var me struct{ SeriesHideFromContinueListening []string }
	user.get("/api/me", &me)
	if !slices.Contains(me.SeriesHideFromContinueListening, seriesID) {
		t.Errorf("Audiobookshelf does not hold the series hidden: %v", me.SeriesHideFromContinueListening)
	}
	pb, _ := v["put_back"].(map[string]any)
	if pb == nil {
		t.Fatalf("no put_back: %v", v)
	}
	args, _ := pb["arguments"].(map[string]any)
	call(fmt.Sprint(pb["tool"]), args)
	if !onShelf() {
		t.Errorf("the put-back did not bring series %s back to Continue Series", seriesID)
	}
	user.get("/api/me", &me)
	if slices.Contains(me.SeriesHideFromContinueListening, seriesID) {
		t.Errorf("still hidden after the put-back: %v", me.SeriesHideFromContinueListening)
	}
	if n := compareRaw(t, "the user after hide and its put-back", shown, rawMe()); n > 0 {
		t.Errorf("%d field(s) of the user differ after hide_series_from_continue_series and its put-back", n)
	}
	// readd on a hidden series (hidden here through the API), and its put-back.
	if st := user.do("GET", "/api/me/series/"+seriesID+"/remove-from-continue-listening", nil, nil); st != 200 {
		t.Fatalf("hiding through the API: %d", st)
	}
	hidden := rawMe()
	v = call("readd_series_to_continue_series", map[string]any{"series_id": seriesID})
	if !onShelf() {
		t.Errorf("readd did not bring series %s back: %v", seriesID, v)
	}
	pb, _ = v["put_back"].(map[string]any)
	if pb == nil {
		t.Fatalf("no put_back: %v", v)
	}
	args, _ = pb["arguments"].(map[string]any)
	call(fmt.Sprint(pb["tool"]), args)
	if n := compareRaw(t, "the user after readd and its put-back", hidden, rawMe()); n > 0 {
		t.Errorf("%d field(s) of the user differ after readd_series_to_continue_series and its put-back", n)
	}
	if onShelf() {
		t.Errorf("the put-back of readd left series %s on the shelf", seriesID)
	}

	// Prompts, resources and completions, as this user, on the real server.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seriesName struct{ Name string }
	root.get("/api/series/"+seriesID, &seriesName)
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "where_am_i_in_a_series"},
		Argument: mcp.CompleteParamsArgument{Name: "series", Value: seriesName.Name[:3]}})
	if err != nil || !slices.Contains(comp.Completion.Values, seriesName.Name) {
		t.Errorf("completion of %q: %v %v", seriesName.Name[:3], comp, err)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "where_am_i_in_a_series", Arguments: map[string]string{"series": strings.ToUpper(seriesName.Name)}})
	if err != nil || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, seriesID) {
		t.Errorf("prompt for %q: %v %v", seriesName.Name, pr, err)
	}
	var library struct{ Name string }
	root.get("/api/libraries/"+lib, &library)
	pr, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "tidy_a_library", Arguments: map[string]string{"library": library.Name}})
	if err != nil || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, `{"library_id":"`+lib+`"}`) {
		t.Errorf("tidy prompt for %q: %v %v", library.Name, pr, err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "audiobookshelf://me/listening-now"})
	if err != nil || !strings.Contains(res.Contents[0].Text, others[0]) {
		t.Errorf("listening now (the book of the synced sessions, %s): %v %v", others[0], res, err)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "audiobookshelf://items/" + second})
	if err != nil || !strings.Contains(res.Contents[0].Text, second) {
		t.Errorf("item %s: %v %v", second, res, err)
	}

	only := map[string]bool{"listLibraries": true, "searchLibrary": true, "hideSeriesFromContinueListening": true, "readdSeriesToContinueListening": true,
		"getListeningStats": true, "listListeningSessions": true, "listMediaProgress": true, "listItemsInProgress": true,
		"getLibraryItem": true, "listLibraryItems": true, "getSeries": true, "getMe": true}
	report(t, spec, rec.all(), only)
}

// bookInSeries is a book of the items route filtered to one series, whose
// metadata.series is then that series alone.
type bookInSeries struct {
	ID    string
	Media struct {
		Metadata struct{ Series struct{ Sequence string } }
	}
}

// gapCase takes the second of books (a series' books in order, the first
// finished by the user of call) out of the series on the server, checks
// that what_next names the third with the second's number missing before
// it (and get_series_progress names the gap), and gives the book its series
// back, comparing its raw record, the series' and the series' books in
// order with before, field by field.
func gapCase(t *testing.T, root *abs, seriesFilter, seriesID string, books []bookInSeries, call func(string, map[string]any) map[string]any) {
	if len(books) < 3 {
		t.Fatalf("the gap case needs a series of three books or more; series %s has %d", seriesID, len(books))
	}
	seq := func(i int) int {
		n, err := strconv.Atoi(books[i].Media.Metadata.Series.Sequence)
		if err != nil {
			t.Fatalf("the gap case needs whole sequence numbers; book %s has %q", books[i].ID, books[i].Media.Metadata.Series.Sequence)
		}
		return n
	}
	if seq(1) != seq(0)+1 || seq(2) != seq(1)+1 {
		t.Fatalf("the gap case needs books 1 to 3 numbered one after the other; they are %d, %d, %d", seq(0), seq(1), seq(2))
	}
	second, third := books[1].ID, books[2].ID

	var bookBefore, seriesBefore, orderBefore map[string]any
	root.get("/api/items/"+second, &bookBefore)
	root.get("/api/series/"+seriesID, &seriesBefore)
	root.get(seriesFilter, &orderBefore)
	// Lists of their own, never nil: a null is no list, and Audiobookshelf
	// leaves the series alone.
	all, without := []map[string]any{}, []map[string]any{}
	for _, x := range at(bookBefore, "media", "metadata", "series").([]any) {
		m := x.(map[string]any)
		e := map[string]any{"name": m["name"], "sequence": m["sequence"]}
		all = append(all, e)
		if m["id"] != seriesID {
			without = append(without, e)
		}
	}
	if len(without) != len(all)-1 {
		t.Fatalf("book %s is not in series %s: %v", second, seriesID, all)
	}
	restored := false
	restore := func() {
		if restored {
			return
		}
		restored = true
		if st := root.do("PATCH", "/api/items/"+second+"/media", map[string]any{"metadata": map[string]any{"series": all}}, nil); st != 200 {
			t.Errorf("giving book %s its series back: %d", second, st)
		}
	}
	// The safety net, should the test stop before the put-back below.
	t.Cleanup(restore)
	if st := root.do("PATCH", "/api/items/"+second+"/media", map[string]any{"metadata": map[string]any{"series": without}}, nil); st != 200 {
		t.Fatalf("taking book %s out of series %s: %d", second, seriesID, st)
	}
	var out struct{ Results []bookInSeries }
	root.get(seriesFilter, &out)
	if len(out.Results) != len(books)-1 || slices.ContainsFunc(out.Results, func(b bookInSeries) bool { return b.ID == second }) {
		t.Fatalf("book %s is still in series %s on the server: %v", second, seriesID, out.Results)
	}

	v := call("what_next", map[string]any{})
	found := false
	for _, n := range v["next_in_series"].([]any) {
		n := n.(map[string]any)
		if n["series_id"] != seriesID {
			continue
		}
		found = true
		next, _ := n["next"].(map[string]any)
		if next == nil || next["library_item_id"] != third {
			t.Errorf("series %s with book %d out: want the next book %s: %v", seriesID, seq(1), third, n)
		}
		if got, want := fmt.Sprint(n["gap_before"]), fmt.Sprintf("[%d]", seq(1)); got != want {
			t.Errorf("series %s with book %d out: gap_before %s, want %s: %v", seriesID, seq(1), got, want, n)
		}
		t.Logf("what_next with book %d out of the series: %v", seq(1), n)
	}
	if !found {
		t.Errorf("what_next does not name series %s: %v", seriesID, v)
	}
	sp := call("get_series_progress", map[string]any{"series_id": seriesID})
	if got, want := fmt.Sprint(sp["gaps"]), fmt.Sprintf("[%d]", seq(1)); got != want {
		t.Errorf("get_series_progress with book %d out: gaps %s, want %s: %v", seq(1), got, want, sp)
	}

	restore()
	var bookAfter, seriesAfter, orderAfter map[string]any
	root.get("/api/items/"+second, &bookAfter)
	root.get("/api/series/"+seriesID, &seriesAfter)
	root.get(seriesFilter, &orderAfter)
	n := compareRaw(t, "item", bookBefore, bookAfter) + compareRaw(t, "series", seriesBefore, seriesAfter) +
		compareRaw(t, "series' books", orderBefore, orderAfter)
	t.Logf("book %s given its series back: the raw records compared field by field, %d field(s) differ", second, n)
	if n > 0 {
		t.Errorf("%d field(s) differ after book %s was given its series back", n, second)
	}
}
