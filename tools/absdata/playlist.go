package absdata

// Playlist is a user's playlist with its entries expanded, in their order.
type Playlist struct {
	ID          string         `json:"id"`
	LibraryID   string         `json:"libraryId"`
	UserID      string         `json:"userId"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Items       []PlaylistItem `json:"items"`
	LastUpdate  int64          `json:"lastUpdate"`
}

// PlaylistItem is one entry of a playlist: a book, or an episode of a
// podcast.
type PlaylistItem struct {
	LibraryItemID string   `json:"libraryItemId"`
	EpisodeID     *string  `json:"episodeId"`
	LibraryItem   *Item    `json:"libraryItem"`
	Episode       *Episode `json:"episode"`
}
