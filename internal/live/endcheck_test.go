package live

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEndCheckNamesWhatTheRunLeft: the suite's end comparison (no server
// needed) fails on a record gone, a record changed and a record this run
// made and left (or an item of a library it made), and leaves out what
// another run made meanwhile; with another run on the server, a record
// gone or changed fails it only when this run sent a change naming it.
func TestEndCheckNamesWhatTheRunLeft(t *testing.T) {
	var answer any
	if err := json.Unmarshal([]byte(`{"collection": {"id": "col-ours", "books": [{"id": "book-1"}]}, "user": {"id": "user-ours"}, "library": {"id": "lib-ours"}}`), &answer); err != nil {
		t.Fatal(err)
	}
	var ids []string
	eachID(answer, func(id string) { ids = append(ids, id) })
	slices.Sort(ids)
	if want := []string{"book-1", "col-ours", "lib-ours", "user-ours"}; !slices.Equal(ids, want) {
		t.Fatalf("the ids of an answer: %v, want %v", ids, want)
	}
	for _, id := range ids {
		if id != "book-1" {
			noteMade(id)
		}
	}
	rec := func(kind, id, owner, fields string) (string, record) {
		return kind + " " + id, record{kind: kind, id: id, owner: owner, fields: fields}
	}
	before, after := serverState{}, serverState{}
	for _, s := range []serverState{before, after} {
		k, r := rec("user", "root", "", `["root" "root" true]`)
		s[k] = r
		k, r = rec("item", "book-1", "lib-1", `["book" "Salt and Iron" 0]`)
		s[k] = r
	}
	k, r := rec("collection", "col-gone", "lib-1", `["kept" []]`)
	before[k] = r
	k, r = rec("item", "book-2", "lib-1", `["book" "Glass Meridian" 0]`)
	before[k] = r
	k, r = rec("item", "book-2", "lib-1", `["book" "Glass Meridian, renamed" 0]`)
	after[k] = r
	k, r = rec("collection", "col-ours", "lib-1", `["Discworld in order" []]`)
	after[k] = r
	k, r = rec("item", "item-of-our-library", "lib-ours", `["book" "planted" 0]`)
	after[k] = r
	k, r = rec("collection", "col-theirs", "lib-1", `["another run's" []]`)
	after[k] = r
	k, r = rec("user", "user-theirs", "", `["someone" "user" true]`)
	after[k] = r

	got := compareStates(before, after, false)
	for _, want := range []string{
		"collection col-gone",
		"item book-2 is",
		"collection col-ours",
		"item item-of-our-library",
	} {
		if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("no line about %q in %q", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d lines, want 4 (another run's records left out): %q", len(got), got)
	}

	// With another run on the server, a record gone or changed is this
	// run's only when it sent a change naming it.
	liveRun.mu.Lock()
	liveRun.touched["book-2"] = true
	liveRun.mu.Unlock()
	got = compareStates(before, after, true)
	if len(got) != 3 || slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "collection col-gone") }) {
		t.Errorf("with another run on the server: %q, want book-2's change and the two records this run left", got)
	}
}
