package argdec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

// FuzzGuardedArguments feeds arbitrary JSON to the decoders of the guarded
// tools. A decoder must never panic, and whatever it accepts must be made of
// valid ids only (nothing that could change a request path) with lists
// within their bounds.
func FuzzGuardedArguments(f *testing.F) {
	for _, s := range []string{
		`{"collection_id":"c1"}`, `{"playlist_id":"p1","items":[{"library_item_id":"a"},{"library_item_id":"b"}]}`,
		`{"collection_id":"c1","library_item_ids":["a","b","a"]}`, `{"library_item_id":"x","time":7.5}`,
		`{"media_progress_id":"../x"}`, `{"collection_id":"%2F"}`, `{"time":"7.5","library_item_id":"i"}`,
		`{"playlist_id":"p","items":[{"library_item_id":"a","episode_id":"e"},{"library_item_id":"b"}]}`,
		`{"library_item_id":"b","episode_id":"../e","is_finished":false}`, `{"library_item_id":"b","progress":2,"current_time":-1}`,
		`[]`, `null`, `"x"`, `{"collection_id":null}`, `{"time":1e999,"library_item_id":"i"}`,
		`{"library_item_id":"p","episode_id":"e","delete_file":true}`, `{"library_item_id":"p","episode_id":"../e","delete_file":"1"}`,
		`{"library_item_id":"i","override":true,"provider":"audible"}`, `{"library_item_id":"i","fields":{"authors":["a","A"],"series":[{"name":"s"}]}}`,
		`{"tag":"a","new_tag":"b"}`, `{"genre":"a\r","new_genre":""}`, `{"tag":"a","new_tag":"\u0000"}`,
		`{"author_id":"a1","into_author_id":"../a2"}`, `{"series_id":"s1","into_series_id":"s%2F2"}`, `{"author_id":"a1"}`,
		`{"library_item_ids":["a","b"],"field":"tags","values":["x","x\r"],"value":""}`, `{"library_item_ids":["../a"],"provider":"custom-x","override_cover":true}`,
		`{"narrator":"a/../b","new_narrator":"c"}`, `{"tags":["a","b"],"into_tag":"c"}`, `{"narrators":["a","a"],"into_narrator":"b"}`,
		`{"genres":["a\n","b"],"into_genre":"c"}`, `{"genres":["a"," "],"into_genre":"c"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		check := func(ids ...string) {
			for _, id := range ids {
				if argdec.CheckID(id) != "" {
					t.Fatalf("accepted an invalid id %q from %s", id, raw)
				}
			}
		}
		if a, err := toolargs.DecodeDeleteCollection(json.RawMessage(raw)); err == nil {
			check(a.CollectionID)
		}
		if a, err := toolargs.DecodeDeletePlaylist(json.RawMessage(raw)); err == nil {
			check(a.PlaylistID)
		}
		if a, err := toolargs.DecodeDeleteMediaProgress(json.RawMessage(raw)); err == nil {
			check(a.MediaProgressID)
		}
		if a, err := toolargs.DecodeUpdateBookmark(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
			if a.Time < 0 || a.Time > 1e9 || a.Time != a.Time {
				t.Fatalf("accepted time %v from %s", a.Time, raw)
			}
			if argdec.RefusedControls(a.Title) > 0 {
				t.Fatalf("accepted a title with a control character from %s", raw)
			}
		}
		if a, err := toolargs.DecodeDeleteBookmark(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
			if a.Time < 0 || a.Time > 1e9 || a.Time != a.Time {
				t.Fatalf("accepted time %v from %s", a.Time, raw)
			}
		}
		if a, err := toolargs.DecodeRemoveBooksFromCollection(json.RawMessage(raw)); err == nil {
			check(a.CollectionID)
			check(a.LibraryItemIDs...)
			if len(a.LibraryItemIDs) == 0 || len(a.LibraryItemIDs) > 1000 {
				t.Fatalf("accepted %d ids", len(a.LibraryItemIDs))
			}
		}
		if a, err := toolargs.DecodeSetMediaProgress(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
			if a.EpisodeID != nil {
				check(*a.EpisodeID)
			}
			if a.CurrentTime != nil && (*a.CurrentTime < 0 || *a.CurrentTime > 1e9 || *a.CurrentTime != *a.CurrentTime) {
				t.Fatalf("accepted current_time %v from %s", *a.CurrentTime, raw)
			}
			if a.Progress != nil && (*a.Progress < 0 || *a.Progress > 1 || *a.Progress != *a.Progress) {
				t.Fatalf("accepted progress %v from %s", *a.Progress, raw)
			}
		}
		if a, err := toolargs.DecodeMatchLibraryItem(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
		}
		if a, err := toolargs.DecodeUpdateItemMetadata(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
			if a.Fields == nil {
				t.Fatalf("accepted no fields from %s", raw)
			}
		}
		if a, err := toolargs.DecodeUpdateCollection(json.RawMessage(raw)); err == nil {
			check(a.CollectionID)
			check(a.LibraryItemIDs...)
		}
		if a, err := toolargs.DecodeDeletePodcastEpisode(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID, a.EpisodeID)
		}
		if a, err := toolargs.DecodeDeletePodcast(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
		}
		if a, err := toolargs.DecodeRemoveItemCover(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
		}
		// A cover's URL goes into a JSON body, and Audiobookshelf fetches
		// it: whatever is accepted is an http or https URL.
		if a, err := toolargs.DecodeSetItemCover(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
			if !strings.HasPrefix(a.Url, "http://") && !strings.HasPrefix(a.Url, "https://") {
				t.Fatalf("accepted cover URL %q from %s", a.Url, raw)
			}
		}
		if a, err := toolargs.DecodeSetItemChapters(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemID)
		}
		if a, err := toolargs.DecodeUpdateAuthor(json.RawMessage(raw)); err == nil {
			check(a.AuthorID)
		}
		if a, err := toolargs.DecodeUpdateSeries(json.RawMessage(raw)); err == nil {
			check(a.SeriesID)
		}
		if a, err := toolargs.DecodeResolveDuplicate(json.RawMessage(raw)); err == nil {
			check(a.KeepItemID, a.RemoveItemID)
		}
		// The renames' names go into a JSON body, never a path: whatever
		// is accepted is not empty and holds no control character the
		// text arguments refuse (line feed and tab are refused by the
		// tool itself).
		if a, err := toolargs.DecodeRenameTag(json.RawMessage(raw)); err == nil {
			if a.Tag == "" || a.NewTag == "" || argdec.RefusedControls(a.Tag+a.NewTag) > 0 {
				t.Fatalf("accepted names %q, %q from %s", a.Tag, a.NewTag, raw)
			}
		}
		if a, err := toolargs.DecodeRenameGenre(json.RawMessage(raw)); err == nil {
			if a.Genre == "" || a.NewGenre == "" || argdec.RefusedControls(a.Genre+a.NewGenre) > 0 {
				t.Fatalf("accepted names %q, %q from %s", a.Genre, a.NewGenre, raw)
			}
		}
		if a, err := toolargs.DecodeMergeAuthors(json.RawMessage(raw)); err == nil {
			check(a.AuthorID, a.IntoAuthorID)
		}
		if a, err := toolargs.DecodeMergeSeries(json.RawMessage(raw)); err == nil {
			check(a.SeriesID, a.IntoSeriesID)
		}
		// A batch update's names go into a JSON body: each accepted one is
		// one line, not blank; exactly one of values, value and series.
		if a, err := toolargs.DecodeBatchUpdateBooks(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemIDs...)
			if len(a.LibraryItemIDs) == 0 || len(a.LibraryItemIDs) > 100 {
				t.Fatalf("accepted %d ids", len(a.LibraryItemIDs))
			}
			given := 0
			if a.Values != nil {
				given++
			}
			if a.Value != nil {
				given++
			}
			if a.Series != nil {
				given++
			}
			if given != 1 {
				t.Fatalf("accepted %d of values, value and series from %s", given, raw)
			}
			for _, v := range a.Values {
				if strings.TrimSpace(v) == "" || strings.ContainsAny(v, "\n\t") || argdec.RefusedControls(v) > 0 {
					t.Fatalf("accepted value %q from %s", v, raw)
				}
			}
		}
		if a, err := toolargs.DecodeBatchQuickMatch(json.RawMessage(raw)); err == nil {
			check(a.LibraryItemIDs...)
			if len(a.LibraryItemIDs) == 0 || len(a.LibraryItemIDs) > 100 {
				t.Fatalf("accepted %d ids", len(a.LibraryItemIDs))
			}
		}
		if a, err := toolargs.DecodeRenameNarrator(json.RawMessage(raw)); err == nil {
			if a.Narrator == "" || a.NewNarrator == "" || argdec.RefusedControls(a.Narrator+a.NewNarrator) > 0 {
				t.Fatalf("accepted names %q, %q from %s", a.Narrator, a.NewNarrator, raw)
			}
		}
		// A merge's names: each one line of text, not blank, once.
		for _, dec := range []func(json.RawMessage) ([]string, string, error){
			func(r json.RawMessage) ([]string, string, error) {
				a, err := toolargs.DecodeMergeTags(r)
				return a.Tags, a.IntoTag, err
			},
			func(r json.RawMessage) ([]string, string, error) {
				a, err := toolargs.DecodeMergeGenres(r)
				return a.Genres, a.IntoGenre, err
			},
			func(r json.RawMessage) ([]string, string, error) {
				a, err := toolargs.DecodeMergeNarrators(r)
				return a.Narrators, a.IntoNarrator, err
			},
		} {
			names, into, err := dec(json.RawMessage(raw))
			if err != nil {
				continue
			}
			if into == "" || argdec.RefusedControls(into) > 0 || len(names) < 2 || len(names) > 20 {
				t.Fatalf("accepted %q into %q from %s", names, into, raw)
			}
			seen := map[string]bool{}
			for _, n := range names {
				if strings.TrimSpace(n) == "" || strings.ContainsAny(n, "\n\t") || argdec.RefusedControls(n) > 0 || seen[n] {
					t.Fatalf("accepted name %q among %q from %s", n, names, raw)
				}
				seen[n] = true
			}
		}
		for _, dec := range []func(json.RawMessage) ([]argdec.PlaylistItem, string, error){
			func(r json.RawMessage) ([]argdec.PlaylistItem, string, error) {
				a, err := toolargs.DecodeRemoveItemsFromPlaylist(r)
				return a.Items, a.PlaylistID, err
			},
			func(r json.RawMessage) ([]argdec.PlaylistItem, string, error) {
				a, err := toolargs.DecodeUpdatePlaylist(r)
				return a.Items, a.PlaylistID, err
			},
			func(r json.RawMessage) ([]argdec.PlaylistItem, string, error) {
				a, err := toolargs.DecodeAddItemsToPlaylist(r)
				return a.Items, a.PlaylistID, err
			},
		} {
			items, pid, err := dec(json.RawMessage(raw))
			if err != nil {
				if !strings.Contains(err.Error(), "argument") {
					t.Fatalf("an error that names no argument: %v", err)
				}
				continue
			}
			check(pid)
			eps := 0
			for _, it := range items {
				check(it.LibraryItemID)
				if it.EpisodeID != "" {
					check(it.EpisodeID)
					eps++
				}
			}
			if eps != 0 && eps != len(items) {
				t.Fatalf("accepted a list mixing books and episodes: %s", raw)
			}
		}
	})
}
