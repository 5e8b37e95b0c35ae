package absdata

// Session is one listening session.
type Session struct {
	ID            string  `json:"id"`
	LibraryID     string  `json:"libraryId"`
	LibraryItemID string  `json:"libraryItemId"`
	EpisodeID     *string `json:"episodeId"`
	// Date is the local day the session started (YYYY-MM-DD), the day
	// Audiobookshelf's listening stats count it on.
	Date string `json:"date"`
	// MediaMetadata is the book's or podcast's metadata when the session
	// started (authors, narrators, genres).
	MediaMetadata *Metadata `json:"mediaMetadata"`
	MediaType     string    `json:"mediaType"`
	DisplayTitle  string    `json:"displayTitle"`
	DisplayAuthor string    `json:"displayAuthor"`
	Duration      float64   `json:"duration"`
	PlayMethod    int       `json:"playMethod"`
	MediaPlayer   string    `json:"mediaPlayer"`
	DeviceInfo    *struct {
		ClientName string `json:"clientName"`
		DeviceName string `json:"deviceName"`
	} `json:"deviceInfo"`
	TimeListening float64 `json:"timeListening"`
	StartTime     float64 `json:"startTime"`
	CurrentTime   float64 `json:"currentTime"`
	StartedAt     int64   `json:"startedAt"`
	UpdatedAt     int64   `json:"updatedAt"`
}

// ListeningStats are the user's listening stats (GET /api/me/listening-stats).
type ListeningStats struct {
	TotalTime float64 `json:"totalTime"`
	Items     map[string]struct {
		ID            string  `json:"id"`
		TimeListening float64 `json:"timeListening"`
		MediaItem     *struct {
			Metadata Metadata `json:"metadata"`
		} `json:"mediaItem"`
	} `json:"items"`
	Days           map[string]float64 `json:"days"`
	DayOfWeek      map[string]float64 `json:"dayOfWeek"`
	Today          float64            `json:"today"`
	RecentSessions []Session          `json:"recentSessions"`
}
