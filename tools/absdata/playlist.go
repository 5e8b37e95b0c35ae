package absdata

type Playlist struct {
	ID          string         `json:"id"`
	LibraryID   string         `json:"libraryId"`
	UserID      string         `json:"userId"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Items       []PlaylistItem `json:"items"`
	LastUpdate  int64          `json:"lastUpdate"`
}

type PlaylistItem struct {
	LibraryItemID string   `json:"libraryItemId"`
	EpisodeID     *string  `json:"episodeId"`
	LibraryItem   *Item    `json:"libraryItem"`
	Episode       *Episode `json:"episode"`
}
