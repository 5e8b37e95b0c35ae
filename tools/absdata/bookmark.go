package absdata

// Bookmark is a bookmark in an item. Its time is a FlexString: another
// client may have stored it as text, and that must not break decoding the
// list it is in.
type Bookmark struct {
	LibraryItemID string     `json:"libraryItemId"`
	Title         string     `json:"title"`
	Time          FlexString `json:"time"`
	CreatedAt     int64      `json:"createdAt"`
}
