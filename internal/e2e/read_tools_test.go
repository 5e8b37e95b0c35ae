package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

const unknownID = "00000000-0000-4000-8000-000000000000"

type readCase struct {
	tool string
	args map[string]any
	// setup prepares the stand-in before the call (requestCases).
	setup func(s *sd.Server)
	// per is how many requests the call adds under tools.yaml's
	// requests.per (requestCases): its own count, by hand.
	per int
	// names: the call gives titles or names (or leaves a library out);
	// how many of each of tools.yaml's name_requests it adds.
	names *nameReads
	// image: the result carries an image before its JSON text.
	image bool
	// check inspects the decoded result.
	check func(t *testing.T, v any)
	// route is the last GET the stand-in must have received (path suffix);
	// method is another method than GET for a read that POSTs.
	route  string
	method string
	// fail is a call that must fail; failWant is in its text; failSends
	// says whether a request reaches the stand-in (an unknown id) or not
	// (a bad argument).
	fail      map[string]any
	failWant  []string
	failSends bool
}

var readCases = []readCase{
	{tool: "list_libraries", route: "/api/libraries",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "libraries", 0, "name")) != "Books" || str(at(t, v, "libraries", 1, "media_type")) != "podcast" {
				t.Errorf("libraries: %v", v)
			}
		},
		fail: map[string]any{"detail": "everything"}, failWant: []string{`"detail"`, "compact, full"}},
	{tool: "get_library", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/api/libraries/" + sd.LibraryBooksID,
		check: func(t *testing.T, v any) {
			if str(at(t, v, "name")) != "Books" || str(at(t, v, "media_type")) != "book" {
				t.Errorf("library: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404", "library " + unknownID, "check the id"}, failSends: true},
	{tool: "get_library_stats", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/stats",
		check: func(t *testing.T, v any) {
			if n, _ := at(t, v, "totalItems").(float64); n != 16 {
				t.Errorf("stats: totalItems %v", at(t, v, "totalItems"))
			}
		},
		// Left out with two libraries: which one is not guessed; they are listed.
		fail: map[string]any{}, failWant: []string{`"library_id"`, "is required", sd.LibraryBooksID, sd.LibraryPodcastsID}, failSends: true},
	{tool: "get_library_filter_data", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/filterdata",
		check: func(t *testing.T, v any) {
			if !strings.Contains(str(at(t, v, "authors")), "Terry Pratchett") {
				t.Errorf("filter data authors: %v", at(t, v, "authors"))
			}
		},
		// Not an id, so a name: no library has it, and the path is never sent.
		fail: map[string]any{"library_id": "../../status"}, failWant: []string{`"library_id"`, "no library is named"}, failSends: true},
	{tool: "list_library_items", args: map[string]any{"library_id": sd.LibraryBooksID, "limit": 5}, route: "/items",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 16 || at(t, v, "returned").(float64) != 5 || at(t, v, "next", "page").(float64) != 1 {
				t.Errorf("page: %v", v)
			}
			if str(at(t, v, "results", 0, "title")) != "The Colour of Magic" || at(t, v, "results", 0, "progress_pct").(float64) != 42 {
				t.Errorf("first item: %v", at(t, v, "results", 0))
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID, "limit": 101}, failWant: []string{`"limit"`, "from 1 to 100"}},
	{tool: "search_library", args: map[string]any{"library_id": sd.LibraryBooksID, "q": "Colour"}, route: "/search",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "items", 0, "id")) != sd.ItemColourOfMagic {
				t.Errorf("search: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID, "q": ""}, failWant: []string{`"q"`, "must not be empty"}},
	{tool: "get_personalized_shelves", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/personalized",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "shelves", 0, "id")) != "continue-listening" {
				t.Errorf("shelves: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404"}, failSends: true},
	{tool: "list_series", args: map[string]any{"library_id": sd.LibraryBooksID, "sort": "name"}, route: "/series",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 3 || str(at(t, v, "results", 0, "name")) != "Discworld" {
				t.Errorf("series: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID, "sort": "popularity"}, failWant: []string{`"sort"`, "one of name"}},
	{tool: "get_series", args: map[string]any{"series_id": sd.SeriesDiscworld}, route: "/api/libraries/" + sd.LibraryBooksID + "/items",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "name")) != "Discworld" || str(at(t, v, "library_id")) != sd.LibraryBooksID {
				t.Errorf("series: %v", v)
			}
			// Its books in series order, each with its place.
			want := []string{sd.ItemColourOfMagic, sd.ItemLightFantastic, sd.ItemEqualRites, sd.ItemMort, sd.ItemSourcery, sd.ItemWyrdSisters}
			books := at(t, v, "books").([]any)
			if len(books) != len(want) {
				t.Fatalf("books: %v", books)
			}
			for i, id := range want {
				if str(at(t, books[i], "id")) != id || str(at(t, books[i], "sequence")) != fmt.Sprint(i+1) {
					t.Errorf("book %d: %v, want %s at %d", i, books[i], id, i+1)
				}
			}
		},
		fail: map[string]any{"series_id": unknownID}, failWant: []string{"404", "series " + unknownID}, failSends: true},
	{tool: "list_authors", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/authors",
		check: func(t *testing.T, v any) {
			found := false
			for _, a := range at(t, v, "authors").([]any) {
				if str(at(t, a, "id")) == sd.AuthorPratchett && at(t, a, "num_books").(float64) == 7 {
					found = true
				}
			}
			if !found {
				t.Errorf("authors: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404"}, failSends: true},
	{tool: "get_author", args: map[string]any{"author_id": sd.AuthorPratchett, "include_items": true}, route: "/api/authors/" + sd.AuthorPratchett,
		check: func(t *testing.T, v any) {
			if str(at(t, v, "name")) != "Terry Pratchett" || len(at(t, v, "books").([]any)) != 7 {
				t.Errorf("author: %v", v)
			}
		},
		fail: map[string]any{"author_id": unknownID}, failWant: []string{"404", "author " + unknownID}, failSends: true},
	{tool: "list_tags", route: "/api/tags",
		check: func(t *testing.T, v any) {
			if !strings.Contains(str(at(t, v, "tags")), "discworld") {
				t.Errorf("tags: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID}, failWant: []string{"unknown argument", "library_id", "takes: page, limit"}},
	{tool: "list_genres", route: "/api/genres",
		check: func(t *testing.T, v any) {
			if !strings.Contains(str(at(t, v, "genres")), "Fantasy") {
				t.Errorf("genres: %v", v)
			}
		},
		fail: map[string]any{"x": 1}, failWant: []string{"unknown argument"}},
	{tool: "get_server_status", route: "/status",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "server_version")) != "2.36.0" || at(t, v, "reachable") != true {
				t.Errorf("status: %v", v)
			}
		},
		fail: map[string]any{"verbose": true}, failWant: []string{"unknown argument"}},
	{tool: "get_library_item", args: map[string]any{"library_item_id": sd.ItemColourOfMagic}, route: "/api/items/" + sd.ItemColourOfMagic,
		check: func(t *testing.T, v any) {
			if str(at(t, v, "title")) != "The Colour of Magic" || str(at(t, v, "series", 0, "sequence")) != "1" || at(t, v, "progress", "progress_pct").(float64) != 42 {
				t.Errorf("item: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": unknownID}, failWant: []string{"404", "library item " + unknownID}, failSends: true},
	{tool: "get_item_chapters", args: map[string]any{"library_item_id": sd.ItemColourOfMagic}, route: "/api/items/" + sd.ItemColourOfMagic,
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 24 || at(t, v, "chapters", 0, "start_s").(float64) != 0 || at(t, v, "title") != "The Colour of Magic" {
				t.Errorf("chapters: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": sd.ItemPodcastTinyThings}, failWant: []string{"podcast", "get_podcast_episode"}, failSends: true},
	{tool: "get_podcast_episode", args: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": sd.EpisodeTinyThings2},
		route: "/episode/" + sd.EpisodeTinyThings2,
		check: func(t *testing.T, v any) {
			if str(at(t, v, "title")) != "The Button" {
				t.Errorf("episode: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": sd.ItemPodcastTinyThings, "episode_id": unknownID}, failWant: []string{"404"}, failSends: true},
	{tool: "list_recent_episodes", args: map[string]any{"library_id": sd.LibraryPodcastsID, "limit": 2}, route: "/recent-episodes",
		check: func(t *testing.T, v any) {
			if at(t, v, "returned").(float64) != 2 || str(at(t, v, "results", 0, "podcast")) == "" {
				t.Errorf("episodes: %v", v)
			}
			// Each episode names its podcast; the podcast's id is given
			// once, by title.
			podcast := str(at(t, v, "results", 0, "podcast"))
			if id := str(at(t, v, "podcast_ids", podcast)); id != sd.ItemPodcastOrbital && id != sd.ItemPodcastTinyThings {
				t.Errorf("podcast_ids: %v", v)
			}
			if _, has := at(t, v, "results", 0).(map[string]any)["library_item_id"]; has {
				t.Errorf("an episode repeats its podcast's id: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryPodcastsID, "page": -1}, failWant: []string{`"page"`, "from 0"}},
	{tool: "get_me", route: "/api/me",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "username")) != "root" || at(t, v, "bookmarks").(float64) != 3 {
				t.Errorf("me: %v", v)
			}
		},
		fail: map[string]any{"detail": 1}, failWant: []string{`"detail"`, "must be a string"}},
	{tool: "list_items_in_progress", route: "/api/me/items-in-progress",
		check: func(t *testing.T, v any) {
			if !strings.Contains(str(v), sd.ItemColourOfMagic) {
				t.Errorf("in progress: %v", v)
			}
		},
		fail: map[string]any{"limit": "ten"}, failWant: []string{`"limit"`}},
	{tool: "get_media_progress", args: map[string]any{"library_item_id": sd.ItemColourOfMagic}, route: "/api/me/progress/" + sd.ItemColourOfMagic,
		check: func(t *testing.T, v any) {
			if str(at(t, v, "id")) != sd.ProgressColourOfMagic || at(t, v, "progress_pct").(float64) != 42 {
				t.Errorf("progress: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": sd.ItemPodcastTinyThings}, failWant: []string{`"episode_id"`, "podcast"}, failSends: true},
	{tool: "get_listening_stats", route: "/api/me/listening-stats",
		check: func(t *testing.T, v any) {
			if at(t, v, "total_time_s").(float64) <= 0 || len(at(t, v, "top_items").([]any)) == 0 {
				t.Errorf("stats: %v", v)
			}
			// Sessions only when asked for; the answer says where they are.
			if m := v.(map[string]any); m["recent_sessions"] != nil || !strings.Contains(str(m["more"]), "list_listening_sessions") {
				t.Errorf("compact stats: %v", v)
			}
		},
		fail: map[string]any{"detail": "full", "x": 1}, failWant: []string{"unknown argument"}},
	{tool: "get_year_stats", args: map[string]any{"year": 2025}, route: "/api/me/stats/year/2025",
		check: func(t *testing.T, v any) {
			if at(t, v, "totalListeningSessions").(float64) == 0 {
				t.Errorf("year: %v", v)
			}
		},
		fail: map[string]any{"year": 25}, failWant: []string{`"year"`, "from 2000 to 2100"}},
	{tool: "list_listening_sessions", args: map[string]any{"limit": 10, "page": 1}, route: "/api/me/listening-sessions",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 32 || at(t, v, "page").(float64) != 1 || at(t, v, "returned").(float64) != 10 {
				t.Errorf("sessions: %v", v)
			}
		},
		fail: map[string]any{"limit": 0}, failWant: []string{`"limit"`}},
	{tool: "list_bookmarks", args: map[string]any{"library_item_id": sd.ItemColourOfMagic}, route: "/api/me/bookmarks/" + sd.ItemColourOfMagic,
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 2 || at(t, v, "bookmarks", 0, "time_s").(float64) != 1234.5 {
				t.Errorf("bookmarks: %v", v)
			}
		},
		fail: map[string]any{"library_item_id": "a b"}, failWant: []string{`"library_item_id"`, "no item is named"}, failSends: true},
	{tool: "list_collections", route: "/api/collections",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 2 || str(at(t, v, "collections", 0, "id")) != sd.CollectionDiscworldInOrder || at(t, v, "collections", 0, "books").(float64) != 4 {
				t.Errorf("collections: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404"}, failSends: true},
	{tool: "get_collection", args: map[string]any{"collection_id": sd.CollectionDiscworldInOrder}, route: "/api/collections/" + sd.CollectionDiscworldInOrder,
		check: func(t *testing.T, v any) {
			if len(at(t, v, "books").([]any)) != 4 || str(at(t, v, "books", 3, "id")) != sd.ItemMort {
				t.Errorf("collection: %v", v)
			}
		},
		fail: map[string]any{"collection_id": unknownID}, failWant: []string{"404", "collection " + unknownID}, failSends: true},
	{tool: "list_playlists", route: "/api/playlists",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 2 {
				t.Errorf("playlists: %v", v)
			}
		},
		fail: map[string]any{"library_id": 7}, failWant: []string{`"library_id"`}},
	{tool: "get_playlist", args: map[string]any{"playlist_id": sd.PlaylistCommute}, route: "/api/playlists/" + sd.PlaylistCommute,
		check: func(t *testing.T, v any) {
			if len(at(t, v, "entries").([]any)) != 3 || str(at(t, v, "entries", 0, "library_item_id")) != sd.ItemGoodOmens {
				t.Errorf("playlist: %v", v)
			}
		},
		fail: map[string]any{"playlist_id": unknownID}, failWant: []string{"404", "playlist " + unknownID}, failSends: true},
	// listening toolset. per: what_next and get_series_progress read the 3
	// books root has progress on (their series) and the 2 series they are in.
	{tool: "what_next", args: map[string]any{}, route: "/items", per: 5,
		check: func(t *testing.T, v any) {
			next := map[string]string{}
			for _, n := range at(t, v, "next_in_series").([]any) {
				next[str(at(t, n, "series_id"))] = str(at(t, n, "next", "library_item_id"))
			}
			if next[sd.SeriesDiscworld] != sd.ItemLightFantastic || next[sd.SeriesExpanse] != sd.ItemCalibansWar || len(next) != 2 {
				t.Errorf("next in series: %v", v)
			}
			if str(at(t, v, "in_progress", 1, "library_item_id")) != sd.ItemColourOfMagic || str(at(t, v, "recently_finished", 1, "title")) != "Leviathan Wakes" {
				t.Errorf("in progress or finished: %v", v)
			}
		},
		fail: map[string]any{"media_type": "ebook"}, failWant: []string{`"media_type"`, "book, podcast"}},
	{tool: "get_series_progress", args: map[string]any{"series_id": sd.SeriesExpanse}, route: "/items",
		check: func(t *testing.T, v any) {
			if str(at(t, v, "books", 0, "state")) != "finished" || str(at(t, v, "books", 1, "state")) != "not_started" || at(t, v, "finished").(float64) != 1 {
				t.Errorf("series progress: %v", v)
			}
		},
		fail: map[string]any{"series_id": unknownID}, failWant: []string{"404", "series " + unknownID}, failSends: true},
	// curation (off by default): the sample library is tidy but for
	// books without ASIN or ISBN and tags one book holds; the messy
	// library's audits are TestAuditsPrecisionRecall.
	{tool: "audit_series", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/series",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 0 || at(t, v, "counts", "gap").(float64) != 0 {
				t.Errorf("audit_series: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404", "library " + unknownID}, failSends: true},
	{tool: "audit_people", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/narrators",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 0 || !strings.Contains(str(at(t, v, "read")), "7 authors") {
				t.Errorf("audit_people: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID, "limit": 0}, failWant: []string{`"limit"`}},
	{tool: "audit_duplicates", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/items",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 0 || str(at(t, v, "read")) != "16 books" {
				t.Errorf("audit_duplicates: %v", v)
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404", "library " + unknownID}, failSends: true},
	{tool: "audit_missing", args: map[string]any{"library_id": sd.LibraryBooksID}, route: "/items",
		check: func(t *testing.T, v any) {
			if at(t, v, "counts", "asin_isbn").(float64) != 12 || at(t, v, "counts", "cover").(float64) != 0 {
				t.Errorf("audit_missing: %v", at(t, v, "counts"))
			}
		},
		fail: map[string]any{"library_id": unknownID}, failWant: []string{"404", "library " + unknownID}, failSends: true},
	{tool: "audit_tags_and_genres", args: map[string]any{"library_id": sd.LibraryBooksID, "limit": 2}, route: "/items",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 6 || at(t, v, "returned").(float64) != 2 || at(t, v, "counts", "tag_used_once").(float64) != 5 {
				t.Errorf("audit_tags_and_genres: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryBooksID, "page": -1}, failWant: []string{`"page"`}},
	// Every audit of the Books library at once: the five audits' findings
	// as their own tools give them (12 books without ASIN or ISBN, 6 tags
	// and genres), and the 7 authors, none with an image; the counts of
	// every audit on every page.
	{tool: "audit_library", args: map[string]any{"library_id": sd.LibraryBooksID, "limit": 5, "page": 4}, route: "/items",
		check: func(t *testing.T, v any) {
			if at(t, v, "total").(float64) != 25 || at(t, v, "returned").(float64) != 5 || len(at(t, v, "audits").([]any)) != 9 ||
				at(t, v, "audits", 3, "counts", "asin_isbn").(float64) != 12 || at(t, v, "audits", 8, "counts", "no_image").(float64) != 7 ||
				str(at(t, v, "findings", 4, "audit")) != "author_images" || str(at(t, v, "library")) != "Books" {
				t.Errorf("audit_library: %v", v)
			}
		},
		fail: map[string]any{"library_id": sd.LibraryPodcastsID, "audit": "series"}, failWant: []string{`argument "audit"`, "podcast library", "podcasts"}, failSends: true},
}

func TestReadTools(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	tested := map[string]bool{}
	for _, c := range readCases {
		tested[c.tool] = true
		t.Run(c.tool, func(t *testing.T) {
			e.Standin.ResetRequests()
			res := e.Call(t, c.tool, c.args)
			if c.image && len(res.Content) == 2 {
				if img, ok := res.Content[0].(*mcp.ImageContent); !ok || len(img.Data) == 0 {
					t.Errorf("first content is %T, want an image", res.Content[0])
				}
				res = &mcp.CallToolResult{Content: res.Content[1:]}
			}
			if len(res.Content) != 1 || res.StructuredContent != nil {
				t.Errorf("result has %d contents and structured content %v; want the JSON text alone", len(res.Content), res.StructuredContent != nil)
			}
			c.check(t, decode(t, res))
			method := "GET"
			if c.method != "" {
				method = c.method
			}
			r := lastRequest(t, e.Standin, method, c.route)
			if c.tool != "get_server_status" && !r.Authorized {
				t.Errorf("%s was sent without the bearer key", r.Path)
			}
			if len(e.Standin.Mutations()) != 0 {
				t.Errorf("a read tool sent %v", mutations(e.Standin))
			}

			e.Standin.ResetRequests()
			res = e.Call(t, c.tool, c.fail)
			if !res.IsError {
				t.Fatalf("%v was accepted: %s", c.fail, apptest.Text(res))
			}
			for _, w := range c.failWant {
				if !strings.Contains(apptest.Text(res), w) {
					t.Errorf("error %q lacks %q", apptest.Text(res), w)
				}
			}
			if sent := len(e.Standin.Requests()) > 0; sent != c.failSends {
				t.Errorf("failure sent requests: %v, want %v (%v)", sent, c.failSends, e.Standin.Requests())
			}
		})
	}
	// A read tool's example of tools.yaml (the one test of a tool without a
	// case here) must answer, with JSON, and change nothing.
	examples := manifestExamples(t)
	reads := 0
	for _, tool := range e.Server.Tools {
		if !tool.ReadOnly {
			continue
		}
		reads++
		args, ok := examples[tool.Name]
		if !ok && !tested[tool.Name] {
			t.Errorf("read tool %s has no example call: give it example: (its arguments, against the sample library) in tools.yaml (CONTRIBUTING.md, step 1), or a case in internal/e2e/read_tools_test.go", tool.Name)
		}
		if !ok {
			continue
		}
		t.Run(tool.Name+"/example", func(t *testing.T) {
			e.Standin.ResetRequests()
			res := e.Call(t, tool.Name, args)
			if res.IsError {
				t.Fatalf("its example of tools.yaml %v failed: %s", args, apptest.Text(res))
			}
			if res.StructuredContent != nil || !json.Valid([]byte(apptest.Text(res))) {
				t.Errorf("the result of its example is not the JSON text alone: %s", apptest.Text(res))
			}
			if len(e.Standin.Mutations()) != 0 {
				t.Errorf("a read tool sent %v", mutations(e.Standin))
			}
		})
	}
	// Every read tool of the registry is offered with every toolset on.
	all := 0
	for _, tool := range registry.All {
		if tool.ReadOnly {
			all++
		}
	}
	if reads != all {
		t.Errorf("the server offers %d read tools with every toolset on, the registry has %d", reads, all)
	}
}

// manifestExamples are the example calls of tools.yaml, by tool.
func manifestExamples(t *testing.T) map[string]map[string]any {
	t.Helper()
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tool := range m.Tools {
		if tool.Example != nil {
			out[tool.Name] = tool.Example
		}
	}
	return out
}

// TestListLibraryItemsFilter: the filter is group.base64(value), with sort,
// order and paging as sent; standalone groups take no value.
func TestListLibraryItemsFilter(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	res := e.Call(t, "list_library_items", map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "series",
		"filter_value": sd.SeriesDiscworld, "sort": "sequence", "descending": true, "limit": 3, "page": 1})
	v := decode(t, res)
	r := lastRequest(t, e.Standin, "GET", "/items")
	want := "series." + base64.StdEncoding.EncodeToString([]byte(sd.SeriesDiscworld))
	if r.Query.Get("filter") != want || r.Query.Get("sort") != "sequence" || r.Query.Get("desc") != "1" ||
		r.Query.Get("limit") != "3" || r.Query.Get("page") != "1" {
		t.Errorf("query sent: %s", r.RawQuery)
	}
	// Discworld has 6 books; descending by sequence, page 1 of 3 holds 3, 2, 1.
	if at(t, v, "total").(float64) != 6 || str(at(t, v, "results", 0, "series", 0, "sequence")) != "3" {
		t.Errorf("page: %v", v)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "abridged", "filter_value": "x"}, "takes no value"},
		{map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "genres"}, "needs a value"},
		{map[string]any{"library_id": sd.LibraryBooksID, "filter_value": "Fantasy"}, "needs filter_group"},
		{map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "colour", "filter_value": "x"}, "must be one of"},
	} {
		e.Standin.ResetRequests()
		res := e.Call(t, "list_library_items", c.args)
		if !res.IsError || !strings.Contains(apptest.Text(res), c.want) || !strings.Contains(apptest.Text(res), "filter_") {
			t.Errorf("%v: %s", c.args, apptest.Text(res))
		}
		if n := len(e.Standin.Requests()); n != 0 {
			t.Errorf("%v sent %d requests", c.args, n)
		}
	}
	res = e.Call(t, "list_library_items", map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "abridged"})
	if res.IsError || lastRequest(t, e.Standin, "GET", "/items").Query.Get("filter") != "abridged" {
		t.Errorf("standalone filter: %s", apptest.Text(res))
	}
	res = e.Call(t, "list_library_items", map[string]any{"library_id": sd.LibraryBooksID, "filter_group": "genres", "filter_value": "Science Fiction"})
	if v := decode(t, res); at(t, v, "total").(float64) == 0 {
		t.Errorf("genre filter found nothing: %v", v)
	}
}

// TestRecentEpisodesOfPodcastsSharingATitle: when two podcasts of a page
// share a title, podcast_ids cannot name them by it: their episodes keep
// their library_item_id, and the title is not in podcast_ids.
func TestRecentEpisodesOfPodcastsSharingATitle(t *testing.T) {
	t.Parallel()
	data := sd.SampleData()
	title := ""
	for i := range data.Items {
		if p := data.Items[i].Podcast; p != nil {
			if title == "" {
				title = p.Title
			} else {
				p.Title = title
			}
		}
	}
	e := start(t, apptest.Options{Standin: sd.Options{Data: data, Now: sd.SampleNow}})
	v := decode(t, e.Call(t, "list_recent_episodes", map[string]any{"library_id": sd.LibraryPodcastsID}))
	if ids, _ := v.(map[string]any)["podcast_ids"].(map[string]any); ids[title] != nil {
		t.Errorf("podcast_ids names %q, which two podcasts share: %v", title, ids)
	}
	items := map[string]bool{}
	for _, r := range at(t, v, "results").([]any) {
		m := r.(map[string]any)
		if m["podcast"] != title || str(m["library_item_id"]) == "" {
			t.Errorf("an episode without its podcast's title and id: %v", m)
		}
		items[str(m["library_item_id"])] = true
	}
	if len(items) != 2 {
		t.Errorf("the episodes are of %d podcasts, want 2: %v", len(items), v)
	}
}
