package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// writeAnswer is what Audiobookshelf answers one kind of successful write
// with, as spec/audiobookshelf.yaml describes the operation's 200: the
// plain text "OK" (res.sendStatus(200)), or a JSON object with the
// schema's required fields. A write is reported as made only when its
// answer is that; TestWriteAnswersAreTheSpecs keeps this table equal to the
// spec.
type writeAnswer struct {
	op       string // the spec's operationId
	method   string
	path     *regexp.Regexp // matches the end of the request's URL path
	plainOK  bool
	required []string
	look     string // the tool that reads the change back
}

var (
	bookmarkFields   = []string{"libraryItemId", "time", "title"}
	collectionFields = []string{"id", "libraryId", "name", "books"}
	playlistFields   = []string{"id", "libraryId", "userId", "name", "items"}
	itemFields       = []string{"id", "libraryId", "mediaType", "media"}
)

var writeAnswers = []writeAnswer{
	{"updateMediaProgress", http.MethodPatch, regexp.MustCompile(`/api/me/progress/[^/]+$`), true, nil, "get_media_progress"},
	{"updateEpisodeMediaProgress", http.MethodPatch, regexp.MustCompile(`/api/me/progress/[^/]+/[^/]+$`), true, nil, "get_media_progress"},
	{"deleteMediaProgress", http.MethodDelete, regexp.MustCompile(`/api/me/progress/[^/]+$`), true, nil, "get_media_progress"},
	{"createBookmark", http.MethodPost, regexp.MustCompile(`/api/me/item/[^/]+/bookmark$`), false, bookmarkFields, "list_bookmarks"},
	{"updateBookmark", http.MethodPatch, regexp.MustCompile(`/api/me/item/[^/]+/bookmark$`), false, bookmarkFields, "list_bookmarks"},
	{"deleteBookmark", http.MethodDelete, regexp.MustCompile(`/api/me/item/[^/]+/bookmark/[^/]+$`), true, nil, "list_bookmarks"},
	{"createCollection", http.MethodPost, regexp.MustCompile(`/api/collections$`), false, collectionFields, "list_collections"},
	{"updateCollection", http.MethodPatch, regexp.MustCompile(`/api/collections/[^/]+$`), false, collectionFields, "get_collection"},
	{"deleteCollection", http.MethodDelete, regexp.MustCompile(`/api/collections/[^/]+$`), true, nil, "get_collection"},
	{"addBooksToCollection", http.MethodPost, regexp.MustCompile(`/api/collections/[^/]+/batch/add$`), false, collectionFields, "get_collection"},
	{"removeBooksFromCollection", http.MethodPost, regexp.MustCompile(`/api/collections/[^/]+/batch/remove$`), false, collectionFields, "get_collection"},
	{"createPlaylist", http.MethodPost, regexp.MustCompile(`/api/playlists$`), false, playlistFields, "list_playlists"},
	{"updatePlaylist", http.MethodPatch, regexp.MustCompile(`/api/playlists/[^/]+$`), false, playlistFields, "get_playlist"},
	{"deletePlaylist", http.MethodDelete, regexp.MustCompile(`/api/playlists/[^/]+$`), true, nil, "get_playlist"},
	{"addItemsToPlaylist", http.MethodPost, regexp.MustCompile(`/api/playlists/[^/]+/batch/add$`), false, playlistFields, "get_playlist"},
	{"removeItemsFromPlaylist", http.MethodPost, regexp.MustCompile(`/api/playlists/[^/]+/batch/remove$`), false, playlistFields, "get_playlist"},
	// podcasts toolset
	{"getPodcastFeed", http.MethodPost, regexp.MustCompile(`/api/podcasts/feed$`), false, []string{"podcast"}, "get_podcast_feed"},
	{"createPodcast", http.MethodPost, regexp.MustCompile(`/api/podcasts$`), false, itemFields, "list_library_items"},
	{"downloadPodcastEpisodes", http.MethodPost, regexp.MustCompile(`/api/podcasts/[^/]+/download-episodes$`), true, nil, "list_podcast_downloads"},
	{"deletePodcastEpisode", http.MethodDelete, regexp.MustCompile(`/api/podcasts/[^/]+/episode/[^/]+$`), false, itemFields, "get_library_item"},
	{"deleteLibraryItem", http.MethodDelete, regexp.MustCompile(`/api/items/[^/]+$`), true, nil, "get_library_item"},
	// listening toolset: GETs that change data (MeController)
	{"hideSeriesFromContinueListening", http.MethodGet, regexp.MustCompile(`/api/me/series/[^/]+/remove-from-continue-listening$`), false, []string{"id", "username", "type"}, "what_next"},
	{"readdSeriesToContinueListening", http.MethodGet, regexp.MustCompile(`/api/me/series/[^/]+/readd-to-continue-listening$`), false, []string{"id", "username", "type"}, "what_next"},
	// upkeep toolset
	{"scanLibrary", http.MethodPost, regexp.MustCompile(`/api/libraries/[^/]+/scan$`), true, nil, "get_library_stats"},
	{"updateLibraryItemMedia", http.MethodPatch, regexp.MustCompile(`/api/items/[^/]+/media$`), false, []string{"libraryItem"}, "get_library_item"},
	{"matchLibraryItem", http.MethodPost, regexp.MustCompile(`/api/items/[^/]+/match$`), false, nil, "get_library_item"},
	{"removeLibraryItemCover", http.MethodDelete, regexp.MustCompile(`/api/items/[^/]+/cover$`), true, nil, "get_library_item"},
	// curation toolset
	{"renameTag", http.MethodPost, regexp.MustCompile(`/api/tags/rename$`), false, []string{"tagMerged", "numItemsUpdated"}, "audit_tags_and_genres"},
	{"renameGenre", http.MethodPost, regexp.MustCompile(`/api/genres/rename$`), false, []string{"genreMerged", "numItemsUpdated"}, "audit_tags_and_genres"},
	{"updateAuthor", http.MethodPatch, regexp.MustCompile(`/api/authors/[^/]+$`), false, []string{"author"}, "get_author"},
	{"uploadAuthorImage", http.MethodPost, regexp.MustCompile(`/api/authors/[^/]+/image$`), false, []string{"author"}, "get_author"},
	{"updateSeries", http.MethodPatch, regexp.MustCompile(`/api/series/[^/]+$`), false, []string{"id", "name"}, "get_series"},
	{"batchUpdateLibraryItems", http.MethodPost, regexp.MustCompile(`/api/items/batch/update$`), false, []string{"success", "updates"}, "get_library_item"},
	{"batchQuickMatchLibraryItems", http.MethodPost, regexp.MustCompile(`/api/items/batch/quickmatch$`), true, nil, "get_library_item"},
	{"renameNarrator", http.MethodPatch, regexp.MustCompile(`/api/libraries/[^/]+/narrators/[^/]+$`), false, []string{"updated"}, "audit_people"},
}

// answerFor is the entry for a write request, or nil.
func answerFor(method, path string) *writeAnswer {
	for i := range writeAnswers {
		if w := &writeAnswers[i]; w.method == method && w.path.MatchString(path) {
			return w
		}
	}
	return nil
}

// mismatch says how a 2xx answer differs from what Audiobookshelf sends,
// or is "".
func (w *writeAnswer) mismatch(r *Response) (got, want string) {
	body := bytes.TrimSpace(r.Body)
	if w.plainOK {
		want = `200 with the text "OK"`
		if r.Status == http.StatusOK && string(body) == "OK" {
			return "", want
		}
		return describeAnswer(r.Status, body), want
	}
	want = "200 with a JSON object that has " + strings.Join(w.required, ", ")
	var m map[string]json.RawMessage
	if r.Status != http.StatusOK || json.Unmarshal(body, &m) != nil || m == nil {
		return describeAnswer(r.Status, body), want
	}
	var missing []string
	for _, k := range w.required {
		if v, ok := m[k]; !ok || string(v) == "null" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%d with a JSON object without %s", r.Status, strings.Join(missing, ", ")), want
	}
	return "", want
}

// describeAnswer names an answer for a message: its status and the start of
// its body, cleaned and clipped.
func describeAnswer(status int, body []byte) string {
	switch {
	case len(body) == 0:
		return fmt.Sprintf("%d and an empty body", status)
	case string(body) == "null":
		return fmt.Sprintf("%d and JSON null", status)
	case json.Valid(body) && body[0] == '[':
		return fmt.Sprintf("%d and a JSON array", status)
	case !json.Valid(body):
		return fmt.Sprintf("%d and %s, which is not JSON", status, Quote(Clip(CleanText(string(body)), 60)))
	}
	return fmt.Sprintf("%d and %s", status, Quote(Clip(CleanText(string(body)), 60)))
}

// CheckWrite is nil when a successful write's answer is what
// Audiobookshelf answers it with, and otherwise an error that says the
// change may or may not have been made and how to look.
func (d *Deps) CheckWrite(r *Response, what string) error {
	w := answerFor(r.Method, r.Path)
	if w == nil {
		return nil
	}
	got, want := w.mismatch(r)
	if got == "" {
		return nil
	}
	return Errorf(Stated, "Audiobookshelf at %s answered the change to %s with %s, not what Audiobookshelf answers (%s): this may not be Audiobookshelf, or not the version this server speaks (2.26 or newer). The change may or may not have been made: look with %s before trying again, and check that AUDIOBOOKSHELF_URL is the Audiobookshelf server itself.",
		d.BaseURL, what, got, want, w.look)
}
