package abs

import (
	"encoding/json"
	"io"
	"testing"
)

// These tests pin properties of the generated client that the tools rely on.
// They are written by hand; abs.gen.go is not.

const server = "http://abs.example:13378/"

func TestPathParametersAreEscaped(t *testing.T) {
	tests := []struct {
		name string
		path func() (string, error)
		want string
	}{
		{"item id with slash, space and query chars", func() (string, error) {
			req, err := NewGetLibraryItemRequest(server, "a/b c?d#e", nil)
			if err != nil {
				return "", err
			}
			return req.URL.EscapedPath(), nil
		}, "/api/items/a%2Fb%20c%3Fd%23e"},
		{"dot segments stay inside the segment", func() (string, error) {
			req, err := NewDeletePlaylistRequest(server, "../../status")
			if err != nil {
				return "", err
			}
			return req.URL.EscapedPath(), nil
		}, "/api/playlists/..%2F..%2Fstatus"},
		{"bookmark time is a plain decimal", func() (string, error) {
			req, err := NewDeleteBookmarkRequest(server, "li_1", 7.5)
			if err != nil {
				return "", err
			}
			return req.URL.EscapedPath(), nil
		}, "/api/me/item/li_1/bookmark/7.5"},
		{"whole-second bookmark time has no exponent or fraction", func() (string, error) {
			req, err := NewDeleteBookmarkRequest(server, "li_1", 3600)
			if err != nil {
				return "", err
			}
			return req.URL.EscapedPath(), nil
		}, "/api/me/item/li_1/bookmark/3600"},
		{"episode progress", func() (string, error) {
			req, err := NewGetEpisodeMediaProgressRequest(server, "li 1", "ep/2")
			if err != nil {
				return "", err
			}
			return req.URL.EscapedPath(), nil
		}, "/api/me/progress/li%201/ep%2F2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.path()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("path = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDotSegmentIDsAreNotEscaped documents a limit of the generated client:
// url.PathEscape leaves "." and "..", and url.ResolveReference then removes
// them as dot segments, so such an id changes the route. Callers must reject
// the ids "." and ".." before calling the client.
func TestDotSegmentIDsAreNotEscaped(t *testing.T) {
	req, err := NewGetLibraryItemRequest(server, "..", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.URL.EscapedPath(); got != "/api/" {
		t.Errorf("path = %q; if the generator now escapes dot segments, drop the callers' check and this test", got)
	}
}

func TestQueryParameters(t *testing.T) {
	limit, page := 20, 0
	desc := ListLibraryItemsParamsDescN1
	filter := "series.c2VyXzE="
	req, err := NewListLibraryItemsRequest(server, "lib 1", &ListLibraryItemsParams{Limit: &limit, Page: &page, Desc: &desc, Filter: &filter})
	if err != nil {
		t.Fatal(err)
	}
	q := req.URL.Query()
	for key, want := range map[string]string{"limit": "20", "page": "0", "desc": "1", "filter": filter} {
		if got := q.Get(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if got := req.URL.EscapedPath(); got != "/api/libraries/lib%201/items" {
		t.Errorf("path = %q", got)
	}
}

func TestRequestBodiesAreTyped(t *testing.T) {
	tests := []struct {
		name string
		body func() (io.Reader, error)
		want string
	}{
		{"bookmark time is a JSON number", func() (io.Reader, error) {
			req, err := NewCreateBookmarkRequest(server, "li_1", CreateBookmarkJSONRequestBody{Time: 7.5, Title: "Chapter 2"})
			if err != nil {
				return nil, err
			}
			return req.Body, nil
		}, `{"time":7.5,"title":"Chapter 2"}`},
		{"collection books is an array of strings", func() (io.Reader, error) {
			books := []string{"li_2", "li_1"}
			req, err := NewUpdateCollectionRequest(server, "col_1", UpdateCollectionJSONRequestBody{Books: &books})
			if err != nil {
				return nil, err
			}
			return req.Body, nil
		}, `{"books":["li_2","li_1"]}`},
		{"playlist items are {libraryItemId, episodeId?}", func() (io.Reader, error) {
			ep := "ep_1"
			req, err := NewAddItemsToPlaylistRequest(server, "pl_1", AddItemsToPlaylistJSONRequestBody{Items: []PlaylistItemRef{{LibraryItemId: "li_1"}, {LibraryItemId: "li_2", EpisodeId: &ep}}})
			if err != nil {
				return nil, err
			}
			return req.Body, nil
		}, `{"items":[{"libraryItemId":"li_1"},{"episodeId":"ep_1","libraryItemId":"li_2"}]}`},
		{"progress sends only the fields that are set", func() (io.Reader, error) {
			finished := true
			req, err := NewUpdateMediaProgressRequest(server, "li_1", UpdateMediaProgressJSONRequestBody{IsFinished: &finished})
			if err != nil {
				return nil, err
			}
			return req.Body, nil
		}, `{"isFinished":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.body()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("body = %s, want %s", b, tt.want)
			}
		})
	}
}

// TestBookmarkTimeDecodesNumberOrString: a bookmark that another client created
// with a string time must not break decoding of GET /api/me.
func TestBookmarkTimeDecodesNumberOrString(t *testing.T) {
	var list BookmarkList
	body := `{"bookmarks":[{"libraryItemId":"li_1","time":7.5,"title":"a","createdAt":1},{"libraryItemId":"li_1","time":"8","title":"b","createdAt":2}]}`
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if n, err := list.Bookmarks[0].Time.AsBookmarkTimeNumber(); err != nil || n != 7.5 {
		t.Errorf("first time = %v, %v; want 7.5", n, err)
	}
	if _, err := list.Bookmarks[1].Time.AsBookmarkTimeNumber(); err == nil {
		t.Error("a string time decoded as a number")
	}
	if s, err := list.Bookmarks[1].Time.AsBookmarkTimeString(); err != nil || s != "8" {
		t.Errorf("second time = %q, %v; want \"8\"", s, err)
	}
}

func TestLibraryItemMediaUnion(t *testing.T) {
	body := `{"id":"li_1","libraryId":"lib_1","mediaType":"book","numFiles":2,"extraField":1,
		"media":{"id":"b_1","metadata":{"title":"T","authors":[{"id":"a_1","name":"A"}],"series":[{"id":"s_1","name":"S","sequence":"2"}]},
		"duration":3600.5,"chapters":[{"id":0,"start":0,"end":10.5,"title":"One"}],
		"tracks":[{"index":1,"ino":"9","duration":3600.5,"title":"f.mp3","contentUrl":"/api/items/li_1/file/9","startOffset":0}]}}`
	var item LibraryItem
	if err := json.Unmarshal([]byte(body), &item); err != nil {
		t.Fatal(err)
	}
	if item.Id != "li_1" || item.MediaType != MediaTypeBook {
		t.Errorf("item = %+v", item)
	}
	if _, ok := item.AdditionalProperties["extraField"]; !ok {
		t.Error("unknown fields are not kept in AdditionalProperties")
	}
	book, err := item.Media.AsBook()
	if err != nil {
		t.Fatal(err)
	}
	if book.Duration == nil || *book.Duration != 3600.5 {
		t.Errorf("duration = %v", book.Duration)
	}
	if s := (*book.Metadata.Series)[0]; s.Sequence == nil || *s.Sequence != "2" {
		t.Errorf("series = %+v", s)
	}
	if tr := (*book.Tracks)[0]; tr.StartOffset == nil || tr.ContentUrl == nil || *tr.ContentUrl != "/api/items/li_1/file/9" {
		t.Errorf("track = %+v", tr)
	}
}
