package absdata

import "bytes"

// Item is a library item (a book or a podcast) as every route that answers
// one sends it: expanded (GET /api/items/:id?expanded=1, with the user's
// progress), as Audiobookshelf keeps it (GET /api/items/:id: toOldJSON,
// with episodes' guid and enclosure, the cover's path and the library
// files), or minified in a list page.
type Item struct {
	ID        string `json:"id"`
	LibraryID string `json:"libraryId"`
	MediaType string `json:"mediaType"`
	// Path is the item's folder on the server's disk.
	Path         string        `json:"path"`
	AddedAt      int64         `json:"addedAt"`
	UpdatedAt    int64         `json:"updatedAt"`
	IsMissing    bool          `json:"isMissing"`
	IsInvalid    bool          `json:"isInvalid"`
	Size         int64         `json:"size"`
	Media        Media         `json:"media"`
	LibraryFiles []LibraryFile `json:"libraryFiles"`
	// UserMediaProgress is the user's record of the item (include=progress;
	// of the episode asked for with ?episode=), MediaProgress the one some
	// list routes add instead.
	UserMediaProgress *Progress `json:"userMediaProgress"`
	MediaProgress     *Progress `json:"mediaProgress"`
	// CollapsedSeries stands for a whole series in a page listed with
	// collapseseries.
	CollapsedSeries *CollapsedSeries `json:"collapsedSeries"`
	// RecentEpisode is the episode a podcast entry is about (items in
	// progress, the shelves of episodes).
	RecentEpisode *Episode `json:"recentEpisode"`
}

// InProgressItem is an entry of the user's items in progress (GET
// /api/me/items-in-progress, MeController.getAllLibraryItemsInProgress): a
// minified item (a podcast's with the episode in progress, RecentEpisode),
// with when the user's progress of it last moved.
type InProgressItem struct {
	Item
	ProgressLastUpdate int64 `json:"progressLastUpdate"`
}

// LibraryFile is one file of an item's folder that Audiobookshelf knows.
type LibraryFile struct {
	Ino      string `json:"ino"`
	FileType string `json:"fileType"`
}

// CollapsedSeries is a series shown once in a collapsed list page.
type CollapsedSeries struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Sequence FlexString `json:"sequence"`
	NumBooks int        `json:"numBooks"`
}

// Media is a book's or a podcast's media: its metadata, tags and what it
// is made of.
type Media struct {
	ID       string   `json:"id"`
	Metadata Metadata `json:"metadata"`
	// CoverPath is the cover's file on the server; null when it has none.
	CoverPath     Text       `json:"coverPath"`
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

// Metadata is a book's or a podcast's metadata. The texts that
// Audiobookshelf may hold as null keep null apart from "" (Text, and the
// description, LazyText): update_item_metadata and match_library_item give
// back exactly what was there.
type Metadata struct {
	Title         Text       `json:"title"`
	Subtitle      Text       `json:"subtitle"`
	Authors       []Ref      `json:"authors"`
	AuthorName    string     `json:"authorName"`
	Author        string     `json:"author"` // podcasts: one free text
	Narrators     []string   `json:"narrators"`
	NarratorName  string     `json:"narratorName"`
	Series        SeriesRefs `json:"series"`
	SeriesName    string     `json:"seriesName"`
	Genres        []string   `json:"genres"`
	PublishedYear Text       `json:"publishedYear"`
	Publisher     Text       `json:"publisher"`
	Description   LazyText   `json:"description"`
	Language      Text       `json:"language"`
	Explicit      bool       `json:"explicit"`
	Abridged      bool       `json:"abridged"`
	ISBN          Text       `json:"isbn"`
	ASIN          Text       `json:"asin"`
	ReleaseDate   string     `json:"releaseDate"`
	FeedURL       Text       `json:"feedUrl"` // podcasts
}

// Ref names an author or a series by id and name.
type Ref struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SeriesRefs is a book's series: Audiobookshelf sends a list on expanded
// items and a single object on list pages filtered by series.
type SeriesRefs []SeriesRef

// SeriesRef is a series with this book's place in it.
type SeriesRef struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Sequence Text   `json:"sequence"`
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

// Chapter is one chapter of a book or an episode.
type Chapter struct {
	ID    int     `json:"id"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Title string  `json:"title"`
}

// Episode is a podcast's episode, in its podcast's item, alone (GET
// /api/podcasts/:id/episode/:episodeId), in a playlist or in a list of
// recent episodes (with its podcast's metadata).
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
	AddedAt       int64      `json:"addedAt"`
	Duration      float64    `json:"duration"`
	// GUID and Enclosure are what the feed had: Audiobookshelf matches a
	// feed's episode to this one by either.
	GUID      *string    `json:"guid"`
	Enclosure *Enclosure `json:"enclosure"`
	AudioFile *AudioFile `json:"audioFile"`
	Chapters  []Chapter  `json:"chapters"`
	Podcast   *struct {
		Metadata Metadata `json:"metadata"`
	} `json:"podcast"`
}

// Enclosure is where a feed's episode is downloaded from.
type Enclosure struct {
	URL string `json:"url"`
}

// AudioFile is an episode's audio file: what identifies it on disk.
type AudioFile struct {
	Ino      string  `json:"ino"`
	Duration float64 `json:"duration"`
	Metadata struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
	} `json:"metadata"`
}

// Length is the episode's length in seconds: its duration, else its audio
// file's.
func (e *Episode) Length() float64 {
	if e.Duration > 0 {
		return e.Duration
	}
	if e.AudioFile != nil {
		return e.AudioFile.Duration
	}
	return 0
}
