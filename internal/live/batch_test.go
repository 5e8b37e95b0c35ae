package live

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// TestLiveBatchUpdate: on a real Audiobookshelf, every call of
// batch_update_books that does not ask (tags, genres and narrators added
// at the end, values that are last taken off, a publisher and a language
// set where a book has none, a publisher both books hold alike cleared,
// books put into a series and taken out of one that keeps another book,
// moved to another place in a series they are in, put into a series the
// call makes, a list set where every list is empty
// and a series set on books without one) is made on two books of the run, and
// then the put-back its answer names; the books' raw records are compared
// field by field with what they were (only updatedAt left out), and a
// series the call made must be gone. The put-back of the series the call
// made asks (it leaves the series without a book): approved here. Then a
// call that asks (a tag taken from the middle of a list) and a batch quick
// match (always asks) are declined and change nothing, and the refusals
// the stand-in reproduces (a batch naming a book twice: 400; an unknown
// id: 404; a quick match of no item: 400) are sent to the real server
// directly and change nothing. The names are the
// run's own; the books' fields are set back at the end, even when a step
// fails. The binary reaches Audiobookshelf through the recording proxy, so
// each answer it reads is checked against spec/.
func TestLiveBatchUpdate(t *testing.T) {
	target, key, a := liveABS(t)
	lib := a.libraries()["book"]
	books := claimBooks(a, lib, 2, nil)
	raw := func(id string) map[string]any {
		var v map[string]any
		a.get("/api/items/"+id+"?expanded=1", &v)
		return v
	}
	patch := func(id string, body map[string]any) {
		if st := a.do("PATCH", "/api/items/"+id+"/media", body, nil); st != 200 {
			t.Errorf("PATCH %s: %d", id, st)
		}
	}
	// setBack is the PATCH body that gives a book the fields the run
	// changes as raw holds them.
	setBack := func(raw map[string]any) map[string]any {
		meta := at(raw, "media", "metadata").(map[string]any)
		series := []map[string]any{}
		for _, s := range meta["series"].([]any) {
			m := s.(map[string]any)
			series = append(series, map[string]any{"name": m["name"], "sequence": m["sequence"]})
		}
		return map[string]any{"tags": at(raw, "media", "tags"), "metadata": map[string]any{"narrators": meta["narrators"], "genres": meta["genres"],
			"publisher": meta["publisher"], "language": meta["language"], "series": series}}
	}
	orig := map[string]map[string]any{}
	for _, id := range books {
		orig[id] = raw(id)
	}
	t.Cleanup(func() {
		for _, id := range books {
			patch(id, setBack(orig[id]))
		}
	})
	list := func(v map[string]any, path ...string) []any {
		l, _ := at(v, path...).([]any)
		return l
	}

	bin, rec, spec, direct := curationBinary(t, target, key, false)
	call, nAsked := bin.call, bin.nAsked

	run := fmt.Sprintf("mcp-live-batch-%d", time.Now().UnixNano())
	both := func(field, mode string, more map[string]any) map[string]any {
		args := map[string]any{"library_item_ids": books, "field": field, "mode": mode}
		for k, v := range more {
			args[k] = v
		}
		return args
	}
	seriesOf := func(id, name string) string {
		for _, s := range list(raw(id), "media", "metadata", "series") {
			if m := s.(map[string]any); strings.EqualFold(fmt.Sprint(m["name"]), name) {
				return fmt.Sprint(m["id"])
			}
		}
		return ""
	}
	fields, cases := 0, 0
	for _, c := range []struct {
		name string
		// setup changes the books directly before the call.
		setup func()
		args  map[string]any
		// putBackAsks: the put-back leaves a series the call made without
		// a book, so it asks (approved here).
		putBackAsks bool
		// gone is a series name whose record must not outlive the put-back.
		gone string
	}{
		{name: "tags added", args: both("tags", "add", map[string]any{"values": []string{run + "-a", run + "-b"}})},
		{name: "genres added", args: both("genres", "add", map[string]any{"values": []string{run + "-genre"}})},
		{name: "narrators added", args: both("narrators", "add", map[string]any{"values": []string{run + "-narrator"}})},
		{name: "tags that are last taken off", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"tags": append(list(raw(id), "media", "tags"), run+"-x", run+"-y")})
			}
		}, args: both("tags", "remove", map[string]any{"values": []string{run + "-x", run + "-y"}})},
		{name: "a publisher set where none is", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"publisher": nil}})
			}
		}, args: both("publisher", "set", map[string]any{"value": run + "-press"})},
		{name: "a language set where none is", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"language": nil}})
			}
		}, args: both("language", "set", map[string]any{"value": run + "-lang"})},
		{name: "a publisher both hold cleared", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"publisher": run + "-shared"}})
			}
		}, args: both("publisher", "set", map[string]any{"value": ""})},
		{name: "books put into a series the call makes", args: both("series", "add", map[string]any{"series": run + "-new", "sequence": "1"}),
			putBackAsks: true, gone: run + "-new"},
		{name: "a list set where every list is empty", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"tags": []string{}})
			}
		}, args: both("tags", "set", map[string]any{"values": []string{run + "-s1", run + "-s2"}})},
		{name: "a series set on books without one", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"series": []any{}}})
			}
		}, args: both("series", "set", map[string]any{"series": run + "-only"}), putBackAsks: true, gone: run + "-only"},
		// The first book keeps the run's series: the second joins it, and
		// then leaves it again.
		{name: "a book put into a series that keeps another", setup: func() {
			patch(books[0], map[string]any{"metadata": map[string]any{"series": append(seriesEntries(list(raw(books[0]), "media", "metadata", "series")),
				map[string]any{"name": run + "-kept", "sequence": "1"})}})
		}, args: map[string]any{"library_item_ids": books[1:], "field": "series", "mode": "add", "series": run + "-kept", "sequence": "2"}},
		{name: "a book taken out of a series that keeps another", setup: func() {
			for i, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"series": append(seriesEntries(list(raw(id), "media", "metadata", "series")),
					map[string]any{"name": run + "-kept", "sequence": fmt.Sprint(i + 1)})}})
			}
		}, args: map[string]any{"library_item_ids": books[1:], "field": "series", "mode": "remove", "series": run + "-kept"}},
		// Both books at one place in a series of the run (after the
		// series they hold), moved to another place: Audiobookshelf
		// changes the place alone, and add at the old one puts it back
		// with the books' series in their order.
		{name: "books moved to another place in their series", setup: func() {
			for _, id := range books {
				patch(id, map[string]any{"metadata": map[string]any{"series": append(seriesEntries(list(raw(id), "media", "metadata", "series")),
					map[string]any{"name": run + "-moved", "sequence": "3"})}})
			}
		}, args: both("series", "add", map[string]any{"series": run + "-moved", "sequence": "7"})},
	} {
		if c.setup != nil {
			c.setup()
		}
		before := map[string]map[string]any{}
		for _, id := range books {
			before[id] = raw(id)
		}
		n := nAsked()
		v, text, isErr := call("batch_update_books", c.args)
		if isErr || nAsked() != n {
			t.Fatalf("%s: asked %d, error %v: %s", c.name, nAsked()-n, isErr, text)
		}
		pb, _ := v["put_back"].(map[string]any)
		if pb == nil || pb["tool"] != "batch_update_books" || fmt.Sprint(v["books_changed"]) != fmt.Sprint(len(c.args["library_item_ids"].([]string))) {
			t.Fatalf("%s: want every book changed and a put-back: %s", c.name, text)
		}
		made := ""
		if c.gone != "" {
			if made = seriesOf(books[0], c.gone); made == "" {
				t.Fatalf("%s: the series was not made", c.name)
			}
		}
		args, _ := pb["arguments"].(map[string]any)
		if _, text, isErr := call("batch_update_books", args); isErr {
			t.Fatalf("%s put-back: %s", c.name, text)
		}
		if want := n + map[bool]int{true: 1, false: 0}[c.putBackAsks]; nAsked() != want {
			t.Errorf("%s put-back: asked %d time(s), want %d", c.name, nAsked()-n, want-n)
		}
		for _, id := range books {
			if d := compareRaw(t, c.name+" "+id, before[id], raw(id)); d != 0 {
				t.Errorf("%s: %d field(s) of %s differ after the put-back", c.name, d, id)
			}
			fields += leaves(before[id])
		}
		if made != "" {
			if st := a.do("GET", "/api/series/"+made, nil, nil); st != 404 {
				t.Errorf("%s: the series the call made (%s) answers %d after the put-back, want 404", c.name, made, st)
			}
		}
		cases++
	}

	// Asking: a tag taken from the middle of a list, declined; a batch
	// quick match (always asks), declined. Nothing changes.
	for _, id := range books {
		patch(id, map[string]any{"tags": append(list(raw(id), "media", "tags"), run+"-first", run+"-second")})
	}
	before := map[string]map[string]any{}
	for _, id := range books {
		before[id] = raw(id)
	}
	bin.setDecline(true)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"batch_update_books", both("tags", "remove", map[string]any{"values": []string{run + "-first"}}), "take " + guard.Quote(run+"-first") + " out of the tags on 2 book(s)"},
		{"batch_quick_match", map[string]any{"library_item_ids": books, "override_details": true, "override_cover": true}, "quick match 2 item(s)"},
	} {
		n := nAsked()
		_, text, isErr := call(c.tool, c.args)
		if nAsked() != n+1 || !isErr || !strings.Contains(text, "Nothing was changed") {
			t.Fatalf("%s: want one question and nothing changed, asked %d: %s", c.tool, nAsked()-n, text)
		}
		_, q := bin.last()
		quotedOnly(t, c.tool, q, run)
		if !strings.Contains(q, namedIn(titleOf(before[books[0]]), books[0])) || !strings.Contains(q, c.want) {
			t.Errorf("%s: the question must name the books by title and id, and say %s:\n%s", c.tool, c.want, q)
		}
		for _, id := range books {
			if d := compareRaw(t, "declined "+c.tool+" "+id, before[id], raw(id)); d != 0 {
				t.Errorf("a declined %s changed %d field(s) of %s", c.tool, d, id)
			}
		}
	}
	// The refusals the stand-in reproduces, on the real server and through
	// the proxy (so their answers are checked against spec/ too): nothing
	// is changed by any of them. The quick match is never started here:
	// its providers are on the internet.
	none := run + "-no-such-item"
	for _, c := range []struct {
		path string
		body any
		want int
	}{
		{"/api/items/batch/update", []any{map[string]any{"id": books[0], "mediaPayload": map[string]any{}}, map[string]any{"id": books[0], "mediaPayload": map[string]any{}}}, 400},
		{"/api/items/batch/update", []any{map[string]any{"id": books[0], "mediaPayload": map[string]any{"tags": []string{run}}}, map[string]any{"id": none, "mediaPayload": map[string]any{}}}, 404},
		{"/api/items/batch/quickmatch", map[string]any{"libraryItemIds": []string{none}}, 400},
	} {
		if st := direct.do("POST", c.path, c.body, nil); st != c.want {
			t.Errorf("POST %s %v: %d, want %d", c.path, c.body, st, c.want)
		}
	}
	for _, id := range books {
		if d := compareRaw(t, "refused batches "+id, before[id], raw(id)); d != 0 {
			t.Errorf("a refused batch changed %d field(s) of %s", d, id)
		}
	}
	report(t, spec, rec.all(), map[string]bool{"getMe": true, "getLibraryItem": true, "listLibraryItems": true, "batchUpdateLibraryItems": true, "batchQuickMatchLibraryItems": true})
	t.Logf("batch_update_books: %d free calls put back on 2 books, %d raw field(s) compared, 0 differing unless reported; a removal from the middle of a list and a batch quick match asked and, declined, changed nothing", cases, fields)
}

// seriesEntries is a book's series as a PATCH body gives them back.
func seriesEntries(l []any) []any {
	out := []any{}
	for _, s := range l {
		m := s.(map[string]any)
		out = append(out, map[string]any{"name": m["name"], "sequence": m["sequence"]})
	}
	return out
}
