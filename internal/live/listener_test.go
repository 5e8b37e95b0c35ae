package live

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLiveListener runs what a listener asks next against a real
// Audiobookshelf as a user made here (nobody's progress is touched): a
// book marked finished without listening is named by
// get_listening_by_period, what_next and get_listening_year in one call;
// check_owned finds the library's own titles written as people write them,
// with the person's state, and not a title it does not hold;
// list_abandoned leaves out a book listened to today; get_taste_profile
// names the finished book's author and suggests only unstarted books.
// The user, its key and its session are deleted at the end.
func TestLiveListener(t *testing.T) {
	l := startListener(t, "listener")
	proxyURL, root, user, userKey := l.proxyURL, l.root, l.user, l.userKey

	lib := root.libraries()["book"]
	var all struct {
		Results []struct {
			ID    string
			Media struct {
				Metadata struct{ Title, AuthorName string }
			}
		}
	}
	root.get("/api/libraries/"+lib+"/items?limit=100&minified=1&sort=media.metadata.title", &all)
	if len(all.Results) < 3 {
		t.Fatalf("the book library needs 3 books")
	}
	finished, started, listened := all.Results[0], all.Results[1], all.Results[2]
	// One book marked finished (no session), one started today, one
	// listened to this year in a session of its own.
	if st := user.do("PATCH", "/api/me/progress/"+finished.ID, map[string]any{"isFinished": true}, nil); st != 200 {
		t.Fatalf("PATCH progress: %d", st)
	}
	if st := user.do("PATCH", "/api/me/progress/"+started.ID, map[string]any{"currentTime": 30, "progress": 0.25, "duration": 120}, nil); st != 200 {
		t.Fatalf("PATCH progress: %d", st)
	}
	now := time.Now()
	syncSession(t, user, lib, listened.ID, now, now.Add(-time.Minute), now, 60)

	cs := connectBinary(t, proxyURL, userKey, []string{"AUDIOBOOKSHELF_TOOLSETS=default,listening"}, nil)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		return callJSON(t, cs, tool, args)
	}
	named := func(what string, list any, id string) {
		t.Helper()
		l, _ := list.([]any)
		for _, e := range l {
			e := e.(map[string]any)
			if e["library_item_id"] == id {
				if e["title"] != finished.Media.Metadata.Title {
					t.Errorf("%s: %v, want the title %q", what, e, finished.Media.Metadata.Title)
				}
				return
			}
		}
		t.Errorf("%s does not list %s: %v", what, id, list)
	}
	from, to := now.AddDate(0, 0, -2).Format("2006-01-02"), now.AddDate(0, 0, 2).Format("2006-01-02")
	named("get_listening_by_period", call("get_listening_by_period", map[string]any{"from": from, "to": to})["finished"], finished.ID)
	named("what_next", call("what_next", map[string]any{})["recently_finished"], finished.ID)
	year := call("get_listening_year", map[string]any{"year": now.Year()})
	named("get_listening_year", year["finished"], finished.ID)
	if year["counts"].(map[string]any)["books_finished"] != 1.0 || year["total_s"].(float64) < 60 {
		t.Errorf("get_listening_year: %v", year)
	}

	// check_owned: the titles as people write them.
	lines := []string{
		strings.ToUpper(finished.Media.Metadata.Title),
		started.Media.Metadata.Title + " by " + started.Media.Metadata.AuthorName,
		"1. " + listened.Media.Metadata.Title + " (Book 1)",
		"Zzyzx Quarterly Almanac of Nothing",
	}
	v := call("check_owned", map[string]any{"titles": lines})
	res := v["results"].([]any)
	want := []struct{ id, state string }{{finished.ID, "finished"}, {started.ID, "in_progress"}, {listened.ID, ""}, {"", ""}}
	for i, w := range want {
		r := res[i].(map[string]any)
		book, _ := r["book"].(map[string]any)
		switch {
		case w.id == "" && r["status"] != "not_found":
			t.Errorf("%q: %v, want not_found", lines[i], r)
		case w.id != "" && (r["status"] != "owned" || book["library_item_id"] != w.id || (w.state != "" && book["state"] != w.state)):
			t.Errorf("%q: %v, want %s %s", lines[i], r, w.id, w.state)
		}
	}

	// list_abandoned: the book started today is not left.
	ab := call("list_abandoned", map[string]any{"idle_days": 1})
	for _, e := range ab["abandoned"].([]any) {
		if e.(map[string]any)["library_item_id"] == started.ID {
			t.Errorf("list_abandoned lists a book started today: %v", e)
		}
	}

	// get_taste_profile: the finished book's author, and no started book
	// suggested.
	tp := call("get_taste_profile", map[string]any{})
	var authors []string
	for _, a := range tp["authors"].([]any) {
		authors = append(authors, a.(map[string]any)["name"].(string))
	}
	if first := strings.Split(finished.Media.Metadata.AuthorName, ", ")[0]; first != "" && !slices.Contains(authors, first) {
		t.Errorf("get_taste_profile: %q is not among %v", first, authors)
	}
	if tp["books_finished"] != 1.0 {
		t.Errorf("get_taste_profile: books_finished %v, want 1", tp["books_finished"])
	}
	for _, s := range tp["suggestions"].([]any) {
		if id := s.(map[string]any)["library_item_id"]; id == finished.ID || id == started.ID {
			t.Errorf("get_taste_profile suggests a book started: %v", s)
		}
	}
}
