package tools

import "testing"

// A bookmark that another client created with its time as a string must
// not break decoding the list it is in (GET /api/me, the bookmark lists):
// it decodes, and shows as stored as text.
func TestBookmarkTimeDecodesNumberOrString(t *testing.T) {
	var list struct {
		Bookmarks []absBookmark `json:"bookmarks"`
	}
	body := `{"bookmarks":[{"libraryItemId":"li_1","time":7.5,"title":"a","createdAt":1},{"libraryItemId":"li_1","time":"8 s","title":"b","createdAt":2}]}`
	if err := unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if b, ok := bookmarkOf(list.Bookmarks[0]); !ok || b.TimeS != 7.5 {
		t.Errorf("first = %+v, %v; want 7.5", b, ok)
	}
	if _, ok := bookmarkOf(list.Bookmarks[1]); ok {
		t.Error("a time stored as text decoded as a number")
	}
}
