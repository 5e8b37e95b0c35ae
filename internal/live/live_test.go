package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
)

// Fixtures this run makes carry this prefix in their names and titles.
const prefix = "contract-"

// recorder keeps every verdict of the proxy.
type recorder struct {
	mu      sync.Mutex
	results []contract.Result
}

func (r *recorder) add(res contract.Result) {
	r.mu.Lock()
	r.results = append(r.results, res)
	r.mu.Unlock()
}

func (r *recorder) all() []contract.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]contract.Result(nil), r.results...)
}

// abs talks to Audiobookshelf directly (through the proxy) to find ids and
// to take snapshots; the key goes only into the Authorization header.
type abs struct {
	t    *testing.T
	base string
	key  string
	hc   *http.Client
}

func (a *abs) do(method, path string, body any, out any) int {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(b, out); err != nil {
			a.t.Fatalf("%s %s: not JSON: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

func (a *abs) get(path string, out any) {
	a.t.Helper()
	if st := a.do("GET", path, nil, out); st != 200 {
		a.t.Fatalf("GET %s: %d", path, st)
	}
}

// libraries is the id of the server's first library of each media type
// ("book", "podcast"), in Audiobookshelf's order.
func (a *abs) libraries() map[string]string {
	a.t.Helper()
	var libs struct {
		Libraries []struct{ ID, MediaType string }
	}
	a.get("/api/libraries", &libs)
	first := map[string]string{}
	for _, l := range libs.Libraries {
		if first[l.MediaType] == "" {
			first[l.MediaType] = l.ID
		}
	}
	return first
}

// snapshot is what this run may touch, to compare before and after.
type snapshot struct {
	Collections []string
	Playlists   []string
	Progress    []string
	Bookmarks   []string
}

func (a *abs) snapshot() snapshot {
	a.t.Helper()
	var me struct {
		MediaProgress []map[string]any `json:"mediaProgress"`
		Bookmarks     []map[string]any `json:"bookmarks"`
	}
	a.get("/api/me", &me)
	var cols struct {
		Collections []struct {
			ID, Name string
			Books    []struct{ ID string }
		}
	}
	a.get("/api/collections", &cols)
	var pls struct {
		Playlists []struct {
			ID, Name string
			Items    []struct{ LibraryItemID, EpisodeID string }
		}
	}
	a.get("/api/playlists", &pls)
	var s snapshot
	for _, c := range cols.Collections {
		s.Collections = append(s.Collections, fmt.Sprintf("%s %q %v", c.ID, c.Name, c.Books))
	}
	for _, p := range pls.Playlists {
		s.Playlists = append(s.Playlists, fmt.Sprintf("%s %q %v", p.ID, p.Name, p.Items))
	}
	for _, p := range me.MediaProgress {
		s.Progress = append(s.Progress, fmt.Sprintf("%v %v/%v %v %v %v %v %v", p["id"], p["libraryItemId"], p["episodeId"], p["mediaItemId"], p["currentTime"], p["progress"], p["isFinished"], p["hideFromContinueListening"]))
	}
	for _, b := range me.Bookmarks {
		s.Bookmarks = append(s.Bookmarks, fmt.Sprintf("%v %v %q", b["libraryItemId"], b["time"], b["title"]))
	}
	for _, l := range [][]string{s.Collections, s.Playlists, s.Progress, s.Bookmarks} {
		sort.Strings(l)
	}
	return s
}

// withoutOthers is after less the collections, playlists and progress
// records that are new since before and that this run did not make:
// another run's on the same server (the suite's proxy notes what this run
// made). Progress on a book this run claimed, or on an episode, is this
// run's.
func withoutOthers(before, after snapshot) snapshot {
	drop := func(b, a []string) []string {
		if a == nil {
			return nil
		}
		out := []string{}
		for _, e := range a {
			id, rest, _ := strings.Cut(e, " ")
			item, _, _ := strings.Cut(rest, " ")
			book, episode, isProgress := strings.Cut(item, "/")
			if wasMade(id) || slices.ContainsFunc(b, func(x string) bool { return strings.HasPrefix(x, id+" ") }) ||
				(isProgress && (claimedHere(book) || (episode != "" && episode != "<nil>"))) {
				out = append(out, e)
			}
		}
		if len(out) == 0 && len(b) == 0 {
			return b
		}
		return out
	}
	after.Collections = drop(before.Collections, after.Collections)
	after.Playlists = drop(before.Playlists, after.Playlists)
	after.Progress = drop(before.Progress, after.Progress)
	return after
}

type item struct {
	ID        string `json:"id"`
	MediaType string `json:"mediaType"`
	Media     struct {
		Metadata struct {
			Title string `json:"title"`
		} `json:"metadata"`
		Episodes []struct {
			ID string `json:"id"`
		} `json:"episodes"`
	} `json:"media"`
}

func TestLiveContract(t *testing.T) {
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live contract run is `make test-live` (it sets ABS_LIVE=1), with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY of a throwaway Audiobookshelf")
	}
	target, key := liveServer(t)

	// The recording, validating proxy in front of the real server.
	proxyURL, rec, spec, a := specProxy(t, target, key)

	before := a.snapshot()
	var status struct {
		ServerVersion string `json:"serverVersion"`
	}
	a.get("/status", &status)
	t.Logf("Audiobookshelf %s at %s", status.ServerVersion, target.Redacted())

	// Find what the tools will be called on.
	libs := a.libraries()
	bookLib, podLib := libs["book"], libs["podcast"]
	if bookLib == "" || podLib == "" {
		t.Fatalf("the server needs a book library and a podcast library; it has the first of each type %v", libs)
	}
	var books struct{ Results []item }
	a.get("/api/libraries/"+bookLib+"/items?limit=100", &books)
	var me struct {
		MediaProgress []struct{ LibraryItemID, EpisodeID string } `json:"mediaProgress"`
	}
	a.get("/api/me", &me)
	started := map[string]bool{}
	for _, p := range me.MediaProgress {
		started[p.LibraryItemID+"/"+p.EpisodeID] = true
	}
	// Two books never started, claimed (no other run uses them meanwhile;
	// the claims go past the spec's proxy).
	claimer := &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 60 * time.Second}}
	claimed := claimBooks(claimer, bookLib, 2, func(it map[string]any) bool { return !started[fmt.Sprint(it["id"])+"/"] })
	var b1, b2 item
	for _, it := range books.Results {
		switch it.ID {
		case claimed[0]:
			b1 = it
		case claimed[1]:
			b2 = it
		}
	}
	if b1.ID == "" || b2.ID == "" {
		t.Fatalf("need two books, one of them never started; the book library has %d", len(books.Results))
	}
	// A podcast, claimed as the books are: its episode's progress is this
	// run's alone.
	var pods struct{ Results []item }
	for _, id := range claimBooks(claimer, podLib, 1, func(it map[string]any) bool {
		n, _ := at(it, "media", "numEpisodes").(float64)
		return n > 0
	}) {
		pods.Results = append(pods.Results, item{ID: id})
	}
	var pod item
	var episode string
	for _, p := range pods.Results {
		var full item
		a.get("/api/items/"+p.ID+"?expanded=1", &full)
		for _, e := range full.Media.Episodes {
			if !started[p.ID+"/"+e.ID] {
				pod, episode = full, e.ID
				break
			}
		}
		if episode != "" {
			break
		}
	}
	if episode == "" {
		t.Fatalf("need a podcast episode never started")
	}
	var series struct{ Results []struct{ ID string } }
	a.get("/api/libraries/"+bookLib+"/series?limit=5", &series)
	var authors struct{ Authors []struct{ ID string } }
	a.get("/api/libraries/"+bookLib+"/authors", &authors)
	if len(series.Results) == 0 || len(authors.Authors) == 0 {
		t.Fatalf("the book library needs a series and an author")
	}
	// A bookmark time no bookmark of b1 uses.
	var bms struct {
		Bookmarks []struct{ Time any } `json:"bookmarks"`
	}
	a.get("/api/me/bookmarks/"+b1.ID, &bms)
	// Within the first ten seconds: every book is longer, and the tools
	// refuse a time past the end.
	bmTime := 1.125 + float64(rand.IntN(64))/8
	for _, b := range bms.Bookmarks {
		if fmt.Sprint(b.Time) == fmt.Sprint(bmTime) {
			bmTime += 0.125
		}
	}
	run := fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1_000_000)

	// Remove whatever this run made, whatever happens to the test.
	var made struct {
		sync.Mutex
		collections, playlists []string
	}
	t.Cleanup(func() {
		made.Lock()
		defer made.Unlock()
		// By id, and by this run's name in case a call failed after
		// making one.
		var cols struct{ Collections []struct{ ID, Name string } }
		a.get("/api/collections", &cols)
		for _, c := range cols.Collections {
			if strings.HasPrefix(c.Name, run) {
				made.collections = append(made.collections, c.ID)
			}
		}
		var pls struct{ Playlists []struct{ ID, Name string } }
		a.get("/api/playlists", &pls)
		for _, p := range pls.Playlists {
			if strings.HasPrefix(p.Name, run) {
				made.playlists = append(made.playlists, p.ID)
			}
		}
		for _, id := range made.collections {
			a.do("DELETE", "/api/collections/"+id, nil, nil)
		}
		for _, id := range made.playlists {
			a.do("DELETE", "/api/playlists/"+id, nil, nil)
		}
		a.do("DELETE", fmt.Sprintf("/api/me/item/%s/bookmark/%v", b1.ID, bmTime), nil, nil)
		var me struct {
			MediaProgress []struct{ ID, LibraryItemID, EpisodeID string } `json:"mediaProgress"`
		}
		a.get("/api/me", &me)
		for _, p := range me.MediaProgress {
			if (p.LibraryItemID == b1.ID && p.EpisodeID == "") || (p.LibraryItemID == pod.ID && p.EpisodeID == episode) {
				a.do("DELETE", "/api/me/progress/"+p.ID, nil, nil)
			}
		}
		after := withoutOthers(before, a.snapshot())
		if !reflect.DeepEqual(before, after) {
			t.Errorf("the library is not as it was found:\nbefore %+v\nafter  %+v", before, after)
		}
	})

	// The binary, over stdio, pointed at the proxy; guarded tools ask and
	// this client approves.
	var asked atomic.Int32
	cs := connect(t, proxyURL, key, &asked)
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		called[name] = true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if res.IsError {
			t.Errorf("%s %v: tool error: %s", name, args, text)
			return nil
		}
		var out map[string]any
		_ = json.Unmarshal([]byte(text), &out)
		return out
	}

	// libraries
	call("list_libraries", nil)
	call("get_library", map[string]any{"library_id": bookLib})
	call("get_library_stats", map[string]any{"library_id": bookLib})
	call("get_library_stats", map[string]any{"library_id": podLib})
	call("get_library_filter_data", map[string]any{"library_id": bookLib})
	call("list_library_items", map[string]any{"library_id": bookLib, "limit": 5, "sort": "title"})
	call("list_library_items", map[string]any{"library_id": bookLib, "filter_group": "series", "filter_value": series.Results[0].ID, "sort": "sequence"})
	call("list_library_items", map[string]any{"library_id": bookLib, "collapse_series": true, "detail": "full"})
	call("list_library_items", map[string]any{"library_id": podLib, "detail": "full"})
	word := strings.Fields(b1.Media.Metadata.Title + " a")[0]
	call("search_library", map[string]any{"library_id": bookLib, "q": word})
	call("search_library", map[string]any{"library_id": podLib, "q": strings.Fields(pod.Media.Metadata.Title + " a")[0]})
	call("get_personalized_shelves", map[string]any{"library_id": bookLib})
	call("get_personalized_shelves", map[string]any{"library_id": podLib})
	call("list_series", map[string]any{"library_id": bookLib})
	call("get_series", map[string]any{"series_id": series.Results[0].ID, "detail": "full"})
	call("list_authors", map[string]any{"library_id": bookLib})
	call("get_author", map[string]any{"author_id": authors.Authors[0].ID, "include_items": true})
	call("list_tags", nil)
	call("list_genres", nil)
	call("get_server_status", nil)
	// items
	call("get_library_item", map[string]any{"library_item_id": b1.ID, "detail": "full"})
	call("get_library_item", map[string]any{"library_item_id": pod.ID})
	call("get_item_chapters", map[string]any{"library_item_id": b1.ID})
	call("get_podcast_episode", map[string]any{"library_item_id": pod.ID, "episode_id": episode})
	call("list_recent_episodes", map[string]any{"library_id": podLib})
	// me
	call("get_me", nil)
	call("list_items_in_progress", nil)
	call("get_listening_stats", nil)
	call("get_year_stats", map[string]any{"year": time.Now().Year()})
	call("list_listening_sessions", nil)

	// progress: a book never started and an episode never started, set,
	// read and deleted.
	set := call("set_media_progress", map[string]any{"library_item_id": b1.ID, "current_time": 12.5})
	if pb, _ := set["put_back"].(map[string]any); pb == nil || pb["tool"] != "delete_media_progress" {
		t.Errorf("set_media_progress on a book never started: the put-back is not the deletion of the new record: %v", set)
	}
	p := call("get_media_progress", map[string]any{"library_item_id": b1.ID})
	// Finished, then put back from the answer (it asks: it clears the
	// finished date the call made): Audiobookshelf's record as it was,
	// field by field.
	raw := func() map[string]any {
		var m map[string]any
		a.get("/api/me/progress/"+b1.ID, &m)
		return m
	}
	r0 := raw()
	asked.Store(0)
	fin := call("set_media_progress", map[string]any{"library_item_id": b1.ID, "is_finished": true})
	if asked.Load() != 0 {
		t.Errorf("set_media_progress is_finished true on an unfinished record asked")
	}
	if pb, _ := fin["put_back"].(map[string]any); pb == nil {
		t.Errorf("set_media_progress is_finished true: no put_back: %v", fin)
	} else {
		args, _ := pb["arguments"].(map[string]any)
		call(fmt.Sprint(pb["tool"]), args)
		if asked.Load() != 1 {
			t.Errorf("the put-back that clears the new finished date asked %d times, want 1", asked.Load())
		}
		sameFields(t, "set_media_progress put-back", r0, raw())
	}
	// Un-finishing a finished record clears its finished date: it asks.
	call("set_media_progress", map[string]any{"library_item_id": b1.ID, "is_finished": true})
	asked.Store(0)
	call("set_media_progress", map[string]any{"library_item_id": b1.ID, "is_finished": false})
	if asked.Load() != 1 {
		t.Errorf("set_media_progress is_finished false on a finished record asked %d times, want 1", asked.Load())
	}
	call("set_media_progress", map[string]any{"library_item_id": pod.ID, "episode_id": episode, "current_time": 4.5})
	pe := call("get_media_progress", map[string]any{"library_item_id": pod.ID, "episode_id": episode})
	for _, pr := range []map[string]any{p, pe} {
		if id := idOf(pr, "progress"); id != "" {
			call("delete_media_progress", map[string]any{"media_progress_id": id})
		} else {
			t.Errorf("get_media_progress gave no id: %v", pr)
		}
	}

	// bookmarks
	call("create_bookmark", map[string]any{"library_item_id": b1.ID, "time": bmTime, "title": run})
	call("list_bookmarks", nil)
	call("list_bookmarks", map[string]any{"library_item_id": b1.ID})
	call("update_bookmark", map[string]any{"library_item_id": b1.ID, "time": bmTime, "title": run + "-renamed"})
	call("delete_bookmark", map[string]any{"library_item_id": b1.ID, "time": bmTime})

	// collections
	c := call("create_collection", map[string]any{"library_id": bookLib, "name": run, "description": "made by make test-live", "library_item_ids": []string{b1.ID}})
	cid := idOf(c, "collection")
	if cid == "" {
		t.Fatalf("create_collection gave no id: %v", c)
	}
	made.Lock()
	made.collections = append(made.collections, cid)
	made.Unlock()
	call("list_collections", nil)
	call("list_collections", map[string]any{"library_id": bookLib})
	call("get_collection", map[string]any{"collection_id": cid})
	call("add_books_to_collection", map[string]any{"collection_id": cid, "library_item_ids": []string{b2.ID}})
	call("update_collection", map[string]any{"collection_id": cid, "name": run + "-renamed", "library_item_ids": []string{b2.ID, b1.ID}})
	call("remove_books_from_collection", map[string]any{"collection_id": cid, "library_item_ids": []string{b2.ID}})
	call("delete_collection", map[string]any{"collection_id": cid})

	// playlists
	pl := call("create_playlist", map[string]any{"library_id": bookLib, "name": run, "items": []map[string]any{{"library_item_id": b1.ID}}})
	pid := idOf(pl, "playlist")
	if pid == "" {
		t.Fatalf("create_playlist gave no id: %v", pl)
	}
	made.Lock()
	made.playlists = append(made.playlists, pid)
	made.Unlock()
	call("list_playlists", nil)
	call("list_playlists", map[string]any{"library_id": bookLib})
	call("get_playlist", map[string]any{"playlist_id": pid})
	call("add_items_to_playlist", map[string]any{"playlist_id": pid, "items": []map[string]any{{"library_item_id": b2.ID}}})
	call("update_playlist", map[string]any{"playlist_id": pid, "name": run + "-renamed", "items": []map[string]any{{"library_item_id": b2.ID}, {"library_item_id": b1.ID}}})
	call("remove_items_from_playlist", map[string]any{"playlist_id": pid, "items": []map[string]any{{"library_item_id": b2.ID}}})
	call("delete_playlist", map[string]any{"playlist_id": pid})
	// An episode playlist, for the episode form of a playlist entry.
	ep := call("create_playlist", map[string]any{"library_id": podLib, "name": run + "-episodes", "items": []map[string]any{{"library_item_id": pod.ID, "episode_id": episode}}})
	if epid := idOf(ep, "playlist"); epid != "" {
		made.Lock()
		made.playlists = append(made.playlists, epid)
		made.Unlock()
		call("get_playlist", map[string]any{"playlist_id": epid})
		call("delete_playlist", map[string]any{"playlist_id": epid})
	}

	// Error answers through the binary, for their shapes: ids that do not
	// exist (a sentence sent as text/html, and res.sendStatus's text/plain).
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_collection", map[string]any{"collection_id": prefix + "missing"}},
		{"get_playlist", map[string]any{"playlist_id": prefix + "missing"}},
		{"get_library", map[string]any{"library_id": prefix + "missing"}},
		{"get_library_item", map[string]any{"library_item_id": prefix + "missing"}},
		{"get_author", map[string]any{"author_id": prefix + "missing"}},
		{"search_library", map[string]any{"library_id": prefix + "missing", "q": "x"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		cancel()
		if err != nil || !res.IsError {
			t.Errorf("%s %v: want a tool error, got %v %v", c.tool, c.args, res, err)
		}
	}

	// podcasts toolset: a loopback feed, subscribed, checked, downloaded
	// from, an episode deleted (declined first), the podcast removed.
	direct := &abs{t: t, base: target.String(), key: key, hc: a.hc}
	livePodcasts(t, call, connectDeclining(t, proxyURL, key), direct, podLib, run)

	// A refused key, for the shape of the 401 answer.
	wrong := *a
	wrong.key = prefix + "not-a-key"
	if st := wrong.do("GET", "/api/me", nil, nil); st != http.StatusUnauthorized {
		t.Errorf("GET /api/me with a wrong key: %d, want 401", st)
	}

	// The discovery tools read this server's registry and the session,
	// never Audiobookshelf (internal/app's tests hold them).
	discovery := map[string]bool{"list_toolsets": true, "enable_toolset": true, "call_tool": true}
	for _, tool := range tl.Tools {
		if !called[tool.Name] && !discovery[tool.Name] {
			t.Errorf("tool %s was not run", tool.Name)
		}
	}
	if len(tl.Tools) != 44+8+len(discovery) { // the 44, the podcasts toolset and the discovery tools
		t.Errorf("the binary lists %d tools, want %d", len(tl.Tools), 44+8+len(discovery))
	}
	// The operations of the tools the binary lists (upkeep's are
	// TestLiveUpkeep's).
	only := map[string]bool{}
	for _, tool := range tl.Tools {
		for _, rt := range registry.All {
			if rt.Name == tool.Name {
				for _, op := range rt.Operations {
					only[op] = true
				}
			}
		}
	}
	report(t, spec, rec.all(), only)
}

// idOf is the id of a tool result: its own, or that of the object under
// key ({"collection": {...}, "created": true}).
func idOf(m map[string]any, key string) string {
	if id, ok := m["id"].(string); ok {
		return id
	}
	if inner, ok := m[key].(map[string]any); ok {
		id, _ := inner["id"].(string)
		return id
	}
	return ""
}

// report prints one line per operation of the spec: conforms (with the
// number of answers seen), the first answer that does not, or not seen; the
// last two fail the run.
// only, when not nil, limits the operations reported to those in it.
func report(t *testing.T, spec *contract.Spec, results []contract.Result, only map[string]bool) {
	t.Helper()
	type agg struct {
		n     int
		first *contract.Result
	}
	seen := map[string]*agg{}
	var stray []contract.Result
	for i := range results {
		r := results[i]
		if r.Operation == "" {
			stray = append(stray, r)
			continue
		}
		g := seen[r.Operation]
		if g == nil {
			g = &agg{}
			seen[r.Operation] = g
		}
		g.n++
		if r.Err != nil && g.first == nil {
			g.first = &r
		}
	}
	var ops []string
	for _, pi := range spec.Doc.Paths.Map() {
		for _, op := range pi.Operations() {
			if only == nil || only[op.OperationID] {
				ops = append(ops, op.OperationID)
			}
		}
	}
	sort.Strings(ops)
	var bad int
	for _, op := range ops {
		g := seen[op]
		switch {
		case g == nil:
			bad++
			t.Logf("%-28s NOT SEEN: no tool call reached it", op)
		case g.first == nil:
			t.Logf("%-28s conforms (%d answers)", op, g.n)
		default:
			bad++
			t.Logf("%-28s DOES NOT CONFORM: %s %s → %d: %v", op, g.first.Method, g.first.Path, g.first.Status, g.first.Err)
		}
	}
	for _, r := range stray {
		bad++
		t.Logf("%-28s %s", "(no operation)", r)
	}
	if bad > 0 {
		t.Errorf("%d operations do not conform to spec/audiobookshelf.yaml or were not reached (lines above)", bad)
	}
}

// connect starts the binary over stdio against base and connects a client
// that approves every question.
// sameFields compares two raw Audiobookshelf records field by field,
// ignoring what Audiobookshelf moves on every save.
func sameFields(t *testing.T, what string, before, after map[string]any) {
	t.Helper()
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	for k := range keys {
		if k == "lastUpdate" || k == "updatedAt" {
			continue
		}
		if b, a := fmt.Sprint(before[k]), fmt.Sprint(after[k]); b != a {
			t.Errorf("%s: field %s is %s after the put-back, was %s", what, k, a, b)
		}
	}
}

// contractToolsets are the toolsets the contract run covers: the 44 tools
// and the podcasts toolset (upkeep's and listening's tools are
// TestLiveUpkeep's and TestLiveListening's).
const contractToolsets = "AUDIOBOOKSHELF_TOOLSETS=libraries,items,me,progress,bookmarks,collections,playlists,podcasts"

// connect starts the binary with the contract's toolsets; its person
// approves every question, counted in asked.
func connect(t *testing.T, base, key string, asked *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	return connectBinary(t, base, key, []string{contractToolsets}, &mcp.ClientOptions{ElicitationHandler: approving(asked)})
}

// approving is a person who approves every question, counted in asked.
func approving(asked *atomic.Int32) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}
}

// connectWith starts the binary over stdio against base and connects a
// client whose person answers each question with answer.
func connectWith(t *testing.T, base, key string, answer func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return connectBinary(t, base, key, nil, &mcp.ClientOptions{ElicitationHandler: answer})
}

// connectBinary starts the binary over stdio against base with key, every
// toolset listed (the live runs call tools of each) unless env names its
// own, the variables in env besides, and connects a client with opts.
func connectBinary(t *testing.T, base, key string, env []string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	bin := serverBinary(t)
	cmd := exec.Command(bin)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"AUDIOBOOKSHELF_URL=" + base,
		"AUDIOBOOKSHELF_API_KEY=" + key,
		"ELICITATION=true",
		"AUDIOBOOKSHELF_TIMEOUT=60s",
		"AUDIOBOOKSHELF_TOOLSETS=all",
	}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := liveClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting %s: %v\n%s", bin, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
