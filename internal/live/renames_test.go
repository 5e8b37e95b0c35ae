package live

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// TestLiveRenames: on a real Audiobookshelf, rename_tag, rename_genre and
// rename_narrator onto a new name, where the old one is the last of two
// books' lists, do not ask; each answer names both books and the rename
// back, and after it the books' raw records are compared field by field
// with what they were (only updatedAt left out). Then a rename onto a name
// one of them holds (a merge) asks, naming no tag; declined, nothing
// changes; and merge_tags, merge_genres and merge_narrators of two names ask, naming
// neither, declined change nothing, and approved leave each book the name
// kept. The names are the run's own; the
// books' tags, genres and narrators are set back at the end, even when a
// step fails. The binary reaches Audiobookshelf through the
// recording proxy, so each answer it reads is checked against spec/.
func TestLiveRenames(t *testing.T) {
	target, key, a := liveABS(t)
	lib := a.libraries()["book"]
	books := claimBooks(a, lib, 2, nil)
	raw := func(id string) map[string]any {
		var v map[string]any
		a.get("/api/items/"+id+"?expanded=1", &v)
		return v
	}
	list := func(v map[string]any, group string) []string {
		var l []any
		if group == "tags" {
			l, _ = at(v, "media", "tags").([]any)
		} else {
			l, _ = at(v, "media", "metadata", group).([]any)
		}
		out := []string{}
		for _, e := range l {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	set := func(id, group string, l []string) {
		body := map[string]any{"tags": l}
		if group != "tags" {
			body = map[string]any{"metadata": map[string]any{group: l}}
		}
		if st := a.do("PATCH", "/api/items/"+id+"/media", body, nil); st != 200 {
			t.Errorf("PATCH %s %s: %d", id, group, st)
		}
	}
	orig := map[string]map[string][]string{}
	for _, id := range books {
		v := raw(id)
		orig[id] = map[string][]string{"tags": list(v, "tags"), "genres": list(v, "genres"), "narrators": list(v, "narrators")}
	}
	t.Cleanup(func() {
		for _, id := range books {
			for _, g := range []string{"tags", "genres", "narrators"} {
				set(id, g, orig[id][g])
			}
		}
	})

	// The binary goes through the recording proxy: every answer it reads
	// (the filtered item lists, the renames) is checked against spec/.
	bin, rec, spec, _ := curationBinary(t, target, key, false)
	call, nAsked := bin.call, bin.nAsked

	run := fmt.Sprintf("mcp-live-rename-%d", time.Now().UnixNano())
	fields := 0
	for _, c := range []struct{ tool, group, oldArg, newArg string }{
		{"rename_tag", "tags", "tag", "new_tag"},
		{"rename_genre", "genres", "genre", "new_genre"},
		{"rename_narrator", "narrators", "narrator", "new_narrator"},
	} {
		oldName, newName := run+"-"+c.group+"-old", run+"-"+c.group+"-new"
		for _, id := range books {
			set(id, c.group, append(slices.Clone(orig[id][c.group]), oldName))
		}
		before := map[string]map[string]any{}
		for _, id := range books {
			before[id] = raw(id)
		}
		n := nAsked()
		v, text, isErr := call(c.tool, map[string]any{c.oldArg: oldName, c.newArg: newName})
		if isErr || nAsked() != n {
			t.Fatalf("%s onto a new name: asked %d, error %v: %s", c.tool, nAsked()-n, isErr, text)
		}
		ids := fmt.Sprint(v["library_item_ids"])
		for _, id := range books {
			if !strings.Contains(ids, id) {
				t.Errorf("%s: the answer does not name %s: %s", c.tool, id, text)
			}
			if l := list(raw(id), c.group); len(l) == 0 || l[len(l)-1] != newName || slices.Contains(l, oldName) {
				t.Errorf("%s: %s holds %q after the rename", c.tool, id, l)
			}
		}
		pb, _ := v["put_back"].(map[string]any)
		if pb == nil || pb["tool"] != c.tool {
			t.Fatalf("%s: no put-back: %s", c.tool, text)
		}
		args, _ := pb["arguments"].(map[string]any)
		if _, text, isErr := call(c.tool, args); isErr || nAsked() != n {
			t.Fatalf("%s put-back: asked %d, error %v: %s", c.tool, nAsked()-n, isErr, text)
		}
		for _, id := range books {
			after := raw(id)
			if d := compareRaw(t, c.tool+" "+id, before[id], after); d != 0 {
				t.Errorf("%s: %d field(s) of %s differ after the put-back", c.tool, d, id)
			}
			fields += leaves(before[id])
		}
	}

	// A merge: the second book holds both names; the rename asks, saying
	// which name becomes which and naming the books by title and id, and
	// declined it changes nothing.
	oldName, other := run+"-merge-old", run+"-merge-into"
	set(books[0], "tags", append(slices.Clone(orig[books[0]]["tags"]), oldName))
	set(books[1], "tags", append(slices.Clone(orig[books[1]]["tags"]), oldName, other))
	before := map[string]map[string]any{}
	for _, id := range books {
		before[id] = raw(id)
	}
	bin.setDecline(true)
	n := nAsked()
	_, text, isErr := call("rename_tag", map[string]any{"tag": oldName, "new_tag": other})
	if nAsked() != n+1 || !isErr || !strings.Contains(text, "Nothing was changed") {
		t.Fatalf("a merge: want one question and nothing changed, asked %d: %s", nAsked()-n, text)
	}
	_, q := bin.last()
	quotedOnly(t, "rename_tag", q, run)
	for _, w := range []string{"rename tag " + guard.Quote(oldName) + " to " + guard.Quote(other), namedIn(titleOf(before[books[1]]), books[1]), "already held by 1 item(s)"} {
		if !strings.Contains(q, w) {
			t.Errorf("the question lacks %s:\n%s", w, q)
		}
	}
	for _, id := range books {
		if d := compareRaw(t, "declined merge "+id, before[id], raw(id)); d != 0 {
			t.Errorf("a declined merge changed %d field(s) of %s", d, id)
		}
	}

	// Merges of two names each book holds one of: they always ask, naming
	// every spelling, the one kept and the books; declined, nothing
	// changes.
	for _, c := range []struct{ tool, group, listArg, intoArg string }{
		{"merge_tags", "tags", "tags", "into_tag"},
		{"merge_genres", "genres", "genres", "into_genre"},
		{"merge_narrators", "narrators", "narrators", "into_narrator"},
	} {
		first, second, into := run+"-"+c.group+"-merge-a", run+"-"+c.group+"-merge-b", run+"-"+c.group+"-merge-into"
		set(books[0], c.group, append(slices.Clone(orig[books[0]][c.group]), first))
		set(books[1], c.group, append(slices.Clone(orig[books[1]][c.group]), second))
		for _, id := range books {
			before[id] = raw(id)
		}
		n := nAsked()
		_, text, isErr := call(c.tool, map[string]any{c.listArg: []string{first, second}, c.intoArg: into})
		if nAsked() != n+1 || !isErr || !strings.Contains(text, "Nothing was changed") {
			t.Fatalf("%s: want one question and nothing changed, asked %d: %s", c.tool, nAsked()-n, text)
		}
		_, q := bin.last()
		quotedOnly(t, c.tool, q, run)
		for _, w := range []string{fmt.Sprintf("merge the 2 %s %s, %s into the one %s %s, on 2 item(s)", c.group, guard.Quote(first), guard.Quote(second), strings.TrimSuffix(c.group, "s"), guard.Quote(into)),
			namedIn(titleOf(before[books[0]]), books[0]), namedIn(titleOf(before[books[1]]), books[1])} {
			if !strings.Contains(q, w) {
				t.Errorf("%s: the question lacks %s:\n%s", c.tool, w, q)
			}
		}
		for _, id := range books {
			if d := compareRaw(t, "declined "+c.tool+" "+id, before[id], raw(id)); d != 0 {
				t.Errorf("a declined %s changed %d field(s) of %s", c.tool, d, id)
			}
		}
		// Approved: each book ends with the name kept, in place of its
		// own, and the answer counts one book per name.
		bin.setDecline(false)
		v, text, isErr := call(c.tool, map[string]any{c.listArg: []string{first, second}, c.intoArg: into})
		if isErr || nAsked() != n+2 {
			t.Fatalf("%s approved: asked %d, error %v: %s", c.tool, nAsked()-n, isErr, text)
		}
		if fmt.Sprint(v["items_changed"]) != "2" || !strings.Contains(text, `"items_changed":1`) {
			t.Errorf("%s approved: want one book per name, two in all: %s", c.tool, text)
		}
		for _, id := range books {
			if l := list(raw(id), c.group); !slices.Equal(l, append(slices.Clone(orig[id][c.group]), into)) {
				t.Errorf("%s approved: %s holds %q", c.tool, id, l)
			}
		}
		bin.setDecline(true)
	}
	report(t, spec, rec.all(), map[string]bool{"getMe": true, "listLibraries": true, "listLibraryItems": true, "getLibraryItem": true, "renameTag": true, "renameGenre": true, "renameNarrator": true})
	t.Logf("renames put back on 2 books: %d raw field(s) compared, 0 differing unless reported; a merge asked once and, declined, changed nothing; merge_tags, merge_genres and merge_narrators asked once each and, declined, changed nothing, and approved merged", fields)
}
