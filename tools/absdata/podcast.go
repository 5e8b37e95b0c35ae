package absdata

// Feed is a podcast feed as Audiobookshelf fetches and parses it (POST
// /api/podcasts/feed). Each episode is kept as it came: download_podcast_
// episodes sends the chosen ones back unchanged.
type Feed struct {
	Podcast struct {
		Metadata FeedMetadata `json:"metadata"`
		Episodes []RawValue   `json:"episodes"`
	} `json:"podcast"`
}

// FeedMetadata is what a feed says of its podcast.
type FeedMetadata struct {
	Title            string   `json:"title"`
	Author           string   `json:"author"`
	Language         string   `json:"language"`
	Explicit         string   `json:"explicit"`
	Image            string   `json:"image"`
	Categories       []string `json:"categories"`
	FeedURL          string   `json:"feedUrl"`
	Description      string   `json:"description"`
	DescriptionPlain string   `json:"descriptionPlain"`
	Type             string   `json:"type"`
	Link             string   `json:"link"`
}

// FeedEpisode is one episode of a feed. It has no Audiobookshelf id until
// it is downloaded: its guid, or its enclosure's URL, is what names it.
type FeedEpisode struct {
	Title           string    `json:"title"`
	PubDate         string    `json:"pubDate"`
	Season          string    `json:"season"`
	Episode         string    `json:"episode"`
	DurationSeconds float64   `json:"durationSeconds"`
	PublishedAt     int64     `json:"publishedAt"`
	GUID            *string   `json:"guid"`
	Enclosure       Enclosure `json:"enclosure"`
	// Raw is the episode as the feed answer held it.
	Raw RawValue `json:"-"`
}

// DownloadQueue is a library's queue of episode downloads: the one running
// and those waiting.
type DownloadQueue struct {
	Current *Download  `json:"currentDownload"`
	Queue   []Download `json:"queue"`
}

// Download is one episode download, running or queued.
type Download struct {
	ID            string  `json:"id"`
	Title         *string `json:"episodeDisplayTitle"`
	URL           string  `json:"url"`
	LibraryItemID string  `json:"libraryItemId"`
	GUID          *string `json:"guid"`
	PublishedAt   *int64  `json:"publishedAt"`
	StartedAt     *int64  `json:"startedAt"`
	CreatedAt     *int64  `json:"createdAt"`
	PodcastTitle  *string `json:"podcastTitle"`
}

// PodcastSearchResult is one podcast iTunes found (GET /api/search/podcast).
type PodcastSearchResult struct {
	ID         int64    `json:"id"`
	Title      string   `json:"title"`
	ArtistName string   `json:"artistName"`
	FeedURL    string   `json:"feedUrl"`
	TrackCount int      `json:"trackCount"`
	Genres     []string `json:"genres"`
	Explicit   bool     `json:"explicit"`
}
