package absdata

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
