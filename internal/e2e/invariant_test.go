package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// putBackCase is one write a tool makes without asking, run against the
// stand-in and then undone by the put_back its own answer names.
type putBackCase struct {
	name string
	args map[string]any
	// ignore are fields Audiobookshelf itself moves and a put-back cannot
	// give back, beyond bumped (say why where one is set).
	ignore []string
	// noPutBack is set for a write that changes no record (the answer
	// needs no put-back); the comparison then runs right after the write.
	noPutBack bool
	// setup changes the stand-in's records before the case runs.
	setup func(d *sd.Data)
	// putBack, when set, runs the put-back the answer names instead of
	// the one call of its put_back (a put-back of several calls, or one
	// that needs what only exists later); it approves what asks.
	putBack func(t *testing.T, e *apptest.Env, answer any)
	// settle, when set, waits after the write for what Audiobookshelf
	// does later (a download queue running), before anything is compared.
	settle func(t *testing.T, e *apptest.Env, answer any)
	// verify, when set, checks the fields named in ignore by hand:
	// before and after are the stand-in's states around write and
	// put-back.
	verify func(t *testing.T, before, after *sd.Data, answer any)
	// standin sets what the stand-in answers (a metadata provider's
	// result) before the case runs.
	standin func(s *sd.Server)
}

// putBackCases has, for every write tool that does not always ask, its
// free path: the call, whose answer must carry put_back.
var putBackCases = map[string][]putBackCase{
	"set_media_progress": {{name: "a position", args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "current_time": 600}},
		{name: "no record before", args: map[string]any{"library_item_id": sd.ItemMort, "current_time": 600}},
		// A record keeps the duration it was made with (a rescan may have
		// changed the item's since, or a client left it 0): the call must
		// not overwrite it, for no put-back could give it back.
		{name: "a record whose duration is not the item's", args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "current_time": 600},
			setup: func(d *sd.Data) {
				for i := range d.Users[0].MediaProgress {
					if d.Users[0].MediaProgress[i].ID == sd.ProgressColourOfMagic {
						d.Users[0].MediaProgress[i].Duration = 0
					}
				}
			}}},
	"hide_series_from_continue_series": {{name: "a series on the shelf", args: map[string]any{"series_id": sd.SeriesExpanse}}},
	"readd_series_to_continue_series": {{name: "a hidden series", args: map[string]any{"series_id": sd.SeriesExpanse},
		setup: func(d *sd.Data) {
			d.Users[0].SeriesHideFromContinueListening = []string{sd.SeriesDiscworld, sd.SeriesExpanse}
		}}},
	"create_bookmark": {{name: "a new time", args: map[string]any{"library_item_id": sd.ItemMort, "time": 95.5, "title": "Death takes an apprentice"}}},
	"update_bookmark": {{name: "a rename", args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 3600, "title": "Twoflower arrives"}}},
	"create_collection": {{name: "with books", args: map[string]any{"library_id": sd.LibraryBooksID, "name": "Throwaway", "description": "for a test",
		"library_item_ids": []string{sd.ItemMort, sd.ItemSourcery}}}},
	"update_collection": {{name: "a rename", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder, "name": "Renamed"}}},
	"add_books_to_collection": {{name: "one new, one there", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder,
		"library_item_ids": []string{sd.ItemWyrdSisters, sd.ItemMort}}}},
	"create_playlist": {{name: "with a book", args: map[string]any{"library_id": sd.LibraryBooksID, "name": "Throwaway",
		"items": []map[string]any{{"library_item_id": sd.ItemMort}}}}},
	"update_playlist": {{name: "a rename", args: map[string]any{"playlist_id": sd.PlaylistCommute, "name": "Renamed"}}},
	// On a playlist with entries (one with none asks instead).
	"add_items_to_playlist": {{name: "episodes", args: map[string]any{"playlist_id": sd.PlaylistCatchUp, "items": []map[string]any{
		{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings4}, {"library_item_id": sd.ItemPodcastOrbital, "episode_id": sd.EpisodeOrbital4}}}}},
	"update_item_metadata": {{name: "title and tags", args: map[string]any{"library_item_id": sd.ItemMort,
		"fields": map[string]any{"title": "Mort (revised)", "tags": []string{"x"}}}},
		{name: "publisher, codes and flags", args: map[string]any{"library_item_id": sd.ItemMort, "fields": map[string]any{
			"publisher": "Corgi", "language": "", "isbn": "9780552131063", "asin": "B0031RS9OM", "explicit": true, "abridged": true}}},
		// Taken off a book, an author or series that another book keeps
		// stays, so the put-back gives the same record back (taking one off
		// its last book asks instead: effect_guards_test.go).
		{name: "an author another book keeps", args: map[string]any{"library_item_id": sd.ItemGoodOmens,
			"fields": map[string]any{"authors": []string{"Terry Pratchett"}}}},
		{name: "a series another book keeps", args: map[string]any{"library_item_id": sd.ItemTombsOfAtuan,
			"fields": map[string]any{"series": []map[string]any{}}}}},
	// A rename onto a new name where the old one is last on every item
	// holding it: the rename back gives every item its list back.
	"rename_tag":      {{name: "onto a new name, last on every item", args: map[string]any{"tag": "space-opera", "new_tag": "space opera"}}},
	"rename_genre":    {{name: "onto a new name, last on every item", args: map[string]any{"genre": "Science Fiction", "new_genre": "Sci-Fi"}}},
	"rename_narrator": {{name: "onto a new name, last on every book", args: map[string]any{"narrator": "Rob Inglis", "new_narrator": "Robert Inglis"}}},
	// A book without chapters gets Audnexus's; the put-back clears them
	// again, which asks (the book has chapters then: approved here), and
	// must name clear alone.
	"set_item_chapters": {{name: "a book without chapters", args: map[string]any{"library_item_id": sd.ItemLeviathanWakes},
		setup: func(d *sd.Data) {
			for i := range d.Items {
				if d.Items[i].ID == sd.ItemLeviathanWakes {
					d.Items[i].Book.Chapters = []sd.Chapter{}
				}
			}
		},
		putBack: func(t *testing.T, e *apptest.Env, v any) {
			if args, _ := v.(map[string]any)["put_back"].(map[string]any)["arguments"].(map[string]any); len(args) != 2 || args["clear"] != true {
				t.Errorf("the put-back: %v", v)
			}
			putBack(t, e, v)
		}}},
	// A book without a cover gets one; the put-back takes it off again
	// with remove_item_cover (which asks).
	"set_item_cover": {{name: "a book without a cover", args: map[string]any{"library_item_id": sd.ItemMort, "url": "https://covers.example/mort.jpg"},
		setup: func(d *sd.Data) {
			for i := range d.Items {
				if d.Items[i].ID == sd.ItemMort {
					d.Items[i].Book.CoverPath = ""
				}
			}
		}}},
	"match_library_item": {{name: "without override", args: map[string]any{"library_item_id": sd.ItemMort}},
		// The stand-in's provider has a publisher and a language: on a
		// book without them the match fills them, and the put-back must
		// take them off again.
		{name: "fills publisher and language", args: map[string]any{"library_item_id": sd.ItemMort}, setup: func(d *sd.Data) {
			for i := range d.Items {
				if d.Items[i].ID == sd.ItemMort {
					d.Items[i].Book.Publisher, d.Items[i].Book.Language = "", ""
				}
			}
		}},
		// A book without a cover: the match takes the provider's cover,
		// and the put-back takes it off again with remove_item_cover
		// (after update_item_metadata gives the filled fields back), which
		// asks.
		{name: "fetches a cover for a book without one", args: map[string]any{"library_item_id": sd.ItemMort},
			setup: func(d *sd.Data) {
				for i := range d.Items {
					if d.Items[i].ID == sd.ItemMort {
						d.Items[i].Book.CoverPath, d.Items[i].Book.Publisher = "", ""
					}
				}
			},
			standin: func(s *sd.Server) {
				s.SetMatchResult(func(provider string, b *sd.Book, authors []string) *sd.MatchData {
					return &sd.MatchData{Title: b.Title, Publisher: "Stand-in Press", Cover: "https://covers.example/mort.jpg"}
				})
			}},
		// Only a cover to fetch: the put-back is remove_item_cover alone.
		{name: "fetches only a cover", args: map[string]any{"library_item_id": sd.ItemMort},
			setup: func(d *sd.Data) {
				for i := range d.Items {
					if d.Items[i].ID == sd.ItemMort {
						d.Items[i].Book.CoverPath = ""
					}
				}
			},
			standin: func(s *sd.Server) {
				s.SetMatchResult(func(provider string, b *sd.Book, authors []string) *sd.MatchData {
					return &sd.MatchData{Title: b.Title, Cover: "https://covers.example/mort.jpg"}
				})
			}}},
	// A scan changes records only from what is on disk; with nothing
	// changed there it changes no record. Audiobookshelf notes the time of
	// the scan on the library (lastScan, lastScanVersion): the only fields
	// it moves, and no tool could set them back.
	"scan_library": {{name: "nothing changed on disk", args: map[string]any{"library_id": sd.LibraryBooksID}, noPutBack: true,
		ignore: []string{"LastScan", "LastScanVersion"}}},
	// The put-back deletes the podcast with its folder. What the stand-in
	// records as deleted from disk (a log, not a record of Audiobookshelf)
	// is checked by hand: exactly the folder the call made.
	"create_podcast": {{name: "a new feed", args: map[string]any{"library_id": sd.LibraryPodcastsID, "feed_url": sd.FeedNightShift},
		ignore: []string{".Podcasts.DeletedFiles"},
		verify: func(t *testing.T, before, after *sd.Data, answer any) {
			want := append(before.Podcasts.DeletedFiles, str(at(t, answer, "path")))
			if fmt.Sprint(after.Podcasts.DeletedFiles) != fmt.Sprint(want) {
				t.Errorf("deleted from disk: %v, want %v (the folder create_podcast made)", after.Podcasts.DeletedFiles, want)
			}
		}}},
	// The queue runs first; the put-back is one delete_podcast_episode
	// per episode, its id named by list_podcast_downloads. Audiobookshelf
	// recounts the item's size on a download and not on a delete (the
	// answer says so): checked by hand, as the stand-in's log of files
	// deleted from disk is.
	"download_podcast_episodes": {{name: "the newest two", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "newest": 2},
		ignore:  []string{".Podcasts.DeletedFiles", ".Items[*].Size"},
		settle:  func(t *testing.T, e *apptest.Env, answer any) { downloadedIDs(t, e, answer) },
		putBack: putBackDownloads,
		verify:  verifyDownloadPutBack}},
}

// putBackDownloads waits for the downloads the answer queued (the
// stand-in finishes one per request), takes their episode ids from the
// call episode_ids_from names, and runs put_back once for each.
func putBackDownloads(t *testing.T, e *apptest.Env, answer any) {
	t.Helper()
	pb, _ := at(t, answer, "put_back").(map[string]any)
	if pb == nil || str(pb["tool"]) != "delete_podcast_episode" {
		t.Fatalf("the answer names no put-back: %v", answer)
	}
	for _, id := range downloadedIDs(t, e, answer) {
		args := map[string]any{}
		for k, v := range pb["arguments"].(map[string]any) {
			args[k] = v
		}
		args["episode_id"] = id
		if res := e.Call(t, "delete_podcast_episode", args); res.IsError {
			t.Fatalf("put-back of episode %s: %s", id, apptest.Text(res))
		}
	}
}

// downloadedIDs asks the call the answer's episode_ids_from names until
// every queued episode is downloaded, and gives their episode ids.
func downloadedIDs(t *testing.T, e *apptest.Env, answer any) []string {
	t.Helper()
	find, _ := at(t, answer, "episode_ids_from").(map[string]any)
	if find == nil {
		t.Fatalf("the answer does not say where the episode ids come from: %v", answer)
	}
	keys := at(t, answer, "queued").([]any)
	var ids []string
	for try := 0; try < 20; try++ {
		v := decode(t, e.Call(t, str(find["tool"]), find["arguments"]))
		ids = nil
		for _, k := range at(t, v, "episodes").([]any) {
			if str(at(t, k, "state")) == "downloaded" {
				ids = append(ids, str(at(t, k, "episode_id")))
			}
		}
		if len(ids) == len(keys) {
			break
		}
	}
	if len(ids) != len(keys) {
		t.Fatalf("%d of %d queued episodes downloaded", len(ids), len(keys))
	}
	return ids
}

func verifyDownloadPutBack(t *testing.T, before, after *sd.Data, answer any) {
	gone := after.Podcasts.DeletedFiles[len(before.Podcasts.DeletedFiles):]
	if len(gone) != len(at(t, answer, "queued").([]any)) {
		t.Errorf("deleted from disk: %v, want one file for each download", gone)
	}
	var size int64
	for _, f := range gone {
		if !strings.HasPrefix(f, itemPath(before, sd.ItemPodcastTinyThings)+"/") {
			t.Errorf("deleted %s, not a file of the podcast", f)
		}
	}
	b, a := itemOf(before, sd.ItemPodcastTinyThings), itemOf(after, sd.ItemPodcastTinyThings)
	for _, f := range b.LibraryFiles {
		size += f.Metadata.Size
	}
	// Recounted from all files on the last download, and not on a delete.
	if a.Size <= size || a.Size == b.Size {
		t.Errorf("item size %d (was %d, its files %d): not what Audiobookshelf leaves", a.Size, b.Size, size)
	}
	if !strings.Contains(str(at(t, answer, "also_changed")), "size") {
		t.Errorf("the answer does not say the size stays: %v", answer)
	}
}

func itemOf(d *sd.Data, id string) *sd.LibraryItem {
	for i := range d.Items {
		if d.Items[i].ID == id {
			return &d.Items[i]
		}
	}
	return &sd.LibraryItem{}
}

func itemPath(d *sd.Data, id string) string { return itemOf(d, id).Path }

// TestEveryWriteAsksOrPutsBack holds docs/guards.md's invariant: every write
// tool in the registry either always asks, or each free call of it answers
// with the call that puts it back, and that call gives the stand-in's
// records back field by field (the whole state: libraries, items, users
// with their progress and bookmarks, collections, playlists), ignoring only
// updatedAt/lastUpdate, which Audiobookshelf moves on every save. A put-back
// that asks (a delete, a removal) is approved here. A write tool with no
// case fails the test by name, so a tool added later must get one.
func TestEveryWriteAsksOrPutsBack(t *testing.T) {
	t.Parallel()
	for _, tool := range registry.All {
		if tool.ReadOnly {
			continue
		}
		if tool.Guard != nil && tool.Guard.Condition == "always" {
			if _, ok := putBackCases[tool.Name]; ok {
				t.Errorf("%s always asks: it needs no put-back case", tool.Name)
			}
			continue
		}
		cases, ok := putBackCases[tool.Name]
		if !ok {
			t.Errorf("write tool %s neither always asks nor has a put-back case: give it a case in putBackCases (internal/e2e/invariant_test.go) whose answer's put_back gives every record back, or a guard that always asks in tools.yaml (CONTRIBUTING.md, adding a write tool)", tool.Name)
			continue
		}
		for _, c := range cases {
			t.Run(tool.Name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				runPutBackCase(t, tool.Name, c)
			})
		}
	}
	known := map[string]bool{}
	for _, tool := range registry.All {
		known[tool.Name] = true
	}
	for name := range putBackCases {
		if !known[name] {
			t.Errorf("put-back case for %s, which is no tool", name)
		}
	}
}

func runPutBackCase(t *testing.T, tool string, c putBackCase) {
	asked := 0
	e := start(t, apptest.Options{Elicit: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return approve(ctx, r)
	}})
	if c.setup != nil {
		e.Standin.Update(c.setup)
	}
	if c.standin != nil {
		c.standin(e.Standin)
	}
	beforeData := e.Standin.Snapshot()
	before := stateMap(t, beforeData)
	e.Standin.ResetRequests()
	res := e.Call(t, tool, c.args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, apptest.Text(res))
	}
	if asked != 0 {
		t.Fatalf("the free path asked: %s", apptest.Text(res))
	}
	if len(e.Standin.Mutations()) == 0 {
		t.Fatalf("test bug: the write sent nothing")
	}
	ignore := map[string]bool{}
	for _, f := range c.ignore {
		ignore[f] = true
	}
	if !c.noPutBack {
		var v any
		if err := json.Unmarshal([]byte(apptest.Text(res)), &v); err != nil {
			t.Fatalf("answer is not JSON: %s", apptest.Text(res))
		}
		if c.settle != nil {
			c.settle(t, e, v)
		}
		if diffs := stateDiff("", before, stateOf(t, e.Standin), ignore); len(diffs) == 0 {
			t.Fatalf("test bug: the write changed no record")
		}
		if c.putBack != nil {
			c.putBack(t, e, v)
		} else {
			if nb, ok := v.(map[string]any)["not_put_back"]; ok {
				t.Errorf("the answer says something cannot be put back: %v", nb)
			}
			putBack(t, e, v)
			// Each call of the put-back that always asks asked once.
			want := 0
			for pb, _ := v.(map[string]any)["put_back"].(map[string]any); pb != nil; pb, _ = pb["then"].(map[string]any) {
				if g := registryTool(t, str(pb["tool"])).Guard; g != nil && g.Condition == "always" {
					want++
				}
			}
			if asked != want {
				t.Errorf("the put-back asked %d time(s), want %d", asked, want)
			}
		}
		if c.verify != nil {
			c.verify(t, beforeData, e.Standin.Snapshot(), v)
		}
	}
	for _, d := range stateDiff("", before, stateOf(t, e.Standin), ignore) {
		t.Errorf("%s then its put-back: %s", tool, d)
	}
}

var indexRe = regexp.MustCompile(`\[\d+\]`)

// stateOf is the stand-in's state as stateMap makes it, from one encoding.
func stateOf(t *testing.T, s *sd.Server) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(s.SnapshotJSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func stateMap(t *testing.T, d *sd.Data) map[string]any {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// stateDiff lists the fields that differ between two states, by path,
// skipping bumped fields (and UpdatedAt, the stand-in's name for
// updatedAt) and those in ignore at any depth.
func stateDiff(path string, a, b any, ignore map[string]bool) []string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: was %v, now %v", path, short(a), short(b))}
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			at := path + "." + k
			if !bumped[k] && k != "UpdatedAt" && !ignore[k] && !ignore[at] && !ignore[indexRe.ReplaceAllString(at, "[*]")] {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		var out []string
		for _, k := range ks {
			out = append(out, stateDiff(path+"."+k, av[k], bv[k], ignore)...)
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return []string{fmt.Sprintf("%s: was %v, now %v", path, short(a), short(b))}
		}
		var out []string
		for i := range av {
			out = append(out, stateDiff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], ignore)...)
		}
		return out
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		return []string{fmt.Sprintf("%s: was %s, now %s", path, short(a), short(b))}
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func registryTool(t *testing.T, name string) registry.Tool {
	t.Helper()
	for _, tool := range registry.All {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return registry.Tool{}
}
