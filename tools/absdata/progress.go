package absdata

// Progress is a user's listening progress on an item, or on one episode of
// a podcast (EpisodeID).
type Progress struct {
	ID                        string  `json:"id"`
	LibraryItemID             string  `json:"libraryItemId"`
	EpisodeID                 *string `json:"episodeId"`
	Duration                  float64 `json:"duration"`
	Progress                  float64 `json:"progress"`
	CurrentTime               float64 `json:"currentTime"`
	IsFinished                bool    `json:"isFinished"`
	HideFromContinueListening bool    `json:"hideFromContinueListening"`
	LastUpdate                int64   `json:"lastUpdate"`
	StartedAt                 int64   `json:"startedAt"`
	FinishedAt                *int64  `json:"finishedAt"`
}
