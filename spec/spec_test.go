package spec

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const specFile = "audiobookshelf.yaml"

// operations lists every route the tools use: operationId → method and path.
// The three progress operations on /api/me/progress/{id} share one path
// template (OpenAPI forbids /{libraryItemId} and /{id} side by side); their
// descriptions say which id each one takes.
var operations = map[string]struct{ method, path string }{
	"getServerStatus":             {http.MethodGet, "/status"},
	"listLibraries":               {http.MethodGet, "/api/libraries"},
	"getLibrary":                  {http.MethodGet, "/api/libraries/{id}"},
	"getLibraryStats":             {http.MethodGet, "/api/libraries/{id}/stats"},
	"getLibraryFilterData":        {http.MethodGet, "/api/libraries/{id}/filterdata"},
	"listLibraryItems":            {http.MethodGet, "/api/libraries/{id}/items"},
	"searchLibrary":               {http.MethodGet, "/api/libraries/{id}/search"},
	"getPersonalizedShelves":      {http.MethodGet, "/api/libraries/{id}/personalized"},
	"listLibrarySeries":           {http.MethodGet, "/api/libraries/{id}/series"},
	"getSeries":                   {http.MethodGet, "/api/series/{id}"},
	"listLibraryAuthors":          {http.MethodGet, "/api/libraries/{id}/authors"},
	"listLibraryNarrators":        {http.MethodGet, "/api/libraries/{id}/narrators"},
	"getAuthor":                   {http.MethodGet, "/api/authors/{id}"},
	"updateAuthor":                {http.MethodPatch, "/api/authors/{id}"},
	"uploadAuthorImage":           {http.MethodPost, "/api/authors/{id}/image"},
	"updateSeries":                {http.MethodPatch, "/api/series/{id}"},
	"listTags":                    {http.MethodGet, "/api/tags"},
	"listGenres":                  {http.MethodGet, "/api/genres"},
	"renameTag":                   {http.MethodPost, "/api/tags/rename"},
	"renameGenre":                 {http.MethodPost, "/api/genres/rename"},
	"batchUpdateLibraryItems":     {http.MethodPost, "/api/items/batch/update"},
	"getLibraryItem":              {http.MethodGet, "/api/items/{id}"},
	"getPodcastEpisode":           {http.MethodGet, "/api/podcasts/{id}/episode/{episodeId}"},
	"listRecentEpisodes":          {http.MethodGet, "/api/libraries/{id}/recent-episodes"},
	"getMe":                       {http.MethodGet, "/api/me"},
	"listItemsInProgress":         {http.MethodGet, "/api/me/items-in-progress"},
	"listMediaProgress":           {http.MethodGet, "/api/me/progress"},
	"getMediaProgress":            {http.MethodGet, "/api/me/progress/{id}"},
	"getEpisodeMediaProgress":     {http.MethodGet, "/api/me/progress/{libraryItemId}/{episodeId}"},
	"getListeningStats":           {http.MethodGet, "/api/me/listening-stats"},
	"getYearStats":                {http.MethodGet, "/api/me/stats/year/{year}"},
	"listListeningSessions":       {http.MethodGet, "/api/me/listening-sessions"},
	"listAllBookmarks":            {http.MethodGet, "/api/me/bookmarks"},
	"listItemBookmarks":           {http.MethodGet, "/api/me/bookmarks/{libraryItemId}"},
	"listCollections":             {http.MethodGet, "/api/collections"},
	"listLibraryCollections":      {http.MethodGet, "/api/libraries/{id}/collections"},
	"getCollection":               {http.MethodGet, "/api/collections/{id}"},
	"listPlaylists":               {http.MethodGet, "/api/playlists"},
	"listLibraryPlaylists":        {http.MethodGet, "/api/libraries/{id}/playlists"},
	"getPlaylist":                 {http.MethodGet, "/api/playlists/{id}"},
	"updateMediaProgress":         {http.MethodPatch, "/api/me/progress/{id}"},
	"updateEpisodeMediaProgress":  {http.MethodPatch, "/api/me/progress/{libraryItemId}/{episodeId}"},
	"deleteMediaProgress":         {http.MethodDelete, "/api/me/progress/{id}"},
	"createBookmark":              {http.MethodPost, "/api/me/item/{id}/bookmark"},
	"updateBookmark":              {http.MethodPatch, "/api/me/item/{id}/bookmark"},
	"deleteBookmark":              {http.MethodDelete, "/api/me/item/{id}/bookmark/{time}"},
	"createCollection":            {http.MethodPost, "/api/collections"},
	"updateCollection":            {http.MethodPatch, "/api/collections/{id}"},
	"addBooksToCollection":        {http.MethodPost, "/api/collections/{id}/batch/add"},
	"removeBooksFromCollection":   {http.MethodPost, "/api/collections/{id}/batch/remove"},
	"deleteCollection":            {http.MethodDelete, "/api/collections/{id}"},
	"createPlaylist":              {http.MethodPost, "/api/playlists"},
	"updatePlaylist":              {http.MethodPatch, "/api/playlists/{id}"},
	"addItemsToPlaylist":          {http.MethodPost, "/api/playlists/{id}/batch/add"},
	"removeItemsFromPlaylist":     {http.MethodPost, "/api/playlists/{id}/batch/remove"},
	"deletePlaylist":              {http.MethodDelete, "/api/playlists/{id}"},
	"batchQuickMatchLibraryItems": {http.MethodPost, "/api/items/batch/quickmatch"},
	"batchGetLibraryItems":        {http.MethodPost, "/api/items/batch/get"},
	"renameNarrator":              {http.MethodPatch, "/api/libraries/{id}/narrators/{narratorId}"},
	"searchBooks":                 {http.MethodGet, "/api/search/books"},
	"searchCovers":                {http.MethodGet, "/api/search/covers"},
	"setLibraryItemCover":         {http.MethodPost, "/api/items/{id}/cover"},
	"searchChapters":              {http.MethodGet, "/api/search/chapters"},
	"updateLibraryItemChapters":   {http.MethodPost, "/api/items/{id}/chapters"},
	// podcasts toolset
	"searchPodcasts":          {http.MethodGet, "/api/search/podcast"},
	"getPodcastFeed":          {http.MethodPost, "/api/podcasts/feed"},
	"createPodcast":           {http.MethodPost, "/api/podcasts"},
	"downloadPodcastEpisodes": {http.MethodPost, "/api/podcasts/{id}/download-episodes"},
	"listEpisodeDownloads":    {http.MethodGet, "/api/libraries/{id}/episode-downloads"},
	"deletePodcastEpisode":    {http.MethodDelete, "/api/podcasts/{id}/episode/{episodeId}"},
	"deleteLibraryItem":       {http.MethodDelete, "/api/items/{id}"},
	"getFilesystemPaths":      {http.MethodGet, "/api/filesystem"},

	// listening toolset: GETs that change data (x-abs-changes-data).
	"hideSeriesFromContinueListening": {http.MethodGet, "/api/me/series/{id}/remove-from-continue-listening"},
	"readdSeriesToContinueListening":  {http.MethodGet, "/api/me/series/{id}/readd-to-continue-listening"},
}

// quirks are sentences (or their core) that must stay on the named operation.
var quirks = []struct{ operationID, substring string }{
	{"deletePodcastEpisode", "out of every playlist of every user"},
	{"deletePodcastEpisode", "a playlist left without entries is deleted"},
	{"deletePodcastEpisode", "destroys every user's media progress"},
	{"deleteLibraryItem", "a playlist left without entries is deleted"},
	{"deleteLibraryItem", "destroys every user's media"},
	{"getFilesystemPaths", "else 400"},
	{"downloadPodcastEpisodes", "does not check whether the item already has the episode"},
	{"getPodcastFeed", "Changes nothing on the server"},
	{"searchPodcasts", "answers [] after its timeout"},
	{"updateCollection", "`books` is a sort key"},
	{"updateCollection", "omitted ids move to the front"},
	{"updateCollection", "unknown ids are ignored"},
	{"updateCollection", "answers 200 even when no id is known"},
	{"updateCollection", "A non-list `books` (a string) kills the server"},
	{"updatePlaylist", `400 "Invalid playlist items. Length mismatch"`},
	{"updatePlaylist", "the name is saved anyway"},
	{"removeItemsFromPlaylist", "Removing the last playlist entry deletes the playlist but answers 200 with items []"},
	{"deleteMediaProgress", "the progress record's id, not the library item id"},
	{"createBookmark", "addressed by its time"},
	{"createBookmark", "A POST at an occupied time does not fail"},
	{"createBookmark", "replaces the title"},
	{"createBookmark", "`time` must be a JSON number"},
	{"updateBookmark", "addressed by its time"},
	{"updateBookmark", "`time` must be a JSON number"},
	{"deleteBookmark", "addressed by its time"},
	{"deleteBookmark", "Number(time)"},
	{"updateMediaProgress", `PATCH progress answers 200 with plain text "OK", not JSON`},
	{"updateEpisodeMediaProgress", `PATCH progress answers 200 with plain text "OK", not JSON`},
	{"updateMediaProgress", `{"isFinished": true} alone stores progress 1, duration 0 and finishedAt`},
	{"getMediaProgress", "without an episode id is ambiguous"},
	{"getMediaProgress", "GET routes that change data are not in this spec"},
	{"listMediaProgress", "an older server answers 404"},
	{"getLibrary", "GET routes that change data are not in this spec"},
	{"listLibraryAuthors", "The answer changes shape"},
	{"searchLibrary", `answers 400`},
	{"removeBooksFromCollection", `An empty list answers 500`},
	{"addItemsToPlaylist", "Audiobookshelf process exits"},
	{"createCollection", `400 "Invalid collection data. No books"`},
}

// plainOK are the operations whose success body is the plain text "OK".
var plainOK = []string{
	"updateMediaProgress", "updateEpisodeMediaProgress", "deleteMediaProgress",
	"deleteBookmark", "deleteCollection", "deletePlaylist",
	"downloadPodcastEpisodes",
}

// jsonErrors are the error answers Audiobookshelf sends as JSON: a
// ValidationError of utils.getQueryParamAsString ({"error": ...}).
var jsonErrors = map[string]bool{"searchPodcasts 400": true, "searchBooks 400": true, "searchBooks 404": true, "searchCovers 400": true, "searchChapters 500": true}

func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specFile)
	if err != nil {
		t.Fatalf("load %s: %v", specFile, err)
	}
	return doc
}

type located struct {
	method, path string
	op           *openapi3.Operation
}

func operationsByID(t *testing.T, doc *openapi3.T) map[string]located {
	t.Helper()
	byID := map[string]located{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
				continue
			}
			if prev, dup := byID[op.OperationID]; dup {
				t.Errorf("operationId %s on %s %s and %s %s", op.OperationID, prev.method, prev.path, method, path)
			}
			byID[op.OperationID] = located{method, path, op}
		}
	}
	return byID
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestSpecIsValid(t *testing.T) {
	doc := loadSpec(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
}

func TestOperations(t *testing.T) {
	doc := loadSpec(t)
	byID := operationsByID(t, doc)

	for id, want := range operations {
		t.Run(id, func(t *testing.T) {
			got, ok := byID[id]
			if !ok {
				t.Fatalf("operation %s missing", id)
			}
			if got.method != want.method || got.path != want.path {
				t.Errorf("%s is %s %s, want %s %s", id, got.method, got.path, want.method, want.path)
			}
			if strings.TrimSpace(got.op.Summary) == "" {
				t.Errorf("%s has no summary", id)
			}
			if strings.TrimSpace(got.op.Description) == "" {
				t.Errorf("%s has no description", id)
			}
			if got.op.Responses.Value("200") == nil {
				t.Errorf("%s documents no 200 response", id)
			}
		})
	}

	var extra []string
	for id := range byID {
		if _, ok := operations[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("operations no tool uses: %v", extra)
	}
}

// TestDescriptionsCiteController checks that each description names the
// server function (Controller.function or a named handler) it was read from.
func TestDescriptionsCiteController(t *testing.T) {
	doc := loadSpec(t)
	for id, loc := range operationsByID(t, doc) {
		d := loc.op.Description
		if !strings.Contains(d, "Controller.") && !strings.Contains(d, "Server.js") {
			t.Errorf("%s: description cites no controller function", id)
		}
	}
}

func TestSecurity(t *testing.T) {
	doc := loadSpec(t)

	scheme := doc.Components.SecuritySchemes["bearerAuth"]
	if scheme == nil || scheme.Value == nil {
		t.Fatal("components.securitySchemes.bearerAuth missing")
	}
	if scheme.Value.Type != "http" || scheme.Value.Scheme != "bearer" {
		t.Errorf("bearerAuth is %s/%s, want http/bearer", scheme.Value.Type, scheme.Value.Scheme)
	}
	if len(doc.Security) != 1 {
		t.Fatalf("global security = %v, want [bearerAuth]", doc.Security)
	}
	if _, ok := doc.Security[0]["bearerAuth"]; !ok {
		t.Errorf("global security = %v, want [bearerAuth]", doc.Security)
	}

	for id, loc := range operationsByID(t, doc) {
		if id == "getServerStatus" {
			if loc.op.Security == nil || len(*loc.op.Security) != 0 {
				t.Errorf("getServerStatus must declare security: [] (no auth)")
			}
			continue
		}
		if loc.op.Security != nil {
			t.Errorf("%s overrides the global bearer security: %v", id, *loc.op.Security)
		}
		if loc.op.Responses.Value("401") == nil {
			t.Errorf("%s documents no 401", id)
		}
	}
}

func TestQuirksOnOperations(t *testing.T) {
	doc := loadSpec(t)
	byID := operationsByID(t, doc)
	for _, q := range quirks {
		t.Run(q.operationID+"/"+q.substring, func(t *testing.T) {
			loc, ok := byID[q.operationID]
			if !ok {
				t.Fatalf("operation %s missing", q.operationID)
			}
			if !strings.Contains(normalize(loc.op.Description), q.substring) {
				t.Errorf("%s description lacks %q", q.operationID, q.substring)
			}
		})
	}
	if !strings.Contains(normalize(doc.Info.Description), "GET routes that change data are not in this spec") {
		t.Error("info.description must say that data-changing GET routes are left out")
	}
}

func TestErrorAndOKBodiesArePlainText(t *testing.T) {
	doc := loadSpec(t)
	byID := operationsByID(t, doc)
	for id, loc := range byID {
		for code, resp := range loc.op.Responses.Map() {
			if code == "200" || resp.Value == nil {
				continue
			}
			// passport's 401 "Unauthorized" carries no Content-Type.
			if code == "401" {
				if len(resp.Value.Content) != 0 {
					t.Errorf("%s 401: Audiobookshelf sends it without a Content-Type; the spec must list none", id)
				}
				continue
			}
			if jsonErrors[id+" "+code] {
				if resp.Value.Content.Get("application/json") == nil || len(resp.Value.Content) != 1 {
					t.Errorf("%s %s: Audiobookshelf answers it with JSON only", id, code)
				}
				continue
			}
			// Express: res.sendStatus(code) sends text/plain ("Not Found"),
			// res.status(code).send(sentence) text/html. Never JSON but for
			// jsonErrors.
			if resp.Value.Content.Get("text/plain") == nil {
				t.Errorf("%s %s: error body must allow text/plain", id, code)
			}
			for ct := range resp.Value.Content {
				if ct != "text/plain" && ct != "text/html" {
					t.Errorf("%s %s: error body must be text/plain or text/html, not %s", id, code, ct)
				}
			}
		}
	}
	for _, id := range plainOK {
		ok := byID[id].op.Responses.Value("200")
		if ok == nil || ok.Value.Content.Get("text/plain") == nil || ok.Value.Content.Get("application/json") != nil {
			t.Errorf("%s: 200 must be plain text", id)
		}
	}
}

// TestRequestBodiesAreTyped pins the body types that keep the server alive:
// bookmark time a number, collection books a list of strings, playlist items
// a list of {libraryItemId, episodeId?}.
func TestRequestBodiesAreTyped(t *testing.T) {
	doc := loadSpec(t)
	byID := operationsByID(t, doc)

	body := func(id string) *openapi3.Schema {
		t.Helper()
		loc := byID[id]
		if loc.op == nil || loc.op.RequestBody == nil || loc.op.RequestBody.Value == nil {
			t.Fatalf("%s has no request body", id)
		}
		mt := loc.op.RequestBody.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			t.Fatalf("%s has no JSON body schema", id)
		}
		return mt.Schema.Value
	}
	prop := func(id string, s *openapi3.Schema, name string) *openapi3.Schema {
		t.Helper()
		p := s.Properties[name]
		if p == nil || p.Value == nil {
			t.Fatalf("%s body has no %s", id, name)
		}
		return p.Value
	}

	for _, id := range []string{"createBookmark", "updateBookmark"} {
		if tm := prop(id, body(id), "time"); !tm.Type.Is("number") {
			t.Errorf("%s: time is %v, want number", id, tm.Type)
		}
	}
	for _, id := range []string{"createCollection", "updateCollection", "addBooksToCollection", "removeBooksFromCollection"} {
		books := prop(id, body(id), "books")
		if !books.Type.Is("array") || books.Items == nil || !books.Items.Value.Type.Is("string") {
			t.Errorf("%s: books must be an array of strings", id)
		}
	}
	for _, id := range []string{"createPlaylist", "updatePlaylist", "addItemsToPlaylist", "removeItemsFromPlaylist"} {
		items := prop(id, body(id), "items")
		if !items.Type.Is("array") || items.Items == nil {
			t.Fatalf("%s: items must be an array", id)
		}
		entry := items.Items.Value
		if lid := entry.Properties["libraryItemId"]; lid == nil || !lid.Value.Type.Is("string") {
			t.Errorf("%s: entries need a string libraryItemId", id)
		}
		if eid := entry.Properties["episodeId"]; eid == nil || !eid.Value.Type.Is("string") {
			t.Errorf("%s: entries need an optional string episodeId", id)
		}
		if len(entry.Required) != 1 || entry.Required[0] != "libraryItemId" {
			t.Errorf("%s: only libraryItemId may be required, got %v", id, entry.Required)
		}
	}

	deleteBookmark := byID["deleteBookmark"].op
	if p := deleteBookmark.Parameters.GetByInAndName("path", "time"); p == nil || !p.Schema.Value.Type.Is("number") {
		t.Error("deleteBookmark: path parameter time must be a number")
	}
}
