package absdata

type Bookmark struct {
	LibraryItemID string     `json:"libraryItemId"`
	Title         string     `json:"title"`
	Time          FlexString `json:"time"`
	CreatedAt     int64      `json:"createdAt"`
}
