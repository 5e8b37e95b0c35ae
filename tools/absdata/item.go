package absdata

import "bytes"

type Item struct {
	ID                string    `json:"id"`
	LibraryID         string    `json:"libraryId"`
	MediaType         string    `json:"mediaType"`
	AddedAt           int64     `json:"addedAt"`
	UpdatedAt         int64     `json:"updatedAt"`
	IsMissing         bool      `json:"isMissing"`
	IsInvalid         bool      `json:"isInvalid"`
	Size              int64     `json:"size"`
	Media             Media     `json:"media"`
	UserMediaProgress *Progress `json:"userMediaProgress"`
	MediaProgress     *Progress `json:"mediaProgress"`
	CollapsedSeries   *struct {
		ID       string     `json:"id"`
		Name     string     `json:"name"`
		Sequence FlexString `json:"sequence"`
		NumBooks int        `json:"numBooks"`
	} `json:"collapsedSeries"`
	RecentEpisode *Episode `json:"recentEpisode"`
}

type Media struct {
	ID            string     `json:"id"`
	Metadata      Metadata   `json:"metadata"`
	Tags          []string   `json:"tags"`
	Duration      float64    `json:"duration"`
	NumChapters   int        `json:"numChapters"`
	NumTracks     int        `json:"numTracks"`
	NumAudioFiles int        `json:"numAudioFiles"`
	NumEpisodes   int        `json:"numEpisodes"`
	Size          int64      `json:"size"`
	Chapters      []Chapter  `json:"chapters"`
	AudioFiles    []struct{} `json:"audioFiles"` // only counted: nothing of a file is decoded
	Episodes      []Episode  `json:"episodes"`
	EbookFormat   string     `json:"ebookFormat"`
}

type Metadata struct {
	Title         string     `json:"title"`
	Subtitle      string     `json:"subtitle"`
	Authors       []Ref      `json:"authors"`
	AuthorName    string     `json:"authorName"`
	Author        string     `json:"author"` // podcasts
	Narrators     []string   `json:"narrators"`
	NarratorName  string     `json:"narratorName"`
	Series        SeriesRefs `json:"series"`
	SeriesName    string     `json:"seriesName"`
	Genres        []string   `json:"genres"`
	PublishedYear FlexString `json:"publishedYear"`
	Publisher     string     `json:"publisher"`
	Description   LazyText   `json:"description"`
	Language      string     `json:"language"`
	Explicit      bool       `json:"explicit"`
	Abridged      bool       `json:"abridged"`
	ISBN          string     `json:"isbn"`
	ASIN          string     `json:"asin"`
	ReleaseDate   string     `json:"releaseDate"`
}

type Ref struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SeriesRefs is a book's series: Audiobookshelf sends a list on expanded
// items and a single object on list pages filtered by series.
type SeriesRefs []SeriesRef

type SeriesRef struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Sequence *string `json:"sequence"`
}

func (s *SeriesRefs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*s = nil
		return nil
	}
	if b[0] == '{' {
		var one SeriesRef
		if err := Unmarshal(b, &one); err != nil {
			return err
		}
		*s = SeriesRefs{one}
		return nil
	}
	var many []SeriesRef
	if err := Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

type Chapter struct {
	ID    int     `json:"id"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Title string  `json:"title"`
}

type Episode struct {
	ID            string     `json:"id"`
	LibraryItemID string     `json:"libraryItemId"`
	Index         *int       `json:"index"`
	Season        FlexString `json:"season"`
	Episode       FlexString `json:"episode"`
	EpisodeType   string     `json:"episodeType"`
	Title         string     `json:"title"`
	Subtitle      string     `json:"subtitle"`
	Description   LazyText   `json:"description"`
	PubDate       string     `json:"pubDate"`
	PublishedAt   int64      `json:"publishedAt"`
	Duration      float64    `json:"duration"`
	AudioFile     *struct {
		Duration float64 `json:"duration"`
	} `json:"audioFile"`
	Chapters []Chapter `json:"chapters"`
	Podcast  *struct {
		Metadata Metadata `json:"metadata"`
	} `json:"podcast"`
}

func (e *Episode) Length() float64 {
	if e.Duration > 0 {
		return e.Duration
	}
	if e.AudioFile != nil {
		return e.AudioFile.Duration
	}
	return 0
}
